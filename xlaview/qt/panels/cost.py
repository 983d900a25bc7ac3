"""The Cost tab: what each op of the shown pass costs (FLOPs, bytes, its
time on a device's roofline and what bounds it), the module's totals, a
device picker, the roofline plot, a switch to colour the graph by time, and
with a profile, what each op measured beside its estimate."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QHideEvent, QShowEvent, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from xlaview import units
from xlaview.analysis.cost.devices import CPU, DEVICES, Device
from xlaview.analysis.cost.roofline import headline
from xlaview.profile import ModuleProfile
from xlaview.qt import theme
from xlaview.qt.model.analyses.cost_records import CostShown, ProfileShown
from xlaview.qt.panels.roofline import RooflinePlot
from xlaview.qt.panels.tables import RowsModel, table_view
from xlaview.qt.safe_text import esc, steady_label
from xlaview.units import MISSING

# (header, tooltip, width in pixels)
COLUMNS = (
    ("op", "The instruction (top level: fused ones fold into their fusion)", 170),
    ("kind", "Fusion kind, kCustom fusion name, custom-call target, or opcode", 116),
    ("FLOPs", "Floating-point operations of one execution, XLA's HloCostAnalysis (G: 10⁹)", 58),
    ("bytes", "Bytes read and written in main memory (HBM; RAM on a CPU) by one execution", 72),
    (
        "FLOP/B",
        "Arithmetic intensity: FLOPs and transcendentals (one each) per byte of main memory",
        56,
    ),
    (
        "time",
        (
            "Roofline time of one execution: the largest of work / peak, bytes / bandwidth "
            "and, for a collective, what it sends / interconnect bandwidth; "
            "× N: it runs N times per step (a loop body). Sorted by time × N"
        ),
        96,
    ),
    (
        "bound",
        "What bounds the roofline time: compute, memory or interconnect; unknown: a custom "
        "call nobody can price (left out of shares); opaque: a library kernel whose "
        "interior the dump cannot show",
        112,
    ),
    ("share", "Share of the module's estimated time (loop bodies × trip count)", 54),
    ("count", "Measured: how many times the trace timed it", 56),
    ("measured", "Measured: its events' total time", 68),
    ("mean", "Measured: mean time per event", 64),
    ("of time", "Measured: share of the module's measured time", 56),
    ("FLOP/s", "Measured: FLOPs / mean time (G: 10⁹ FLOP/s)", 66),
    ("bytes/s", "Measured: bytes accessed / mean time (G: 10⁹ bytes/s)", 66),
    ("roofline", "Measured: roofline time / mean time (100%: as fast as the peaks allow)", 62),
)
MEASURED = range(8, 15)
TIME_COLUMN = 5
NUMERIC = (2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14)
NAME_WIDTHS = (120, 170, 260)  # the op column: least, most beside measured columns, most
PLOT_MIN_WIDTH = 380  # when the measured columns come, the plot keeps this much
HEAT_CHOICES = (("off", "kind"), ("estimate", "estimated time"), ("measured", "measured time"))


class CostRowsModel(RowsModel):
    """Rows of the cost table, the bound coloured."""

    def cell(self, row: int, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and column == 6:
            return QColor(theme.BOUND_COLORS.get(self.rows[row][1][6], theme.TEXT))
        return super().cell(row, column, role)


def cost_rows(shown: CostShown, profile: ModuleProfile | None) -> list[tuple]:
    """One row per priced op (and per measured op the cost lists not, such
    as a ``while``): texts, sort keys, the op's name."""
    cost, roof = shown.cost, shown.roof
    timed = {op.name: op for op in profile.ops} if profile is not None else {}
    rows = []
    listed = set()
    for op, placed in zip(cost.ops, roof.ops, strict=True):
        listed.add(op.name)
        rows.append(_row(op, placed, timed.get(op.name)))
    for name, measured in timed.items():
        if name not in listed:  # a loop, a call: its ops are listed already
            called = cost.op(name)
            rows.append(_row(None, None, measured, name, called.kind if called else ""))
    return rows


