"""One pass step of a layout: the previous layout of a computation and its
new graph give a layout where what the pass did not touch stays in place.

The pipeline: match the new graph against the previous layout (matching.py:
kept, changed, new, removed, near a change); give new and changed nodes
layers between their operands and users, moving nearby kept nodes only to
open a layer that is needed (relayering.py); place them at the free x
nearest to their neighbours (slotting.py); keep the routes of edges whose
ends did not move and route the others (rerouting.py). Layers keep their y:
a removed node leaves a gap, a layer left empty stays.

When the pass rebuilt the computation (the fusion pass keeps a fifth of the
nodes) or too many edges would have to point up, the step lays the graph
out afresh and says why, which the GUI shows in the status bar.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from xlaview.analysis.layout.layered import layered_layout
from xlaview.analysis.layout.matching import KEPT, NEW, StepMatch, match_step
from xlaview.analysis.layout.model import (
    GraphLayout,
    LayoutNode,
    ProgressFn,
    ignore_progress,
    scaled,
)
from xlaview.analysis.layout.quality import crossings_in, edge_length
from xlaview.analysis.layout.relayering import relayer
from xlaview.analysis.layout.rerouting import Routes, reroute
from xlaview.analysis.layout.slotting import place_nodes

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
# Edges a step may leave pointing up before a fresh layout is better: a few,
# or a small share of the edges.
MAX_UPWARD = 12
MAX_UPWARD_SHARE = 0.002
# How far a node must move to count as moved (scene units).
MOVE_TOLERANCE = 0.5
# Places of removed or moved nodes remembered, as a multiple of the node count.
FORMER_PLACES_PER_NODE = 2


@dataclass(frozen=True, slots=True)
class LayoutStep:
    """The layout of a pass step and what the step did to the picture.

    ``fresh``: laid out from scratch; ``reason`` says why when a previous
    layout was given but not kept (for the status bar), and is empty
    otherwise. ``added``/``removed``: node keys new in this layout / gone
    from the previous one; ``moved``: keys in both whose centre moved;
    ``upward``: edges an incremental step left pointing up (drawn as stubs).
    """

    layout: GraphLayout
    fresh: bool
    reason: str
    added: tuple[str, ...]
    removed: tuple[str, ...]
    moved: tuple[str, ...]
    upward: int = 0


def relayout(
    previous: GraphLayout | None,
    nodes: Sequence[LayoutNode],
    edges: Sequence[tuple[str, str]],
    *,
    renamed: Mapping[str, str] | None = None,
    changed: Collection[str] = (),
    unit_of: Callable[[str], str] | None = None,
    long_edge_layers: int = 8,
    layer_gap: float = 60.0,
    node_gap: float = 24.0,
    progress: ProgressFn | None = None,
) -> LayoutStep:
    """Lay out ``nodes``/``edges`` (as for ``layered_layout``) starting from
    ``previous``, the layout of an earlier or later version of the same
    computation, so that nodes the change did not touch keep their place.

    A node is kept when ``previous`` has its key, or the key ``renamed``
    maps it to, with the same size and the same operands (in order); keys in
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
    is its own. ``progress`` reports and cancels as for ``layered_layout``;
    the same input gives the same layout.
    """
    report = progress or ignore_progress
    report(0.0)
    names = renamed or {}
    if previous is None or not previous.positions or not nodes:
        return _fresh(previous, nodes, edges, names, "", long_edge_layers, layer_gap, node_gap,
                      report)
    match = match_step(previous, nodes, edges, names, changed)
    n = len(nodes)
    unit = unit_of or _itself
    changes = len({unit(match.keys[v]) for v in range(n) if match.status[v] != KEPT}
                  | {unit(key) for key in match.removed})
    if match.kept < MIN_KEPT_SHARE * n:
        reason = f"{n - match.kept:,} of {n:,} nodes changed: laid out afresh"
        return _fresh(previous, nodes, edges, names, reason, long_edge_layers, layer_gap,
                      node_gap, report)
    small = changes <= max(SMALL_CHANGE, SMALL_CHANGE_SHARE * n)
    step = _step(previous, nodes, match, long_edge_layers, layer_gap, node_gap,
                 scaled(report, 0.0, 1.0 if small else 0.3))
    if small:
        return step
    fresh = _fresh(previous, nodes, edges, names, "", long_edge_layers, layer_gap, node_gap,
                   scaled(report, 0.3, 0.95))
    worse = _worse(step, fresh.layout)
    if worse:
        return replace(fresh, reason=f"kept in place, {worse}: laid out afresh")
    report(1.0)
    return step


def _worse(step: LayoutStep, fresh: GraphLayout) -> str:
    """How the step's layout is clearly worse than ``fresh`` ("" if not)."""
    ours, theirs = step.layout, fresh
    edges = len({id(route) for route in fresh.edges})
    if step.upward > max(MAX_UPWARD, MAX_UPWARD_SHARE * edges):
        return f"{step.upward:,} edges would point up"
    slack = CROSSINGS_SLACK + CROSSINGS_SLACK_PER_EDGE * edges
    if ours.crossings > CROSSINGS_FACTOR * theirs.crossings + slack:
        return f"the graph would have {ours.crossings:,} edge crossings instead of {theirs.crossings:,}"
    length, fresh_length = edge_length(ours), edge_length(theirs)
    if length > LENGTH_FACTOR * fresh_length:
        return f"its edges would be {length / fresh_length - 1:.0%} longer"
    if ours.width > WIDTH_FACTOR * theirs.width:
        return f"the graph would be {ours.width / theirs.width - 1:.0%} wider"
    return ""


