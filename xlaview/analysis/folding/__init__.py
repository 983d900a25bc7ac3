"""Folding a computation's drawn graph (pure Python, no Qt): nested boxes by
``op_name`` scope (`scopes`), runs of repeated blocks where scopes are flat
or absent (`repeats`), the group tree (`tree`), and what to draw for a set
of open groups (`view`).

Modules of this room import each other directly, never this facade; code
outside imports the names below from here.

>>> folding = fold_graph(build_graph(module, comp), comp)
>>> shown = folded_view(folding, default_open(folding))
"""

from __future__ import annotations

from xlaview.analysis.folding.scopes import APART, TOGETHER, Phases, scope_path
from xlaview.analysis.folding.tree import (
    GROUPINGS,
    Folding,
    Group,
    Grouping,
    GroupKind,
    fold_graph,
)
from xlaview.analysis.folding.view import (
    Box,
    BundledEdge,
    FoldedView,
    aggregate,
    default_open,
    folded_view,
)

__all__ = [
    "APART", "GROUPINGS", "TOGETHER", "Box", "BundledEdge", "FoldedView", "Folding", "Group",
    "GroupKind", "Grouping", "Phases", "aggregate", "default_open", "fold_graph", "folded_view",
    "scope_path",
]  # fmt: skip
