"""The minimap: the whole graph, small, in a corner of the graph view, with
the part in view outlined; a click or a drag there moves the view."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QGraphicsView, QWidget

from xlaview.qt import theme
from xlaview.qt.graph.canvas import GraphCanvas
from xlaview.qt.graph.overview import TALLEST, WIDEST, overview_image

MARGIN = 10


class MinimapWidget(QWidget):
    """Shows the graph of ``view``'s canvas, small, over the bottom right of
    its viewport; hidden while the whole graph is in view. Its picture is
    painted when it first shows."""

    def __init__(self, view: QGraphicsView) -> None:
        super().__init__(view.viewport())
        self.setObjectName("minimap")
        self.view = view
        self.image: QImage | None = None
        self.canvas: GraphCanvas | None = None
        self.scene = QRectF()
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("the whole graph: click or drag to move the view")
        for bar in (view.horizontalScrollBar(), view.verticalScrollBar()):
            bar.valueChanged.connect(self.follow)
            bar.rangeChanged.connect(self.follow)
        self.hide()

    def set_graph(self, canvas: GraphCanvas | None) -> None:
        """The graph to show (None: none); its picture is made when first needed."""
        self.canvas, self.image = canvas, None
        layout = canvas.layout if canvas is not None else None
        self.scene = QRectF(0, 0, layout.width, layout.height) if layout else QRectF()
        self.follow()

    def seen(self) -> QRectF:
        view = self.view
        return view.mapToScene(view.viewport().rect()).boundingRect()

    def follow(self) -> None:
        """Placed in its corner, shown when part of the graph is out of view."""
        if self.canvas is None or self.scene.isEmpty():
            self.hide()
            return
        seen = self.seen()
        whole = seen.contains(self.scene.adjusted(40, 40, -40, -40))
        if whole:
            self.hide()
            return
        if self.image is None:
            self.image = overview_image(
                self.canvas.placed.values(), self.scene.width(), self.scene.height()
            )
            self.resize(WIDEST + 2, TALLEST + 2)  # one size: a step moves no widget
        viewport = self.view.viewport()
        self.move(
            viewport.width() - self.width() - MARGIN, viewport.height() - self.height() - MARGIN
        )
        self.setVisible(
            viewport.width() > 1.6 * self.width() and viewport.height() > 2.5 * self.height()
        )
        self.update()

    def _scale(self) -> float:
        assert self.image is not None
        return (self.image.width() - 2) / max(self.scene.width(), 1.0)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.image is None:
            return
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(theme.GRAPH_BACKGROUND))
        painter.drawImage(1, 1, self.image)
        painter.setPen(QColor(theme.BORDER))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        scale, seen = self._scale(), self.seen()
        box = QRectF(
            1 + (seen.left() - self.scene.left()) * scale,
            1 + (seen.top() - self.scene.top()) * scale,
            seen.width() * scale,
            seen.height() * scale,
        )
        painter.setPen(QPen(QColor(theme.ACCENT), 1.5))
        painter.setBrush(theme.translucent(theme.ACCENT, 40))
        painter.drawRect(box.intersected(QRectF(self.rect())))
        painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._move_to(event.position())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._move_to(event.position())

    def _move_to(self, at: QPointF) -> None:
        if self.image is None:
            return
        scale = self._scale()
        self.view.centerOn(
            QPointF(
                self.scene.left() + (at.x() - 1) / scale, self.scene.top() + (at.y() - 1) / scale
            )
        )
