"""The reasons a boundary can have (`xlaview.analysis.boundaries.explain` explains
each), in a module of their own: the command line lists them without importing
the analysis."""

# The fixed list, in the order the issue names them.
REASONS = (
    "multi-pass",
    "library-call",
    "layout-change",
    "shared-read",
    "collective",
    "control-flow",
    "output",
    "other",
)
# Who decides when several apply (layout-change has two places: see boundaries).
PRECEDENCE = (
    "output",
    "collective",
    "control-flow",
    "layout-change",
    "multi-pass",
    "library-call",
    "layout-change",
    "shared-read",
    "other",
)