def _step(
    previous: GraphLayout,
    nodes: Sequence[LayoutNode],
    match: StepMatch,
    long_edge_layers: int,
    layer_gap: float,
    node_gap: float,
    report: ProgressFn,
) -> LayoutStep:
    """The incremental layout (see the module doc)."""
    n = len(nodes)
    order, preds, succs = match.order, match.preds, match.succs
    former = previous.former_places
    report(0.2)
    layer, movable = relayer(match, previous.layers, former)
    report(0.4)
    xs, bands = place_nodes(match, nodes, layer, movable, previous.layers, previous.positions,
                            former, order, preds, succs, node_gap, long_edge_layers)
    report(0.6)
    layer_y = _layer_centres(previous, nodes, layer, layer_gap)
    old_positions = previous.positions
    unmoved = bytearray(n)
    for v, key in enumerate(match.old_key):
        if key is not None:
            x, y = old_positions[key]
            unmoved[v] = (abs(x - xs[v]) <= MOVE_TOLERANCE
                          and abs(y - layer_y[layer[v]]) <= MOVE_TOLERANCE)
    dirty = {layer[v] for v in range(n) if match.status[v] != KEPT or not unmoved[v]}
    # Routes are kept by key: a renamed node's routes are made anew.
    same = unmoved if match.keys is match.named else bytearray(
        still and key == old for still, key, old in zip(unmoved, match.keys, match.old_key))
    routes = reroute(match, nodes, same, layer, xs, layer_y, bands, dirty, long_edge_layers,
                     layer_gap / 2)
    report(0.9)
    layout = _assemble(match, nodes, layer, xs, layer_y, routes, previous, unmoved,
                       _former_places(match, previous, unmoved, layer, xs, n))
    report(1.0)
    return LayoutStep(
        layout,
        fresh=False,
        reason="",
        added=tuple(match.keys[v] for v in range(n) if match.status[v] == NEW),
        removed=tuple(match.removed),
        moved=tuple(match.keys[v] for v in range(n)
                    if match.old_key[v] is not None and not unmoved[v]),
        upward=routes.upward,
    )


def _itself(key: str) -> str:
    return key


