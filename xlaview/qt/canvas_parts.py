"""What a graph canvas paints, made off the GUI thread from a layout: painter
paths for the edges and for the boxes of each kind of node, and the boxes in
rows by y (for culling and hit tests). The GUI thread only paints them."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen

from xlaview.analysis.graph import ComputationGraph, GraphNode, node_height, node_width
from xlaview.analysis.kinds import Kind
from xlaview.analysis.layout import EdgeRoute, GraphLayout


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
    band_routes: list[list[int]]  # band -> indices of the edge routes through it
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


def outlines(boxes: Iterable[Placed], style_of: Callable[[str], tuple[str, float] | None]
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


def add_arrow(path: QPainterPath, tip) -> None:
    x, y = tip
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
        return Band(self.edges, self.stubs, self.arrows,
                    [(k, c, p) for (k, c), p in self.boxes.items()], self.roots)


def add_banded(paths: list[QPainterPath], points, index: int = -1,
               routes: list[set[int]] | None = None, only: int | None = None) -> None:
    """A polyline's segments, each in the paths of the bands it crosses (a
    segment joins two adjacent layers, so it is in one band or two), curved as
    `add_polyline` curves them; ``routes[band]`` gets ``index``. With ``only``,
    the pieces in that band alone (``paths`` still has a path per band)."""
    curved = len(points) > 2
    last = len(paths) - 1
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        lo, hi = min(last, _band(min(y0, y1))), min(last, _band(max(y0, y1)))
        for b in range(lo, hi + 1) if only is None else (only,) if lo <= only <= hi else ():
            path = paths[b]
            if curved:
                path.moveTo(x0, y0)
                mid = (y0 + y1) / 2
                path.cubicTo(x0, mid, x1, mid, x1, y1)
            elif hi - lo < 2:
                path.moveTo(x0, y0)
                path.lineTo(x1, y1)
            else:  # a long straight line: each band gets its own piece of it
                top, bottom = max(min(y0, y1), b * BAND), min(max(y0, y1), (b + 1) * BAND)
                if b == last:
                    bottom = max(y0, y1)
                path.moveTo(_x_at(x0, y0, x1, y1, top), top)
                path.lineTo(_x_at(x0, y0, x1, y1, bottom), bottom)
            if routes is not None:
                routes[b].add(index)


def _x_at(x0: float, y0: float, x1: float, y1: float, y: float) -> float:
    return x0 if y1 == y0 else x0 + (x1 - x0) * (y - y0) / (y1 - y0)


def prepare_canvas(graph: ComputationGraph, layout: GraphLayout) -> CanvasParts:
    """The painter paths of ``layout``, band by band (on a worker thread)."""
    count = _band(layout.height) + 1
    bands = [_BandPaths() for _ in range(count)]
    routes: list[set[int]] = [set() for _ in range(count)]
    node_routes: dict[str, list[int]] = {}
    edges, stubs = [b.edges for b in bands], [b.stubs for b in bands]
    for i, route in enumerate(layout.edges):
        node_routes.setdefault(route.source, []).append(i)
        node_routes.setdefault(route.target, []).append(i)
        add_banded(stubs if route.stub else edges, route.points, i, routes)
        if route.stub:
            add_banded(stubs, route.target_stub, i, routes)
            tip = route.target_stub[-1] if route.target_stub else route.points[-1]
        else:
            tip = route.points[-1]
        add_arrow(bands[min(count - 1, _band(tip[1]))].arrows, tip)
    by_key = {n.key: n for n in graph.nodes}
    placed: dict[str, Placed] = {}
    rows: dict[float, list[Placed]] = {}
    for key, (x, y) in layout.positions.items():
        node = by_key[key]
        w, h = node_width(node), node_height(node)
        box = placed[key] = Placed(node, x - w / 2, y - h / 2, w, h)
        rows.setdefault(round(y, 1), []).append(box)
        band = bands[min(count - 1, _band(y))]
        path = band.boxes.get((node.kind, node.is_copy)) or band.boxes.setdefault(
            (node.kind, node.is_copy), QPainterPath())
        path.addRoundedRect(box.left, box.top, w, h, 6, 6)
        if node.is_root:
            band.roots.addRoundedRect(box.left - 3, box.top - 3, w + 6, h + 6, 8, 8)
    return CanvasParts([b.done() for b in bands], placed, sorted(rows.items()),
                       [sorted(r) for r in routes], node_routes)


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


def edge_near(parts: CanvasParts, routes: Sequence[EdgeRoute], x: float, y: float,
              tolerance: float) -> int | None:
    """Index of the edge route passing within ``tolerance`` of (x, y) (the
    routes through the bands there only)."""
    best, best_d = None, tolerance
    bands = parts.band_range(y - tolerance, y + tolerance)
    for i in {i for b in bands for i in parts.band_routes[b]}:
        route = routes[i]
        pts = route.points if not route.stub else route.points + route.target_stub
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            if not (min(y0, y1) - tolerance <= y <= max(y0, y1) + tolerance):
                continue
            dx, dy = x1 - x0, y1 - y0
            length = dx * dx + dy * dy
            t = 0.0 if length == 0 else max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / length))
            d = math.hypot(x - (x0 + t * dx), y - (y0 + t * dy))
            if d < best_d:
                best, best_d = i, d
    return best
