"""A small picture of a whole laid-out graph for the graph view's minimap:
its boxes only (edges would be a grey fog at this size). Painted on the GUI
thread when the minimap first shows a graph: a few hundred boxes of a folded
graph take a millisecond."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter

from xlaview.qt import theme
from xlaview.qt.render.canvas_parts import Placed

# The picture fits in WIDEST x TALLEST pixels: a long chain of a graph is a
# strip in the view's corner, not a column as tall as the view.
WIDEST = 180
TALLEST = 110
MIN_BOX = 1.5  # a box this small still shows (pixels)


def overview_image(boxes: Iterable[Placed], width: float, height: float) -> QImage:
    """The boxes of a graph ``width`` x ``height`` (scene units) scaled to
    fit in `WIDEST` x `TALLEST` pixels."""
    scale = min(WIDEST / max(width, 1.0), TALLEST / max(height, 1.0))
    size = QSize(max(8, int(width * scale) + 2), max(8, int(height * scale) + 2))
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme.GRAPH_BACKGROUND))
    painter = QPainter(image)
    painter.setPen(Qt.PenStyle.NoPen)
    colours: dict[str, QColor] = {}
    for box in boxes:
        node = box.node
        name = theme.PILL_TEXT if node.members else theme.KIND_COLORS[node.kind]
        colour = colours.get(name) or colours.setdefault(name, QColor(name).darker(115))
        painter.setBrush(colour)
        painter.drawRect(
            QRectF(
                box.left * scale + 1,
                box.top * scale + 1,
                max(MIN_BOX, box.width * scale),
                max(MIN_BOX, box.height * scale),
            )
        )
    painter.end()
    return image
