"""What a graph canvas paints, made off the GUI thread from a layout: painter
paths for the edges and for the boxes of each kind of node, and the boxes in
rows by y (for culling and hit tests). The GUI thread only paints them."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainterPath

from xlaview.analysis.graph import ComputationGraph, GraphNode, node_height, node_width
from xlaview.analysis.kinds import Kind
from xlaview.analysis.layout import GraphLayout


@dataclass(frozen=True, slots=True)
class CanvasParts:
    """What a canvas paints, made from the layout on a worker thread (painter
    paths and plain values), so the GUI thread only paints: the edges as
    painter paths, the boxes of each kind of node as one painter path (a few
    Qt calls paint thousands of nodes), and the node boxes in rows by y, for
    culling and hit tests."""

    edges: QPainterPath
    stubs: QPainterPath
    arrows: QPainterPath
    boxes: list[tuple[Kind, bool, QPainterPath]]  # kind, is a copy, its boxes
    roots: QPainterPath  # the outline around each computation's root
    placed: dict[str, Placed]  # by node key
    rows: list[tuple[float, list[Placed]]]


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


def add_arrow(path: QPainterPath, tip) -> None:
    x, y = tip
    path.moveTo(x, y)
    path.lineTo(x - 4, y - 7)
    path.lineTo(x + 4, y - 7)
    path.closeSubpath()


def prepare_canvas(graph: ComputationGraph, layout: GraphLayout,
                   leave_out: frozenset[str] = frozenset()) -> CanvasParts:
    """The painter paths of ``layout`` (``leave_out``: node keys whose boxes
    are left out of the kinds' paths, for a transition that draws them apart)."""
    edges, stubs, arrows = QPainterPath(), QPainterPath(), QPainterPath()
    for route in layout.edges:
        add_polyline(stubs if route.stub else edges, route.points)
        if route.stub:
            add_polyline(stubs, route.target_stub)
            add_arrow(arrows, route.target_stub[-1] if route.target_stub else route.points[-1])
        else:
            add_arrow(arrows, route.points[-1])
    by_key = {n.key: n for n in graph.nodes}
    placed: dict[str, Placed] = {}
    rows: dict[float, list[Placed]] = {}
    boxes: dict[tuple[Kind, bool], QPainterPath] = {}
    roots = QPainterPath()
    for key, (x, y) in layout.positions.items():
        node = by_key[key]
        w, h = node_width(node), node_height(node)
        box = placed[key] = Placed(node, x - w / 2, y - h / 2, w, h)
        rows.setdefault(round(y, 1), []).append(box)
        if key in leave_out:
            continue
        path = boxes.get((node.kind, node.is_copy)) or boxes.setdefault(
            (node.kind, node.is_copy), QPainterPath())
        path.addRoundedRect(box.left, box.top, w, h, 6, 6)
        if node.is_root:
            roots.addRoundedRect(box.left - 3, box.top - 3, w + 6, h + 6, 8, 8)
    return CanvasParts(edges, stubs, arrows, [(k, c, p) for (k, c), p in boxes.items()],
                       roots, placed, sorted(rows.items()))


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
