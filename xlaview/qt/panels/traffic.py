"""The Traffic tab: intermediates materialized in memory, ranked by the bytes
they move, why each one is there (its boundary's reason, a filter by reason,
the evidence beside the table), and a switch to draw that traffic on the graph."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from xlaview.analysis.boundaries.explain import REASONS, Boundary
from xlaview.analysis.traffic import Intermediate, Traffic
from xlaview.qt.model.analyses.boundaries import BoundariesShown
from xlaview.qt.panels.boundary_detail import BoundaryDetailView, OpLink
from xlaview.qt.panels.tables import table_view
from xlaview.qt.panels.traffic_rows import TrafficRowsModel
from xlaview.qt.safe_text import esc, steady_label
from xlaview.units import human_bytes

PICK_HINT = "Click a row to see why its value is materialized and what would remove it."


class TrafficPanel(QWidget):
    """Materialized intermediates ranked by traffic, with the reason each is
    there; the selected one's evidence beside the table; an overlay switch."""

    instruction_requested = Signal(str)
    overlay_toggled = Signal(bool)
    emphasis_requested = Signal(object, object)  # names in the main graph, in the fused pane
    fusion_requested = Signal(str)  # a fusion whose body the fused pane should show
    wanted_changed = Signal(bool)  # the panel is on screen (its boundaries are wanted) or not

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic")
        self.summary = steady_label(self, lines=2, rich=True)
        self.reasons = QComboBox(self)
        self.reasons.setObjectName("reasonFilter")
        self.reasons.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.reasons.setMinimumContentsLength(38)
        self.reasons.currentIndexChanged.connect(self._on_reason_chosen)
        self.overlay = QCheckBox("Show on the graph", self)
        self.overlay.toggled.connect(self.overlay_toggled)
        self.rows_model = TrafficRowsModel(self)
        self.table = table_view(self.rows_model, self, "trafficTable", self._on_row_picked)
        self.detail = BoundaryDetailView(self)
        # Scroll bars that come and go as rows do would resize the views on every pass step.
        for view in (self.table, self.detail):
            view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.detail.op_activated.connect(self._on_op_activated)
        self.detail.reason_activated.connect(self.set_reason_filter)
        self.split = QSplitter(Qt.Orientation.Horizontal, self)
        self.split.setObjectName("trafficSplit")
        self.split.addWidget(self.table)
        self.split.addWidget(self.detail)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setChildrenCollapsible(False)
        row = QHBoxLayout()
        row.addWidget(self.summary, 1)
        row.addWidget(self.reasons)
        row.addWidget(self.overlay)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.split, 1)
        self.traffic: Traffic | None = None
        self.shown = BoundariesShown(None, None, None)
        self._reason: str | None = None  # the filter
        self._picked: str | None = None  # the value whose boundary the detail shows
        self._emphasis = False  # whether the graph marks what this panel points at
        self._filling = False
        self._filled: tuple[Traffic | None, object] = (None, None)  # what the rows show
        self._summed: tuple[Traffic | None, str] = (None, "")
        self._fill_reasons()
        self.detail.show_message("")

    # -- what the model says --------------------------------------------------
    def set_traffic(self, traffic: Traffic | None) -> None:
        self.traffic = traffic
        self._refresh()

    def set_boundaries(self, shown: BoundariesShown) -> None:
        """The boundaries of the shown pass (or why there are none yet)."""
        self.shown = shown
        if shown.traffic is None and shown.pass_key is not None:
            self.traffic = None  # a pass step: the rows were the pass before's
        self._refresh()

    # -- requests -------------------------------------------------------------
    def set_reason_filter(self, reason: str | None) -> None:
        """Show only the boundaries of ``reason`` (None: every row)."""
        index = self.reasons.findData(reason)
        self.reasons.setCurrentIndex(max(0, index))

    def reason_filter(self) -> str | None:
        return self._reason

    def pick(self, value: str) -> None:
        """Show the boundary of ``value`` (a producer, or ``name#index``) as a
        click on its row does: select its producer, mark its readers and evidence."""
        boundary = self._boundaries_by_value().get(value)
        row = self.rows_model.row_of(value)
        if row is not None:
            self.table.selectRow(row)
        self.instruction_requested.emit(value.split("#")[0])
        if boundary is not None:
            self._show(boundary, point=True)

    # -- drawing --------------------------------------------------------------
    def _refresh(self) -> None:
        traffic = self.traffic
        boundaries = self._boundaries()
        self._fill_summary()
        filled = self._filled  # a message alone changed: the rows stand
        if traffic is not filled[0] or boundaries is not filled[1]:
            self._filled = (traffic, boundaries)
            self._fill_reasons()
            self._fill_rows()
        picked = self._boundaries_by_value().get(self._picked) if self._picked else None
        if picked is not None:
            self._show(picked, point=False)
        else:
            self._clear_emphasis()
            self._show_state()

    def _fill_summary(self) -> None:
        traffic = self.traffic
        if traffic is None:
            self.summary.setText(esc(self.shown.message) if self.shown.pass_key else "")
            return
        if self._summed[0] is not traffic:  # sums over its thousands of values, once
            counts = (
                ", ".join(f"{esc(k)} {v}" for k, v in traffic.fusion_counts.items() if v)
                or "no fusions"
            )
            self._summed = (
                traffic,
                f"<b>{human_bytes(traffic.total_traffic_bytes)}</b> read and written by "
                f"top-level ops; <b>{human_bytes(traffic.intermediate_traffic_bytes)}</b> through "
                f"{len(traffic.intermediates)} intermediates materialized in memory. "
                f"Fusions: {counts}.",
            )
        self.summary.setText(self._summed[1])

    def _fill_reasons(self) -> None:
        """The filter: every reason with its boundaries' count, bytes and savings."""
        boundaries = self._boundaries()
        self._filling = True
        self.reasons.clear()
        if boundaries is None:
            self.reasons.addItem("All reasons", None)
        else:
            by_reason, saved = boundaries.by_reason(), boundaries.saved_by_reason()
            counts = boundaries.counts()
            self.reasons.addItem(
                f"All reasons · {len(boundaries.boundaries)} · "
                f"{human_bytes(sum(by_reason.values()))}",
                None,
            )
            for reason in REASONS:
                self.reasons.addItem(
                    f"{reason} · {counts[reason]} · {human_bytes(by_reason[reason])}, "
                    f"saves {human_bytes(saved[reason])}"
                    if counts[reason]
                    else f"{reason} · none",
                    reason,
                )
        self.reasons.setCurrentIndex(max(0, self.reasons.findData(self._reason)))
        self.reasons.setEnabled(boundaries is not None)
        self._filling = False

    def _fill_rows(self) -> None:
        traffic = self.traffic
        self.rows_model.set_intermediates(
            traffic.intermediates if traffic is not None else (), self._reasons(), self._reason
        )
        header = self.table.horizontalHeader()
        # The rows come ranked by traffic: sorted again only if the user sorts
        # by something else (a Python key per row, on the GUI thread, competes
        # for the GIL with the worker: half a second for 3,600 rows).
        if self.rows_model.order and (
            header.sortIndicatorSection(),
            header.sortIndicatorOrder(),
        ) != (
            0,
            Qt.SortOrder.DescendingOrder,
        ):
            self.rows_model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        for column, width in enumerate((84, 80, 160, 190, 92, 96)):
            self.table.setColumnWidth(column, width)

    def _show_state(self) -> None:
        boundaries = self._boundaries()
        if boundaries is not None:
            self.detail.show_totals(boundaries, PICK_HINT)
        elif self.traffic is not None and not self.traffic.intermediates:
            self.detail.show_message("No intermediate is materialized in memory in this pass.")
        else:
            self.detail.show_message(self.shown.message)

    def _show(self, boundary: Boundary, point: bool) -> None:
        """The detail of ``boundary``; mark its readers and evidence in the graph,
        and (``point``) show the fused computation its evidence lives in."""
        self._picked = boundary.value
        self.detail.show_boundary(boundary, self.shown.callers)
        main = {boundary.producer, *boundary.consumers}
        fused: set[str] = set()
        for evidence in boundary.evidence:
            for op in evidence.ops:
                (main if op.computation == boundary.computation else fused).add(op.instruction)
        self._emphasis = True
        self.emphasis_requested.emit(main, fused)
        if point:
            body = next(
                (
                    op.computation
                    for e in boundary.evidence
                    for op in e.ops
                    if op.computation in self.shown.callers
                ),
                None,
            )
            if body is not None:
                self.fusion_requested.emit(self.shown.callers[body])

    def _clear_emphasis(self) -> None:
        if self._emphasis:
            self._emphasis = False
            self.emphasis_requested.emit(set(), set())

    def _boundaries(self):
        shown = self.shown
        if shown.boundaries is None or shown.traffic is None or shown.traffic is not self.traffic:
            return None  # reasons are shown only beside the traffic they explain
        return shown.boundaries

    def _boundaries_by_value(self) -> dict[str, Boundary]:
        boundaries = self._boundaries()
        return boundaries.by_value() if boundaries is not None else {}

    def _reasons(self) -> dict[str, str]:
        """Each value's reason (a producer, or ``name#index``)."""
        boundaries = self._boundaries()
        return boundaries.reasons() if boundaries is not None else {}

    # -- what the user does ---------------------------------------------------
    def _on_row_picked(self, intermediate: object) -> None:
        assert isinstance(intermediate, Intermediate)
        self.pick(intermediate.producer)

    def _on_reason_chosen(self, index: int) -> None:
        if self._filling:
            return
        self._reason = self.reasons.itemData(index)
        self._fill_rows()

    def _on_op_activated(self, link: OpLink) -> None:
        if link.caller is not None:
            self.fusion_requested.emit(link.caller)  # its body, the op marked in it
        else:
            self.instruction_requested.emit(link.instruction)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.wanted_changed.emit(True)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.wanted_changed.emit(False)
