"""The Traffic tab: intermediates materialized in memory, ranked by the bytes
they move, and a switch to draw that traffic on the graph."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QVBoxLayout, QWidget

from xlaview.analysis.traffic import Traffic
from xlaview.qt.inspector import human_bytes
from xlaview.qt.panels.tables import RowsModel, table_view
from xlaview.qt.safe_text import esc, steady_label


class TrafficPanel(QWidget):
    """Materialized intermediates ranked by traffic; per-op bytes; an overlay switch."""

    instruction_requested = Signal(str)
    overlay_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic")
        self.summary = steady_label(self, lines=2, rich=True)
        self.overlay = QCheckBox("Show on the graph", self)
        self.overlay.toggled.connect(self.overlay_toggled)
        self.model = RowsModel(["traffic", "bytes", "shape", "producer", "kind", "read by"], self,
                               numeric=(0, 1))
        self.table = table_view(self.model, self, "trafficTable", self.instruction_requested.emit)
        row = QHBoxLayout()
        row.addWidget(self.summary, 1)
        row.addWidget(self.overlay)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        self.traffic: Traffic | None = None

    def set_traffic(self, traffic: Traffic | None) -> None:
        self.traffic = traffic
        if traffic is None:
            self.summary.setText("")
            self.model.set_rows([])
            return
        counts = ", ".join(f"{esc(k)} {v}" for k, v in traffic.fusion_counts.items() if v) or "no fusions"
        self.summary.setText(
            f"<b>{human_bytes(traffic.total_traffic_bytes)}</b> read and written by top-level ops; "
            f"<b>{human_bytes(traffic.intermediate_traffic_bytes)}</b> through "
            f"{len(traffic.intermediates)} intermediates materialized in memory. Fusions: {counts}."
        )
        rows = []
        big = set()
        for i in traffic.intermediates:  # already ranked by traffic
            row = ((human_bytes(i.traffic_bytes), human_bytes(i.bytes), i.shape, i.producer,
                    i.producer_kind, ", ".join(i.consumers)),
                   (i.traffic_bytes, i.bytes, i.shape, i.producer, i.producer_kind,
                    len(i.consumers)),
                   i.producer_instruction)
            rows.append(row)
            if i.bytes >= 64 << 20:
                big.add(id(row))
        self.model.set_rows(rows, big)
        self.table.horizontalHeader().setSortIndicator(0, Qt.SortOrder.DescendingOrder)
        for column, width in enumerate((90, 80, 170, 200, 80)):
            self.table.setColumnWidth(column, width)
