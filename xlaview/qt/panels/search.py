"""The Search tab: instructions found by name, opcode, shape, op_name or source."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from xlaview.analysis.search import Hit
from xlaview.qt.panels.tables import RowsModel, table_view


class SearchPanel(QWidget):
    instruction_requested = Signal(str)
    query_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("search")
        self.edit = QLineEdit(self)
        self.edit.setObjectName("searchEdit")
        self.edit.setPlaceholderText(
            "Search instructions: name, op:dot, shape:8192, meta:softmax, src:model.py:42"
        )
        self.edit.setClearButtonEnabled(True)
        self.edit.returnPressed.connect(lambda: self.query_changed.emit(self.edit.text()))
        self.count = QLabel(self)
        self.rows_model = RowsModel(
            ["name", "opcode", "shape", "computation", "op_name", "source"], self
        )
        self.table = table_view(
            self.rows_model, self, "searchResults", self.instruction_requested.emit
        )
        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        row.addWidget(self.count)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)

    def set_hits(self, hits: list[Hit]) -> None:
        rows = []
        for h in hits:
            texts = (h.name, h.opcode, h.shape, h.computation, h.op_name or "", h.source or "")
            rows.append((texts, texts, h.name))
        self.rows_model.set_rows(rows)
        self.table.resizeColumnsToContents()
        self.count.setText(f"{len(hits)} found" + (" (first 500)" if len(hits) >= 500 else ""))
