"""The pass timeline: one mark per HLO dump of a module, in compilation order.

Marks are grouped and coloured by pipeline; before/after optimizations sit
at the ends. Left/Right step, Home/End jump, a filter narrows the passes the
keys step through, and marks above the strip show the passes that changed the
selected instruction.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QLineF, QObject, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLineEdit,
    QSizePolicy,
    QSlider,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from xlaview.dump.points import STAGE, ModulePoint
from xlaview.qt import theme
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.safe_text import steady_label, tooltip


def band_of(point: ModulePoint) -> str:
    """Points of one pipeline share a band; a stage is a band of its own."""
    return point.pipeline or point.title


class _Strip(QWidget):
    """The painted marks; the timeline owns the state."""

    MARGIN = 10
    BAND_TOP, BAND_H = 14.0, 14.0  # the pipelines' band

    def __init__(self, timeline: PassTimeline) -> None:
        super().__init__(timeline)
        self.timeline = timeline
        # The strip last painted but for the current dump, and what it shows (`_background`).
        self._drawn: tuple[tuple, QPixmap] | None = None
        self.setMouseTracking(True)
        self.setMinimumHeight(60)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(600, 60)

    def x_of(self, index: int) -> float:
        n = len(self.timeline.points)
        usable = self.width() - 2 * self.MARGIN
        return self.MARGIN + (usable * (index + 0.5) / n if n else 0)

    def index_at(self, x: float) -> int | None:
        n = len(self.timeline.points)
        if not n:
            return None
        usable = self.width() - 2 * self.MARGIN
        return max(0, min(n - 1, int((x - self.MARGIN) / usable * n)))

    def paintEvent(self, event: QPaintEvent) -> None:
        t = self.timeline
        painter = QPainter(self)
        if not t.points:
            painter.fillRect(self.rect(), QColor(theme.PAPER))
            painter.setPen(QColor(theme.MUTED))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "no module selected")
            painter.end()
            return
        painter.drawPixmap(0, 0, self._background())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        # The current dump.
        if t.current is not None:
            x = self.x_of(t.current)
            painter.setPen(QPen(QColor(theme.ACCENT), 2))
            painter.setBrush(QColor(theme.ACCENT))
            painter.drawRoundedRect(QRectF(x - 3, self.BAND_TOP - 2, 6, self.BAND_H + 16), 2, 2)
        if self.hasFocus() or t.hasFocus():
            painter.setPen(QPen(QColor(theme.ACCENT), 1, Qt.PenStyle.DotLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        painter.end()

    def _background(self) -> QPixmap:
        """The strip but for the current dump, painted again only when what it
        shows changes: a step moves the current mark alone. Each shape or
        colour painted is a call into Qt, which waits its turn for the
        interpreter while a worker runs (a 156-pass strip painted in 26 ms so,
        3 ms alone, at every step)."""
        t = self.timeline
        n = len(t.points)
        ratio = self.devicePixelRatioF()
        visible = tuple(map(t.is_visible, range(n)))
        unchanged = tuple(t.unchanged.get(p.key, False) for p in t.points)
        sizes = tuple(t.change_sizes.get(p.key) for p in t.points)
        bands = tuple(map(band_of, t.points))
        colours = tuple(map(t.pipeline_colour, bands))
        key = (
            self.width(),
            self.height(),
            ratio,
            theme.PAPER,
            self.font().toString(),
            tuple(p.key for p in t.points),
            bands,
            visible,
            unchanged,
            sizes,
            colours,
            frozenset(t.changed_marks),
        )
        if self._drawn is not None and self._drawn[0] == key:
            return self._drawn[1]
        pixmap = QPixmap(
            QSize(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio)))
        )
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(QColor(theme.PAPER))
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        band_top, band_h = self.BAND_TOP, self.BAND_H
        step = (self.width() - 2 * self.MARGIN) / n
        # Pipeline bands: consecutive marks of one pipeline share a colour.
        start = 0
        font = QFont(self.font())
        font.setPointSizeF(max(7.0, font.pointSizeF() - 1.5))
        painter.setFont(font)
        for i in range(1, n + 1):
            if i < n and bands[i] == bands[start]:
                continue
            colour = QColor(colours[start])
            x0, x1 = self.x_of(start) - step / 2, self.x_of(i - 1) + step / 2
            painter.fillRect(QRectF(x0 + 0.5, band_top, x1 - x0 - 1, band_h), colour.lighter(135))
            if x1 - x0 > 60:
                painter.setPen(QColor(theme.STRONG))
                label = bands[start]
                if i == n and not any(p.key.isdigit() for p in t.points):
                    label += (
                        "  (this dump has no pass dumps: XLA writes one per pass with "
                        "--xla_dump_hlo_pass_re=.*)"
                    )
                text = painter.fontMetrics().elidedText(
                    label, Qt.TextElideMode.ElideRight, int(x1 - x0 - 6)
                )
                painter.drawText(
                    QRectF(x0 + 3, band_top, x1 - x0 - 6, band_h),
                    Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                    text,
                )
            start = i
        # One tick per dump; filtered-out ones faint, unchanged ones hollow.
        ticks, bars = self._marks(step, band_top + band_h + 2, visible, unchanged, sizes, colours)
        for pen, lines in ticks:
            painter.setPen(pen)
            painter.drawLines(lines)
        painter.setPen(Qt.PenStyle.NoPen)
        for colour, rects in bars:
            painter.setBrush(colour)
            painter.drawRects(rects)
        painter.setBrush(QColor(theme.EDGE_HIGHLIGHT))
        for i, point in enumerate(t.points):
            if point.key in t.changed_marks:
                x = self.x_of(i)
                painter.drawPolygon(
                    QPolygonF([QPointF(x - 4, 2), QPointF(x + 4, 2), QPointF(x, 10)])
                )
        painter.end()
        self._drawn = (key, pixmap)
        return pixmap

    def _marks(
        self,
        step: float,
        top: float,
        visible: tuple[bool, ...],
        unchanged: tuple[bool, ...],
        sizes: tuple[int | None, ...],
        colours: tuple[str, ...],
    ) -> tuple[list[tuple[QPen, list[QLineF]]], list[tuple[QColor, list[QRectF]]]]:
        """The ticks by pen and the change bars by colour: one call into Qt
        per pen and per colour, not per dump."""
        lines: dict[tuple[str, bool], list[QLineF]] = {}
        rects: dict[str, list[QRectF]] = {}
        darker: dict[str, str] = {}
        for i in range(len(visible)):
            x = self.x_of(i)
            if visible[i]:
                colour = darker.get(colours[i]) or darker.setdefault(
                    colours[i], QColor(colours[i]).darker(130).name()
                )
            else:
                colour = theme.RULE
            lines.setdefault((colour, unchanged[i]), []).append(QLineF(x, top, x, top + 10))
            size = sizes[i]
            if size and visible[i]:
                # Bar height grows with the log of the lines the pass changed.
                height = min(12.0, 2.5 * math.log2(1 + size))
                rects.setdefault(colour, []).append(
                    QRectF(x - max(1.0, step * 0.3), top + 12, max(2.0, step * 0.6), height)
                )
        width = 2 if step > 4 else 1
        ticks = [
            (
                QPen(QColor(c), 1, Qt.PenStyle.DotLine) if dotted else QPen(QColor(c), width),
                group,
            )
            for (c, dotted), group in lines.items()
        ]
        bars = [(QColor(c), group) for c, group in rects.items()]
        return ticks, bars

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        i = self.index_at(event.position().x())
        if i is not None:
            point = self.timeline.points[i]
            extra = (
                "\n(no change: same text as the dump before)"
                if self.timeline.unchanged.get(point.key)
                else ""
            )
            size = self.timeline.change_sizes.get(point.key)
            if size:
                extra += f"\n{size} instruction lines changed"
            if point.key in self.timeline.changed_marks:
                extra += "\n▼ changed the selected instruction"
            QToolTip.showText(event.globalPosition().toPoint(), tooltip(point.title + extra), self)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        i = self.index_at(event.position().x())
        if i is not None:
            self.timeline.set_current(i, emit=True)
        self.timeline.setFocus()


def caption_of(point: ModulePoint) -> str:
    """What the caption says of a point: a pass first, by the pass that ran
    (``0012 after fusion (HLO_passes_after_layout_assignment)``), so that an
    elided caption still names it; a stage or a snapshot by its title."""
    if point.seq is not None and point.after and point.pipeline:
        return f"{point.seq:04d}  after {point.after}  ({point.pipeline})"
    return point.title


class PassTimeline(QWidget):
    """Marks, a slider, the caption of the current dump and a pass filter."""

    pass_selected = Signal(str)  # a pass key: "before", "12", "after"

    def __init__(self, model: ViewModel, parent: QWidget | None = None) -> None:
        """The timeline of what ``model`` shows; a step asks it for the pass."""
        super().__init__(parent)
        self.setObjectName("passTimeline")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.points: list[ModulePoint] = []
        self.current: int | None = None
        self.unchanged: dict[str, bool] = {}
        self.change_sizes: dict[str, int] = {}
        self.changed_marks: set[str] = set()
        self.hide_unchanged = False
        self._filter = ""
        self._colours: dict[str, str] = {}

        self.strip = _Strip(self)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("passSlider")
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.slider.valueChanged.connect(lambda v: self.set_current(v, emit=True))
        self.caption = steady_label(self)
        caption_font = theme.monospace_font(9)
        self.caption.setFont(caption_font)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("passFilter")
        self.filter_edit.setPlaceholderText("Filter passes (e.g. fusion)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setMaximumWidth(240)
        self.filter_edit.textChanged.connect(self.set_filter)
        # In the box, Ctrl+Left/Right step as the arrows do on the strip, and
        # Enter goes to the next pass the filter matches.
        self.filter_edit.installEventFilter(self)
        self.filter_edit.returnPressed.connect(self.next_match)
        self.hide_box = QCheckBox("Hide passes that changed nothing", self)
        self.hide_box.setObjectName("hideUnchanged")
        self.hide_box.toggled.connect(self.set_hide_unchanged)

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.caption, 1)
        row.addWidget(self.hide_box)
        row.addWidget(self.filter_edit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addWidget(self.strip)
        layout.addWidget(self.slider)
        layout.addLayout(row)
        model.module_changed.connect(lambda _module, points: self.set_points(points))
        model.pass_changed.connect(self.show_pass)
        model.module_info.unchanged_ready.connect(self.set_unchanged)
        model.module_info.change_sizes_ready.connect(self.set_change_sizes)
        model.history.history_ready.connect(
            lambda _name, events, _titles: self.set_changed_marks({e.point for e in events})
        )
        self.pass_selected.connect(model.select_pass)

    # -- state ------------------------------------------------------------------
    def set_points(self, points: list[ModulePoint], current: str | None = None) -> None:
        self.points = points
        self.unchanged = {}
        self.change_sizes = {}
        self.changed_marks = set()
        self._colours = {}
        for point in points:
            name = band_of(point)
            if name in self._colours:
                continue
            if point.key in ("before", "after"):
                self._colours[name] = theme.FAINT
            elif point.kind == STAGE:  # a whole-module snapshot (after SPMD partitioning)
                self._colours[name] = theme.STAGE_COLOR
            else:
                self._colours[name] = theme.PIPELINE_COLORS[
                    len(self._colours) % len(theme.PIPELINE_COLORS)
                ]
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, len(points) - 1))
        self.slider.blockSignals(False)
        keys = [p.key for p in points]
        index = keys.index(current) if current in keys else (len(points) - 1 if points else None)
        self.set_current(index, emit=False)

    def pipeline_colour(self, pipeline: str) -> str:
        return self._colours.get(pipeline, theme.FAINT)

    def show_pass(self, key: str) -> None:
        """Mark pass ``key`` as the current one (the model asked for it)."""
        keys = [p.key for p in self.points]
        if key in keys:
            self.set_current(keys.index(key), emit=False)

    def set_current(self, index: int | None, emit: bool) -> None:
        if index is not None and not self.points:
            index = None
        changed = index != self.current
        self.current = index
        self.slider.blockSignals(True)
        self.slider.setValue(index or 0)
        self.slider.blockSignals(False)
        if index is None:
            self.caption.setText("")
            self.caption.setToolTip("")
        else:
            point = self.points[index]
            self.caption.setText(f"{index + 1}/{len(self.points)}   {caption_of(point)}")
            self.caption.setToolTip(tooltip(f"{point.title}\n{point.file.rel}"))
        self.strip.update()
        if emit and changed and index is not None:
            self.pass_selected.emit(self.points[index].key)

    def set_unchanged(self, unchanged: dict[str, bool]) -> None:
        self.unchanged = unchanged
        self.strip.update()

    def set_change_sizes(self, sizes: dict[str, int]) -> None:
        self.change_sizes = sizes
        self.strip.update()

    def set_hide_unchanged(self, hide: bool) -> None:
        self.hide_unchanged = hide
        self.strip.update()

    def set_changed_marks(self, keys: set[str]) -> None:
        self.changed_marks = keys
        self.strip.update()

    def set_filter(self, text: str) -> None:
        self._filter = text.strip().lower()
        self.strip.update()

    def is_visible(self, index: int) -> bool:
        point = self.points[index]
        if point.key in ("before", "after"):
            return True
        if self.hide_unchanged and (
            self.unchanged.get(point.key) or self.change_sizes.get(point.key, 1) == 0
        ):
            return False
        return not self._filter or self._filter in point.title.lower()

    # -- keys -------------------------------------------------------------------
    def step(self, direction: int) -> None:
        if self.current is None:
            return
        i = self.current + direction
        while 0 <= i < len(self.points) and not self.is_visible(i):
            i += direction
        if 0 <= i < len(self.points):
            self.set_current(i, emit=True)

    def next_match(self) -> None:
        """The next pass the filter matches (from the start after the last)."""
        if not self._filter or not self.points:
            return
        start = -1 if self.current is None else self.current
        n = len(self.points)
        for k in range(1, n + 1):
            i = (start + k) % n
            if self._filter in self.points[i].title.lower() and self.is_visible(i):
                self.set_current(i, emit=True)
                return

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.filter_edit and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            ctrl = event.modifiers() & Qt.KeyboardModifier.ControlModifier
            if ctrl and event.key() in (Qt.Key.Key_Left, Qt.Key.Key_Right):
                self.step(+1 if event.key() == Qt.Key.Key_Right else -1)
                return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_Right:
            self.step(+1)
        elif key == Qt.Key.Key_Left:
            self.step(-1)
        elif key == Qt.Key.Key_Home and self.points:
            self.set_current(0, emit=True)
        elif key == Qt.Key.Key_End and self.points:
            self.set_current(len(self.points) - 1, emit=True)
        else:
            super().keyPressEvent(event)
            return
        event.accept()
