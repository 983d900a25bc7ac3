"""The graph canvas: one laid-out computation, drawn by one item.

`GraphCanvas` culls to the exposed
rectangle: nodes of the visible layers only, all edges as one cached path,
text only when zoomed in far enough to read it (STYLE.md, GRAPH_LAYOUT.md).
Edges longer than a few layers are drawn as stubs, whole when hovered or
when one of their ends is selected.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QStyleOptionGraphicsItem,
)

from xlaview.analysis.drawing import EdgeRoute, GraphLayout
from xlaview.analysis.drawing.graph import NODE_HEIGHT, ComputationGraph
from xlaview.analysis.folding import Frame
from xlaview.qt import theme
from xlaview.qt.graph.groups import (
    frame_rect,
    paint_bundle_labels,
    paint_frames,
    paint_group_boxes,
    paint_group_label,
)
from xlaview.qt.graph.labels import NodeFonts, paint_node_label
from xlaview.qt.render.canvas_parts import (
    BAND,
    CanvasParts,
    Placed,
    add_banded,
    add_polyline,
    edge_near,
    outlines,
    prepare_canvas,
)
from xlaview.qt.render.transition import Transition

TEXT_MIN_SCALE = 0.42  # below this zoom, text is unreadable: boxes only
READABLE_SCALE = 0.6  # the smallest zoom a view starts at
# Unclipped: a clipped line height cuts off the underscores of instruction names.


class GraphCanvas(QGraphicsItem):
    """Nodes and edges of one laid-out graph, painted in one pass."""

    def __init__(
        self,
        graph: ComputationGraph,
        layout: GraphLayout,
        parts: CanvasParts | None = None,
        frames: tuple[Frame, ...] = (),
    ) -> None:
        super().__init__()
        self.graph = graph
        self.layout = layout
        self.frames = frames  # open groups of a folded graph, outermost first
        self.force_text = False  # exports draw every label
        self.selected: str | None = None  # instruction name
        self.operands: set[str] = set()
        self.users: set[str] = set()
        self.traffic: dict[tuple[str, str], float] = {}  # (source key, target key) -> width
        self.diff: dict[str, str] = {}  # instruction -> "added" / "changed"
        self.ghosts: list[Placed] = []  # removed instructions where they stood, drawn faint
        self.emphasis: frozenset[str] = frozenset()  # instructions a panel points at
        self.fills: dict[str, str] = {}  # instruction -> fill colour (a heat scale), or none
        self._fill_paths: list[tuple[str, QPainterPath]] | None = None
        self._transition: Transition | None = None
        self._progress = 1.0
        self.hover_edge: EdgeRoute | None = None
        # Set through set_marks / set_diff / set_traffic / set_hover_edge only.
        parts = parts or prepare_canvas(graph, layout)
        self.placed = parts.placed
        self._parts = parts
        self._highlighted: tuple[tuple, list[EdgeRoute], list[QPainterPath | None]] | None = (
            None  # see _highlighted_edges
        )
        # The borders' paths, band by band as they are painted: (what they mark,
        # the diff, band -> [(pen, path)]).
        self._marks: (
            tuple[tuple, dict[str, str], dict[int, list[tuple[QPen, QPainterPath]]]] | None
        ) = None
        self._rows = parts.rows
        self._row_ys = [y for y, _ in self._rows]
        self.group_boxes = [p for p in self.placed.values() if p.node.members]
        self.bundle_labels: Sequence[tuple[QPointF, str]] = ()  # set by the pane (folded)
        bounds = QRectF(0, 0, layout.width, layout.height)
        for frame in frames:
            bounds = bounds.united(frame_rect(frame))
        self._bounds = bounds.adjusted(-40, -40, 40, 40)
        self._fonts = fonts = NodeFonts()
        self._font, self._bold, self._mono = fonts.font, fonts.bold, fonts.mono
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)

    def boundingRect(self) -> QRectF:
        return self._bounds

    # -- what is marked ---------------------------------------------------------
    def set_marks(self, selected: str | None, operands: set[str], users: set[str]) -> None:
        """The selected instruction, and its operands and users."""
        if (selected, operands, users) == (self.selected, self.operands, self.users):
            return  # (a step that left the picture alone: nothing to paint again)
        self.selected, self.operands, self.users = selected, operands, users
        self.update()

    def set_diff(self, status: dict[str, str], ghosts: list[Placed]) -> None:
        """Instructions the pass added or changed, and removed ones (drawn faint
        where they stood)."""
        if status == self.diff and ghosts == self.ghosts:
            return
        self.diff, self.ghosts = status, ghosts
        self.update()

    def set_emphasis(self, names: set[str] | frozenset[str]) -> None:
        """Instructions a panel points at (a boundary's producer and readers,
        the ops that show why): drawn with a border of their own."""
        if names == self.emphasis:
            return
        self.emphasis = frozenset(names)
        self.update()

    def set_fills(self, fills: dict[str, str]) -> None:
        """Fill colours by instruction (a heat scale: estimated or measured
        time), over the colours of their kinds; empty: the kinds' colours."""
        if fills == self.fills:
            return
        self.fills = fills
        self._fill_paths = None
        self.update()

    # -- a pass step's transition ----------------------------------------------
    def begin_transition(self, transition: Transition) -> None:
        """Paint the step from the old layout (progress 0) to this one (1)."""
        self._transition, self._progress = transition, 0.0
        self.update()

    def set_progress(self, progress: float) -> None:
        self._progress = progress
        self.update()

    def end_transition(self) -> None:
        """The final picture (an export, a click, the next step)."""
        if self._transition is not None:
            self._transition, self._progress = None, 1.0
            self.update()

    @property
    def in_transition(self) -> bool:
        return self._transition is not None

    def set_traffic(self, widths: dict[tuple[str, str], float]) -> None:
        """Edge widths for the bytes each edge moves (empty: none drawn)."""
        if widths == self.traffic:
            return
        self.traffic = widths
        self.update()

    def set_hover_edge(self, edge: EdgeRoute | None) -> None:
        if edge is not self.hover_edge:
            self.hover_edge = edge
            self.update()

    # -- queries --------------------------------------------------------------
    def node_at(self, pos: QPointF) -> Placed | None:
        x, y = pos.x(), pos.y()
        i = bisect.bisect_left(self._row_ys, y - NODE_HEIGHT)
        while i < len(self._rows) and self._rows[i][0] <= y + NODE_HEIGHT:
            for placed in self._rows[i][1]:
                if placed.contains(x, y):
                    return placed
            i += 1
        return None

    def frame_header_at(self, pos: QPointF) -> Frame | None:
        """The open group whose header strip is at ``pos`` (the innermost)."""
        x, y = pos.x(), pos.y()
        return next((f for f in reversed(self.frames) if f.in_header(x, y)), None)

    def top_node_x(self) -> float:
        """The centre x of the top row's node nearest the middle: where a view too
        small for the whole graph starts, so that it opens on nodes, not on edges."""
        middle = self.layout.width / 2
        if not self._rows:
            return middle
        top_row = self._rows[0][1]
        return min((p.left + p.width / 2 for p in top_row), key=lambda x: abs(x - middle))

    def instructions_in(self, rect: QRectF) -> list[str]:
        """The instructions with a node in ``rect`` (scene coordinates)."""
        return sorted({p.node.instruction for p in self.placed.values() if p.rect.intersects(rect)})

    def rect_of(self, instruction: str) -> QRectF | None:
        keys = self.graph.nodes_of.get(instruction, ())
        rects = [self.placed[k].rect for k in keys if k in self.placed]
        if not rects:
            return None
        out = QRectF(rects[0])
        for r in rects[1:]:
            out = out.united(r)
        return out

    def edge_near(self, pos: QPointF, tolerance: float) -> EdgeRoute | None:
        """The edge route passing within ``tolerance`` of ``pos``."""
        return edge_near(self._parts, pos.x(), pos.y(), tolerance)

    def links_of(self, instruction: str) -> tuple[set[str], set[str]]:
        """The operands and the users of ``instruction`` that edges of this
        graph join it to (its routes only, not every edge of a 93,000-edge graph)."""
        keys = set(self.graph.nodes_of.get(instruction, ()))
        operands, users = set(), set()
        for i in self.routes_of(keys):
            route = self.layout.edges[i]
            if route.target in keys:
                operands.add(self.placed[route.source].node.instruction)
            if route.source in keys:
                users.add(self.placed[route.target].node.instruction)
        return operands, users

    def routes_of(self, keys: set[str]) -> list[int]:
        """Indices of the edge routes into or out of the nodes ``keys``."""
        routes = self._parts.node_routes
        return sorted({i for key in keys for i in routes.get(key, ())})

    # -- painting -------------------------------------------------------------
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        exposed = option.exposedRect
        scale = option.levelOfDetailFromTransform(painter.worldTransform())
        show_text = self.force_text or scale >= TEXT_MIN_SCALE
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, scale > 0.2 or self.force_text)
        # Paths are cut to what is exposed before they are stroked: a band's
        # edges run far beyond it (a 10,000-element path of long edges took
        # 11 ms to stroke whole, 3 ms clipped).
        painter.setClipRect(exposed)
        moving = self._transition
        exposed_bands = self._parts.band_range(exposed.top(), exposed.bottom())
        bands = [self._parts.bands[b] for b in exposed_bands]
        # Mid-transition the edges fade in where they end; moving boxes travel.
        painter.setOpacity(self._progress if moving else 1.0)
        # One pixel at every zoom: Qt strokes a pen of any other width the
        # slow way (a band's long edges: 134 ms cosmetic at 1.1 px, 24-37 ms at
        # 1.1 scene units, under 1 ms at one pixel; a band of a folded train step,
        # 80,000 px wide: 250 ms against 10).
        edge_pen = QPen(QColor(theme.EDGE), 1.0)
        edge_pen.setCosmetic(True)
        stub_pen = QPen(QColor(theme.FAINT), 1.0, Qt.PenStyle.DashLine)
        stub_pen.setCosmetic(True)
        paint_frames(painter, self.frames, exposed, show_text, self._bold)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for band in bands:
            painter.setPen(edge_pen)
            painter.drawPath(band.edges)
            painter.setPen(stub_pen)
            painter.drawPath(band.stubs)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(theme.EDGE))
        for band in bands:
            painter.drawPath(band.arrows)
        painter.setOpacity(1.0)
        if show_text:
            paint_bundle_labels(painter, self.bundle_labels, exposed, self._mono)
        self._paint_overlays(painter, exposed)
        self._paint_ghosts(painter, exposed, show_text)
        for band in bands:
            for kind, is_copy, path in band.boxes:
                fill = QColor(theme.KIND_COLORS[kind])
                pen = QPen(fill.darker(150), 1.0)
                if is_copy:
                    pen.setStyle(Qt.PenStyle.DashLine)
                painter.setPen(pen)
                painter.setBrush(fill)
                painter.drawPath(path)
        paint_group_boxes(painter, self.group_boxes, exposed)
        for colour, path in self._fill_path_list():
            fill = QColor(colour)
            painter.setPen(QPen(fill.darker(150), 1.0))
            painter.setBrush(fill)
            painter.drawPath(path)
        if moving is not None:
            self._paint_transition(painter, moving, show_text)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(QColor(theme.TEXT_SECONDARY), 1))
        for band in bands:
            painter.drawPath(band.roots)
        for pen, path in self._mark_paths(exposed_bands):
            painter.setPen(pen)
            painter.drawPath(path)
        if not show_text:
            return
        # Labels of the nodes in the exposed rows only (moving ones are drawn travelling).
        animated = self._animated_keys()
        lo = bisect.bisect_left(self._row_ys, exposed.top() - NODE_HEIGHT)
        hi = bisect.bisect_right(self._row_ys, exposed.bottom() + NODE_HEIGHT)
        left, right = exposed.left(), exposed.right()
        for _, row in self._rows[lo:hi]:
            for placed in row:
                if (
                    placed.left <= right
                    and placed.left + placed.width >= left
                    and (placed.node.key not in animated)
                ):
                    self._paint_label(painter, placed)

    def _paint_overlays(self, painter: QPainter, exposed: QRectF) -> None:
        """Traffic widths, the selection's edges (long ones whole), the hovered edge."""
        if self.traffic:
            bands = self._parts.band_range(exposed.top(), exposed.bottom())
            for route in {id(r): r for b in bands for r in self._parts.band_routes[b]}.values():
                width = self.traffic.get((route.source, route.target))
                if not width:
                    continue
                pen = QPen(theme.translucent(theme.EDGE_HIGHLIGHT, 110), width)
                pen.setCapStyle(Qt.PenCapStyle.RoundCap)
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                path = QPainterPath()
                add_polyline(
                    path,
                    route.points if not route.stub else (route.points[0], route.target_stub[-1]),
                )
                painter.drawPath(path)
        pen = QPen(QColor(theme.EDGE_HIGHLIGHT), 2.2)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for band in self._parts.band_range(exposed.top(), exposed.bottom()):
            painter.drawPath(self._highlighted_edges(band))

    def _highlighted_edges(self, band: int) -> QPainterPath:
        """The selection's edges and the hovered one in ``band`` (a 900-operand
        fusion's edges cross the whole graph: each band's pieces are built when
        it is first painted)."""
        key = (self.selected, id(self.hover_edge))  # (the routes list holds the edge)
        if self._highlighted is None or self._highlighted[0] != key:
            edges = self.layout.edges
            routes = [
                edges[i]
                for i in self.routes_of(set(self.graph.nodes_of.get(self.selected or "", ())))
            ]
            if self.hover_edge is not None:
                routes.append(self.hover_edge)
            self._highlighted = (key, routes, [None] * len(self._parts.bands))
        _, routes, paths = self._highlighted
        path = paths[band]
        if path is None:
            pieces = [QPainterPath() for _ in paths]
            for route in routes:
                add_banded(
                    pieces,
                    route.points if not route.stub else (route.points[0], route.target_stub[-1]),
                    only=band,
                )
            path = paths[band] = pieces[band]
        return path

    def _paint_ghosts(self, painter: QPainter, exposed: QRectF, show_text: bool) -> None:
        """The removed instructions in ``exposed``, their boxes one path: a
        pass that removed thousands of ops drew each box and label with its own
        calls into Qt, each waiting for the GIL beside a worker (113 ms of one
        paint of the mixture of experts' graph)."""
        left, top, right, bottom = exposed.left(), exposed.top(), exposed.right(), exposed.bottom()
        seen = [
            (g.node.instruction, g.rect)
            for g in self.ghosts
            if g.left <= right and g.left + g.width >= left and g.top <= bottom
            and g.top + g.height >= top
        ]  # fmt: skip
        if not seen:
            return
        path = QPainterPath()
        path.setFillRule(Qt.FillRule.WindingFill)
        for _, rect in seen:
            path.addRoundedRect(rect, 6, 6)
        painter.setPen(QPen(QColor(theme.PEAK), 1.2, Qt.PenStyle.DashLine))
        painter.setBrush(theme.translucent(theme.GHOST_FILL, 160))
        painter.drawPath(path)
        if show_text:
            painter.setFont(self._bold)
            painter.setPen(QColor(theme.REMOVED))
            centre = Qt.AlignmentFlag.AlignCenter
            for name, rect in seen:
                painter.drawText(rect.adjusted(6, 4, -6, -4), centre, f"{name}\n(removed)")

    def _mark_style(self, name: str) -> tuple[str, float] | None:
        """The border (colour, width) that marks instruction ``name``, if any."""
        if name == self.selected:
            return theme.SELECTION_BORDER, 3.0
        if name in self.operands:
            return theme.OPERAND_BORDER, 2.2
        if name in self.users:
            return theme.USER_BORDER, 2.2
        if name in self.emphasis:
            return theme.EMPHASIS_BORDER, 3.0
        status = self.diff.get(name)
        if status == "added":
            return theme.ADDED, 2.4
        if status == "changed":
            return theme.CHANGED, 2.4
        return None

    def _mark_paths(self, bands: range) -> list[tuple[QPen, QPainterPath]]:
        """Borders drawn over the boxes of ``bands`` (the selection, its operands
        and users, the pass's changes, the root), one path per style and band: a
        fusion pass changes thousands of nodes, and a paint draws a band or two.
        Kept until what they mark changes."""
        key = (self.selected, frozenset(self.operands), frozenset(self.users), self.emphasis)
        if self._marks is None or self._marks[0] != key or self._marks[1] is not self.diff:
            self._marks = (key, self.diff, {})
        built = self._marks[2]
        marks = []
        for band in bands:
            if band not in built:
                built[band] = self._band_marks(band)
            marks += built[band]
        return marks

    def _band_marks(self, band: int) -> list[tuple[QPen, QPainterPath]]:
        lo = bisect.bisect_left(self._row_ys, band * BAND)
        last = band == len(self._parts.bands) - 1
        hi = len(self._rows) if last else bisect.bisect_left(self._row_ys, (band + 1) * BAND)
        return outlines((box for _, row in self._rows[lo:hi] for box in row), self._mark_style)

    def _animated_keys(self) -> frozenset[str]:
        t = self._transition
        if t is None:
            return frozenset()
        return frozenset(p.node.key for p, _ in t.moving) | frozenset(
            p.node.key for p in t.appearing
        )

    def _paint_transition(self, painter: QPainter, t: Transition, show_text: bool) -> None:
        """The boxes that move or appear, where they are at this frame, and the
        removed ones fading out."""
        p = self._progress
        # Their boxes are in the bands' paths where they end: covered until they get there.
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(theme.GRAPH_BACKGROUND))
        for placed in [pl for pl, _ in t.moving] + list(t.appearing):
            painter.drawRect(placed.rect.adjusted(-2, -2, 2, 2))
        painter.setOpacity(1.0 - p)
        painter.setPen(QPen(QColor(theme.FAINT), 1.0, Qt.PenStyle.DashLine))
        painter.setBrush(QColor(theme.PANEL))
        for rect in t.vanishing:
            painter.drawRoundedRect(rect, 6, 6)
        frames = [
            (
                Placed(
                    pl.node, ox + (pl.left - ox) * p, oy + (pl.top - oy) * p, pl.width, pl.height
                ),
                1.0,
            )
            for pl, (ox, oy) in t.moving
        ]
        frames += [(pl, p) for pl in t.appearing]
        for placed, opacity in frames:
            painter.setOpacity(opacity)
            fill = QColor(
                self.fills.get(placed.node.instruction) or theme.KIND_COLORS[placed.node.kind]
            )
            pen = QPen(fill.darker(150), 1.0)
            if placed.node.is_copy:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawRoundedRect(placed.rect, 6, 6)
            if show_text:
                self._paint_label(painter, placed)
        painter.setOpacity(1.0)

    def _fill_path_list(self) -> list[tuple[str, QPainterPath]]:
        """The filled boxes, one path per colour (a heat scale has a few steps),
        built when the fills change, not on each paint."""
        if self._fill_paths is None:
            paths: dict[str, QPainterPath] = {}
            for box in self.placed.values() if self.fills else ():
                colour = self.fills.get(box.node.instruction)
                if colour is not None:
                    path = paths.get(colour) or paths.setdefault(colour, QPainterPath())
                    path.addRoundedRect(box.left, box.top, box.width, box.height, 6, 6)
            self._fill_paths = list(paths.items())
        return self._fill_paths

    def _paint_label(self, painter: QPainter, placed: Placed) -> None:
        if placed.node.members:
            paint_group_label(painter, placed, self._bold, self._font)
        else:
            paint_node_label(painter, placed, self._fonts)
