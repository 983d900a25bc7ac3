"""The roofline plot: each op of the shown pass at its arithmetic intensity
and the FLOP/s its device allows it (log-log), under the device's memory
slope and compute ceilings; measured points beside their estimates when a
profile is loaded. Hover for the figures, click a dot to select the op."""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import QToolTip, QWidget

from xlaview import units
from xlaview.profile import ModuleProfile
from xlaview.qt import theme
from xlaview.qt.model.analyses.cost_records import CostShown
from xlaview.qt.safe_text import tooltip

HIT_PX = 8
_MARGINS = (62, 14, 22, 40)  # left, right, top, bottom


@dataclass(frozen=True, slots=True)
class Dot:
    """One op on the plot: ``x`` its intensity (FLOP/byte), ``y`` FLOP/s
    (attainable, or ``achieved``), ``radius`` in pixels."""

    name: str
    x: float
    y: float
    radius: float
    color: str
    achieved: bool
    tip: str


class RooflinePlot(QWidget):
    """See the module docstring. Fed by the Cost tab (`set_data`, `select`)."""

    instruction_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rooflinePlot")
        self.setMouseTracking(True)
        # Small enough not to make the dock taller when its tab shows.
        self.setMinimumSize(300, 100)
        self.dots: list[Dot] = []
        self.roofs: list[tuple[str, float]] = []  # (precision and units, FLOP/s) ceilings
        self.bandwidth = 0.0
        self.device_title = ""
        self.left_out = 0
        self.selected: str | None = None
        self._range = (0.01, 1e4, 1e9, 1e16)  # x0, x1, y0, y1

    # -- data -------------------------------------------------------------------
    def set_data(self, shown: CostShown | None, profile: ModuleProfile | None = None) -> None:
        """The ops of ``shown`` on its device's roofline; ``profile``'s achieved
        FLOP/s beside them (None: no profile for this pass)."""
        self.dots, self.roofs, self.left_out = [], [], 0
        if shown is None:
            self.update()
            return
        device, cost, roof = shown.device, shown.cost, shown.roof
        self.bandwidth, self.device_title = device.memory_bandwidth, device.title
        executed = [
            placed.time_s * op.executions for op, placed in zip(cost.ops, roof.ops, strict=True)
        ]
        top = max(executed, default=0.0) or 1.0
        measured = {op.name: op for op in profile.ops} if profile is not None else {}
        precisions: dict[str, float] = {}
        engines: dict[str, set[str]] = {}  # precision -> the units its ops run on
        dots, achieved = [], []
        for op, placed, spent in zip(cost.ops, roof.ops, executed, strict=True):
            work = op.flops + op.transcendentals
            if placed.intensity is None or work <= 0 or placed.time_s <= 0:
                self.left_out += 1
                continue
            precisions[placed.precision] = placed.peak_flops
            engines.setdefault(placed.precision, set()).add("matrix" if op.matrix else "vector")
            y = work / placed.time_s
            tip = (
                f"{op.name}\n{op.kind}  ·  {placed.bound}-bound ({placed.precision})\n"
                f"{units.count(work, 'FLOP')}, {units.human_bytes(op.memory_bytes)} "
                f"→ {units.intensity(placed.intensity)} FLOP/byte\n"
                f"attainable {units.rate(y, 'FLOP/s')}, {units.seconds(placed.time_s)}"
                + (f" × {op.executions}" if op.executions != 1 else "")
                + f", {units.percent(placed.share)} of the time"
            )
            radius = 2.5 + 8.0 * math.sqrt(spent / top)  # area grows with the time
            dots.append(
                Dot(
                    op.name,
                    placed.intensity,
                    y,
                    radius,
                    theme.BOUND_COLORS[placed.bound],
                    False,
                    tip,
                )
            )
            timed = measured.get(op.name)
            if timed is not None and timed.achieved_flops_per_s:
                reached = units.rate(timed.achieved_flops_per_s, "FLOP/s")
                achieved.append(
                    Dot(
                        op.name,
                        placed.intensity,
                        timed.achieved_flops_per_s,
                        4.5,
                        theme.ACHIEVED,
                        True,
                        f"{op.name} (measured)\nachieved {reached}, mean "
                        f"{units.seconds(timed.mean_s)} over {timed.count} events\n"
                        f"{units.percent(timed.roofline_fraction)} of the roofline",
                    )
                )
        # Largest first: small dots stay visible on top of big ones.
        self.dots = sorted(dots, key=lambda d: -d.radius) + achieved
        self.roofs = sorted(
            (
                (p + (f" {next(iter(engines[p]))}" if len(engines[p]) == 1 else ""), peak)
                for p, peak in precisions.items()
            ),
            key=lambda kv: kv[1],
        )
        self._range = self._ranges()
        self.update()

    def select(self, name: str | None) -> None:
        self.selected = name
        self.update()

    def _ranges(self) -> tuple[float, float, float, float]:
        xs = [d.x for d in self.dots] or [1.0]
        ys = [d.y for d in self.dots] or [1e12]
        peak = max((p for _, p in self.roofs), default=1e12)
        ridge = peak / self.bandwidth if self.bandwidth else 100.0
        x0 = 10 ** math.floor(math.log10(min(min(xs), ridge / 100)))
        x1 = 10 ** math.ceil(math.log10(max(max(xs) * 2, ridge * 3)))
        y0 = 10 ** math.floor(math.log10(max(min(min(ys), self.bandwidth * x0), peak / 1e7)))
        y1 = peak * 4  # room above the highest ceiling for its label
        return x0, x1, y0, y1

    # -- geometry -----------------------------------------------------------------
    def _plot_rect(self) -> QRectF:
        left, right, top, bottom = _MARGINS
        return QRectF(
            left, top, max(10, self.width() - left - right), max(10, self.height() - top - bottom)
        )

    def _to_screen(self, x: float, y: float) -> QPointF:
        x0, x1, y0, y1 = self._range
        r = self._plot_rect()
        fx = (math.log10(max(x, 1e-30)) - math.log10(x0)) / (math.log10(x1) - math.log10(x0))
        fy = (math.log10(max(y, 1e-30)) - math.log10(y0)) / (math.log10(y1) - math.log10(y0))
        return QPointF(r.left() + fx * r.width(), r.bottom() - fy * r.height())

    def point_of(self, name: str, achieved: bool = False) -> QPointF | None:
        """Where the dot of op ``name`` is drawn (its measured one with ``achieved``)."""
        dot = next((d for d in self.dots if d.name == name and d.achieved == achieved), None)
        return self._to_screen(dot.x, dot.y) if dot is not None else None

    def _dot_at(self, pos: QPointF) -> Dot | None:
        best, best_d = None, float("inf")
        for dot in self.dots:
            p = self._to_screen(dot.x, dot.y)
            d = math.hypot(p.x() - pos.x(), p.y() - pos.y())
            if d <= max(HIT_PX, dot.radius + 2) and d < best_d:
                best, best_d = dot, d
        return best

    # -- painting -----------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(theme.PAPER))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if not self.dots and not self.roofs:
            painter.setPen(QColor(theme.MUTED))
            painter.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter,
                "The roofline shows once the pass is priced.",
            )
            painter.end()
            return
        self._paint_axes(painter)
        self._paint_roofs(painter)
        self._paint_dots(painter)
        self._paint_legend(painter)
        painter.end()

    def _paint_axes(self, painter: QPainter) -> None:
        x0, x1, y0, y1 = self._range
        r = self._plot_rect()
        metrics = painter.fontMetrics()
        grid, text = QPen(QColor(theme.GRID), 1), QColor(theme.TEXT_SECONDARY)
        for k in range(round(math.log10(x0)), round(math.log10(x1)) + 1):
            p = self._to_screen(10.0**k, y0)
            painter.setPen(grid)
            painter.drawLine(QPointF(p.x(), r.top()), QPointF(p.x(), r.bottom()))
            painter.setPen(text)
            painter.drawText(
                QRectF(p.x() - 30, r.bottom() + 3, 60, metrics.height()),
                Qt.AlignmentFlag.AlignHCenter,
                _decade(k, ""),
            )
        step = 1 if math.log10(y1 / y0) <= 8 else 2
        for k in range(round(math.log10(y0)), round(math.log10(y1)) + 1, step):
            p = self._to_screen(x0, 10.0**k)
            painter.setPen(grid)
            painter.drawLine(QPointF(r.left(), p.y()), QPointF(r.right(), p.y()))
            painter.setPen(text)
            painter.drawText(
                QRectF(14, p.y() - metrics.height() / 2, r.left() - 20, metrics.height()),
                Qt.AlignmentFlag.AlignRight,
                _decade(k),
            )
        painter.setPen(QPen(QColor(theme.FAINT), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(r)
        painter.save()
        painter.translate(2, r.center().y())
        painter.rotate(-90)
        painter.setPen(text)
        painter.drawText(
            QRectF(-r.height() / 2, 0, r.height(), metrics.height()),
            Qt.AlignmentFlag.AlignHCenter,
            "FLOP/s",
        )
        painter.restore()
        painter.setPen(text)
        painter.drawText(
            QRectF(r.left(), r.bottom() + metrics.height() + 4, r.width(), metrics.height()),
            Qt.AlignmentFlag.AlignHCenter,
            "arithmetic intensity (FLOP per byte of main memory)",
        )
        note = f"{self.device_title} · dot area: time spent" + (
            f" · {self.left_out} ops without FLOPs not shown" if self.left_out else ""
        )
        note = metrics.elidedText(note, Qt.TextElideMode.ElideRight, int(r.width()))
        painter.drawText(
            QRectF(r.left(), 2, r.width(), metrics.height()), Qt.AlignmentFlag.AlignLeft, note
        )

    def _paint_roofs(self, painter: QPainter) -> None:
        if not self.roofs or not self.bandwidth:
            return
        x0, x1, _, _ = self._range
        r = self._plot_rect()
        painter.save()
        painter.setClipRect(r)
        top_peak = self.roofs[-1][1]
        roof_pen = QPen(QColor(theme.STRONG), 2)
        painter.setPen(roof_pen)
        painter.drawLine(
            self._to_screen(x0, self.bandwidth * x0),
            self._to_screen(top_peak / self.bandwidth, top_peak),
        )
        for i, (precision, peak) in enumerate(self.roofs):
            last = i == len(self.roofs) - 1
            pen = QPen(QColor(theme.STRONG if last else theme.MUTED), 2 if last else 1.3)
            if not last:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            start = self._to_screen(peak / self.bandwidth, peak)
            painter.drawLine(start, self._to_screen(x1, peak))
            label = f"{units.rate(peak, 'FLOP/s')} {precision}"
            width = painter.fontMetrics().horizontalAdvance(label)
            painter.drawText(QPointF(r.right() - width - 6, start.y() - 4), label)
        painter.restore()
        # The slope's label, along it and under it, where no estimate can be.
        ridge = top_peak / self.bandwidth
        middle = math.sqrt(max(x0, ridge / 1e4) * ridge)
        at = self._to_screen(middle, self.bandwidth * middle)
        end = self._to_screen(ridge, top_peak)
        angle = math.degrees(math.atan2(end.y() - at.y(), end.x() - at.x()))
        painter.save()
        painter.translate(at)
        painter.rotate(angle)
        painter.setPen(QColor(theme.STRONG))
        painter.drawText(
            QPointF(0, painter.fontMetrics().ascent() + 6),
            f"memory {units.rate(self.bandwidth, 'B/s')}",
        )
        painter.restore()

    def _paint_dots(self, painter: QPainter) -> None:
        painter.save()
        painter.setClipRect(self._plot_rect().adjusted(-6, -6, 6, 6))
        estimates = {d.name: d for d in self.dots if not d.achieved}
        for dot in self.dots:
            p = self._to_screen(dot.x, dot.y)
            color = QColor(dot.color)
            if dot.achieved:
                twin = estimates.get(dot.name)
                if twin is not None:
                    painter.setPen(
                        QPen(theme.translucent(theme.ACHIEVED, 90), 1, Qt.PenStyle.DotLine)
                    )
                    painter.drawLine(p, self._to_screen(twin.x, twin.y))
                painter.setPen(QPen(color, 1.6))
                painter.setBrush(theme.translucent(theme.PAPER, 200))
                painter.drawPolygon(_diamond(p, dot.radius))
            else:
                fill = QColor(color)
                fill.setAlpha(150)
                painter.setPen(QPen(color.darker(130), 0.8))
                painter.setBrush(fill)
                painter.drawEllipse(p, dot.radius, dot.radius)
        chosen = [d for d in self.dots if d.name == self.selected]
        for dot in chosen:
            p = self._to_screen(dot.x, dot.y)
            painter.setPen(QPen(QColor(theme.SELECTION_BORDER), 2.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(p, dot.radius + 4, dot.radius + 4)
        if chosen:  # its name under it, where no estimate can be (under the roof)
            dot = chosen[0]
            p = self._to_screen(dot.x, dot.y)
            metrics = painter.fontMetrics()
            width = metrics.horizontalAdvance(dot.name)
            x = min(p.x() - width / 2, self._plot_rect().right() - width - 4)
            painter.setPen(QColor(theme.TEXT))
            painter.drawText(
                QPointF(
                    max(x, self._plot_rect().left() + 4), p.y() + dot.radius + 6 + metrics.ascent()
                ),
                dot.name,
            )
        painter.restore()

    def _paint_legend(self, painter: QPainter) -> None:
        """Bottom right, one entry a line: under the compute ceiling at high
        intensity no estimate can be (its roof is the ceiling itself)."""
        r = self._plot_rect()
        metrics = painter.fontMetrics()
        entries = [
            ("memory-bound", theme.BOUND_COLORS["memory"], False),
            ("compute-bound", theme.BOUND_COLORS["compute"], False),
        ]
        if any(d.achieved for d in self.dots):
            entries.append(("measured", theme.ACHIEVED, True))
        width = 20 + max(metrics.horizontalAdvance(e[0]) for e in entries)
        x = r.right() - width - 4
        y = r.bottom() - len(entries) * metrics.height() - 4
        for label, color, diamond in entries:
            centre = QPointF(x + 5, y + metrics.height() / 2)
            painter.setPen(QPen(QColor(color), 1.5))
            painter.setBrush(QColor(theme.PAPER) if diamond else QColor(color))
            if diamond:
                painter.drawPolygon(_diamond(centre, 4.5))
            else:
                painter.drawEllipse(centre, 4.5, 4.5)
            painter.setPen(QColor(theme.TEXT))
            painter.drawText(QPointF(x + 14, y + metrics.ascent()), label)
            y += metrics.height()

    # -- mouse --------------------------------------------------------------------
    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        dot = self._dot_at(event.position())
        if dot is None:
            QToolTip.hideText()
            return
        QToolTip.showText(event.globalPosition().toPoint(), tooltip(dot.tip), self)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        dot = self._dot_at(event.position())
        if dot is not None and event.button() == Qt.MouseButton.LeftButton:
            self.instruction_clicked.emit(dot.name)


def _diamond(centre: QPointF, radius: float) -> QPolygonF:
    x, y = centre.x(), centre.y()
    return QPolygonF(
        [
            QPointF(x, y - radius),
            QPointF(x + radius, y),
            QPointF(x, y + radius),
            QPointF(x - radius, y),
        ]
    )


def _decade(k: int, unit: str = "") -> str:
    """``10**k`` as a tick label: ``0.01``, ``100``, ``10k``, ``1T``, ``1 PFLOP/s``."""
    if k < 3:
        return f"{10.0**k:g}" + (f" {unit}" if unit else "")
    prefix = "kMGTPEZY"[k // 3 - 1] if k < 27 else f"e{k}"
    return f"{10 ** (k % 3)}{' ' if unit else ''}{prefix}{unit}"


__all__ = ["Dot", "RooflinePlot"]
