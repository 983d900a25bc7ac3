"""The Compare tab: the open dump beside another dump of the same program."""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTableWidgetItem, QVBoxLayout, QWidget

from xlaview.analysis.compare import ModuleComparison
from xlaview.qt import safe_text, theme
from xlaview.qt.panels.tables import plain_table
from xlaview.qt.safe_text import esc
from xlaview.units import human_bytes


class CompareView(QWidget):
    """Two dumps side by side: fusions, traffic, peak memory, what only one has."""

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
                ("peak_memory_bytes", "peak memory"),
            ):
                fmt = str if key == "instructions" else human_bytes
                rows.append((label, fmt(d["left"][key]), fmt(d["right"][key])))
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
            for label, a, b in rows:
                r = self.table.rowCount()
                self.table.insertRow(r)
                for c, value in enumerate((label, a, b)):
                    item = QTableWidgetItem(value)
                    if a != b and c:
                        item.setBackground(QColor(theme.HIGHLIGHT_ROW))
                    self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.resizeRowsToContents()
