"""How a folded graph's groups are painted: a folded group as one box (a
repeat as a stack of cards), an open one as a frame around what it shows,
with a header strip naming it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen

from xlaview.analysis.drawing import GraphLayout
from xlaview.analysis.drawing.graph import ComputationGraph
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


def frame_paths(frames: Sequence[Frame]) -> list[tuple[Frame, QPainterPath, QPainterPath]]:
    """Each frame's fill (its parts, overlapping ones filled once) and outline."""
    out = []
    for frame in frames:
        fill = QPainterPath()
        fill.setFillRule(Qt.FillRule.WindingFill)
        for left, top, right, bottom in frame.parts:
            fill.addRect(QRectF(left, top, right - left, bottom - top))
        out.append((frame, fill, fill.simplified()))
    return out


def paint_frames(
    painter: QPainter,
    frames: Sequence[tuple[Frame, QPainterPath, QPainterPath]],
    exposed: QRectF,
    show_text: bool,
    bold: QFont,
) -> None:
    """The open groups (outermost first): a frame hugging what each shows,
    under the edges, with a header strip naming it (a click there folds it)."""
    if not frames:
        return
    border = QPen(QColor(theme.PILL_TEXT), 1.2)
    border.setCosmetic(True)
    metrics = QFontMetricsF(bold)
    for frame, fill, outline in frames:
        if not frame_rect(frame).intersects(exposed):
            continue
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.translucent(theme.PILL_BACKGROUND, 110))
        painter.drawPath(fill)
        painter.setPen(border)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(outline)
        left, top, right, bottom = frame.header
        header = QRectF(left, top, right - left, bottom - top)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.translucent(theme.PILL_BACKGROUND, 240))
        painter.drawRect(header.adjusted(1, 1, -1, 0))
        if show_text:
            painter.setPen(QColor(theme.PILL_TEXT))
            painter.setFont(bold)
            name = frame.path.rsplit("/", 1)[-1]
            # Where the frame is wider than the view, its name stays in sight.
            x0 = max(header.left(), exposed.left()) + 6
            x1 = min(header.right(), exposed.right()) - 6
            text = metrics.elidedText(f"▾ {name}", Qt.TextElideMode.ElideMiddle, x1 - x0)
            painter.drawText(QRectF(x0, header.top(), x1 - x0, header.height()), _LEFT, text)


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


def bundle_labels(graph: ComputationGraph, layout: GraphLayout) -> list[tuple[QPointF, str]]:
    """Where to write what a bundled edge stands for (``12 edges, 3.1 MiB``):
    beside the middle of its route, or of its stub into the target."""
    out = []
    for edge, route in zip(graph.edges, layout.edges, strict=True):
        if not (edge.source.startswith(GROUP_KEY) or edge.target.startswith(GROUP_KEY)):
            continue
        points = route.target_stub if route.stub and route.target_stub else route.points
        if points:
            (x0, y0), (x1, y1) = points[(len(points) - 1) // 2], points[len(points) // 2]
            out.append((QPointF((x0 + x1) / 2 + 4, (y0 + y1) / 2 + 3), edge.shape))
    return out


def paint_bundle_labels(
    painter: QPainter, labels: Sequence[tuple[QPointF, str]], exposed: QRectF, font: QFont
) -> None:
    painter.setFont(font)
    painter.setPen(QColor(theme.MUTED))
    for at, text in labels:
        if exposed.contains(at):
            painter.drawText(at, text)
