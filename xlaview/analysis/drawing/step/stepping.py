"""The incremental pass step itself: the previous layout of a computation
and its new graph give a layout where what the pass did not touch stays in
place.

The pipeline: match the new graph against the previous layout (matching.py:
kept, changed, new, removed, near a change); give new and changed nodes
layers between their operands and users, moving nearby kept nodes only to
open a layer that is needed (relayering.py); place them at the free x
nearest to their neighbours (slotting.py); keep the routes of edges whose
ends did not move and route the others (rerouting.py). Layers keep their y:
a removed node leaves a gap, a layer left empty stays. Whether to keep the
step or lay out afresh is incremental.py's call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xlaview.analysis.drawing.quality import crossings_in
from xlaview.analysis.drawing.records import (
    EdgeRoute,
    GraphLayout,
    LayoutNode,
    LayoutStep,
    ProgressFn,
)
from xlaview.analysis.drawing.step.matching import KEPT, NEW, StepMatch
from xlaview.analysis.drawing.step.relayering import relayer
from xlaview.analysis.drawing.step.rerouting import Routes, reroute
from xlaview.analysis.drawing.step.slotting import place_nodes

# How far a node must move to count as moved (scene units).
MOVE_TOLERANCE = 0.5
# Places of removed or moved nodes remembered, as a multiple of the node count.
FORMER_PLACES_PER_NODE = 2


def step_from(
    previous: GraphLayout,
    nodes: Sequence[LayoutNode],
    match: StepMatch,
    long_edge_layers: int,
    layer_gap: float,
    node_gap: float,
    report: ProgressFn,
) -> LayoutStep:
    """The incremental layout of ``nodes`` from ``previous`` (see the module
    doc); ``match`` relates them."""
    n = len(nodes)
    order, preds, succs = match.order, match.preds, match.succs
    former = previous.former_places
    report(0.2)
    layer, movable = relayer(match, previous.layers, former)
    report(0.4)
    xs, bands = place_nodes(
        match,
        nodes,
        layer,
        movable,
        previous.layers,
        previous.positions,
        former,
        order,
        preds,
        succs,
        node_gap,
        long_edge_layers,
    )
    report(0.6)
    layer_y = _layer_centres(previous, nodes, layer, layer_gap)
    old_positions = previous.positions
    unmoved = bytearray(n)
    for v, key in enumerate(match.old_key):
        if key is not None:
            x, y = old_positions[key]
            unmoved[v] = (
                abs(x - xs[v]) <= MOVE_TOLERANCE and abs(y - layer_y[layer[v]]) <= MOVE_TOLERANCE
            )
    dirty = {layer[v] for v in range(n) if match.status[v] != KEPT or not unmoved[v]}
    # Routes are kept by key: a renamed node's routes are made anew.
    same = (
        unmoved
        if match.keys is match.named
        else bytearray(
            still and key == old
            for still, key, old in zip(unmoved, match.keys, match.old_key, strict=False)
        )
    )
    routes = reroute(
        match, nodes, same, layer, xs, layer_y, bands, dirty, long_edge_layers, layer_gap / 2
    )
    report(0.9)
    layout = _assemble(
        match,
        nodes,
        layer,
        xs,
        layer_y,
        routes,
        previous,
        unmoved,
        _former_places(match, previous, unmoved, layer, xs, n),
        long_edge_layers,
    )
    report(1.0)
    return LayoutStep(
        layout,
        fresh=False,
        reason="",
        added=tuple(match.keys[v] for v in range(n) if match.status[v] == NEW),
        removed=tuple(match.removed),
        moved=tuple(
            match.keys[v] for v in range(n) if match.old_key[v] is not None and not unmoved[v]
        ),
        renamed={
            key: old
            for key, old in zip(match.keys, match.old_key, strict=False)
            if old is not None and old != key
        },
        upward=routes.upward,
    )


def moved(a: tuple[float, float], b: tuple[float, float]) -> bool:
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
    long_edge_layers: int,
) -> GraphLayout:
    keys = match.keys
    right = max(x + node.width / 2 for x, node in zip(xs, nodes, strict=False))
    # Kept routes lie within the previous width; they can only widen the
    # picture when what used to reach further right is gone.
    for route, kept in zip(routes.routes, routes.kept, strict=False):
        if (right < previous.width or not kept) and len(route.points) > 2 and not route.stub:
            right = max(right, *(x for x, _ in route.points[1:-1]))
    layers = dict(zip(keys, layer, strict=False))
    # The previous tuples where nothing changed: fewer new objects for the
    # garbage collector to visit (in a GUI process full of them, that shows).
    old_positions, old_sizes = previous.positions, previous.sizes
    positions = {}
    for key, old, x, level, still in zip(keys, match.old_key, xs, layer, unmoved, strict=False):
        positions[key] = old_positions[old] if still and old is not None else (x, layer_y[level])
    sizes = {}
    for node, old in zip(nodes, match.old_key, strict=False):
        size = old_sizes.get(old) if old is not None else None
        if size is None or size != (node.width, node.height):
            size = (node.width, node.height)
        sizes[node.key] = size
    return GraphLayout(
        positions=positions,
        layers=layers,
        edges=routes.routes,
        width=right,
        height=max(
            layer_y[level] + node.height / 2 for level, node in zip(layer, nodes, strict=False)
        ),
        crossings=_crossings(previous, match, routes, layers, long_edge_layers),
        dummy_count=routes.waypoints,
        layer_y=tuple(layer_y),
        sizes=sizes,
        former_places=former,
        reference=previous.reference,
    )


def _crossings(
    previous: GraphLayout,
    match: StepMatch,
    routes: Routes,
    layers: dict[str, int],
    long_edge_layers: int,
) -> int:
    """The previous count, recounted only between the layers where a route
    changed: most of a big graph is untouched by a pass."""
    gaps: set[int] = set()

    def add(route: EdgeRoute, levels: Mapping[str, int]) -> None:
        if not route.stub:
            level = levels[route.source]
            gaps.update(range(level, level + len(route.points) - 1))

    for route in match.lost_routes:
        add(route, previous.layers)
    for i, kept in enumerate(routes.kept):
        if not kept:
            add(routes.routes[i], layers)
            old = match.old_route[i]
            if old is not None:
                add(old, previous.layers)
    if not gaps:
        return previous.crossings
    span = long_edge_layers + 1
    return (
        previous.crossings
        - crossings_in(previous.edges, previous.layers, gaps, span)
        + crossings_in(routes.routes, layers, gaps, span)
    )
