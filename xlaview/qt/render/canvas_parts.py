"""What a graph canvas paints, made off the GUI thread from a layout: painter
paths for the edges and for the boxes of each kind of node, and the boxes in
rows by y (for culling and hit tests). The GUI thread only paints them."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen

from xlaview.analysis.drawing import EdgeRoute, GraphLayout, Point
from xlaview.analysis.drawing.graph import ComputationGraph, GraphNode, node_height, node_width
from xlaview.analysis.folding import GROUP_KEY
from xlaview.analysis.kinds import Kind

# The scene is cut in horizontal bands: a paint draws the bands it exposes. A
# 48-layer train step's entry is 256,000 px tall with 93,000 edges: drawn whole,
# one frame at a readable zoom takes 150-200 ms; a band or two, a few ms.
BAND = 2000.0


@dataclass(frozen=True, slots=True)
class Band:
    """What one band of the scene paints: its edges (and stubs and arrow heads)
    as painter paths, the boxes of each kind of node as one painter path (a
    few Qt calls paint thousands of nodes), the roots' outlines."""

    edges: QPainterPath
    stubs: QPainterPath
    arrows: QPainterPath
    boxes: list[tuple[Kind, bool, QPainterPath]]  # kind, is a copy, its boxes
    roots: QPainterPath