def _moved(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return abs(a[0] - b[0]) > MOVE_TOLERANCE or abs(a[1] - b[1]) > MOVE_TOLERANCE


def _layer_centres(
    previous: GraphLayout, nodes: Sequence[LayoutNode], layer: list[int], layer_gap: float
) -> list[float]:
    """The previous layers keep their y; layers added below stack under them,
    each as tall as its tallest node."""
    count = max(layer) + 1
    centres = list(previous.layer_y[:count])
    if len(centres) == count:
        return centres
    heights = [0.0] * count
    for v, node in enumerate(nodes):
        heights[layer[v]] = max(heights[layer[v]], node.height)
    if centres:
        old_heights = [0.0] * len(centres)
        for key, level in previous.layers.items():
            if level < len(centres):
                size = previous.sizes.get(key)
                old_heights[level] = max(old_heights[level], size[1] if size else 0.0)
        bottom = centres[-1] + max(old_heights[-1], heights[len(centres) - 1]) / 2
    else:
        bottom = -layer_gap
    for level in range(len(centres), count):
        centres.append(bottom + layer_gap + heights[level] / 2)
        bottom = centres[-1] + heights[level] / 2
    return centres


def _former_places(
    match: StepMatch,
    previous: GraphLayout,
    unmoved: bytearray,
    layer: list[int],
    xs: list[float],
    n: int,
) -> dict[str, tuple[int, float]]:
    """Where removed and moved nodes stood, kept for the next steps (a node
    back in its former place, or kept by a step, forgets it)."""
    former = dict(previous.former_places)
    for v in range(n):
        key = match.keys[v]
        if match.status[v] == KEPT and unmoved[v]:
            former.pop(key, None)
        elif key in former and former[key] == (layer[v], xs[v]):
            del former[key]
    for v, old in enumerate(match.old_key):
        if old is not None and not unmoved[v]:
            former[match.keys[v]] = (previous.layers[old], previous.positions[old][0])
    for key in match.removed:
        former.pop(key, None)  # latest first, for the size cap below
        former[key] = (previous.layers[key], previous.positions[key][0])
    excess = len(former) - FORMER_PLACES_PER_NODE * max(n, 1)
    if excess > 0:
        for key in list(former)[:excess]:
            del former[key]
    return former


def _assemble(
    match: StepMatch,
    nodes: Sequence[LayoutNode],
    layer: list[int],
    xs: list[float],
    layer_y: list[float],
    routes: Routes,
    previous: GraphLayout,
    unmoved: bytearray,
    former: dict[str, tuple[int, float]],
) -> GraphLayout:
    keys = match.keys
    right = max(x + node.width / 2 for x, node in zip(xs, nodes))
    # Kept routes lie within the previous width; they can only widen the
    # picture when what used to reach further right is gone.
    for route, kept in zip(routes.routes, routes.kept):
        if (right < previous.width or not kept) and len(route.points) > 2 and not route.stub:
            right = max(right, *(x for x, _ in route.points[1:-1]))
    layers = dict(zip(keys, layer))
    # The previous tuples where nothing changed: fewer new objects for the
    # garbage collector to visit (in a GUI process full of them, that shows).
    old_positions, old_sizes = previous.positions, previous.sizes
    positions = {}
    for key, old, x, level, still in zip(keys, match.old_key, xs, layer, unmoved):
        positions[key] = old_positions[old] if still and old is not None else (x, layer_y[level])
    sizes = {}
    for node, old in zip(nodes, match.old_key):
        size = old_sizes.get(old) if old is not None else None
        if size is None or size != (node.width, node.height):
            size = (node.width, node.height)
        sizes[node.key] = size
    return GraphLayout(
        positions=positions,
        layers=layers,
        edges=routes.routes,
        width=right,
        height=max(layer_y[level] + node.height / 2 for level, node in zip(layer, nodes)),
        crossings=_crossings(previous, routes, layers),
        dummy_count=routes.waypoints,
        layer_y=tuple(layer_y),
        sizes=sizes,
        former_places=former,
    )


def _crossings(previous: GraphLayout, routes: Routes, layers: dict[str, int]) -> int:
    """The previous count, recounted only between the layers where a route
    changed: most of a big graph is untouched by a pass."""
    kept = {id(route) for route, still in zip(routes.routes, routes.kept) if still}
    gaps: set[int] = set()
    for edges, levels in ((previous.edges, previous.layers), (routes.routes, layers)):
        for route in edges:
            if not route.stub and id(route) not in kept:
                level = levels[route.source]
                gaps.update(range(level, level + len(route.points) - 1))
    if not gaps:
        return previous.crossings
    return (previous.crossings - crossings_in(previous.edges, previous.layers, gaps)
            + crossings_in(routes.routes, layers, gaps))


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
) -> LayoutStep:
    """A fresh layout, and what changed from ``previous``."""
    # No pull towards the previous x: the same pass opened directly gets the
    # same picture, and a fresh layout is chosen when keeping was worse.
    layout = layered_layout(nodes, edges, long_edge_layers=long_edge_layers,
                            layer_gap=layer_gap, node_gap=node_gap, progress=report)
    old = previous.positions if previous else {}
    known = {renamed.get(node.key, node.key) for node in nodes}
    moved = tuple(
        node.key for node in nodes if renamed.get(node.key, node.key) in old
        and _moved(layout.positions[node.key], old[renamed.get(node.key, node.key)])
    )
    return LayoutStep(
        layout,
        fresh=True,
        reason=reason,
        added=tuple(node.key for node in nodes if renamed.get(node.key, node.key) not in old),
        removed=tuple(key for key in old if key not in known),
        moved=moved,
    )
