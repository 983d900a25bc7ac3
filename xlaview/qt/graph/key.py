"""The graph's key: the colours of the kinds of node drawn, what a dashed
box or line means, and a folded graph's group boxes and frames. Shown in a
corner of the main graph (View › Show Graph Key) and in whole-graph exports."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from xlaview.analysis.drawing.graph import ComputationGraph
from xlaview.analysis.kinds import Kind
from xlaview.qt import theme

SWATCH = 18.0  # width of a sample box or line
PAD = 5.0


@dataclass(frozen=True, slots=True)
class KeyItem:
    """One line of the key: a sample drawn as ``style`` (``box``, ``copy``,
    ``stub``, ``group``, ``repeat``, ``frame``) in ``colour``, and its text."""

    style: str
    colour: str
    text: str


def key_items(graph: ComputationGraph, folded: bool) -> list[KeyItem]:
    """What the key of ``graph`` lists: the kinds its nodes have (in the
    order the kinds are declared), the dashed marks it draws, its groups."""
    kinds = {n.kind for n in graph.nodes if not n.members}
    items = [
        KeyItem("box", colour, kind.value)
        for kind, colour in theme.KIND_COLORS.items()
        if kind in kinds
    ]
    if any(n.is_copy for n in graph.nodes):
        items.append(KeyItem("copy", theme.KIND_COLORS[Kind.PARAMETER], "copy of a shared value"))
    items.append(KeyItem("stub", theme.FAINT, "long edge (hover: whole)"))
    if folded:
        items.append(KeyItem("group", theme.PILL_BACKGROUND, "folded group"))
        if any(n.repeats > 1 for n in graph.nodes):
            items.append(KeyItem("repeat", theme.PILL_BACKGROUND, "repeated blocks"))
        items.append(KeyItem("frame", theme.PILL_BACKGROUND, "open group"))
    return items


def key_size(items: list[KeyItem], metrics: QFontMetricsF, rows: int = 0) -> QSizeF:
    """The key's size, in columns of at most ``rows`` lines (0: one column)."""
    rows = rows or len(items) or 1
    columns = [items[i : i + rows] for i in range(0, len(items), rows)]
    width = sum(
        max(metrics.horizontalAdvance(item.text) for item in column) + SWATCH + 3 * PAD
        for column in columns
    )
    return QSizeF(width + PAD, metrics.height() * min(rows, len(items)) + 2 * PAD)


def key_font() -> QFont:
    font = QFont()
    font.setPointSizeF(8)
    return font


def paint_key(painter: QPainter, origin: QPointF, items: list[KeyItem], rows: int = 0) -> QRectF:
    """The key with its top left at ``origin`` (painter units, in the
    painter's font: `key_font`), in columns of at most ``rows`` lines; its
    rectangle."""
    metrics = QFontMetricsF(painter.font())
    size = key_size(items, metrics, rows)
    rows = rows or len(items) or 1
    box = QRectF(origin, size)
    painter.setPen(QColor(theme.BORDER))
    painter.setBrush(theme.translucent(theme.PAPER, 235))
    painter.drawRoundedRect(box, 4, 4)
    line = metrics.height()
    left = box.left() + PAD
    for start in range(0, len(items), rows):
        column = items[start : start + rows]
        y = box.top() + PAD
        for item in column:
            sample = QRectF(left, y + 3, SWATCH, line - 6)
            _paint_sample(painter, item, sample)
            painter.setPen(QColor(theme.TEXT))
            painter.drawText(
                QRectF(sample.right() + PAD, y, size.width(), line),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                item.text,
            )
            y += line
        left += max(metrics.horizontalAdvance(item.text) for item in column) + SWATCH + 3 * PAD
    return box


def _paint_sample(painter: QPainter, item: KeyItem, rect: QRectF) -> None:
    fill = QColor(item.colour)
    if item.style == "stub":
        painter.setPen(QPen(fill, 1.2, Qt.PenStyle.DashLine))
        y = rect.center().y()
        painter.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
        return
    pen = QPen(fill.darker(150), 1.0)
    if item.style == "copy":
        pen.setStyle(Qt.PenStyle.DashLine)
    if item.style in ("group", "repeat", "frame"):
        pen = QPen(QColor(theme.PILL_TEXT), 1.2)
    painter.setPen(pen)
    painter.setBrush(theme.translucent(item.colour, 110) if item.style == "frame" else fill)
    if item.style == "repeat":
        painter.drawRoundedRect(rect.adjusted(4, -2, 0, -4).translated(0, 0), 3, 3)
        painter.drawRoundedRect(rect.adjusted(0, 2, -4, 0), 3, 3)
        return
    painter.drawRoundedRect(rect, 3, 3)