def _row(op, placed, measured, name: str = "", kind: str = "") -> tuple:
    name = op.name if op is not None else name
    runs = op.executions if op is not None else 1
    if op is not None and placed is not None and not placed.known:
        static = (op.kind, MISSING, MISSING, MISSING, MISSING, placed.bound, MISSING)
        keys = (op.kind, None, None, None, None, placed.bound, None)
    elif op is not None and placed is not None:
        time = units.seconds(placed.time_s) + (f" ×{runs}" if runs != 1 else "")
        static = (
            op.kind,
            units.count(op.flops),
            units.human_bytes(op.memory_bytes),
            units.intensity(placed.intensity),
            time,
            placed.bound + (" (opaque)" if op.opaque else ""),
            units.percent(placed.share),
        )
        keys = (
            op.kind,
            op.flops,
            op.memory_bytes,
            placed.intensity,
            placed.time_s * runs,
            placed.bound,
            placed.share,
        )
    else:
        static = (kind, "", "", "", "", "", "")
        keys = (kind, None, None, None, None, "", None)
    if measured is not None:
        timed = (
            str(measured.count),
            units.seconds(measured.measured_s),
            units.seconds(measured.mean_s),
            units.percent(measured.share),
            units.count(measured.achieved_flops_per_s),
            units.count(measured.achieved_bytes_per_s),
            units.percent(measured.roofline_fraction),
        )
        timed_keys = (
            measured.count,
            measured.measured_s,
            measured.mean_s,
            measured.share,
            measured.achieved_flops_per_s,
            measured.achieved_bytes_per_s,
            measured.roofline_fraction,
        )
    else:
        timed = ("",) * 7
        timed_keys = (None,) * 7
    return (name, *static, *timed), (name, *keys, *timed_keys), name


def summary_html(shown: CostShown, profile: ProfileShown | None) -> str:
    """The module's figures as the command line's header says them
    (`headline`), and the measured total."""
    cost, roof, device = shown.cost, shown.roof, shown.device
    said = headline(cost, roof)
    lines = [
        f"<b>{esc(cost.module)}</b> at pass {esc(shown.pass_key)} on {esc(device.title)} "
        f"({len(cost.ops):,} ops): <b>{esc(said[0])}</b>",
        *(esc(line) for line in said[1:]),
    ]
    if shown.caveats:
        lines.append(
            f"<span style='color:{theme.WARNING}'>An XLA:CPU dump priced on "
            f"{esc(device.title)}: {esc(shown.caveats[0])}"
            + (f" (+{len(shown.caveats) - 1} more: hover)" if len(shown.caveats) > 1 else "")
            + "</span>"
        )
    p = profile.profile if profile is not None and profile.applies else None
    if p is not None:
        lines.append(
            f"Measured: {p.runs} runs, {units.seconds(p.measured_s / max(p.runs, 1))}"
            f" per run ({esc(units.percent(p.matched_s / p.measured_s if p.measured_s else 0))}"
            f" in ops of this module)"
        )
    elif profile is not None and profile.profile is not None:
        lines.append(f"Measured times are of the HLO that ran: pass {esc(profile.ran_pass)}.")
    return "<br>".join(lines)


