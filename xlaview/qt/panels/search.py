"""The Search tab: instructions found by name, opcode, shape, op_name or source."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from xlaview.analysis.search import Hit
from xlaview.qt.panels.tables import RowsModel, table_view

TYPING_PAUSE_MS = 250  # a query is searched once typing pauses this long (Enter: at once)


class SearchPanel(QWidget):
    """Searches as you type; the count is always of the query shown; rows come
    in the search's order until a header is clicked, then in that order."""

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
        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(TYPING_PAUSE_MS)
        self._typing.timeout.connect(self._ask)
        self.edit.textChanged.connect(self._typed)
        self.edit.returnPressed.connect(self._ask)
        self.count = QLabel(self)
        self.rows_model = RowsModel(
            ["name", "opcode", "shape", "computation", "op_name", "source"], self
        )
        self.table = table_view(
            self.rows_model, self, "searchResults", self.instruction_requested.emit
        )
        header = self.table.horizontalHeader()
        header.setSortIndicatorShown(False)  # the search's own order, until a click
        header.sectionClicked.connect(lambda _: header.setSortIndicatorShown(True))
        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        row.addWidget(self.count)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)

    def show_query(self, query: str) -> None:
        """Put ``query`` in the box, searched by the caller (no typing pause)."""
        self.edit.blockSignals(True)
        self.edit.setText(query)
        self.edit.blockSignals(False)
        self._typing.stop()
        self.count.setText(f"searching {query.strip()!r} …")

    def _typed(self, text: str) -> None:
        self.count.setText(f"searching {text.strip()!r} …" if text.strip() else "")
        self._typing.start()

    def _ask(self) -> None:
        self._typing.stop()
        query = self.edit.text()
        if not query.strip():
            self.rows_model.set_rows([])
            self.count.setText("")
            return
        self.query_changed.emit(query)

    def set_hits(self, query: str, hits: list[Hit]) -> None:
        """The hits of ``query`` (dropped when the box asks for another by now)."""
        if query.strip() != self.edit.text().strip():
            return  # typed on since: that query's hits come next
        rows = []
        for h in hits:
            texts = (h.name, h.opcode, h.shape, h.computation, h.op_name or "", h.source or "")
            rows.append((texts, texts, h.name))
        self.rows_model.set_rows(rows)
        header = self.table.horizontalHeader()
        if header.isSortIndicatorShown():  # the order its arrow says
            self.rows_model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        self.table.resizeColumnsToContents()
        first = " (the first 500)" if len(hits) >= 500 else ""
        self.count.setText(f"{len(hits)} found for {query.strip()!r}{first}")
