"""How good a layout looks, in numbers: edge crossings, total edge length,
width and height, and the edges drawn as stubs. Measured on the drawing
itself (node centres and route points), so a fresh and an incremental
layout of the same graph compare on equal terms."""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import pairwise

from xlaview.analysis.drawing.records import EdgeRoute, GraphLayout


@dataclass(frozen=True, slots=True)
class LayoutQuality:
    """``crossings``: pairs of routed edge segments that cross between two
    adjacent layers (stubs are not drawn whole, so not counted).
    ``edge_length``: the summed length of every distinct edge, routed ones
    along their route, stubs as the straight line they stand for.
    ``upward``: distinct edges whose target is not below their source (an
    incremental step set them aside; a fresh layout has them only on cycles).
    """

    crossings: int
    edge_length: float
    width: float
    height: float
    stubs: int
    upward: int


def layout_quality(layout: GraphLayout) -> LayoutQuality:
    """Measure ``layout`` (see :class:`LayoutQuality`)."""
    layers = layout.layers
    stubs = upward = 0
    seen: set[tuple[str, str]] = set()
    for route in layout.edges:
        pair = (route.source, route.target)
        if pair in seen:
            continue
        seen.add(pair)
        if layers[route.target] <= layers[route.source]:
            upward += 1
        stubs += route.stub
    crossings = crossings_in(layout.edges, layers)
    return LayoutQuality(crossings, edge_length(layout), layout.width, layout.height, stubs, upward)


def edge_length(layout: GraphLayout) -> float:
    """The summed length of every distinct edge: routed ones along their
    route, stubs as the straight line they stand for."""
    length = 0.0
    seen: set[int] = set()
    for route in layout.edges:
        if id(route) in seen:  # duplicate edges share one route
            continue
        seen.add(id(route))
        if route.stub:
            end = route.target_stub[-1] if route.target_stub else route.points[-1]
            length += math.dist(route.points[0], end)
        elif len(route.points) == 2:
            length += math.dist(route.points[0], route.points[1])
        else:
            length += sum(math.dist(a, b) for a, b in pairwise(route.points))
    return length


def crossings_in(
    edges: Iterable[EdgeRoute],
    layers: Mapping[str, int],
    gaps: AbstractSet[int] | None = None,
    longest: int | None = None,
) -> int:
    """Crossings of the routed edges between adjacent layers, in the gaps
    listed (gap i lies between layers i and i+1) or in all; each distinct
    edge counted once. ``longest``, the most layers a routed edge spans,
    lets a count in a few gaps skip most edges at C speed."""
    segments: dict[int, list[tuple[float, float]]] = {}  # gap -> (x above, x below)
    seen: set[int] = set()
    if gaps is not None and longest is not None:
        starts = {gap - k for gap in gaps for k in range(longest)}
        edges = [route for route in edges if layers[route.source] in starts]
    for route in edges:
        if route.stub:
            continue
        points = route.points
        level = layers[route.source]
        if gaps is not None and (
            level not in gaps
            if len(points) == 2
            else gaps.isdisjoint(range(level, level + len(points) - 1))
        ):
            continue
        if id(route) in seen:  # duplicate edges share one route
            continue
        seen.add(id(route))
        for i in range(len(points) - 1):
            if gaps is None or level + i in gaps:
                segments.setdefault(level + i, []).append((points[i][0], points[i + 1][0]))
    return sum(_crossings(pairs) for pairs in segments.values())


def _crossings(segments: list[tuple[float, float]]) -> int:
    """Pairs of segments between two layers whose order above and below
    disagree strictly (shared ends do not cross)."""
    segments.sort()
    seen: list[float] = []
    count = 0
    for _, below in segments:
        i = bisect.bisect_right(seen, below)
        count += len(seen) - i
        seen.insert(i, below)
    return count
