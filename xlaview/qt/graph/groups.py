"""How a folded graph's groups are painted: a folded group as one box (a
repeat as a stack of cards), an open one as a frame around what it shows,
with a header strip naming it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from xlaview.analysis.folding import GROUP_KEY, Frame
from xlaview.qt import theme
from xlaview.qt.render.canvas_parts import Placed

# Unclipped: a clipped line height cuts off the underscores of names.
_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextDontClip)


def group_path(key: str) -> str:
    """The path of the group a folded box's key names."""
    return key[len(GROUP_KEY) :]


def group_rect(frames: Sequence[Frame], placed: Mapping[str, Placed], path: str) -> QRectF | None:
    """Where group ``path`` is named: its frame's header when open, its box
    when folded (``placed``: the canvas's boxes by key)."""
    frame = next((f for f in frames if f.path == path), None)
    if frame is not None:
        left, top, right, bottom = frame.header
        return QRectF(left, top, right - left, bottom - top)
    box = placed.get(GROUP_KEY + path)
    return box.rect if box is not None else None


def frame_rect(frame: Frame) -> QRectF:
    return QRectF(frame.left, frame.top, frame.right - frame.left, frame.bottom - frame.top)


def paint_frames(
    painter: QPainter, frames: Sequence[Frame], exposed: QRectF, show_text: bool, bold: QFont
) -> None:
    """The open groups (outermost first): a frame hugging what each shows,
    under the edges, with a header strip naming it (a click there folds it).
    Only the rectangles and border lines in ``exposed`` are drawn: the frame
    around a whole train step has hundreds, and one path of them all takes
    the painter 80 ms whatever the clip."""
    if not frames:
        return
    border = QPen(QColor(theme.PILL_TEXT), 1.2)
    border.setCosmetic(True)
    fill = theme.translucent(theme.PILL_BACKGROUND, 110)
    metrics = QFontMetricsF(bold)
    x0, y0, x1, y1 = exposed.left(), exposed.top(), exposed.right(), exposed.bottom()
    antialiased = painter.testRenderHint(QPainter.RenderHint.Antialiasing)
    for frame in frames:
        if frame.right < x0 or frame.left > x1 or frame.bottom < y0 or frame.top > y1:
            continue
        # Touching rectangles, filled edge to edge: no seam between them.
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        for left, top, right, bottom in frame.parts:
            if right >= x0 and left <= x1 and bottom >= y0 and top <= y1:
                painter.drawRect(QRectF(left, top, right - left, bottom - top))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, antialiased)
        painter.setPen(border)
        painter.drawLines(
            [
                QLineF(a, b, c, d)
                for a, b, c, d in frame.outline
                if max(a, c) >= x0 and min(a, c) <= x1 and max(b, d) >= y0 and min(b, d) <= y1
            ]
        )
        left, top, right, bottom = frame.header
        header = QRectF(left, top, right - left, bottom - top)
        if not header.intersects(exposed):
            continue
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.translucent(theme.PILL_BACKGROUND, 240))
        painter.drawRect(header.adjusted(1, 1, -1, 0))
        if show_text:
            painter.setPen(QColor(theme.PILL_TEXT))
            painter.setFont(bold)
            name = frame.path.rsplit("/", 1)[-1]
            # Where the frame is wider than the view, its name stays in sight.
            a = max(header.left(), x0) + 6
            b = min(header.right(), x1) - 6
            text = metrics.elidedText(f"▾ {name}", Qt.TextElideMode.ElideMiddle, b - a)
            painter.drawText(QRectF(a, header.top(), b - a, header.height()), _LEFT, text)


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


def paint_bundle_labels(
    painter: QPainter, labels: Sequence[tuple[QPointF, str]], exposed: QRectF, font: QFont
) -> None:
    painter.setFont(font)
    painter.setPen(QColor(theme.MUTED))
    for at, text in labels:
        if exposed.contains(at):
            painter.drawText(at, text)
