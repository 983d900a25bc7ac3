"""A node's label in the graph: its name, its opcode (or kind), its shape."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter

from xlaview.analysis.kinds import is_fusion_kind
from xlaview.qt import theme
from xlaview.qt.render.canvas_parts import Placed

_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip)


class NodeFonts:
    """The fonts of node labels, and the metrics that elide them."""

    def __init__(self) -> None:
        self.font = QFont()
        self.font.setPointSizeF(9)
        self.bold = QFont(self.font)
        self.bold.setWeight(QFont.Weight.DemiBold)
        self.mono = theme.monospace_font(8)
        self.metrics = QFontMetricsF(self.bold)
        self.mono_metrics = QFontMetricsF(self.mono)


def paint_node_label(painter: QPainter, placed: Placed, fonts: NodeFonts) -> None:
    """Name, opcode and shape of one node (a shared value's copy: no shape)."""
    node, rect = placed.node, placed.rect
    name = node.instruction
    inner = rect.adjusted(7, 3, -7, -3)
    painter.setPen(QColor(theme.TEXT))
    painter.setFont(fonts.bold)
    title = fonts.metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, inner.width())
    line_h = inner.height() / (2 if node.is_copy else 3)
    painter.drawText(QRectF(inner.left(), inner.top(), inner.width(), line_h), _LEFT, title)
    painter.setFont(fonts.font)
    opcode = " · ".join(node.label.split(" ")) if node.label else node.opcode
    if not node.label and is_fusion_kind(node.kind):
        opcode = f"{node.opcode} · {node.kind.value.split()[0]}"
    painter.setPen(QColor(theme.TEXT_SECONDARY))
    painter.drawText(
        QRectF(inner.left(), inner.top() + line_h, inner.width(), line_h), _LEFT, opcode
    )
    if not node.is_copy:
        painter.setFont(fonts.mono)
        shape = fonts.mono_metrics.elidedText(
            node.shape, Qt.TextElideMode.ElideRight, inner.width()
        )
        painter.drawText(
            QRectF(inner.left(), inner.top() + 2 * line_h, inner.width(), line_h), _LEFT, shape
        )
