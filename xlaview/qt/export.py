"""Screenshots for code reviews: the window as PNG, the graph as PNG or SVG."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget

from xlaview.qt import theme
from xlaview.qt.graph.view import GraphView


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
    """The whole graph as SVG, instruction names as text."""
    path = Path(path)
    source = view.scene().sceneRect()
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(QSize(int(source.width()), int(source.height())))
    generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
    graph = view.graph
    generator.setTitle(f"xlaview: {graph.computation}" if graph else "xlaview")
    painter = QPainter(generator)
    painter.fillRect(QRectF(0, 0, source.width(), source.height()), QColor(theme.GRAPH_BACKGROUND))
    _render_graph(view, painter, QRectF(0, 0, source.width(), source.height()), source)
    painter.end()
    if not path.exists():
        raise OSError(f"cannot write {path}")
    return path


__all__ = ["copy_window", "graph_png", "graph_svg", "window_png"]
