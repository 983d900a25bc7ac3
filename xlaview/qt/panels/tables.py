"""Tables of analysis results: a light model for thousands of rows, and the
sortable views that show them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QTableView, QTableWidget, QWidget

from xlaview.qt import theme
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
        self.highlight: set[int] = set()

    def set_rows(
        self,
        rows: Sequence[Row],
        highlight: set[int] | None = None,
    ) -> None:
        """Each row: (texts, sort keys, payload). ``highlight``: row numbers to tint."""
        self.beginResetModel()
        self.rows = rows
        self.highlight = highlight or set()
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row[0][index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in self.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and id(row) in self.highlight:
            return QColor(theme.HIGHLIGHT_ROW)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() in self.whole:
            return tooltip(row[0][index.column()])
        return None

    def multiData(  # noqa: N802
        self,
        index: Index,
        roleDataSpan: QModelRoleDataSpan | QModelRoleData,  # noqa: N803
    ) -> None:
        """Every role a cell is asked for, in one call: a view asks each cell
        for seven or more roles, and each call from Qt into Python waits for a
        worker to let go of the interpreter (a 40-row table took 118 ms to
        paint beside a worker making lists in C, 9 ms alone; 38 ms so)."""
        data = self.data
        for role_data in roleDataSpan:  # type: ignore[union-attr]  # (a span iterates)
            role_data.setData(data(index, role_data.role()))

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


def table_view(
    model: RowsModel, parent: QWidget, object_name: str, on_pick: Callable[[Any], object]
) -> QTableView:
    """A sortable table of ``model``; a click hands its row's payload to ``on_pick``."""
    view = QTableView(parent)
    view.setObjectName(object_name)
    view.setModel(model)
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
