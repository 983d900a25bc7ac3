"""The Compare tab: the open dump beside another dump of the same program."""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTableWidgetItem, QVBoxLayout, QWidget

from xlaview.analysis.compare import ModuleComparison
from xlaview.analysis.memory import MEMORY_FIGURES
from xlaview.qt import safe_text, theme
from xlaview.qt.panels.tables import plain_table
from xlaview.qt.safe_text import esc, tooltip
from xlaview.units import exact_bytes, human_bytes

NOTHING_COMPARED = (
    "Nothing compared yet. File › Compare With Folder… puts another dump of the same "
    "program beside this one (modules matched by name): instructions, traffic, memory and "
    "the peak of live values, fusions of each kind, what only one has. On the command "
    "line: xlaview compare DIR1 DIR2."
)


class CompareView(QWidget):
    """Two dumps side by side: fusions, traffic, memory and the peak of live
    values, what only one has."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compare")
        self.title = safe_text.label(self, rich=True)
        self.title.setWordWrap(True)
        self.table = plain_table(["", "left", "right"], self)
        self.table.setObjectName("compareTable")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
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
