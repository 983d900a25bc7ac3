"""Screenshots for code reviews: the window as PNG, the graph as PNG or SVG."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, QSize, QSizeF
from PySide6.QtGui import QColor, QFontMetricsF, QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget

from xlaview.qt import theme
from xlaview.qt.graph.key import KeyItem, key_font, key_items, key_size, paint_key
from xlaview.qt.graph.view import GraphView

# A whole-graph PNG is drawn smaller than asked rather than wider or taller than this.
MAX_SIDE = 16000
KEY_MARGIN = 10.0


def _final(widget: QWidget) -> None:
    """Exports show where a pass step ends, not a frame of its transition."""
    for view in [widget, *widget.findChildren(GraphView)]:
        if isinstance(view, GraphView):
            view.finish_transition()


def window_png(window: QWidget, path: str | Path) -> Path:
    """The whole window as a user sees it."""
    path = Path(path)
    _final(window)
    pixmap = window.grab()
    if not pixmap.save(str(path), "PNG"):
        raise OSError(f"cannot write {path}")
    return path


def copy_window(window: QWidget) -> None:
    QGuiApplication.clipboard().setPixmap(window.grab())


def _render_graph(view: GraphView, painter: QPainter, target: QRectF, source: QRectF) -> None:
    canvas = view.canvas
    if canvas is None:
        return
    view.finish_transition()
    canvas.force_text = True
    try:
        view.scene().render(painter, target, source)
    finally:
        canvas.force_text = False


def graph_png(view: GraphView, path: str | Path, scale: float = 2.0) -> Path:
    """The visible part of the graph at ``scale`` (2x by default)."""
    path = Path(path)
    source = view.mapToScene(view.viewport().rect()).boundingRect()
    zoom = view.transform().m11()
    size = QSize(int(source.width() * zoom * scale), int(source.height() * zoom * scale))
    size = size.boundedTo(QSize(16000, 16000))
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme.GRAPH_BACKGROUND))
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    _render_graph(view, painter, QRectF(0, 0, size.width(), size.height()), source)
    painter.end()
    # (PySide6's stub asks bytes for the format; the binding takes only str.)
    if not image.save(str(path), "PNG"):  # type: ignore[call-overload]
        raise OSError(f"cannot write {path}")
    return path


def graph_svg(view: GraphView, path: str | Path) -> Path:
    """The whole graph as SVG, instruction names as text, its key above it."""
    path = Path(path)
    source = view.scene().sceneRect()
    key = _key_of(view)
    band = key_band(key)
    width, height = max(source.width(), band.width()), source.height() + band.height()
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(QSize(int(width), int(height)))
    generator.setViewBox(QRectF(0, 0, width, height))
    graph = view.graph
    generator.setTitle(f"xlaview: {graph.computation}" if graph else "xlaview")
    painter = QPainter(generator)
    painter.fillRect(QRectF(0, 0, width, height), QColor(theme.GRAPH_BACKGROUND))
    _paint_key(painter, key)
    target = QRectF(0, band.height(), source.width(), source.height())
    _render_graph(view, painter, target, source)
    painter.end()
    if not path.exists():
        raise OSError(f"cannot write {path}")
    return path


def whole_graph_png(view: GraphView, path: str | Path, scale: float = 1.0) -> Path:
    """The whole graph (not the part in view) as PNG at ``scale``, less where
    that would pass `MAX_SIDE` pixels a side, its key above it."""
    path = Path(path)
    source = view.scene().sceneRect()
    scale = min(scale, MAX_SIDE / max(source.width(), 1), MAX_SIDE / max(source.height(), 1))
    key = _key_of(view)
    band = key_band(key)
    width = int(max(source.width() * scale, band.width()))
    height = int(source.height() * scale + band.height())
    image = QImage(QSize(width, height), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme.GRAPH_BACKGROUND))
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    _paint_key(painter, key)
    target = QRectF(0, band.height(), source.width() * scale, source.height() * scale)
    _render_graph(view, painter, target, source)
    painter.end()
    if not image.save(str(path), "PNG"):  # type: ignore[call-overload]
        raise OSError(f"cannot write {path}")
    return path


def _key_of(view: GraphView) -> list[KeyItem]:
    canvas = view.canvas
    if canvas is None:
        return []
    return key_items(canvas.graph, bool(canvas.frames or canvas.group_boxes))


def key_band(key: list[KeyItem]) -> QSizeF:
    """The room the key takes above an exported graph."""
    if not key:
        return QSizeF(0, 0)
    size = key_size(key, QFontMetricsF(key_font()))
    return QSizeF(size.width() + 2 * KEY_MARGIN, size.height() + 2 * KEY_MARGIN)


def _paint_key(painter: QPainter, key: list[KeyItem]) -> None:
    if key:
        painter.setFont(key_font())
        paint_key(painter, QPointF(KEY_MARGIN, KEY_MARGIN), key)


__all__ = ["copy_window", "graph_png", "graph_svg", "whole_graph_png", "window_png"]
