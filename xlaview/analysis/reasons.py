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
# Who decides when several apply, first first (the reasoning is in
# `xlaview.analysis.boundaries.explain`). A layout change has two places: at
# the producer it outranks a multi-pass read, anywhere else it does not.
RANKED = (
    "output",
    "collective",
    "control-flow",
    "layout-change/producer",
    "multi-pass",
    "library-call",
    "layout-change/other",
    "shared-read",
    "other",
)
PRECEDENCE = tuple(rank.partition("/")[0] for rank in RANKED)
RANK = {rank: place for place, rank in enumerate(RANKED, start=1)}
