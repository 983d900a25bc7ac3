"""How a folded graph's groups are painted: a folded group as one box (a
repeat as a stack of cards), an open one as a frame around what it shows,
with a header strip naming it."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from xlaview.analysis.folding import GROUP_KEY, Frame
from xlaview.analysis.folding.drawn import FRAME_HEADER
from xlaview.qt import theme
from xlaview.qt.render.canvas_parts import Placed

# Unclipped: a clipped line height cuts off the underscores of names.
_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip)


def group_path(key: str) -> str:
    """The path of the group a folded box's key names."""
    return key[len(GROUP_KEY) :]


def frame_rect(frame: Frame) -> QRectF:
    return QRectF(frame.left, frame.top, frame.right - frame.left, frame.bottom - frame.top)


def paint_frames(
    painter: QPainter, frames: Sequence[Frame], exposed: QRectF, show_text: bool, bold: QFont
) -> None:
    """The open groups (outermost first): a frame around what each shows,
    under the edges, with a header strip naming it (a click there folds it)."""
    if not frames:
        return
    border = QPen(QColor(theme.PILL_TEXT), 1.2)
    border.setCosmetic(True)
    metrics = QFontMetricsF(bold)
    for frame in frames:
        rect = frame_rect(frame)
        if not rect.intersects(exposed):
            continue
        painter.setPen(border)
        painter.setBrush(theme.translucent(theme.PILL_BACKGROUND, 90))
        painter.drawRoundedRect(rect, 8, 8)
        header = QRectF(rect.left(), rect.top(), rect.width(), FRAME_HEADER)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.translucent(theme.PILL_BACKGROUND, 230))
        painter.drawRoundedRect(header.adjusted(1, 1, -1, 0), 7, 7)
        if show_text:
            painter.setPen(QColor(theme.PILL_TEXT))
            painter.setFont(bold)
            name = frame.path.rsplit("/", 1)[-1]
            # Where the frame is wider than the view, its name stays in sight.
            left = max(header.left(), exposed.left()) + 8
            right = min(header.right(), exposed.right()) - 8
            text = metrics.elidedText(
                f"▾ {name}  (click to fold)", Qt.TextElideMode.ElideMiddle, right - left
            )
            painter.drawText(QRectF(left, header.top(), right - left, FRAME_HEADER), _LEFT, text)


def paint_group_boxes(painter: QPainter, boxes: Sequence[Placed], exposed: QRectF) -> None:
    """The folded groups: one box each, a repeat drawn as a stack of cards."""
    pen = QPen(QColor(theme.PILL_TEXT), 1.6)
    for placed in boxes:
        rect = placed.rect
        if not rect.intersects(exposed):
            continue
        painter.setPen(pen)
        painter.setBrush(QColor(theme.PILL_BACKGROUND))
        if placed.node.repeats > 1:
            for step in (8, 4):
                painter.drawRoundedRect(rect.translated(step, -step), 6, 6)
        painter.drawRoundedRect(rect, 6, 6)


def paint_group_label(painter: QPainter, placed: Placed, bold: QFont, font: QFont) -> None:
    """A folded group's name, kind and size, and what a click does."""
    node = placed.node
    inner = placed.rect.adjusted(8, 4, -8, -4)
    line_h = inner.height() / 3
    painter.setPen(QColor(theme.TEXT))
    painter.setFont(bold)
    title = QFontMetricsF(bold).elidedText(
        f"▸ {node.label}", Qt.TextElideMode.ElideMiddle, inner.width()
    )
    painter.drawText(QRectF(inner.left(), inner.top(), inner.width(), line_h), _LEFT, title)
    painter.setFont(font)
    painter.setPen(QColor(theme.TEXT_SECONDARY))
    painter.drawText(
        QRectF(inner.left(), inner.top() + line_h, inner.width(), line_h),
        _LEFT,
        f"{node.opcode} · {node.shape}",
    )
    painter.setPen(QColor(theme.MUTED))
    painter.drawText(
        QRectF(inner.left(), inner.top() + 2 * line_h, inner.width(), line_h),
        _LEFT,
        "click to open",
    )
