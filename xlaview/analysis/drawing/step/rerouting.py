"""Edge routes after a pass step.

An edge between two nodes that did not move keeps its route, except for
waypoints a new node now covers, which step aside to the nearest free x. A
new edge, or one whose ends moved, runs straight from source to target,
each waypoint at the nearest free x of its layer. Edges spanning too many
layers are stubs, as in a fresh layout; so are edges that cannot point down
(an inserted node found no layer between its operands and users), drawn as
a stub down out of the source and one down into the target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import is_not, le

from xlaview.analysis.drawing.layered.routing import stub_route
from xlaview.analysis.drawing.records import EdgeRoute, LayoutNode, Point
from xlaview.analysis.drawing.step.bands import Bands
from xlaview.analysis.drawing.step.matching import StepMatch


@dataclass(frozen=True, slots=True)
class Routes:
    routes: tuple[EdgeRoute, ...]
    kept: bytearray  # per input edge: 1 when its previous route was kept as it was
    upward: int  # edges that do not point down (cycles not counted)
    waypoints: int


def reroute(
    match: StepMatch,
    nodes: Sequence[LayoutNode],
    unmoved: bytearray,
    layer: list[int],
    xs: list[float],
    layer_y: list[float],
    bands: Bands,
    dirty: set[int],
    long_edge_layers: int,
    stub_reach: float,
) -> Routes:
    """One route per input edge, duplicates sharing theirs (see the module
    doc). ``unmoved`` marks the nodes in their previous place under their
    previous key; ``dirty`` holds the layers where a node was placed or
    moved: a previous route between unmoved nodes crossing none of them is
    kept as it is."""
    sources, targets, keys, feedback = match.sources, match.targets, match.keys, match.feedback
    # Most edges keep their route: pick those with comprehensions and C-level
    # maps (a graph after fusion has some 90k edges) and look at the rest one
    # by one.
    routes: list[EdgeRoute | None] = [
        old if old is not None and unmoved[s] and unmoved[t] else None
        for old, s, t in zip(match.old_route, sources, targets, strict=False)
    ]
    if dirty:
        # Only a route with waypoints can cross a dirty layer, and it starts
        # at most long_edge_layers above it.
        starts = {level - k for level in dirty for k in range(1, long_edge_layers + 1)}
        for i in [i for i, s in enumerate(sources) if layer[s] in starts]:
            route = routes[i]
            if (
                route is not None
                and len(route.points) > 2
                and not route.stub
                and not (dirty.isdisjoint(range(layer[sources[i]] + 1, layer[targets[i]])))
            ):
                routes[i] = None
    kept = bytearray(map(is_not, routes, repeat(None)))
    n = len(keys)
    done: dict[int, EdgeRoute] = {}  # by s * n + t: ints, no tuple to keep per edge
    waypoints = 0  # of the routes made anew; the kept ones' are added below
    for i in [i for i, still in enumerate(kept) if not still]:
        s, t = sources[i], targets[i]
        route = done.get(s * n + t)
        if route is None:
            route = done[s * n + t] = _route(
                s,
                t,
                match.old_route[i],
                keys,
                nodes,
                layer,
                xs,
                layer_y,
                bands,
                bool(feedback) and (s, t) in feedback,
                long_edge_layers,
                stub_reach,
            )
            if not route.stub:
                waypoints += len(route.points) - 2
        routes[i] = route
    done_routes: tuple[EdgeRoute, ...] = tuple(routes)  # type: ignore[arg-type]
    # Duplicate edges share a route: count each route once.
    waypoints += sum(
        {
            id(route): len(route.points) - 2
            for route in compress(done_routes, kept)
            if len(route.points) > 2 and not route.stub
        }.values()
    )
    source_layers = [layer[s] for s in sources]
    target_layers = [layer[t] for t in targets]
    upward = sum(map(le, target_layers, source_layers))
    if feedback:
        upward -= sum(1 for s, t in feedback if layer[t] <= layer[s])
    return Routes(done_routes, kept, upward, waypoints)


def _route(
    s: int,
    t: int,
    old: EdgeRoute | None,
    keys: list[str],
    nodes: Sequence[LayoutNode],
    layer: list[int],
    xs: list[float],
    layer_y: list[float],
    bands: Bands,
    is_cycle: bool,
    long_edge_layers: int,
    stub_reach: float,
) -> EdgeRoute:
    """A new route from ``s`` to ``t``, through the waypoints of ``old`` (the
    previous route of the same edge) where they are still free."""
    span = layer[t] - layer[s]
    start = (xs[s], layer_y[layer[s]] + nodes[s].height / 2)
    end = (xs[t], layer_y[layer[t]] - nodes[t].height / 2)
    if span < 1 and not is_cycle:
        # Pointing up: stubs straight down out of the source and into the
        # target, like every other edge's ends; ones aimed along the edge
        # would start and end under the boxes and not be seen.
        return EdgeRoute(
            keys[s],
            keys[t],
            (start, (start[0], start[1] + stub_reach)),
            True,
            ((end[0], end[1] - stub_reach), end),
        )
    if is_cycle or span > long_edge_layers:
        return stub_route(keys[s], keys[t], start, end, stub_reach)
    if span == 1:
        return EdgeRoute(keys[s], keys[t], (start, end), False)
    if old is not None and not old.stub and len(old.points) == span + 1:
        inner = [p[0] for p in old.points[1:-1]]
    else:
        step = (end[0] - start[0]) / span
        inner = [start[0] + step * k for k in range(1, span)]
    points: list[Point] = [start]
    for k, x in enumerate(inner, start=1):
        level = layer[s] + k
        if not bands.is_free(level, x, x):
            x = bands.nearest_free(level, x, 0.0, 0.0)
        points.append((x, layer_y[level]))
    points.append(end)
    return EdgeRoute(keys[s], keys[t], tuple(points), False)
