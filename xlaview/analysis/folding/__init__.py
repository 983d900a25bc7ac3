"""Folding a computation's drawn graph (pure Python, no Qt): nested boxes by
``op_name`` scope (`scopes`), runs of repeated blocks where scopes are flat
or absent (`repeats`), the group tree (`tree`), a pass step's tree made from
the one shown (`patch`), and what to draw for a set of open groups (`view`).

Modules of this room import each other directly, never this facade; code
outside imports the names below from here.

>>> folding = fold_graph(build_graph(module, comp), comp)
>>> shown = folded_view(folding, default_open(folding))
"""

from __future__ import annotations

from xlaview.analysis.folding.drawn import (
    GROUP_KEY,
    Frame,
    box_order,
    bundle_bytes,
    find_group,
    first_open,
    folded_graph,
    group_key,
    group_marking,
    group_marks,
    group_paths,
    open_by_paths,
    open_frames,
    shown_groups,
)
from xlaview.analysis.folding.patch import crowded, patched
from xlaview.analysis.folding.scopes import APART, TOGETHER, Phases, scope_path
from xlaview.analysis.folding.tree import Folding, Group, GroupKind, fold_graph
from xlaview.analysis.folding.view import (
    FOLDED_BOXES,
    SMALL_GRAPH_NODES,
    Box,
    BundledEdge,
    FoldedView,
    aggregate,
    default_open,
    folded_view,
)
from xlaview.analysis.groupings import GROUPINGS, Grouping

__all__ = [
    "APART", "FOLDED_BOXES", "GROUPINGS", "GROUP_KEY", "SMALL_GRAPH_NODES", "TOGETHER", "Box",
    "BundledEdge", "FoldedView", "Folding", "Frame", "Group", "GroupKind", "Grouping", "Phases",
    "aggregate", "box_order", "bundle_bytes", "crowded", "default_open", "find_group", "first_open",
    "fold_graph", "folded_graph", "folded_view", "group_key", "group_marking", "group_marks",
    "group_paths",
    "open_by_paths", "open_frames", "patched", "scope_path", "shown_groups",
]  # fmt: skip
