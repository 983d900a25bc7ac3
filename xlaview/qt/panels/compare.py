"""The Compare tab: the open dump beside another dump of the same program."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QSplitter, QTableWidgetItem, QVBoxLayout, QWidget

from xlaview.analysis.compare import ModuleComparison
from xlaview.analysis.memory import MEMORY_FIGURES
from xlaview.qt import safe_text, theme
from xlaview.qt.panels.tables import RowsModel, plain_table, table_view
from xlaview.qt.safe_text import esc, tooltip
from xlaview.units import exact_bytes, human_bytes

NOTHING_COMPARED = (
    "Nothing compared yet. File › Compare With Folder… puts another dump of the same "
    "program beside this one (modules matched by name): instructions, traffic, memory and "
    "the peak of live values, fusions of each kind, what only one has. On the command "
    "line: xlaview compare DIR1 DIR2."
)


CHANGE_HEADERS = ["#", "change", "Δ time", "Δ memory", "first dump", "second dump"]
CHANGE_TIPS = (
    "Rank: the largest effect on estimated time and memory first",
    "What changed: a merged or split fusion, a new copy, a changed layout, an op only one has",
    "Estimated time, second minus first (roofline, both priced on the first dump's device);"
    " ? where an op's cost is unknown (a library kernel's interior)",
    "Bytes written to memory as materialized intermediates, second minus first",
)


class CompareView(QWidget):
    """Two dumps side by side: fusions, traffic, memory and the peak of live
    values, what only one has; and, op by op, the changes ranked by their
    effect on time and memory (a click selects them in both windows)."""

    change_clicked = Signal(int)  # the change's rank (its row in `changes`)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compare")
        self.title = safe_text.label(self, rich=True)
        self.title.setWordWrap(True)
        self.table = plain_table(["", "left", "right"], self)
        self.table.setObjectName("compareTable")
        self.changes = RowsModel(CHANGE_HEADERS, self, numeric=(0, 2, 3), tips=CHANGE_TIPS)
        self.changes_view = table_view(
            self.changes, self, "compareChanges", self.change_clicked.emit
        )
        self.changes_note = safe_text.label(self, rich=True)
        self.changes_note.setWordWrap(True)
        ops = QWidget(self)
        ops_layout = QVBoxLayout(ops)
        ops_layout.setContentsMargins(0, 0, 0, 0)
        ops_layout.addWidget(self.changes_note)
        ops_layout.addWidget(self.changes_view, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.table)
        split.addWidget(ops)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(split, 1)
        self.title.setText(f"<span style='color:{theme.MUTED}'>{esc(NOTHING_COMPARED)}</span>")

    def set_comparisons(self, left: str, right: str, results: list[ModuleComparison]) -> None:
        self.title.setText(f"<b>left</b> {esc(left)}<br><b>right</b> {esc(right)}")
        self.table.setRowCount(0)
        self.table.setHorizontalHeaderLabels(["", "left", "right"])
        if not results:
            self.title.setText(self.title.text() + "<br>No module of the same name in both dumps.")
        for result in results:
            d = result.to_json()
            rows = [(f"■ {result.name}", "", "")]
            for key, label in (
                ("instructions", "instructions"),
                ("total_traffic_bytes", "traffic (top-level ops)"),
                ("intermediate_traffic_bytes", "through intermediates"),
            ):
                fmt = str if key == "instructions" else human_bytes
                rows.append((label, fmt(d["left"][key]), fmt(d["right"][key])))
            exact: dict[int, tuple[str, str]] = {}  # row -> tooltips: the exact bytes
            left_memory, right_memory = d["left"]["memory"] or {}, d["right"]["memory"] or {}
            for key, label in MEMORY_FIGURES:  # the parts indented under the memory
                a, b = left_memory.get(key), right_memory.get(key)
                exact[len(rows)] = (exact_bytes(a), exact_bytes(b))
                indent = "  " if key not in ("total_bytes", "peak_live_bytes") else ""
                rows.append((indent + label, human_bytes(a), human_bytes(b)))
            for kind in d["left"]["fusion_counts"]:
                rows.append(
                    (
                        f"{kind} fusions",
                        str(d["left"]["fusion_counts"][kind]),
                        str(d["right"]["fusion_counts"][kind]),
                    )
                )
            rows.append(
                (
                    "largest intermediates",
                    "\n".join(d["left"]["largest_intermediates"][:3]) or "–",
                    "\n".join(d["right"]["largest_intermediates"][:3]) or "–",
                )
            )
            rows.append(
                ("instructions only here", str(len(result.only_left)), str(len(result.only_right)))
            )
            notes = [d[side]["memory_note"] for side in ("left", "right")]
            for k, (label, a, b) in enumerate(rows):
                r = self.table.rowCount()
                self.table.insertRow(r)
                for c, value in enumerate((label, a, b)):
                    item = QTableWidgetItem(value)
                    if a != b and c:
                        item.setBackground(QColor(theme.HIGHLIGHT_ROW))
                    if k in exact and c:
                        note = notes[c - 1]
                        item.setToolTip(tooltip(exact[k][c - 1] + (f"\n{note}" if note else "")))
                    self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.resizeRowsToContents()

    def set_changes(self, header: str, rows: Sequence[tuple[Sequence[str], Sequence[Any]]]) -> None:
        """The op-by-op changes, ranked: ``rows`` of (texts, sort keys), shown
        after their rank; a click hands the rank on (`change_clicked`)."""
        self.changes_note.setText(header)
        self.changes.set_rows(
            [([str(k + 1), *texts], [k, *keys], k) for k, (texts, keys) in enumerate(rows)]
        )
        self.changes_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # by rank
        self.changes_view.resizeColumnsToContents()
