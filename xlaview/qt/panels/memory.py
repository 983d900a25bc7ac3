"""The Memory tab: the module's memory (every allocation, by part) and its peak
of live values, the bytes in use over the schedule, every buffer at its offset,
and the buffers live at XLA's peak."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QSplitter, QToolTip, QVBoxLayout, QWidget

from xlaview.analysis.memory import (
    MEMORY_PARTS,
    PART_NAMES,
    BufferBar,
    MemoryTimeline,
    ModuleMemory,
    explain_memory,
)
from xlaview.qt import safe_text, theme
from xlaview.qt.model.analyses.memory_shown import MemoryShown
from xlaview.qt.panels.tables import RowsModel, table_view
from xlaview.qt.safe_text import tooltip
from xlaview.units import byte_tick_label, byte_ticks, exact_bytes, human_bytes

STEP_TICK_SPACING = 48  # pixels at least between two labelled schedule steps


def step_ticks(steps: int, width: float) -> list[int]:
    """Schedule steps to label on an axis ``width`` pixels wide: multiples of
    1, 2, 5, 10, 20, 50... far enough apart to read."""
    if steps <= 0:
        return []
    step, factors = 1, (2, 2.5, 2)  # 1 -> 2 -> 5 -> 10 -> 20 -> 50 ...
    k = 0
    while step < steps and width * step / steps < STEP_TICK_SPACING:
        step = round(step * factors[k % 3])
        k += 1
    return list(range(0, steps, step))


class MemoryChart(QWidget):
    """Above, the bytes in use at each step of the schedule, stacked by part
    (parameters, outputs, temporaries, constants), under the module's memory
    (every allocation, a dashed line) with the peak of live values marked at
    the step XLA names; below, every buffer as a bar placed at its offset in
    memory (like XProf's memory viewer). Both share the schedule axis. Click a
    bar to select its producer; hover for exact figures."""

    buffer_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryChart")
        self.setMouseTracking(True)
        self.setMinimumHeight(260)
        self.timeline: MemoryTimeline | None = None
        self.memory: ModuleMemory | None = None
        self.selected: str | None = None
        self._bars: list[tuple[QRectF, BufferBar]] = []
        self._hit_order: list[tuple[QRectF, BufferBar]] = []
        self._bases: dict[int | None, int] = {}
        self._total = 1
        self._labels: list[str] = []
        self._curve = QRectF()  # where the last paint drew the bytes in use
        self._steps = 0

    def set_timeline(self, shown: MemoryShown | None) -> None:
        self.timeline = shown.timeline if shown is not None else None
        self._bases, self._total = (shown.bases, shown.total) if shown is not None else ({}, 1)
        self.update()

    def set_memory(self, memory: ModuleMemory | None) -> None:
        self.memory = memory
        self.update()

    def select(self, instruction: str | None) -> None:
        self.selected = instruction
        self.update()

    def labels(self) -> list[str]:
        """The legend's and the marks' texts as the last paint drew them."""
        return list(self._labels)

    def bar_rects(self) -> list[tuple[QRectF, BufferBar]]:
        """Where each buffer was drawn by the last paint."""
        return list(self._bars)

    # ------------------------------------------------------------ painting
    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(theme.PAPER))
        self._labels = []
        t = self.timeline
        if t is None or not t.occupied:
            painter.setPen(QColor(theme.MUTED))
            painter.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter,
                "No live-range report for this module (only the after-optimizations dump has one).",
            )
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = painter.fontMetrics()
        line = metrics.height()
        margin_l, margin_r = 70, 14
        w = self.width() - margin_l - margin_r
        legend_bottom = self._paint_legend(painter, margin_l, 4, self.width() - margin_r)
        curve_top = legend_bottom + 10
        axis_h = 2 * line + 8  # the step numbers, then the axis title
        plot_h = self.height() - curve_top - axis_h
        curve_h = plot_h * 0.45
        bars_title = curve_top + curve_h + 6
        bars_top = bars_title + line + 4
        bars_h = max(10.0, curve_top + plot_h - bars_top)
        steps = len(t.occupied)
        self._steps = steps

        def x_of(step: float) -> float:
            return margin_l + w * step / max(1, steps)

        memory = self.memory
        total = memory.total_bytes if memory is not None else None
        peak_live = memory.peak_live_bytes if memory is not None else t.peak_bytes
        top = max(max(t.occupied), total or 0, peak_live or 0, 1) * 1.1
        self._curve = QRectF(margin_l, curve_top, w, curve_h)

        def y_of(value: float) -> float:
            return curve_top + curve_h - curve_h * value / top

        ticks = step_ticks(steps, w)
        self._paint_grid(painter, ticks, x_of, curve_top, bars_top + bars_h)
        most = max(1, min(5, int(curve_h // (1.6 * line))))  # labels that do not touch
        self._paint_byte_axis(painter, byte_ticks(top / 1.1, most), y_of, margin_l, w)
        # In use at each step, stacked by part: the defined figures, over time.
        below = [0] * steps
        for part in MEMORY_PARTS:
            values = t.in_use.get(part)
            if not values or not any(values):
                continue
            above = [b + v for b, v in zip(below, values, strict=True)]
            area = QPainterPath()
            area.moveTo(x_of(0), y_of(below[0]))
            for i, value in enumerate(above):
                area.lineTo(x_of(i), y_of(value))
                area.lineTo(x_of(i + 1), y_of(value))
            for i in range(steps - 1, -1, -1):
                area.lineTo(x_of(i + 1), y_of(below[i]))
                area.lineTo(x_of(i), y_of(below[i]))
            area.closeSubpath()
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(theme.MEMORY_PART_COLORS[part]))
            painter.drawPath(area)
            below = above
        painter.setBrush(Qt.BrushStyle.NoBrush)
        # The module's memory: what the allocations take, the whole run.
        if total is not None:
            y = y_of(total)
            painter.setPen(QPen(QColor(theme.STRONG), 1.2, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(margin_l, y), QPointF(margin_l + w, y))
            text = f"memory {human_bytes(total)}"
            self._labels.append(text)
            painter.drawText(
                QRectF(margin_l, y - line - 1, w - 4, line),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom,
                text,
            )
        # The peak of live values, at the step XLA's live-range report names.
        px = x_of(t.peak_time + 0.5)
        painter.setPen(QPen(QColor(theme.PEAK), 1.2, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(px, curve_top), QPointF(px, bars_top + bars_h))
        if peak_live is not None:
            py = y_of(peak_live)
            painter.setPen(QPen(QColor(theme.PEAK), 1.5))
            painter.setBrush(QColor(theme.PEAK))
            painter.drawEllipse(QPointF(px, py), 3.5, 3.5)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            text = f"peak of live values {human_bytes(peak_live)}, step {t.peak_time}"
            self._labels.append(text)
            width = metrics.horizontalAdvance(text)
            lx = px + 7 if px + 7 + width < margin_l + w else px - 7 - width
            # Above the dot, unless the memory line's label is there.
            near_total = total is not None and abs(py - y_of(total)) < line + 4
            ly = py + line + 2 if near_total or py - line < curve_top else py - 5
            painter.setPen(QColor(theme.REMOVED))
            painter.drawText(QPointF(lx, ly), text)
        # Buffers at their offsets.
        painter.setPen(QColor(theme.TEXT_SECONDARY))
        title = (
            "buffers at their offsets in memory (allocations stacked, largest lowest), "
            f"coloured by part; orange: live at step {t.peak_time}"
        )
        self._labels.append(title)
        painter.drawText(
            QRectF(margin_l, bars_title, w, line),
            Qt.AlignmentFlag.AlignLeft,
            metrics.elidedText(title, Qt.TextElideMode.ElideRight, int(w)),
        )
        self._paint_offset_axis(painter, bars_top, bars_h, margin_l)
        total_offsets = self._total
        self._bars = []
        for bar in t.buffers:
            if bar.size <= 0:
                continue
            base = self._bases.get(bar.allocation, 0)
            y1 = bars_top + bars_h - bars_h * (base + bar.offset) / total_offsets
            height = max(1.0, bars_h * bar.size / total_offsets)
            rect = QRectF(
                x_of(bar.start), y1 - height, max(2.0, x_of(bar.end + 1) - x_of(bar.start)), height
            )
            self._bars.append((rect, bar))
        # Smallest on top: hits go to the smallest bar under the mouse.
        self._hit_order = sorted(self._bars, key=lambda rb: rb[1].size)
        for rect, bar in self._bars:  # in timeline.buffers' order: largest first
            live_at_peak = bar.start <= t.peak_time <= bar.end
            colour = QColor(
                theme.BUFFER_AT_PEAK if live_at_peak else theme.MEMORY_PART_COLORS[t.part_of(bar)]
            )
            if bar.instruction == self.selected:
                colour = QColor(theme.SELECTION_BORDER)
            painter.setPen(QPen(colour.darker(140), 0.8))
            painter.setBrush(colour)
            painter.drawRect(rect)
        # The schedule axis, shared.
        axis_y = bars_top + bars_h
        painter.setPen(QPen(QColor(theme.BORDER), 1))
        painter.drawLine(QPointF(margin_l, axis_y), QPointF(margin_l + w, axis_y))
        painter.setPen(QColor(theme.TEXT_SECONDARY))
        for step in ticks:
            x = x_of(step + 0.5)
            painter.drawLine(QPointF(x, axis_y), QPointF(x, axis_y + 3))
            painter.drawText(
                QRectF(x - 30, axis_y + 3, 60, line), Qt.AlignmentFlag.AlignHCenter, str(step)
            )
        axis_title = (
            f"schedule step (0 … {steps - 1}: the entry computation's instructions in order)"
        )
        self._labels.append(axis_title)
        painter.setPen(QColor(theme.MUTED))
        painter.drawText(
            QRectF(margin_l, axis_y + 4 + line, w, line), Qt.AlignmentFlag.AlignHCenter, axis_title
        )
        painter.end()

    def _paint_legend(self, painter: QPainter, left: float, top: float, right: float) -> float:
        """Swatches for the parts in use, the memory line and the peak mark,
        in rows that fit; returns the bottom of the last row."""
        metrics = painter.fontMetrics()
        line = metrics.height()
        items: list[tuple[str, str]] = [("in use at each step, by part:", "")]
        items += [(PART_NAMES[p], p) for p in MEMORY_PARTS]
        if self.memory is not None:
            items.append(("memory: every allocation, held the whole run", "total"))
        items.append(("peak of live values (XLA's live-range report)", "peak"))
        x, y = left, top
        for text, kind in items:
            width = (0 if not kind else 20) + metrics.horizontalAdvance(text) + 14
            if x + width > right and x > left:
                x, y = left, y + line + 4
            middle = y + line / 2
            if kind in theme.MEMORY_PART_COLORS:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(theme.MEMORY_PART_COLORS[kind]))
                painter.drawRect(QRectF(x, middle - 5, 14, 10))
            elif kind == "total":
                painter.setPen(QPen(QColor(theme.STRONG), 1.2, Qt.PenStyle.DashLine))
                painter.drawLine(QPointF(x, middle), QPointF(x + 14, middle))
            elif kind == "peak":
                painter.setPen(QPen(QColor(theme.PEAK), 1.5))
                painter.setBrush(QColor(theme.PEAK))
                painter.drawEllipse(QPointF(x + 7, middle), 3.5, 3.5)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QColor(theme.TEXT_SECONDARY))
            text_x = x + (20 if kind else 0)
            painter.drawText(
                QRectF(text_x, y, right - text_x, line), Qt.AlignmentFlag.AlignLeft, text
            )
            self._labels.append(text)
            x += width
        return y + line

    def _paint_grid(
        self,
        painter: QPainter,
        ticks: list[int],
        x_of: Callable[[float], float],
        top: float,
        bottom: float,
    ) -> None:
        painter.setPen(QPen(QColor(theme.GRID), 1))
        for step in ticks:
            x = x_of(step + 0.5)
            painter.drawLine(QPointF(x, top), QPointF(x, bottom))

    def _paint_byte_axis(
        self,
        painter: QPainter,
        ticks: list[int],
        y_of: Callable[[float], float],
        left: float,
        width: float,
    ) -> None:
        """The bytes axis of the curve: a grid line and a label at each tick."""
        line = painter.fontMetrics().height()
        for value in ticks:
            y = y_of(value)
            painter.setPen(QPen(QColor(theme.GRID if value else theme.BORDER), 1))
            painter.drawLine(QPointF(left, y), QPointF(left + width, y))
            painter.setPen(QColor(theme.TEXT_SECONDARY))
            painter.drawText(
                QRectF(0, y - line / 2, left - 6, line),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                byte_tick_label(value),
            )

    def _paint_offset_axis(self, painter: QPainter, top: float, height: float, left: float) -> None:
        """The offsets axis of the buffers: bytes from the bottom of the stack."""
        line = painter.fontMetrics().height()
        most = max(1, int(height // (2 * line)))
        for value in byte_ticks(self._total, min(4, most)):
            y = top + height - height * value / self._total
            painter.setPen(QPen(QColor(theme.BORDER), 1))
            painter.drawLine(QPointF(left - 3, y), QPointF(left, y))
            painter.setPen(QColor(theme.TEXT_SECONDARY))
            painter.drawText(
                QRectF(0, y - line / 2, left - 6, line),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                byte_tick_label(value),
            )

    # ------------------------------------------------------------ hover, click
    def _bar_at(self, pos: QPointF) -> BufferBar | None:
        for rect, bar in self._hit_order:
            if rect.contains(pos):
                return bar
        return None

    def step_text(self, step: int) -> str:
        """The tooltip of a step of the curve: what is in use there, exactly."""
        t = self.timeline
        if t is None or not 0 <= step < len(t.occupied):
            return ""
        name = t.sequence[step] if step < len(t.sequence) else "(after the last instruction)"
        lines = [f"step {step}: {name}"]
        lines.append(f"in use {human_bytes(t.occupied[step])} ({exact_bytes(t.occupied[step])})")
        for part in MEMORY_PARTS:
            value = t.in_use.get(part, ())
            if step < len(value) and value[step]:
                lines.append(f"  {PART_NAMES[part]} {human_bytes(value[step])}")
        lines.append(
            f"values live, each counted (as XLA's live-range report counts): "
            f"{human_bytes(t.usage[step])} ({exact_bytes(t.usage[step])})"
        )
        if self.memory is not None:
            lines.append(
                f"of memory {human_bytes(self.memory.total_bytes)} "
                f"({exact_bytes(self.memory.total_bytes)})"
            )
        return "\n".join(lines)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position()
        bar = self._bar_at(pos)
        t = self.timeline
        if bar is not None and t is not None:
            share = t.share(bar) if bar.start <= t.peak_time <= bar.end else 0
            QToolTip.showText(
                event.globalPosition().toPoint(),
                tooltip(
                    f"{bar.key}  {bar.shape}\n{human_bytes(bar.size)} ({exact_bytes(bar.size)}), "
                    f"allocation {bar.allocation} ({PART_NAMES[t.part_of(bar)]}) "
                    f"at offset {bar.offset:,}, live {bar.start} … {bar.end}"
                    + (f"\n{share:.1%} of the peak of live values" if share else "")
                ),
                self,
            )
        elif t is not None and self._curve.contains(pos) and self._steps:
            step = int((pos.x() - self._curve.left()) / self._curve.width() * self._steps)
            QToolTip.showText(event.globalPosition().toPoint(), tooltip(self.step_text(step)), self)
        else:
            QToolTip.hideText()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        bar = self._bar_at(event.position())
        if bar is not None:
            self.buffer_clicked.emit(bar.instruction)


class MemoryPanel(QWidget):
    """The module's memory in words above the chart and the buffers live at the peak."""

    instruction_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory")
        self.memory: ModuleMemory | None = None
        self.summary = safe_text.steady_label(self, lines=2, margins=(4, 2))
        self.summary.setObjectName("memorySummary")
        self.chart = MemoryChart(self)
        self.chart.buffer_clicked.connect(self.instruction_requested)
        self.peak_model = RowsModel(
            ["buffer", "bytes", "share of peak", "live"],
            self,
            numeric=(1, 2, 3),
            tips=(
                "",
                "",
                "Its share of the peak of live values: the values live at the step "
                "XLA's live-range report calls the peak",
            ),
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
        layout.setSpacing(2)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self._show_summary()

    def summary_text(self) -> str:
        """What the panel says above the chart: the figures, then why they differ."""
        return self.summary.text()

    def set_memory(self, memory: ModuleMemory | None) -> None:
        """The module's memory (`module_memory`); None: no report for the module."""
        self.memory = memory
        self.chart.set_memory(memory)
        self._show_summary()

    def set_timeline(self, shown: MemoryShown | None) -> None:
        """The module's memory timeline, its chart's stacking and its peak's rows
        made on the worker (7,620 rows of a U-Net's peak: 30 ms here)."""
        self.chart.set_timeline(shown)
        self.peak_model.set_rows(shown.peak_rows if shown is not None else [])
        self.peak.horizontalHeader().setSortIndicator(1, Qt.SortOrder.DescendingOrder)
        self.peak.setColumnWidth(0, 200)
        self._show_summary()

    def _show_summary(self) -> None:
        memory = self.memory
        if memory is None:
            self.summary.setText(
                "Memory: – (XLA writes its memory reports for the after-optimizations module)"
            )
            self.summary.setToolTip("")
            return
        note = explain_memory(memory, self.chart.timeline) or ""
        described = memory.describe()
        self.summary.setText(described[0].upper() + described[1:] + "\n" + note)
        parts = memory.parts or ()
        exact = [f"memory {exact_bytes(memory.total_bytes)} (from the {memory.source})"]
        exact += [f"  {PART_NAMES[p]} {exact_bytes(b)}" for p, b in parts]
        exact.append(f"peak of live values {exact_bytes(memory.peak_live_bytes)}")
        self.summary.setToolTip(tooltip("\n".join(exact) + ("\n" + note if note else "")))
