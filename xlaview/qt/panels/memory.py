"""The Memory tab: bytes live over the schedule, every buffer at its offset,
and the buffers live at XLA's peak."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QSplitter, QToolTip, QVBoxLayout, QWidget

from xlaview.analysis.memory import BufferBar, MemoryTimeline
from xlaview.qt import theme
from xlaview.qt.panels.tables import RowsModel, table_view
from xlaview.qt.safe_text import tooltip
from xlaview.units import human_bytes


class MemoryChart(QWidget):
    """Live bytes over the schedule (XLA's accounting and the slices actually
    occupied), the peak marked, and every buffer as a bar placed at its offset
    in memory (like XProf's memory viewer). Click a bar to select its producer."""

    buffer_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryChart")
        self.setMouseTracking(True)
        self.setMinimumHeight(220)
        self.timeline: MemoryTimeline | None = None
        self.selected: str | None = None
        self._bars: list[tuple[QRectF, BufferBar]] = []
        self._hit_order: list[tuple[QRectF, BufferBar]] = []
        self._bases: dict[int | None, int] = {}
        self._total = 1

    def set_timeline(self, timeline: MemoryTimeline | None) -> None:
        self.timeline = timeline
        self._bases = {}
        self._total = 1
        if timeline is not None:
            # Allocations stacked, largest at the bottom: a bar's height is its
            # size, its place the allocation's base plus the value's offset.
            sizes: dict[int | None, int] = {k: v for k, v in timeline.allocation_sizes.items()}
            for bar in timeline.buffers:
                sizes.setdefault(bar.allocation, bar.offset + bar.size)
            used = {bar.allocation for bar in timeline.buffers}
            base = 0
            for allocation, size in sorted(sizes.items(), key=lambda kv: -(kv[1] or 0)):
                if allocation in used:
                    self._bases[allocation] = base
                    base += size or 0
            self._total = max(1, base)
        self.update()

    def select(self, instruction: str | None) -> None:
        self.selected = instruction
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(theme.PAPER))
        t = self.timeline
        if t is None or not t.usage:
            painter.setPen(QColor(theme.MUTED))
            painter.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter,
                "No live-range report for this module (only the after-optimizations dump has one).",
            )
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        margin_l, margin_r, margin_t, margin_b = 84, 12, 16, 22
        w = self.width() - margin_l - margin_r
        h = self.height() - margin_t - margin_b
        curve_h = h * 0.38
        bars_top = margin_t + curve_h + 14
        bars_h = h - curve_h - 14
        steps = len(t.usage)
        top_bytes = max(max(t.usage), max(t.occupied or [0]), 1)

        def x_of(step: float) -> float:
            return margin_l + w * step / max(1, steps)

        # Usage (XLA's accounting) as an area, occupancy as a line.
        area = QPainterPath()
        area.moveTo(x_of(0), margin_t + curve_h)
        for i, value in enumerate(t.usage):
            y = margin_t + curve_h - curve_h * value / top_bytes
            area.lineTo(x_of(i), y)
            area.lineTo(x_of(i + 1), y)
        area.lineTo(x_of(steps), margin_t + curve_h)
        area.closeSubpath()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.translucent(theme.MEMORY_AREA, 90))
        painter.drawPath(area)
        if t.occupied:
            line = QPainterPath()
            for i, value in enumerate(t.occupied):
                y = margin_t + curve_h - curve_h * value / top_bytes
                (line.moveTo if i == 0 else line.lineTo)(x_of(i), y)
                line.lineTo(x_of(i + 1), y)
            painter.setPen(QPen(QColor(theme.MEMORY_LINE), 1.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(line)
        # The peak XLA reports.
        px = x_of(t.peak_time + 0.5)
        painter.setPen(QPen(QColor(theme.PEAK), 1.2, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(px, margin_t), QPointF(px, margin_t + h))
        painter.setPen(QColor(theme.REMOVED))
        label = f"XLA's peak: {human_bytes(t.peak_bytes)} at step {t.peak_time}"
        label_w = painter.fontMetrics().horizontalAdvance(label)
        lx = px + 4 if px + 4 + label_w < self.width() - margin_r else px - 4 - label_w
        painter.drawText(QPointF(lx, margin_t + 10), label)
        painter.setPen(QColor(theme.TEXT_SECONDARY))
        painter.drawText(
            QRectF(0, margin_t - 6, margin_l - 6, 16),
            Qt.AlignmentFlag.AlignRight,
            human_bytes(top_bytes),
        )
        painter.drawText(
            QRectF(0, margin_t + curve_h - 10, margin_l - 6, 16), Qt.AlignmentFlag.AlignRight, "0"
        )
        painter.drawText(
            QRectF(0, bars_top, margin_l - 6, 16), Qt.AlignmentFlag.AlignRight, "buffers"
        )
        # Buffers at their offsets.
        total = self._total
        self._bars = []
        for bar in t.buffers:
            if bar.size <= 0:
                continue
            base = self._bases.get(bar.allocation, 0)
            y1 = bars_top + bars_h - bars_h * (base + bar.offset) / total
            height = max(1.0, bars_h * bar.size / total)
            rect = QRectF(
                x_of(bar.start), y1 - height, max(2.0, x_of(bar.end + 1) - x_of(bar.start)), height
            )
            self._bars.append((rect, bar))
        # Smallest on top: hits go to the smallest bar under the mouse.
        self._hit_order = sorted(self._bars, key=lambda rb: rb[1].size)
        for rect, bar in self._bars:  # in timeline.buffers' order: largest first
            live_at_peak = bar.start <= t.peak_time <= bar.end
            colour = QColor(theme.BUFFER_AT_PEAK if live_at_peak else theme.BUFFER)
            if bar.instruction == self.selected:
                colour = QColor(theme.SELECTION_BORDER)
            painter.setPen(QPen(colour.darker(140), 0.8))
            painter.setBrush(colour)
            painter.drawRect(rect)
        painter.setPen(QColor(theme.MUTED))
        painter.drawText(
            QRectF(margin_l, self.height() - margin_b + 4, w, 16),
            Qt.AlignmentFlag.AlignLeft,
            f"schedule step 0 … {steps - 1}: area = live values (XLA's count), "
            "line = memory occupied (shared slices once), orange = live at the peak",
        )
        painter.end()

    def bar_rects(self) -> list[tuple[QRectF, BufferBar]]:
        """Where each buffer was drawn by the last paint."""
        return list(self._bars)

    def _bar_at(self, pos: QPointF) -> BufferBar | None:
        for rect, bar in self._hit_order:
            if rect.contains(pos):
                return bar
        return None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        bar = self._bar_at(event.position())
        if bar is not None and self.timeline is not None:
            share = (
                self.timeline.share(bar) if bar.start <= self.timeline.peak_time <= bar.end else 0
            )
            QToolTip.showText(
                event.globalPosition().toPoint(),
                tooltip(
                    f"{bar.key}  {bar.shape}\n{human_bytes(bar.size)}, "
                    f"allocation {bar.allocation}, "
                    f"live {bar.start} … {bar.end}"
                    + (f"\n{share:.1%} of the peak" if share else "")
                ),
                self,
            )

    def mousePressEvent(self, event: QMouseEvent) -> None:
        bar = self._bar_at(event.position())
        if bar is not None:
            self.buffer_clicked.emit(bar.instruction)


class MemoryPanel(QWidget):
    instruction_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory")
        self.chart = MemoryChart(self)
        self.chart.buffer_clicked.connect(self.instruction_requested)
        self.peak_model = RowsModel(
            ["buffer", "bytes", "share of peak", "live"], self, numeric=(1, 2, 3)
        )
        self.peak = table_view(self.peak_model, self, "peakTable", self.instruction_requested.emit)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.chart)
        split.addWidget(self.peak)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([900, 350])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)

    def set_timeline(self, timeline: MemoryTimeline | None) -> None:
        self.chart.set_timeline(timeline)
        rows = []
        for bar in timeline.peak_buffers if timeline is not None else ():  # largest first
            assert timeline is not None
            share = timeline.share(bar)
            rows.append(
                (
                    (bar.key, human_bytes(bar.size), f"{share:.1%}", f"{bar.start} … {bar.end}"),
                    (bar.key, bar.size, share, bar.start),
                    bar.instruction,
                )
            )
        self.peak_model.set_rows(rows)
        self.peak.horizontalHeader().setSortIndicator(1, Qt.SortOrder.DescendingOrder)
        self.peak.setColumnWidth(0, 200)
