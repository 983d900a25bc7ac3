"""Tables of analysis results: a light model for thousands of rows, and the
sortable views that show them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QTableView, QTableWidget, QWidget

from xlaview.qt.safe_text import tooltip

# A row: its texts, a sort key per cell (None: no figure, sorted last), and
# what a click on it hands on (an instruction's name, most often).
Row: TypeAlias = tuple[Sequence[str], Sequence[Any], Any]
Index: TypeAlias = QModelIndex | QPersistentModelIndex


class RowsModel(QAbstractTableModel):
    """Rows of text with a sort key per cell: a table of thousands of rows
    costs nothing to fill (a QTableWidget makes an item per cell). ``numeric``:
    the columns of figures, aligned right; ``tips``: a tooltip per header;
    ``whole``: columns whose text (a long name, elided) a tooltip shows whole."""

    def __init__(
        self,
        headers: list[str],
        parent: QWidget | None = None,
        numeric: tuple[int, ...] = (),
        tips: tuple[str, ...] = (),
        whole: tuple[int, ...] = (),
    ) -> None:
        super().__init__(parent)
        self.headers = headers
        self.numeric = numeric
        self.tips = tips
        self.whole = whole
        self.rows: Sequence[Row] = []

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Each row: (texts, sort keys, payload)."""
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return self.cell(index.row(), index.column(), role)

    def cell(self, row: int, column: int, role: int) -> Any:
        """A cell's ``role`` (what `data` gives; `ShownRows` asks it here, in
        Python: an index made in Qt for each cell, and its row and column
        asked back, cost a third of the copy)."""
        texts = self.rows[row][0]
        if role == Qt.ItemDataRole.DisplayRole:
            return texts[column]
        if role == Qt.ItemDataRole.TextAlignmentRole and column in self.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and column in self.whole:
            return tooltip(texts[column])
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        if role == Qt.ItemDataRole.ToolTipRole and section < len(self.tips):
            return tooltip(self.tips[section])
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Rows without a figure (None) last, in either order."""
        self.layoutAboutToBeChanged.emit()
        known = [r for r in self.rows if r[1][column] is not None]
        known.sort(key=lambda r: r[1][column], reverse=order == Qt.SortOrder.DescendingOrder)
        self.rows = known + [r for r in self.rows if r[1][column] is None]
        self.layoutChanged.emit()

    def payload(self, row: int) -> object:
        return self.rows[row][2]


# The roles a row's cells are copied with (those the table models give).
CELL_ROLES = (
    Qt.ItemDataRole.DisplayRole,
    Qt.ItemDataRole.TextAlignmentRole,
    Qt.ItemDataRole.ForegroundRole,
    Qt.ItemDataRole.BackgroundRole,
    Qt.ItemDataRole.ToolTipRole,
)
# Rows copied beyond those on screen, either side: a wheel's step shows none blank.
# (A view that grows shows more rows: its scroll bar's range changes, and
# they are copied before it paints.)
MARGIN_ROWS = 8


class ShownRows(QStandardItemModel):
    """What a table view draws: the cells of a `RowsModel`'s rows on screen,
    copied into Qt's own item model as they come into view, and again when the
    rows change. A view drawing a Python model calls into Python once per cell
    (300 calls a screenful), and each call waits for a worker to let go of the
    interpreter: the Traffic table's repaint took 70-270 ms beside the worker,
    20-30 ms alone. Drawn from Qt's model it takes 8-10 ms, beside a worker
    too. The rows stay the `RowsModel`'s: it sorts them (`sort`, asked by the
    view's header) and its signals say when they change."""

    def __init__(self, source: RowsModel, view: QTableView) -> None:
        super().__init__(0, source.columnCount(), view)
        self.source = source
        self._view = view
        self._filled = bytearray()
        horizontal = Qt.Orientation.Horizontal
        for column in range(source.columnCount()):
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = source.headerData(column, horizontal, role)
                if value is not None:
                    self.setHeaderData(column, horizontal, value, role)
        source.modelReset.connect(self.refill)
        source.layoutChanged.connect(self.refill)
        source.dataChanged.connect(self.refill)
        bar = view.verticalScrollBar()
        bar.valueChanged.connect(self.fill_shown)
        bar.rangeChanged.connect(self.fill_shown)  # (the view resized)
        self.refill()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.source.sort(column, order)  # its rows come back by its layoutChanged

    def refill(self) -> None:
        """The source's rows, none copied yet but those on screen: a reset for
        the view (its rows inserted one signal at a time took a 100,000-row
        table 100-400 ms)."""
        count = self.source.rowCount()
        self.beginResetModel()
        self.blockSignals(True)
        try:
            self.setRowCount(0)
            self.setRowCount(count)
        finally:
            self.blockSignals(False)
        self.endResetModel()
        self._filled = bytearray(count)
        self.fill_shown()

    def fill_shown(self) -> None:
        """Copy the rows on screen (and `MARGIN_ROWS` around them) not copied yet."""
        filled, view = self._filled, self._view
        if not filled:
            return
        top = max(0, view.rowAt(0))
        bottom = view.rowAt(view.viewport().height())
        bottom = len(filled) - 1 if bottom < 0 else bottom
        first, last = max(0, top - MARGIN_ROWS), min(len(filled) - 1, bottom + MARGIN_ROWS)
        rows = [r for r in range(first, last + 1) if not filled[r]]
        if not rows:
            return
        cell, columns = self.source.cell, self.columnCount()
        self.blockSignals(True)  # one dataChanged below, not one per cell
        try:
            for row in rows:
                filled[row] = 1
                for column in range(columns):
                    item = QStandardItem()
                    for role in CELL_ROLES:
                        value = cell(row, column, role)
                        if value is not None:
                            item.setData(value, role)
                    self.setItem(row, column, item)
        finally:
            self.blockSignals(False)
        self.dataChanged.emit(self.index(rows[0], 0), self.index(rows[-1], columns - 1))


def table_view(
    model: RowsModel, parent: QWidget, object_name: str, on_pick: Callable[[Any], object]
) -> QTableView:
    """A sortable table of ``model`` (drawn from its `ShownRows`, the view's
    model); a click hands its row's payload to ``on_pick``."""
    view = QTableView(parent)
    view.setObjectName(object_name)
    view.setModel(ShownRows(model, view))
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(22)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setAlternatingRowColors(True)
    view.horizontalHeader().setStretchLastSection(True)
    view.setWordWrap(False)
    view.setSortingEnabled(True)
    view.clicked.connect(lambda index: on_pick(model.payload(index.row())))
    return view


def plain_table(headers: list[str], parent: QWidget) -> QTableWidget:
    table = QTableWidget(0, len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.horizontalHeader().setStretchLastSection(True)
    table.setWordWrap(False)
    return table
