"""Ctrl+F in the HLO text: find, Enter / Shift+Enter for next / previous.

A small text is searched in its document; a big one, shown through a window
of lines, in its whole text (the view then moves its window to the match).
Matches are counted once per query and text, without regard to case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from xlaview.qt import theme

if TYPE_CHECKING:
    from xlaview.qt.text.hlo_text import HloTextView

FOUND = theme.FOUND


class FindBar(QWidget):
    def __init__(self, view: HloTextView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self._counted: tuple[object, str, int] = (None, "", 0)
        self._lowered: tuple[object, str] = (None, "")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Find in text (Enter: next, Shift+Enter: previous)")
        self.edit.setClearButtonEnabled(True)
        self.count = QLabel(self)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.clicked.connect(self.close_bar)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.count)
        layout.addWidget(close)
        self.edit.returnPressed.connect(lambda: self.find_next(backward=False))
        self.edit.textChanged.connect(self._on_text_changed)
        QShortcut(QKeySequence("Shift+Return"), self.edit, lambda: self.find_next(backward=True))
        QShortcut(QKeySequence("Escape"), self.edit, self.close_bar)
        self.hide()

    def open_bar(self) -> None:
        self.show()
        cursor = self.view.textCursor()
        if cursor.hasSelection():
            self.edit.setText(cursor.selectedText())
        self.edit.setFocus()
        self.edit.selectAll()

    def close_bar(self) -> None:
        self.view.set_highlights({"search": ([], theme.SELECTION)})
        self.hide()
        self.view.setFocus()

    def _on_text_changed(self, text: str) -> None:
        if not text:
            self.count.setText("")
            self.view.set_highlights({"search": ([], theme.SELECTION)})
            return
        self.find_next(backward=False, from_start=True)

    def find_next(self, backward: bool = False, from_start: bool = False) -> bool:
        needle = self.edit.text()
        if not needle:
            return False
        source = self.view.source
        if source is not None and source.windowed:
            line = self._find_in_text(needle, backward, from_start)
        else:
            line = self._find_in_document(needle, backward, from_start)
        if line is None:
            self.count.setText("no match")
            return False
        self.view.set_highlights({"search": ([(line, line)], FOUND)})
        self.count.setText(f"{self._count(needle)} matches")
        return True

    def _find_in_document(self, needle: str, backward: bool, from_start: bool) -> int | None:
        doc = self.view.document()
        flags = QTextDocument.FindFlag(0)
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        cursor = self.view.textCursor()
        if from_start:
            cursor.setPosition(cursor.selectionStart())
        found = doc.find(needle, cursor, flags)
        if found.isNull():  # wrap around
            start = QTextCursor(doc)
            if backward:
                start.movePosition(QTextCursor.MoveOperation.End)
            found = doc.find(needle, start, flags)
        if found.isNull():
            return None
        self.view.setTextCursor(found)
        self.view.centerCursor()
        return self.view.line_of_cursor(found)

    def _find_in_text(self, needle: str, backward: bool, from_start: bool) -> int | None:
        text, lowered = self._lower()
        key = needle.lower()
        cursor = self.view.textCursor()
        here = self.view.offset_of_cursor(cursor)
        if backward:
            at = lowered.rfind(key, 0, max(0, here - (0 if from_start else 1)))
            at = at if at >= 0 else lowered.rfind(key)
        else:
            start = here if from_start else here + (1 if cursor.hasSelection() else 0)
            at = lowered.find(key, start)
            at = at if at >= 0 else lowered.find(key)
        if at < 0:
            return None
        return self.view.select_range(at, len(needle))

    def _lower(self) -> tuple[str, str]:
        """The big text and its lower case, made once per text."""
        text = self.view.source.text  # type: ignore[union-attr]
        if self._lowered[0] is not text:
            self._lowered = (text, text.lower())
        return text, self._lowered[1]

    def _count(self, needle: str) -> int:
        source = self.view.source
        target: object = (
            source.text if source is not None and source.windowed else self.view.document()
        )
        counted, counted_needle, total = self._counted
        if counted is not target or counted_needle != needle:
            if isinstance(target, str):
                total = self._lower()[1].count(needle.lower())
            else:
                total = self.view.document().toPlainText().lower().count(needle.lower())
            self._counted = (target, needle, total)
        return total
