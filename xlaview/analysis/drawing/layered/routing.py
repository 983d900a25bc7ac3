"""y coordinates of the layers and the route of every input edge."""

from __future__ import annotations

from collections.abc import Sequence

from xlaview.analysis.drawing.layered.layered_graph import LayeredGraph
from xlaview.analysis.drawing.records import EdgeRoute, LayoutNode, Point


def layer_bands(
    nodes: Sequence[LayoutNode], graph: LayeredGraph, layer_gap: float
) -> tuple[list[float], list[float]]:
    """Top and height of each layer: its tallest node sets the height (a layer
    of dummies only has none)."""
    heights = [0.0] * len(graph.layers)
    for v, node in enumerate(nodes):
        level = graph.layer[v]
        heights[level] = max(heights[level], node.height)
    tops: list[float] = []
    top = 0.0
    for height in heights:
        tops.append(top)
        top += height + layer_gap
    return tops, heights


def route_edges(
    nodes: Sequence[LayoutNode],
    pairs: list[tuple[int, int]],
    graph: LayeredGraph,
    feedback: set[tuple[int, int]],
    xs: list[float],
    ys: list[float],
    layer_y: list[float],
    stub_reach: float,
) -> tuple[EdgeRoute, ...]:
    """One route per input edge; duplicates share the same point tuples."""
    layer, chains = graph.layer, graph.chains
    done: dict[tuple[int, int], EdgeRoute] = {}
    routes: list[EdgeRoute] = []
    for s, t in pairs:
        route = done.get((s, t))
        if route is None:
            start = (xs[s], ys[s] + nodes[s].height / 2)
            end = (xs[t], ys[t] - nodes[t].height / 2)
            key_s, key_t = nodes[s].key, nodes[t].key
            if (s, t) in graph.stubs or (s, t) in feedback:
                route = stub_route(key_s, key_t, start, end, stub_reach)
            else:
                first = chains.get((s, t))
                if first is None:
                    points: tuple[Point, ...] = (start, end)
                else:
                    dummies = range(first, first + layer[t] - layer[s] - 1)
                    points = (start, *[(xs[d], layer_y[layer[d]]) for d in dummies], end)
                route = EdgeRoute(key_s, key_t, points, False)
            done[(s, t)] = route
        routes.append(route)
    return tuple(routes)


def stub_route(source: str, target: str, start: Point, end: Point, reach: float) -> EdgeRoute:
    """The two ends of the straight line from ``start`` to ``end``, each
    ``reach`` long along its larger axis (the whole line if shorter)."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    span = max(abs(dx), abs(dy))
    f = min(1.0, reach / span) if span else 1.0
    return EdgeRoute(
        source,
        target,
        (start, (start[0] + f * dx, start[1] + f * dy)),
        True,
        ((end[0] - f * dx, end[1] - f * dy), end),
    )