class CostPanel(QWidget):
    """See the module docstring. Fed by `Costing`'s signals; hands back the
    instruction clicked, the device picked and the colouring asked for."""

    instruction_requested = Signal(str)
    device_requested = Signal(object)  # a device name
    heat_requested = Signal(str)  # one of costing.HEAT_MODES
    shown_changed = Signal(bool)  # the tab is on screen (the cost is wanted) or not

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("cost")
        self.summary = steady_label(self, lines=5, rich=True)
        self.device = QComboBox(self)
        self.device.setObjectName("deviceBox")
        for dev in DEVICES.values():
            self.device.addItem(dev.title, dev.name)
        self.device.addItem("This machine's CPU (measured)", CPU)
        self.device.activated.connect(lambda i: self.device_requested.emit(self.device.itemData(i)))
        self.device_reason = steady_label(self)
        self.heat = QComboBox(self)
        self.heat.setObjectName("heatBox")
        for mode, text in HEAT_CHOICES:
            self.heat.addItem(text, mode)
        self.heat.currentIndexChanged.connect(
            lambda i: self.heat_requested.emit(self.heat.itemData(i))
        )
        self.rows_model = CostRowsModel(
            [c[0] for c in COLUMNS],
            self,
            numeric=NUMERIC,
            tips=tuple(c[1] for c in COLUMNS),
            whole=(0, 1),
        )
        self.table = table_view(self.rows_model, self, "costTable", self.instruction_requested.emit)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # names end in their number
        # The figures stay beside each other; the plot takes the width left.
        self.table.horizontalHeader().setStretchLastSection(False)
        self.plot = RooflinePlot(self)
        self.plot.instruction_clicked.connect(self.instruction_requested)
        self.split = QSplitter(Qt.Orientation.Horizontal, self)
        self.split.addWidget(self.table)
        self.split.addWidget(self.plot)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setSizes([950, 600])
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Device", self))
        bar.addWidget(self.device)
        bar.addWidget(self.device_reason, 1)
        bar.addWidget(QLabel("Colour the graph by", self))
        bar.addWidget(self.heat)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.summary)
        layout.addWidget(self.split, 1)
        self.shown: CostShown | None = None
        self.profile: ProfileShown | None = None
        self._sorted = False
        self._split_fit: int | None = None  # the table width the split was fitted to
        self._stale = False  # set while hidden: filled again when shown
        for column, (_, _, width) in enumerate(COLUMNS):
            self.table.setColumnWidth(column, width)
            self.table.setColumnHidden(column, column in MEASURED)
        self.summary.setText(f"<span style='color:{theme.MUTED}'>Pricing the pass …</span>")

    # -- what the model says --------------------------------------------------------
    def set_cost(self, shown: CostShown | None) -> None:
        self.shown = shown
        self._fill()

    def show_heat_mode(self, mode: str) -> None:
        """What the graph is coloured by, as the model says (a new folder resets it)."""
        self.heat.setCurrentIndex(self.heat.findData(mode))

    def set_profile(self, profile: ProfileShown | None) -> None:
        self.profile = profile
        index = self.heat.findData("measured")
        model = self.heat.model()
        assert isinstance(model, QStandardItemModel)  # a QComboBox's own model
        item = model.item(index)
        assert item is not None
        item.setEnabled(profile is not None and profile.profile is not None)
        self._fill()

    def set_device(self, device: Device | None, chosen: bool) -> None:
        if device is not None:
            self.device.setCurrentIndex(self.device.findData(device.name))
        shown = self.shown
        if chosen:
            detected = shown.detected if shown is not None else None
            said = (
                ""
                if detected is None
                else f" ({detected.reason})"
                if not detected.detected
                else f" (the dump: {detected.reason})"
            )
            self.device_reason.setText(f"chosen by you{said}")
        elif shown is not None:
            detected = shown.detected
            self.device_reason.setText(
                detected.reason
                if detected.detected
                else f"not detected: {detected.reason}; pick the device it runs on"
            )

    def select(self, name: str | None) -> None:
        self.plot.select(name)

    def measured_shown(self) -> bool:
        """Whether the measured columns are shown."""
        return not self.table.isColumnHidden(MEASURED[0])

    # -- filling ------------------------------------------------------------------
    def _applied_profile(self) -> ModuleProfile | None:
        p = self.profile
        return p.profile if p is not None and p.applies else None

    def _fill(self) -> None:
        if not self.isVisible():  # 4,000 rows of a 45 MB pass: filled when looked at
            self._stale = True
            return
        self._stale = False
        shown, profile = self.shown, self._applied_profile()
        self._show_measured(profile is not None)
        if shown is None:
            self.summary.setText(f"<span style='color:{theme.MUTED}'>Pricing the pass …</span>")
            self.rows_model.set_rows([])
            self.plot.set_data(None)
            return
        self.set_device(shown.device, shown.chosen)
        self.summary.setText(summary_html(shown, self.profile))
        self.summary.setToolTip("\n".join(shown.caveats))
        header = self.table.horizontalHeader()
        if not self._sorted:  # the most expensive first, until the user sorts otherwise
            self._sorted = True
            header.setSortIndicator(TIME_COLUMN, Qt.SortOrder.DescendingOrder)
        self.rows_model.set_rows(cost_rows(shown, profile))
        self.rows_model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        self._fit_names(profile is not None)
        self._fit_split()
        self.plot.set_data(shown, profile)

    def _fit_names(self, narrow: bool) -> None:
        """The op column as wide as the longest name of the first rows, within
        bounds (narrower when the measured columns need the room)."""
        metrics = self.table.fontMetrics()
        longest = max(
            (metrics.horizontalAdvance(row[0][0]) for row in self.rows_model.rows[:500]), default=0
        )
        widest = NAME_WIDTHS[1] if narrow else NAME_WIDTHS[2]
        self.table.setColumnWidth(0, max(NAME_WIDTHS[0], min(widest, longest + 16)))

    def _show_measured(self, on: bool) -> None:
        if on == self.measured_shown():
            return
        for column in MEASURED:
            self.table.setColumnHidden(column, not on)
        self._fit_names(on)
        self._fit_split()

    def _needed(self) -> int:
        return (
            sum(
                self.table.columnWidth(c)
                for c in range(len(COLUMNS))
                if not self.table.isColumnHidden(c)
            )
            + 24
        )

    def _fit_split(self) -> None:
        """The table as wide as its columns (the plot at least its minimum),
        the plot the rest: done when the columns' width changes (a user's
        drag of the splitter stays until then)."""
        if not self.isVisible() or self._split_fit == self._needed():
            return
        self._split_fit = needed = self._needed()
        total = self.split.width()
        table = max(min(needed, total - PLOT_MIN_WIDTH), total // 3)
        self.split.setSizes([table, max(0, total - table)])

    # -- on screen or not ---------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self._fill()
        self._fit_split()
        self.shown_changed.emit(True)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.shown_changed.emit(False)