@dataclass(frozen=True, slots=True)
class CanvasParts:
    """What a canvas paints, made from the layout on a worker thread (painter
    paths and plain values), so the GUI thread only paints: the scene's bands,
    the node boxes in rows by y (for culling and hit tests), and the edges
    passing through each band (for finding the edge under the mouse)."""

    bands: list[Band]
    placed: dict[str, Placed]  # by node key
    rows: list[tuple[float, list[Placed]]]
    band_routes: list[list[EdgeRoute]]  # band -> the edge routes through it (each once)
    node_routes: dict[str, list[int]]  # node key -> indices of the routes into or out of it

    def band_range(self, top: float, bottom: float) -> range:
        """The bands overlapping ``top``..``bottom``, and one either side (a box
        or a curve may reach over a band's edge)."""
        lo = max(0, int(top // BAND) - 1)
        return range(lo, min(len(self.bands), int(bottom // BAND) + 2))


def add_polyline(path: QPainterPath, points) -> None:
    if len(points) < 2:
        return
    path.moveTo(*points[0])
    if len(points) == 2:
        path.lineTo(*points[1])
        return
    # A smooth curve through the waypoints reads better than corners.
    for i in range(1, len(points)):
        x0, y0 = points[i - 1]
        x1, y1 = points[i]
        mid = (y0 + y1) / 2
        path.cubicTo(x0, mid, x1, mid, x1, y1)


def outlines(
    boxes: Iterable[Placed], style_of: Callable[[str], tuple[str, float] | None]
) -> list[tuple[QPen, QPainterPath]]:
    """Borders over the boxes ``style_of`` gives a (colour, width) for, one
    path per style (dashed for a copy)."""
    paths: dict[tuple[str, float, bool], QPainterPath] = {}
    for box in boxes:
        style = style_of(box.node.instruction)
        if style is not None:
            path = paths.setdefault((*style, box.node.is_copy), QPainterPath())
            path.addRoundedRect(box.left, box.top, box.width, box.height, 6, 6)
    marks = []
    for (colour, width, is_copy), path in paths.items():
        pen = QPen(QColor(colour), width)
        if is_copy:
            pen.setStyle(Qt.PenStyle.DashLine)
        marks.append((pen, path))
    return marks


def add_arrow(path: QPainterPath, x: float, y: float) -> None:
    path.moveTo(x, y)
    path.lineTo(x - 4, y - 7)
    path.lineTo(x + 4, y - 7)
    path.closeSubpath()


def _band(y: float) -> int:
    return max(0, int(y // BAND))


class _BandPaths:
    def __init__(self) -> None:
        self.edges, self.stubs, self.arrows = QPainterPath(), QPainterPath(), QPainterPath()
        self.boxes: dict[tuple[Kind, bool], QPainterPath] = {}
        self.roots = QPainterPath()

    def done(self) -> Band:
        return Band(
            self.edges,
            self.stubs,
            self.arrows,
            [(k, c, p) for (k, c), p in self.boxes.items()],
            self.roots,
        )


def add_banded(
    paths: list[QPainterPath],
    points,
    index: int = -1,
    routes: list[set[int]] | None = None,
    only: int | None = None,
) -> None:
    """A polyline's segments, each in the paths of the bands it crosses (a
    segment joins two adjacent layers, so it is in one band or two), curved as
    `add_polyline` curves them; ``routes[band]`` gets ``index``. With ``only``,
    the pieces in that band alone (``paths`` still has a path per band)."""
    # Once per segment of every edge of a 93,000-edge graph: no calls but Qt's.
    curved = len(points) > 2
    last = len(paths) - 1
    x0, y0 = points[0]
    for x1, y1 in points[1:]:
        top, bottom = (y0, y1) if y0 <= y1 else (y1, y0)
        lo, hi = int(top // BAND), int(bottom // BAND)
        lo = 0 if lo < 0 else last if lo > last else lo
        hi = 0 if hi < 0 else last if hi > last else hi
        if lo == hi and (only is None or only == lo):
            path = paths[lo]
            path.moveTo(x0, y0)
            if curved:
                mid = (y0 + y1) / 2
                path.cubicTo(x0, mid, x1, mid, x1, y1)
            else:
                path.lineTo(x1, y1)
            if routes is not None:
                routes[lo].add(index)
        elif lo != hi:
            for b in range(lo, hi + 1) if only is None else (only,) if lo <= only <= hi else ():
                _add_piece(paths[b], b, last, curved, x0, y0, x1, y1, hi - lo)
                if routes is not None:
                    routes[b].add(index)
        x0, y0 = x1, y1


def _add_piece(
    path: QPainterPath,
    b: int,
    last: int,
    curved: bool,
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    span: int,
) -> None:
    """The piece of a segment over several bands that band ``b`` draws."""
    if curved:
        path.moveTo(x0, y0)
        mid = (y0 + y1) / 2
        path.cubicTo(x0, mid, x1, mid, x1, y1)
    elif span < 2:
        path.moveTo(x0, y0)
        path.lineTo(x1, y1)
    else:  # a long straight line: each band gets its own piece of it
        top, bottom = max(min(y0, y1), b * BAND), min(max(y0, y1), (b + 1) * BAND)
        if b == last:
            bottom = max(y0, y1)
        path.moveTo(_x_at(x0, y0, x1, y1, top), top)
        path.lineTo(_x_at(x0, y0, x1, y1, bottom), bottom)


def _x_at(x0: float, y0: float, x1: float, y1: float, y: float) -> float:
    return x0 if y1 == y0 else x0 + (x1 - x0) * (y - y0) / (y1 - y0)


def prepare_canvas(
    graph: ComputationGraph,
    layout: GraphLayout,
    before: tuple[GraphLayout, CanvasParts] | None = None,
) -> CanvasParts:
    """The painter paths of ``layout``, band by band (on a worker thread).
    ``before``, the layout a pass step started from and its parts: the bands
    the step left as they were are taken from it (a step keeps most routes as
    the same objects, and most boxes where they were), the others drawn."""
    count = _band(layout.height) + 1
    by_key = {n.key: n for n in graph.nodes}
    placed: dict[str, Placed] = {}
    rows: dict[float, list[Placed]] = {}
    for key, (x, y) in layout.positions.items():
        node = by_key[key]
        w, h = node_width(node), node_height(node)
        box = placed[key] = Placed(node, x - w / 2, y - h / 2, w, h)
        rows.setdefault(round(y, 1), []).append(box)
    node_routes: defaultdict[str, list[int]] = defaultdict(list)
    for i, route in enumerate(layout.edges):
        node_routes[route.source].append(i)
        node_routes[route.target].append(i)
    kept: list[Band | None] = [None] * count
    routes: list[list[EdgeRoute]] = [[] for _ in range(count)]
    dirty = None
    if before is not None and len(before[1].bands) == count:
        dirty = reuse_bands(layout, placed, *before, kept, routes)
    bands: list[_BandPaths | None] = [
        _BandPaths() if kept[b] is None else None for b in range(count)
    ]
    if dirty is None:
        _draw_all(layout.edges, bands, routes)  # type: ignore[arg-type]
    else:
        _draw_bands(bands, routes, sorted(dirty))
    for key, box in placed.items():
        band = bands[min(count - 1, _band(layout.positions[key][1]))]
        if band is not None:
            _add_box(band, box)
    return CanvasParts(
        [kept[b] or bands[b].done() for b in range(count)],  # type: ignore[union-attr]
        placed,
        sorted(rows.items()),
        routes,
        dict(node_routes),
    )


def _draw_all(
    edges: Sequence[EdgeRoute], bands: list[_BandPaths], routes: list[list[EdgeRoute]]
) -> None:
    """Every route, in the bands it crosses (listed in ``routes``); a route
    that duplicate edges share, once."""
    count = len(bands)
    through: list[set[int]] = [set() for _ in range(count)]
    edges_paths, stub_paths = [b.edges for b in bands], [b.stubs for b in bands]
    seen: set[int] = set()
    for i, route in enumerate(edges):
        if id(route) not in seen:
            seen.add(id(route))
            x, y = _draw(route, edges_paths, stub_paths, i, through, None)
            add_arrow(bands[min(count - 1, _band(y))].arrows, x, y)
    for b, indices in enumerate(through):
        routes[b] = [edges[i] for i in sorted(indices)]


def _draw_bands(
    bands: list[_BandPaths | None], routes: list[list[EdgeRoute]], drawn: Sequence[int]
) -> None:
    """The routes ``routes[b]`` lists, in the bands ``drawn`` alone."""
    count = len(bands)
    edges_paths = [b.edges if b else None for b in bands]
    stub_paths = [b.stubs if b else None for b in bands]
    for b in drawn:
        for route in routes[b]:
            x, y = _draw(route, edges_paths, stub_paths, -1, None, b)  # type: ignore[arg-type]
            if min(count - 1, _band(y)) == b:
                add_arrow(bands[b].arrows, x, y)  # type: ignore[union-attr]


def _draw(
    route: EdgeRoute,
    edges: list[QPainterPath],
    stubs: list[QPainterPath],
    i: int,
    through: list[set[int]] | None,
    only: int | None,
) -> Point:
    """One route's pieces (in band ``only``, or in all it crosses); its tip."""
    if route.stub:
        add_banded(stubs, route.points, i, through, only)
        add_banded(stubs, route.target_stub, i, through, only)
        return route.target_stub[-1] if route.target_stub else route.points[-1]
    add_banded(edges, route.points, i, through, only)
    return route.points[-1]


def _add_box(band: _BandPaths, box: Placed) -> None:
    node = box.node
    if node.members:
        return  # a folded group: the canvas paints it in a style of its own
    path = band.boxes.get((node.kind, node.is_copy)) or band.boxes.setdefault(
        (node.kind, node.is_copy), QPainterPath()
    )
    path.addRoundedRect(box.left, box.top, box.width, box.height, 6, 6)
    if node.is_root:
        band.roots.addRoundedRect(box.left - 3, box.top - 3, box.width + 6, box.height + 6, 8, 8)


def reuse_bands(
    layout: GraphLayout,
    placed: dict[str, Placed],
    old: GraphLayout,
    old_parts: CanvasParts,
    kept: list[Band | None],
    routes: list[list[EdgeRoute]],
) -> set[int]:
    """The bands of ``old_parts`` that ``layout`` draws alike go to ``kept``;
    the others are returned. ``routes[b]``: the routes through band ``b``."""
    count = len(kept)
    new_ids = {id(route) for route in layout.edges}
    old_ids = {id(route) for route in old.edges}
    fresh = list({id(r): r for r in layout.edges if id(r) not in old_ids}.values())
    dirty: set[int] = set()
    for route in (*fresh, *(r for r in old.edges if id(r) not in new_ids)):
        dirty.update(_bands_of(route, count))

    def band_at(positions: dict[str, Point], key: str) -> int:
        return min(count - 1, _band(positions[key][1]))  # a box's band: its centre's

    for key, box in placed.items():
        was = old_parts.placed.get(key)
        if was is None or not _same_box(was, box):
            dirty.add(band_at(layout.positions, key))
            if was is not None:
                dirty.add(band_at(old.positions, key))
    dirty.update(band_at(old.positions, key) for key in old_parts.placed if key not in placed)
    for b in range(count):
        if b in dirty:
            routes[b] = [r for r in old_parts.band_routes[b] if id(r) in new_ids]
        else:
            kept[b], routes[b] = old_parts.bands[b], old_parts.band_routes[b]
    for route in fresh:
        for b in _bands_of(route, count):
            routes[b].append(route)
    return dirty


def _same_box(a: Placed, b: Placed) -> bool:
    return (a.left, a.top, a.width, a.height, a.node.kind, a.node.is_copy, a.node.is_root) == (
        b.left,
        b.top,
        b.width,
        b.height,
        b.node.kind,
        b.node.is_copy,
        b.node.is_root,
    )


def _bands_of(route: EdgeRoute, count: int) -> set[int]:
    """The bands a route's segments cross (a stub's two pieces apart)."""
    out: set[int] = set()
    for line in (route.points, route.target_stub) if route.stub else (route.points,):
        if line:
            ys = [y for _, y in line]
            out.update(range(min(count - 1, _band(min(ys))), min(count - 1, _band(max(ys))) + 1))
    return out


@dataclass(slots=True)
class Placed:
    node: GraphNode
    left: float
    top: float
    width: float
    height: float

    @property
    def rect(self) -> QRectF:
        return QRectF(self.left, self.top, self.width, self.height)

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x <= self.left + self.width and self.top <= y <= self.top + self.height


def edge_near(parts: CanvasParts, x: float, y: float, tolerance: float) -> EdgeRoute | None:
    """The edge route passing within ``tolerance`` of (x, y) (the routes
    through the bands there only)."""
    best, best_d = None, tolerance
    bands = parts.band_range(y - tolerance, y + tolerance)
    for route in {id(r): r for b in bands for r in parts.band_routes[b]}.values():
        pts = route.points if not route.stub else route.points + route.target_stub
        for (x0, y0), (x1, y1) in pairwise(pts):
            if not (min(y0, y1) - tolerance <= y <= max(y0, y1) + tolerance):
                continue
            dx, dy = x1 - x0, y1 - y0
            length = dx * dx + dy * dy
            t = 0.0 if length == 0 else max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / length))
            d = math.hypot(x - (x0 + t * dx), y - (y0 + t * dy))
            if d < best_d:
                best, best_d = route, d
    return best


def bundle_labels(graph: ComputationGraph, layout: GraphLayout) -> list[tuple[QPointF, str]]:
    """Where to write what a bundled edge stands for (``12 edges, 3.1 MiB``):
    beside the middle of its route, or of its stub into the target."""
    out = []
    for edge, route in zip(graph.edges, layout.edges, strict=True):
        if not (edge.source.startswith(GROUP_KEY) or edge.target.startswith(GROUP_KEY)):
            continue
        points = route.target_stub if route.stub and route.target_stub else route.points
        if points:
            (x0, y0), (x1, y1) = points[(len(points) - 1) // 2], points[len(points) // 2]
            out.append((QPointF((x0 + x1) / 2 + 4, (y0 + y1) / 2 + 3), edge.shape))
    return out
