"""Whether a pass step keeps the picture or lays the graph out afresh.

``relayout`` takes the previous layout of a computation and its new graph.
A small change (a few instructions) is always laid out incrementally
(stepping.py): what the pass did not touch stays where it was. A larger one
is also laid out afresh, and the fresh layout wins when keeping things in
place would leave the picture clearly worse (more crossings, longer edges,
wider, edges pointing up); when the pass rebuilt the computation (the fusion
pass keeps a fifth of the nodes) there is nothing to keep. On a big graph a
step as good as the fresh layout it descends from (per edge) is kept without
laying out afresh to compare. A fresh layout says why, which the GUI shows in
the status bar.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from xlaview.analysis.drawing.layered.pipeline import layered_layout
from xlaview.analysis.drawing.quality import edge_length
from xlaview.analysis.drawing.records import (
    GraphLayout,
    LayoutNode,
    LayoutStep,
    ProgressFn,
    ignore_progress,
    scaled,
)
from xlaview.analysis.drawing.step.matching import KEPT, match_step
from xlaview.analysis.drawing.step.stepping import moved, step_from

# Below this share of kept nodes there is too little to keep: lay out afresh.
MIN_KEPT_SHARE = 0.5
# A step changing at most this many units (or this share of the nodes) is
# always incremental: the picture must hold still when a pass touches a few
# instructions.
SMALL_CHANGE = 25
SMALL_CHANGE_SHARE = 0.02
# A larger step is also laid out afresh, and the fresh layout wins when the
# incremental one is worse by more than these margins.
CROSSINGS_FACTOR = 1.5
CROSSINGS_SLACK = 10
CROSSINGS_SLACK_PER_EDGE = 0.005
LENGTH_FACTOR = 1.25
WIDTH_FACTOR = 1.5
# From this many nodes a fresh layout takes a second or more: a step as good
# as the fresh layout it descends from is kept without one to weigh it against.
BIG_GRAPH = 3000
# Edges a step may leave pointing up before a fresh layout is better: a few,
# or a small share of the edges.
MAX_UPWARD = 12
MAX_UPWARD_SHARE = 0.002


def relayout(
    previous: GraphLayout | None,
    nodes: Sequence[LayoutNode],
    edges: Sequence[tuple[str, str]],
    *,
    renamed: Mapping[str, str] | None = None,
    changed: Collection[str] = (),
    unit_of: Callable[[str], str] | None = None,
    keep_order: Mapping[str, float] | None = None,
    long_edge_layers: int = 8,
    layer_gap: float = 60.0,
    node_gap: float = 24.0,
    progress: ProgressFn | None = None,
) -> LayoutStep:
    """Lay out ``nodes``/``edges`` (as for ``layered_layout``) starting from
    ``previous``, the layout of an earlier or later version of the same
    computation, so that nodes the change did not touch keep their place.

    A node is kept when ``previous`` has its key, or the key ``renamed``
    maps it to, with the same size and the same operands (in any order); keys in
    ``changed`` count as changed whatever they look like. Kept nodes more
    than two edges from a change never move; nearer ones move only to open a
    layer an inserted node needs. New nodes go between their operands and
    users, at the free spot nearest to them.

    A fresh layout (``fresh`` set; the same as ``layered_layout`` gives)
    replaces the step when there is no ``previous``, when the change leaves
    less than half the nodes kept, or when a larger change would leave the
    picture clearly worse than a fresh one (edge crossings, total edge
    length, width, edges pointing up); ``reason`` then says why. A change is
    small, and always kept incremental, when it touches at most 25 units (or
    2 % of the nodes): ``unit_of(key)`` names the unit of a new, changed or
    removed node (the graph view counts instructions); by default each node
    is its own. ``keep_order``: the left-to-right order a fresh layout keeps
    in each layer (``layered_layout``'s). ``progress`` reports and cancels as
    for ``layered_layout``; the same input gives the same layout.
    """
    report = progress or ignore_progress
    report(0.0)
    names = renamed or {}
    if previous is None or not previous.positions or not nodes:
        return _fresh(
            previous, nodes, edges, names, "", long_edge_layers, layer_gap, node_gap, report,
            keep_order,
        )  # fmt: skip
    match = match_step(previous, nodes, edges, names, changed)
    n = len(nodes)
    unit = unit_of or _itself
    changes = len(
        {unit(match.keys[v]) for v in range(n) if match.status[v] != KEPT}
        | {unit(key) for key in match.removed}
    )
    if match.kept < MIN_KEPT_SHARE * n:
        reason = f"{n - match.kept:,} of {n:,} nodes changed: laid out afresh"
        return _fresh(
            previous, nodes, edges, names, reason, long_edge_layers, layer_gap, node_gap, report,
            keep_order,
        )  # fmt: skip
    small = changes <= max(SMALL_CHANGE, SMALL_CHANGE_SHARE * n)
    step = step_from(
        previous,
        nodes,
        match,
        long_edge_layers,
        layer_gap,
        node_gap,
        scaled(report, 0.0, 1.0 if small else 0.3),
    )
    if small or _unmoved(step, len(edges), n) or n >= BIG_GRAPH and _as_good(step):
        return step
    fresh = _fresh(
        previous,
        nodes,
        edges,
        names,
        "",
        long_edge_layers,
        layer_gap,
        node_gap,
        scaled(report, 0.3, 0.95),
        keep_order,
    )
    worse = _worse(step, fresh.layout)
    if worse:
        return replace(fresh, reason=f"kept in place, {worse}: laid out afresh")
    report(1.0)
    return step


def _unmoved(step: LayoutStep, edges: int, n: int) -> bool:
    """Whether a step changed many instructions but hardly the picture (their
    attributes or layouts, say): a few boxes moved, added or removed, and
    hardly any edge pointing up. The picture shown is kept, with no fresh
    layout to weigh it against (on a 19,000-node entry that takes a second)."""
    touched = len(step.moved) + len(step.added) + len(step.removed)
    return touched <= max(SMALL_CHANGE, SMALL_CHANGE_SHARE * n) and step.upward <= max(
        MAX_UPWARD, MAX_UPWARD_SHARE * edges
    )


def _as_good(step: LayoutStep) -> bool:
    """Whether a step's layout is as good as the fresh layout it descends from
    (per edge, within the margins `_worse` weighs a fresh one by): on a big
    graph no fresh layout is then made to weigh it against (a second on a
    19,000-node entry). One that drifted further is weighed, and a fresh
    layout resets the reference."""
    ours = step.layout
    if ours.reference is None:
        return False
    crossings, length, width = ours.reference
    edges = _distinct_edges(ours)
    slack = CROSSINGS_SLACK + CROSSINGS_SLACK_PER_EDGE * edges
    return (
        step.upward <= max(MAX_UPWARD, MAX_UPWARD_SHARE * edges)
        and ours.crossings <= CROSSINGS_FACTOR * crossings * edges + slack
        and edge_length(ours) <= LENGTH_FACTOR * length * edges
        and ours.width <= WIDTH_FACTOR * width
    )


def _reference(layout: GraphLayout) -> tuple[float, float, float]:
    edges = max(1, _distinct_edges(layout))
    return (layout.crossings / edges, edge_length(layout) / edges, layout.width)


def _distinct_edges(layout: GraphLayout) -> int:
    """Edges drawn: duplicate edges (an operand used twice) share one route."""
    return len({id(route) for route in layout.edges})


def _worse(step: LayoutStep, fresh: GraphLayout) -> str:
    """How the step's layout is clearly worse than ``fresh`` ("" if not)."""
    ours, theirs = step.layout, fresh
    edges = _distinct_edges(fresh)
    if step.upward > max(MAX_UPWARD, MAX_UPWARD_SHARE * edges):
        return f"{step.upward:,} edges would point up"
    slack = CROSSINGS_SLACK + CROSSINGS_SLACK_PER_EDGE * edges
    if ours.crossings > CROSSINGS_FACTOR * theirs.crossings + slack:
        return (
            f"the graph would have {ours.crossings:,} edge crossings instead of "
            f"{theirs.crossings:,}"
        )
    length, fresh_length = edge_length(ours), edge_length(theirs)
    if length > LENGTH_FACTOR * fresh_length:
        return f"its edges would be {length / fresh_length - 1:.0%} longer"
    if ours.width > WIDTH_FACTOR * theirs.width:
        return f"the graph would be {ours.width / theirs.width - 1:.0%} wider"
    return ""


def _itself(key: str) -> str:
    return key


def _fresh(
    previous: GraphLayout | None,
    nodes: Sequence[LayoutNode],
    edges: Sequence[tuple[str, str]],
    renamed: Mapping[str, str],
    reason: str,
    long_edge_layers: int,
    layer_gap: float,
    node_gap: float,
    report: ProgressFn,
    keep_order: Mapping[str, float] | None = None,
) -> LayoutStep:
    """A fresh layout, and what changed from ``previous``."""
    # No pull towards the previous x: the same pass opened directly gets the
    # same picture, and a fresh layout is chosen when keeping was worse.
    layout = layered_layout(
        nodes,
        edges,
        long_edge_layers=long_edge_layers,
        layer_gap=layer_gap,
        node_gap=node_gap,
        keep_order=keep_order,
        progress=report,
    )
    layout = replace(layout, reference=_reference(layout))
    old = previous.positions if previous else {}
    known = {renamed.get(node.key, node.key) for node in nodes}
    shifted = tuple(
        node.key
        for node in nodes
        if renamed.get(node.key, node.key) in old
        and moved(layout.positions[node.key], old[renamed.get(node.key, node.key)])
    )
    return LayoutStep(
        layout,
        fresh=True,
        reason=reason,
        added=tuple(node.key for node in nodes if renamed.get(node.key, node.key) not in old),
        removed=tuple(key for key in old if key not in known),
        moved=shifted,
        renamed={new: was for new, was in renamed.items() if was in old and new != was},
    )
