"""The graph view: one computation as a layered top-to-bottom dataflow graph,
drawn by a `GraphCanvas`. Zoom, pan, fit; a click selects, a double-click
opens a called computation."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEasingCurve, QPointF, QRect, QRectF, Qt, QVariantAnimation, Signal
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QToolTip, QWidget

from xlaview.analysis.drawing import GraphLayout
from xlaview.analysis.drawing.graph import ComputationGraph, GraphNode
from xlaview.analysis.folding import Frame
from xlaview.qt import theme
from xlaview.qt.graph.canvas import (
    READABLE_SCALE,
    TEXT_MIN_SCALE,
    CanvasParts,
    GraphCanvas,
)
from xlaview.qt.graph.groups import group_path, group_rect
from xlaview.qt.graph.key import KeyItem, key_font, key_size, paint_key
from xlaview.qt.graph.minimap import MinimapWidget
from xlaview.qt.render.transition import DURATION_MS, Transition
from xlaview.qt.safe_text import tooltip


class GraphView(QGraphicsView):
    """Zoom (wheel, +/-), pan (drag), fit the whole graph (F), a readable start (R);
    click selects, double-click enters; a click on a folded group opens it, on
    an open group's header folds it."""

    instruction_clicked = Signal(str, str)  # computation, instruction
    computation_entered = Signal(str)
    group_toggled = Signal(str, bool)  # a group's path, open it (else fold it)

    def __init__(self, parent: QWidget | None = None, object_name: str = "graphView") -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setBackgroundBrush(QColor(theme.GRAPH_BACKGROUND))
        self.setMouseTracking(True)
        # Scroll bars that come and go resize the view (and repaint it) as passes go by.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.canvas: GraphCanvas | None = None
        self.animate = True  # pass steps move nodes to their new places (View menu)
        self._animation = QVariantAnimation(self)
        self._animation.setDuration(DURATION_MS)
        self._animation.setStartValue(0.0)
        self._animation.setEndValue(1.0)
        self._animation.setEasingCurve(QEasingCurve.Type.OutCubic)
        self._animation.valueChanged.connect(
            lambda value: self.canvas.set_progress(value) if self.canvas is not None else None
        )
        self._animation.finished.connect(self.finish_transition)
        self._legend: tuple[str, list[tuple[str, str]]] | None = None  # title, (colour, label)
        self.key: list[KeyItem] = []  # the graph's key (`set_key`)
        self.minimap = MinimapWidget(self)
        self._press: QPointF | None = None
        self._clicked: tuple[QPointF, GraphNode] | None = None  # where a click was, on which node
        self._double = False  # a double-click's second press came: its release selects nothing

    @property
    def transition_ms(self) -> int:
        """How long a pass step's move of the nodes takes."""
        return self._animation.duration()

    @transition_ms.setter
    def transition_ms(self, duration: int) -> None:
        self._animation.setDuration(duration)

    def set_graph(
        self,
        graph: ComputationGraph | None,
        layout: GraphLayout | None,
        keep_view: bool = False,
        parts: CanvasParts | None = None,
        transition: Transition | None = None,
        frames: tuple[Frame, ...] = (),
    ) -> None:
        """Show a laid-out graph; ``transition``: animate the pass step that led
        to it (when animations are on and the view keeps its place); ``frames``:
        the open groups of a folded graph."""
        canvas = self.canvas
        if (
            canvas is not None
            and keep_view
            and transition is None
            and canvas.graph is graph
            and canvas.layout is layout
            and canvas.frames == frames
        ):
            return  # the picture shown (a pass that left it alone): kept, marks and all
        # Only a view that shows a graph has a place worth keeping.
        keep_view = keep_view and self.canvas is not None
        center = self.mapToScene(self.viewport().rect().center())
        transform = self.transform()
        self.scene().clear()
        self.canvas = None
        self.minimap.set_graph(None)
        if graph is None or layout is None:
            return
        self._animation.stop()
        self.canvas = GraphCanvas(graph, layout, parts, frames)
        self.scene().addItem(self.canvas)
        self.scene().setSceneRect(self.canvas.boundingRect())
        self.minimap.set_graph(self.canvas)
        if keep_view:
            self.setTransform(transform)
            self.centerOn(center)
        else:
            self.show_start()
        if transition is not None and keep_view and self.animate and self.isVisible():
            self.canvas.begin_transition(transition)
            self._animation.start()

    def finish_transition(self) -> None:
        """Show the final picture now (a click, a key, an export)."""
        self._animation.stop()
        if self.canvas is not None:
            self.canvas.end_transition()

    def set_legend(self, title: str | None, stops: Sequence[tuple[str, str]] = ()) -> None:
        """A legend in the view's corner for the node colours (a heat scale);
        None: no legend."""
        legend = (title, list(stops)) if title else None
        if legend == self._legend:
            return
        self._legend = legend
        self.viewport().update()

    def legend(self) -> tuple[str, list[tuple[str, str]]] | None:
        """The legend shown: its title and (colour, label) stops; None: none."""
        return self._legend

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.minimap.follow()

    def set_key(self, items: list[KeyItem]) -> None:
        """The graph's key in the view's bottom left corner (empty: none)."""
        if items == self.key:
            return
        self.key = items
        self.viewport().update()

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        if self.key:
            painter.save()
            painter.resetTransform()  # in the viewport's pixels, whatever the zoom
            painter.setFont(key_font())
            key_metrics = QFontMetricsF(painter.font())
            # In columns no taller than a third of the view.
            rows = max(2, int(self.viewport().height() / 3 / key_metrics.height()))
            size = key_size(self.key, key_metrics, rows)
            at = QPointF(10, self.viewport().height() - size.height() - 10)
            paint_key(painter, at, self.key, rows)
            painter.restore()
        if self._legend is None:
            return
        title, stops = self._legend
        painter.save()
        painter.resetTransform()  # in the viewport's pixels, whatever the zoom
        metrics = painter.fontMetrics()
        width = (
            max(
                [metrics.horizontalAdvance(title)]
                + [metrics.horizontalAdvance(label) + 22 for _, label in stops]
            )
            + 16
        )
        height = metrics.height() * (len(stops) + 1) + 14
        box = QRectF(self.viewport().width() - width - 10, 10, width, height)
        painter.setPen(QColor(theme.BORDER))
        painter.setBrush(theme.translucent(theme.PAPER, 235))
        painter.drawRoundedRect(box, 4, 4)
        painter.setPen(QColor(theme.TEXT))
        y = box.top() + 6
        painter.drawText(
            QRectF(box.left() + 8, y, width, metrics.height()),
            int(Qt.AlignmentFlag.AlignLeft),
            title,
        )
        for colour, label in stops:
            y += metrics.height()
            painter.setBrush(QColor(colour))
            painter.setPen(QColor(colour).darker(150))
            painter.drawRect(QRectF(box.left() + 8, y + 2, 14, metrics.height() - 4))
            painter.setPen(QColor(theme.TEXT))
            painter.drawText(
                QRectF(box.left() + 28, y, width, metrics.height()),
                int(Qt.AlignmentFlag.AlignLeft),
                label,
            )
        painter.restore()

    @property
    def graph(self) -> ComputationGraph | None:
        return self.canvas.graph if self.canvas else None

    def set_selection(
        self, instruction: str | None, operands: set[str], users: set[str], center: bool = True
    ) -> None:
        if self.canvas is None:
            return
        self.canvas.set_marks(instruction, operands, users)
        if center and instruction:
            rect = self.canvas.rect_of(instruction)
            if rect is not None:
                if self.transform().m11() < TEXT_MIN_SCALE:
                    self.resetTransform()
                    self.scale(0.9, 0.9)
                self.centerOn(rect.center())

    def look_at_group(self, path: str) -> None:
        """Bring group ``path`` into view unless it is in view already: an open
        one's header near the top of the view, a folded one's box in the middle."""
        if self.canvas is None:
            return
        rect = group_rect(self.canvas.frames, self.canvas.placed, path)
        if rect is None:
            return
        if self.transform().m11() < TEXT_MIN_SCALE:
            self.resetTransform()
            self.scale(READABLE_SCALE, READABLE_SCALE)
        seen = self.mapToScene(self.viewport().rect()).boundingRect()
        if seen.contains(rect.center()):
            return
        if path in {f.path for f in self.canvas.frames}:
            self.centerOn(rect.left() + seen.width() / 3, rect.top() + seen.height() / 2 - 20)
        else:
            self.centerOn(rect.center())

    def fit(self) -> None:
        """The whole graph in view (F), however small that makes it."""
        if self.canvas is None:
            return
        self.fitInView(self.canvas.boundingRect(), Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() > 1.0:
            self.resetTransform()
            self.centerOn(self.canvas.boundingRect().center())

    def on_screen(self) -> list[str]:
        """The instructions whose nodes the view shows now."""
        if self.canvas is None:
            return []
        return self.canvas.instructions_in(self.mapToScene(self.viewport().rect()).boundingRect())

    def show_start(self) -> None:
        """Where a graph opens (R): fitted if that is readable, else at a
        readable zoom on its top row."""
        if self.canvas is None:
            return
        self.fit()
        if self.transform().m11() < READABLE_SCALE:
            self.resetTransform()
            self.scale(READABLE_SCALE, READABLE_SCALE)
            top = self.canvas.boundingRect().top() + self.viewport().height() / (2 * READABLE_SCALE)
            self.centerOn(QPointF(self.canvas.top_node_x(), top))

    def zoom(self, factor: float) -> None:
        scale = self.transform().m11() * factor
        if 0.02 <= scale <= 6:
            self.scale(factor, factor)

    def wheelEvent(self, event: QWheelEvent) -> None:
        self.finish_transition()
        self.zoom(1.2 ** (event.angleDelta().y() / 120))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self.finish_transition()
        key = event.key()
        if key == Qt.Key.Key_F:
            self.fit()
        elif key == Qt.Key.Key_R:
            self.show_start()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1.25)
        elif key == Qt.Key.Key_Minus:
            self.zoom(0.8)
        elif key == Qt.Key.Key_0:
            self.resetTransform()
        else:
            super().keyPressEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.finish_transition()
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        moved = self._press is not None and (event.position() - self._press).manhattanLength() > 4
        self._press = None
        if self._double:  # the end of a double-click: its first click selected
            self._double = False
            return
        if moved or self.canvas is None or event.button() != Qt.MouseButton.LeftButton:
            return
        pos = self.mapToScene(event.position().toPoint())
        placed = self.canvas.node_at(pos)
        self._clicked = (event.position(), placed.node) if placed is not None else None
        if placed is not None and placed.node.members:
            self._clicked = None
            self.group_toggled.emit(group_path(placed.node.key), True)
        elif placed is not None:
            self.instruction_clicked.emit(self.canvas.graph.computation, placed.node.instruction)
        elif (frame := self.canvas.frame_header_at(pos)) is not None:
            self.group_toggled.emit(frame.path, False)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if self.canvas is None:
            return
        self._double = True
        placed = self.canvas.node_at(self.mapToScene(event.position().toPoint()))
        node = placed.node if placed is not None else None
        clicked = self._clicked
        if clicked is not None and (event.position() - clicked[0]).manhattanLength() <= 4:
            # The first click selected the node and the view centred it: the
            # second lands where it was, which is the node meant.
            node = clicked[1]
        if node is not None and node.called:
            self.computation_entered.emit(node.called[0])

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        super().mouseMoveEvent(event)
        if self.canvas is None or event.buttons():
            return
        pos = self.mapToScene(event.position().toPoint())
        placed = self.canvas.node_at(pos)
        edge = None
        if placed is None:
            edge = self.canvas.edge_near(pos, 6 / max(self.transform().m11(), 0.05))
        self.canvas.set_hover_edge(edge)
        frame = self.canvas.frame_header_at(pos) if placed is None and edge is None else None
        if placed is not None and placed.node.members:
            n = placed.node
            tip = f"{group_path(n.key)}\n{n.opcode}: {n.shape}  (click to open)"
            QToolTip.showText(event.globalPosition().toPoint(), tooltip(tip), self)
        elif frame is not None:
            tip = f"{frame.path}\n(click to fold it into one box)"
            QToolTip.showText(event.globalPosition().toPoint(), tooltip(tip), self)
        elif placed is not None:
            n = placed.node
            tip = f"{n.instruction}\n{n.label or n.opcode}  {n.shape}"
            if n.called:
                tip += "\ncalls " + ", ".join(n.called) + "  (double-click to open)"
            QToolTip.showText(event.globalPosition().toPoint(), tooltip(tip), self)
        elif edge is not None:
            route = edge
            by_key = self.canvas.placed
            shape = next(
                (
                    e.shape
                    for e in self.canvas.graph.edges
                    if e.source == route.source and e.target == route.target
                ),
                "",
            )
            text = (
                f"{by_key[route.source].node.instruction} → "
                f"{by_key[route.target].node.instruction}\n{shape}"
            )
            QToolTip.showText(event.globalPosition().toPoint(), tooltip(text), self)
        else:
            QToolTip.hideText()
