"""The Traffic tab's table model: the intermediates of a pass as the traffic
analysis ranked them, each cell's text made when the table shows it.

A pass step hands the model the analysis's own tuple and a map of reasons: on
the GUI thread that is a reset, not 3,600 rows of sizes printed (50-110 ms on
the 48-layer GPT step's passes, while the worker held the GIL half the time;
100,000 rows in a long chain). Filtered by a reason or sorted by another
column, the rows are a list of their numbers, made when the user asks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from xlaview.analysis.boundaries.explain import REASONS
from xlaview.analysis.traffic import Intermediate
from xlaview.qt import theme
from xlaview.qt.panels.tables import RowsModel
from xlaview.qt.safe_text import tooltip
from xlaview.units import elided, human_bytes

HEADERS = ["traffic", "bytes", "shape", "producer", "kind", "reason", "read by"]
REASON_COLUMN = 5
BIG_BYTES = 64 << 20  # an intermediate this large is tinted
READ_BY_COLUMN = 6
# A "read by" cell names this many readers, then how many more (`units.elided`); its
# tooltip lists them a line each. Qt elides a cell's whole text at every
# paint: the GPT step's top values, each read by 250 ops (4,700 characters),
# made a repaint of the table 47 ms, against 16 ms with short cells.
READERS_SHOWN = 8
_RANK = {reason: k for k, reason in enumerate(REASONS)}
Index = QModelIndex | QPersistentModelIndex


class TrafficRowsModel(RowsModel):
    """The rows of ``intermediates`` (ranked by traffic), each with its
    boundary's reason (``reasons``: producer -> reason), those of one reason
    when filtered; each reason in its colour."""

    def __init__(self, parent=None) -> None:
        super().__init__(HEADERS, parent, numeric=(0, 1))
        self.intermediates: Sequence[Intermediate] = ()
        self.reasons: Mapping[str, str] = {}
        self.order: Sequence[int] = range(0)  # the rows shown: numbers in intermediates

    def set_intermediates(
        self, intermediates: Sequence[Intermediate], reasons: Mapping[str, str], only: str | None
    ) -> None:
        """Show ``intermediates`` in their order, those of reason ``only`` if given."""
        self.beginResetModel()
        self.intermediates, self.reasons = intermediates, reasons
        if only is None:
            self.order = range(len(intermediates))
        else:
            self.order = [k for k, i in enumerate(intermediates) if reasons.get(i.producer) == only]
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.order)

    def intermediate(self, row: int) -> Intermediate:
        return self.intermediates[self.order[row]]

    def payload(self, row: int) -> object:
        return self.intermediate(row)

    def row_of(self, producer: str) -> int | None:
        """The row showing the intermediate ``producer`` makes, if shown."""
        return next(
            (r for r, k in enumerate(self.order) if self.intermediates[k].producer == producer),
            None,
        )

    def cell(self, row: int, column: int, role: int) -> Any:
        i = self.intermediate(row)
        if role == Qt.ItemDataRole.DisplayRole:
            return _text(i, column, self.reasons.get(i.producer, ""))
        if role == Qt.ItemDataRole.ForegroundRole and column == REASON_COLUMN:
            colours = theme.REASON_COLORS.get(self.reasons.get(i.producer, ""))
            return QColor(colours[1]) if colours else None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in self.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and i.bytes >= BIG_BYTES:
            return QColor(theme.HIGHLIGHT_ROW)
        if (
            role == Qt.ItemDataRole.ToolTipRole
            and column == READ_BY_COLUMN
            and len(i.consumers) > READERS_SHOWN
        ):
            return tooltip(_reader_lines(i.consumers))
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Rows without a figure (no reason yet) last, in either order."""
        self.layoutAboutToBeChanged.emit()
        keyed = [(self._key(self.intermediates[k], column), k) for k in self.order]
        known = [pair for pair in keyed if pair[0] is not None]
        known.sort(key=lambda pair: pair[0], reverse=order == Qt.SortOrder.DescendingOrder)
        self.order = [k for _, k in known] + [k for key, k in keyed if key is None]
        self.layoutChanged.emit()

    def _key(self, i: Intermediate, column: int) -> Any:
        if column == 0:
            return i.traffic_bytes
        if column == 1:
            return i.bytes
        if column == REASON_COLUMN:
            return _RANK.get(self.reasons.get(i.producer, ""))
        if column == READ_BY_COLUMN:
            return len(i.consumers)
        return (i.shape, i.producer, i.producer_kind)[column - 2]


def _text(i: Intermediate, column: int, reason: str) -> str:
    if column == 0:
        return human_bytes(i.traffic_bytes)
    if column == 1:
        return human_bytes(i.bytes)
    if column == READ_BY_COLUMN:
        return elided(i.consumers, READERS_SHOWN)
    return (i.shape, i.producer, i.producer_kind, reason)[column - 2]


def _reader_lines(consumers: Sequence[str], most: int = 40) -> str:
    """The readers a line each, ``most`` lines at most (the last says how many)."""
    if len(consumers) <= most:
        return "\n".join(consumers)
    return "\n".join([*consumers[: most - 1], f"… ({len(consumers)} in all)"])
