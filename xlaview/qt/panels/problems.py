"""Unreadable and malformed files of the dump, with path and line."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from xlaview.errors import Problem


class ProblemsView(QTableWidget):
    problem_activated = Signal(object)  # Problem

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 3, parent)
        self.setObjectName("problems")
        self.setHorizontalHeaderLabels(["file", "line", "problem"])
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.setWordWrap(False)
        self.cellDoubleClicked.connect(lambda row, _c: self.problem_activated.emit(self._rows[row]))
        self._rows: list[Problem] = []
        self._listed: set[Problem] = set()  # each once, however often it is reported

    def set_problems(self, problems: list[Problem]) -> None:
        self._rows = []
        self._listed = set()
        self.setRowCount(0)
        self.add_problems(problems)

    def add_problems(self, problems: list[Problem]) -> None:
        for problem in problems:
            if problem in self._listed:
                continue
            row = self.rowCount()
            self.insertRow(row)
            self._rows.append(problem)
            self._listed.add(problem)
            self.setItem(row, 0, QTableWidgetItem(problem.path))
            line = QTableWidgetItem(str(problem.line) if problem.line else "")
            line.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, 1, line)
            self.setItem(row, 2, QTableWidgetItem(problem.message))
        self.resizeColumnToContents(0)
        self.resizeColumnToContents(1)

    @property
    def problems(self) -> list[Problem]:
        return list(self._rows)
