"""The Profile tab: where the time went. The ops a ``jax.profiler`` trace
timed in the shown module, ranked by their own measured time (less the ops
timed inside them), beside their estimate; the timed ops that name no
instruction of the module listed last, not dropped."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from xlaview import units
from xlaview.qt import theme
from xlaview.qt.model.analyses.cost_records import ProfileShown
from xlaview.qt.panels.tables import Index, Row, RowsModel, ShownRows, table_view
from xlaview.qt.safe_text import esc, steady_label

# (header, tooltip, width in pixels)
COLUMNS = (
    ("op", "The instruction the trace timed", 240),
    ("kind", "Fusion kind, kCustom fusion name, custom-call target, or opcode", 130),
    ("self time", "Its events' time less the op events nested in them (a loop's body ops)", 84),
    ("of time", "Self time as a share of the module's measured time", 110),
    ("count", "How many events the trace holds of it (runs × loop iterations)", 56),
    ("mean", "Mean time per event", 76),
    ("total", "Its events' total time, nested ops included", 80),
    ("estimate", "Roofline time of one execution on the chosen device", 80),
    ("roofline", "Roofline time / mean measured time (100%: as fast as the peaks allow)", 66),
)
NUMERIC = (2, 3, 4, 5, 6, 7, 8)
SHARE_COLUMN = 3
NOT_IN_MODULE = "not in this module"
NO_TRACE = (
    "No profile. File › Open Profile… reads a jax.profiler trace (the folder given to "
    "jax.profiler.start_trace, or its .xplane.pb / .trace.json.gz); "
    "xlaview.collect(fn, *args, profile=N) stores one in the dump's trace/ folder, "
    "which opens with the dump."
)


class TimeRowsModel(RowsModel):
    """Timed ops; those naming no instruction of the module greyed."""

    def cell(self, row: int, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and self.rows[row][2] is None:
            return QColor(theme.MUTED)
        return super().cell(row, column, role)


class ShareBar(QStyledItemDelegate):
    """The share of time as a bar behind its figure: where the time went, at a glance."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        model = index.model()
        assert isinstance(model, ShownRows)
        share = model.source.rows[index.row()][1][SHARE_COLUMN]
        if share and share > 0:
            rect = QRectF(option.rect).adjusted(2, 3, -2, -3)
            rect.setWidth(rect.width() * min(1.0, share))
            painter.fillRect(rect, QColor(theme.SHARE_BAR))
        super().paint(painter, option, index)


def time_rows(shown: ProfileShown) -> list[tuple]:
    """The timed ops, most self time first, then those the module lacks."""
    profile = shown.profile
    if profile is None:
        return []
    total = profile.measured_s or 1.0
    rows: list[Row] = []
    for op in sorted(profile.ops, key=lambda o: (-o.self_s, o.name)):
        texts = (
            op.name,
            shown.kinds.get(op.name, ""),
            units.seconds(op.self_s),
            units.percent(op.self_s / total),
            str(op.count),
            units.seconds(op.mean_s),
            units.seconds(op.measured_s),
            units.seconds(op.time_s),
            units.percent(op.roofline_fraction),
        )
        keys = (
            op.name,
            texts[1],
            op.self_s,
            op.self_s / total,
            op.count,
            op.mean_s,
            op.measured_s,
            op.time_s,
            op.roofline_fraction,
        )
        rows.append((texts, keys, op.name))
    for t in profile.unmatched:
        texts = (
            t.name,
            NOT_IN_MODULE,
            units.seconds(t.self_s),
            units.percent(t.self_s / total),
            str(t.count),
            units.seconds(t.mean_s),
            units.seconds(t.measured_s),
            "",
            "",
        )
        keys = (t.name, NOT_IN_MODULE, -1.0, -1.0, t.count, t.mean_s, t.measured_s, None, None)
        rows.append((texts, keys, None))
    return rows


def summary_html(shown: ProfileShown) -> str:
    trace, profile = shown.trace, shown.profile
    files = ", ".join(f.path.name for f in trace.files)
    lines = [
        (
            f"Trace <b>{esc(files)}</b> ({esc(trace.format)}, {trace.events:,} events) "
            f"<span style='color:{theme.MUTED}'>in "
            f"{esc(trace.files[0].path.parent if trace.files else trace.path)}</span>"
        )
    ]
    if profile is None or not (profile.ops or profile.unmatched):
        lines.append(
            f"It times no op of this module; it timed: "
            f"{esc(', '.join(trace.module_names[:6]) or 'no HLO op at all')}."
        )
    else:
        share = profile.matched_s / profile.measured_s if profile.measured_s else 0.0
        where = profile.trace_device or ", ".join(profile.devices) or "no device"
        lines.append(
            f"<b>{esc(profile.module)}</b>: {profile.runs} runs on {esc(where)}, "
            f"<b>{units.seconds(profile.measured_s)}</b> measured "
            f"({units.seconds(profile.measured_s / max(profile.runs, 1))} per run), "
            f"{esc(units.percent(share))} in ops of the dump; joined by {esc(profile.matched_by)}; "
            + (
                f"roofline on {esc(shown.device_title)}"
                if shown.device_title
                else "no roofline: the dump names no device"
                + (f" (the Cost tab assumes {esc(shown.assumed)})" if shown.assumed else "")
            )
            + (
                ""
                if shown.applies
                else f" · <b>measured on pass {esc(shown.ran_pass)}</b>, not the pass shown"
            )
        )
    lines.append(f"<span style='color:{theme.MUTED}'>" + esc(" · ".join(shown.notes)) + "</span>")
    return "<br>".join(lines)


class ProfilePanel(QWidget):
    """See the module docstring. Fed by `Costing.profile_ready`."""

    instruction_requested = Signal(str)
    open_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("profile")
        self.summary = steady_label(self, lines=3, rich=True)
        self.open_button = QPushButton("Open Profile…", self)
        self.open_button.clicked.connect(self.open_requested)
        self.rows_model = TimeRowsModel(
            [c[0] for c in COLUMNS],
            self,
            numeric=NUMERIC,
            tips=tuple(c[1] for c in COLUMNS),
            whole=(0, 1),
        )
        self.table = table_view(
            self.rows_model,
            self,
            "timeTable",
            lambda name: self.instruction_requested.emit(name) if name else None,
        )
        for column, (_, _, width) in enumerate(COLUMNS):
            self.table.setColumnWidth(column, width)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.bar = ShareBar(self.table)
        self.table.setItemDelegateForColumn(SHARE_COLUMN, self.bar)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self.shown: ProfileShown | None = None
        self.set_profile(None)

    def set_profile(self, shown: ProfileShown | None) -> None:
        self.shown = shown
        if shown is None:
            self.summary.setText(f"<span style='color:{theme.MUTED}'>{esc(NO_TRACE)}</span>")
            self.rows_model.set_rows([])
            return
        self.summary.setText(summary_html(shown))
        self.rows_model.set_rows(time_rows(shown))
        self.table.horizontalHeader().setSortIndicator(2, Qt.SortOrder.DescendingOrder)
        self.rows_model.sort(2, Qt.SortOrder.DescendingOrder)

    def ranked(self) -> list[str]:
        """The ops as listed, top first (the timed ones that name an instruction)."""
        return [row[2] for row in self.rows_model.rows if row[2] is not None]
