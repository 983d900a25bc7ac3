"""The HLO text view: line numbers, lazy highlighting, find, go to definition.

A small text is one document; a big one (a 45 MB pass) is shown through a
window of a few thousand lines that follows the scroll bar
(`xlaview.qt.render.documents`): lines, highlights and colours are kept by their
line in the file, and mapped to the window's blocks. Colours come from a lex
done off the GUI thread; a line gets its colours when it first scrolls into
view, so showing a module costs no more than showing one screen.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import (
    QKeySequence,
    QMouseEvent,
    QResizeEvent,
    QShortcut,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QPlainTextDocumentLayout,
    QPlainTextEdit,
    QScrollBar,
    QVBoxLayout,
    QWidget,
)

from xlaview.hlo import Module
from xlaview.qt import theme
from xlaview.qt.render import documents as text_window
from xlaview.qt.render.documents import TextSource, build_document, text_source
from xlaview.qt.text.find_bar import FindBar
from xlaview.qt.text.line_marks import LineMarks
from xlaview.qt.text.line_numbers import LineNumberArea
from xlaview.qt.text.token_formats import TokenFormats
from xlaview.text.spans import LineSpans

_NAME_CHARS = re.compile(r"[A-Za-z0-9_.\-]")


class HloTextView(QPlainTextEdit):
    """Read-only HLO text. Clicking a line selects its instruction; Ctrl+click
    on a name jumps to where it is defined."""

    instruction_clicked = Signal(str, str)  # computation, instruction
    computation_clicked = Signal(str)
    line_clicked = Signal(int)  # a plain click on a 1-based file line
    window_moved = Signal(int, str)  # first line (0-based) and text of a new window: colour it

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hloText")
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(theme.monospace_font(10))
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.module: Module | None = None
        self.source: TextSource | None = None
        self.first = 0  # the file's 0-based line shown as the document's first block
        self.file_scroll = QScrollBar(Qt.Orientation.Vertical, self)  # a big text's whole length
        self.file_scroll.hide()
        self.file_scroll.valueChanged.connect(self._on_outer_scroll)
        self._spans: LineSpans | None = None
        self._spans_first = 0
        self._formatted: set[int] = set()
        self._colours = TokenFormats()
        self._line_owner: Mapping[int, tuple[str, str | None]] = {}  # file line -> owner
        self._document: QTextDocument | None = None
        self._formatting = False
        self._moving = False  # a window being put in place: its scroll events are ours
        self._marks = LineMarks()
        self._numbers = LineNumberArea(self)
        self.blockCountChanged.connect(self._update_margin)
        self.updateRequest.connect(self._on_update_request)
        self.verticalScrollBar().valueChanged.connect(self._on_inner_scroll)
        self.verticalScrollBar().valueChanged.connect(self._keep_marks_in_view)
        self._update_margin()

    # -- content --------------------------------------------------------------
    def set_document(self, module: Module | None, document: QTextDocument, line_owners) -> None:
        """Show a whole document (`build_document`)."""
        self._show(module, None, document, line_owners, 0)

    def set_source(self, module: Module | None, source: TextSource, line_owners) -> None:
        """Show a text: all of it when it is small, else a window of it around
        the line in view now."""
        if not source.windowed:
            self._show(module, source, build_document(source.text), line_owners, 0)
            return
        top = self.first + self.verticalScrollBar().value() if self.source else 0
        first = self._window_start(source, top)
        self._show(
            module,
            source,
            build_document(source.excerpt(first, text_window.WINDOW_LINES)),
            line_owners,
            first,
            top,
        )

    def attach(self, module: Module | None, line_owners) -> None:
        """The parse of the text shown (`set_source` with no module): clicks on
        it select, what was asked is highlighted; nothing moves."""
        self.module = module
        self._line_owner = line_owners
        self._refresh_selections()

    def _window_start(self, source: TextSource, top: int) -> int:
        lines = text_window.WINDOW_LINES
        return max(0, min(top - lines // 3, source.lines - lines))

    def _show(
        self,
        module: Module | None,
        source: TextSource | None,
        document: QTextDocument,
        line_owners,
        first: int,
        top: int | None = None,
    ) -> None:
        same_text = source is not None and source is self.source
        self.module, self.first = module, first
        if not same_text:
            self._spans = None
            self._marks.clear()
        self.source = source
        self._formatted.clear()
        self._line_owner = line_owners
        position = self.verticalScrollBar().value() if top is None else top - first
        self._moving = True
        try:
            self._put_document(document, source, first, position)
        finally:
            self._moving = False
        self._refresh_selections()
        self._update_margin()

    def _put_document(
        self, document: QTextDocument, source: TextSource | None, first: int, position: int
    ) -> None:
        previous = self._document
        # The view owns the documents it shows (Qt parent), and drops the last one.
        document.setParent(self)
        document.setDefaultFont(self.font())
        document.setDocumentLayout(QPlainTextDocumentLayout(document))
        self.setDocument(document)
        self._document = document
        if previous is not None and previous is not document:
            previous.deleteLater()
        windowed = source is not None and source.windowed
        self.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAlwaysOff
            if windowed
            else Qt.ScrollBarPolicy.ScrollBarAsNeeded
        )
        self.file_scroll.setVisible(windowed)
        if source is not None and source.windowed:
            self.file_scroll.blockSignals(True)
            self.file_scroll.setRange(0, max(0, source.lines - self._visible_lines()))
            self.file_scroll.setPageStep(self._visible_lines())
            self.file_scroll.blockSignals(False)
            self.window_moved.emit(first, document.toPlainText())
        self.verticalScrollBar().setValue(position)
        if windowed:
            self.file_scroll.blockSignals(True)
            self.file_scroll.setValue(first + self.verticalScrollBar().value())
            self.file_scroll.blockSignals(False)

    def set_spans(self, spans: LineSpans, first: int = 0) -> None:
        """Colours of the text's lines from 0-based line ``first`` on."""
        self._spans, self._spans_first = spans, first
        self._formatted.clear()
        self._apply_visible_formats()

    @property
    def spans(self) -> LineSpans | None:
        """The colours of the text shown, once they came."""
        return self._spans

    # -- windows --------------------------------------------------------------
    def _visible_lines(self) -> int:
        return max(1, self.viewport().height() // max(1, self.fontMetrics().height()))

    def _move_window(self, top: int) -> None:
        """Show the window of the text around line ``top`` (0-based), ``top`` at
        the top of the view."""
        source = self.source
        if source is None:
            return
        first = self._window_start(source, top)
        self._show(
            self.module,
            source,
            build_document(source.excerpt(first, text_window.WINDOW_LINES)),
            self._line_owner,
            first,
            top,
        )

    def _on_inner_scroll(self, value: int) -> None:
        source = self.source
        if source is None or not source.windowed or self._moving:
            return
        top = self.first + value
        shown = self.document().blockCount()
        edge = text_window.WINDOW_LINES // 8  # scrolled this near an edge, the window moves
        near_top = value < edge and self.first > 0
        near_end = (
            value + self._visible_lines() > shown - edge and self.first + shown < source.lines
        )
        if near_top or near_end:
            self._move_window(top)
            return
        self.file_scroll.blockSignals(True)
        self.file_scroll.setValue(top)
        self.file_scroll.blockSignals(False)

    def _on_outer_scroll(self, top: int) -> None:
        shown = self.document().blockCount()
        if self.first <= top and top + self._visible_lines() <= self.first + shown:
            self.verticalScrollBar().setValue(top - self.first)
        else:
            self._move_window(top)

    def ensure_line(self, line: int) -> None:
        """Have 1-based file line ``line`` in the document (a big text's window moves)."""
        source = self.source
        if (
            source is not None
            and source.windowed
            and not (self.first < line <= self.first + self.document().blockCount())
        ):
            self._move_window(max(0, line - 1 - self._visible_lines() // 3))

    # -- colours --------------------------------------------------------------
    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self._numbers.scroll(0, dy)
        else:
            self._numbers.update(0, rect.y(), self._numbers.width(), rect.height())
        self._apply_visible_formats()

    def visible_blocks(self, extra_lines: int = 0):
        """The blocks in view (lines never wrap: one block, one line of text)."""
        block = self.firstVisibleBlock()
        for _ in range(self._visible_lines() + 2 + extra_lines):
            if not block.isValid():
                return
            yield block
            block = block.next()

    def _apply_visible_formats(self) -> None:
        if self._spans is None or self._formatting:
            return
        first = last = None
        offset = self.first - self._spans_first
        for block in self.visible_blocks(extra_lines=20):  # a little ahead of the scroll
            number = block.blockNumber()
            index = number + offset
            if number in self._formatted or not 0 <= index < len(self._spans):
                continue
            self._formatted.add(number)
            ranges = list(map(self._colours.range_for, self._spans[index]))
            if ranges:
                block.layout().setFormats(ranges)
                first = first if first is not None else block.position()
                last = block.position() + block.length()
        if first is not None:
            # Relaying out the changed lines asks for an update, which calls back here.
            self._formatting = True
            try:
                self.document().markContentsDirty(first, last - first)
            finally:
                self._formatting = False

    # -- line numbers ---------------------------------------------------------
    def line_number_width(self) -> int:
        # Room for 9,999 lines at least: a margin that grows and shrinks as passes
        # go by would resize the text, and lay it out again, on every step.
        total = self.source.lines if self.source is not None else self.blockCount()
        digits = max(4, len(str(total)))
        return 14 + self.fontMetrics().horizontalAdvance("9") * digits

    def _update_margin(self, _count: int = 0) -> None:
        outer = self.file_scroll.sizeHint().width() if self.file_scroll.isVisible() else 0
        self.setViewportMargins(self.line_number_width(), 0, outer, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        cr = self.contentsRect()
        self._numbers.setGeometry(QRect(cr.left(), cr.top(), self.line_number_width(), cr.height()))
        width = self.file_scroll.sizeHint().width()
        self.file_scroll.setGeometry(QRect(cr.right() - width + 1, cr.top(), width, cr.height()))
        self._update_margin()
        self._keep_marks_in_view()

    # -- lines ----------------------------------------------------------------
    def top_line(self) -> int:
        """The 1-based file line at the top of the view."""
        return self.first + self.verticalScrollBar().value() + 1

    def put_on_top(self, line: int) -> None:
        """Scroll so that file line ``line`` (1-based) is the top line."""
        self.ensure_line(line)
        self.verticalScrollBar().setValue(max(0, line - 1 - self.first))
        if self.source is not None and self.source.windowed:
            self.file_scroll.blockSignals(True)
            self.file_scroll.setValue(self.first + self.verticalScrollBar().value())
            self.file_scroll.blockSignals(False)

    def show_span(self, line: int) -> None:
        """Scroll so that file line ``line`` (1-based) is in view, a third from the top."""
        self.ensure_line(line)
        block = self.document().findBlockByNumber(max(0, line - 1 - self.first))
        self.setTextCursor(QTextCursor(block))
        self.verticalScrollBar().setValue(
            max(0, line - 1 - self.first - self._visible_lines() // 3)
        )

    def set_highlights(
        self, kinds: Mapping[str, tuple[Sequence[tuple[int, int]], str]], merged: bool = False
    ) -> None:
        """Background colour over file line ranges (1-based, inclusive), by kind:
        ``{kind: (ranges, colour)}``, the kinds not named kept; ``merged``: the
        ranges come sorted, none overlapping or touching (a diff's marks)."""
        self._marks.set(kinds, merged)
        self._refresh_selections()

    def highlighted(self, kind: str) -> list[tuple[int, int]]:
        """The file line ranges marked as ``kind`` (1-based, inclusive)."""
        return self._marks.ranges(kind)

    def _keep_marks_in_view(self) -> None:
        """Draw the marks again when the lines in view leave those drawn."""
        if self._moving:
            return  # a new document: `_show` draws its marks
        top = self.verticalScrollBar().value()
        if not self._marks.cover(
            top, min(top + self._visible_lines(), self.document().blockCount()) - 1
        ):
            self._refresh_selections()

    def _refresh_selections(self) -> None:
        top = self.verticalScrollBar().value()
        self.setExtraSelections(
            self._marks.selections(self.document(), self.first, top, self._visible_lines())
        )

    def line_of_cursor(self, cursor: QTextCursor) -> int:
        """The file line (1-based) of a cursor in the document."""
        return self.first + cursor.blockNumber() + 1

    def offset_of_cursor(self, cursor: QTextCursor) -> int:
        """The file offset of a cursor (for searches in a big text)."""
        if self.source is None:
            return cursor.position()
        return self.source.starts[self.first + cursor.blockNumber()] + cursor.positionInBlock()

    def select_range(self, offset: int, length: int) -> int:
        """Select ``length`` characters at file offset ``offset``; its line (1-based)."""
        line = (
            self.source.line_of(offset)
            if self.source is not None
            else self.document().findBlock(offset).blockNumber()
        ) + 1
        self.ensure_line(line)
        block = self.document().findBlockByNumber(line - 1 - self.first)
        column = offset - (
            self.source.starts[line - 1] if self.source is not None else block.position()
        )
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + min(column, block.length() - 1))
        cursor.setPosition(
            min(cursor.position() + length, block.position() + block.length() - 1),
            QTextCursor.MoveMode.KeepAnchor,
        )
        self.setTextCursor(cursor)
        self.centerCursor()
        return line

    # -- mouse ----------------------------------------------------------------
    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if event.button() != Qt.MouseButton.LeftButton or self.textCursor().hasSelection():
            return
        cursor = self.cursorForPosition(event.position().toPoint())
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self._go_to_definition(cursor)
            return
        line = self.line_of_cursor(cursor)
        self.line_clicked.emit(line)
        owner = self._line_owner.get(line)
        if owner is None:
            return
        computation, instruction = owner
        if instruction is None:
            self.computation_clicked.emit(computation)
        else:
            self.instruction_clicked.emit(computation, instruction)

    def word_at(self, cursor: QTextCursor) -> str:
        text = cursor.block().text()
        i = j = cursor.positionInBlock()
        while i > 0 and _NAME_CHARS.match(text[i - 1]):
            i -= 1
        while j < len(text) and _NAME_CHARS.match(text[j]):
            j += 1
        return text[i:j]

    def _go_to_definition(self, cursor: QTextCursor) -> None:
        name = self.word_at(cursor)
        if not name or self.module is None:
            return
        owner = self._line_owner.get(self.line_of_cursor(cursor))
        comp_here = owner[0] if owner else None
        if self.module.has_computation(name):
            self.computation_clicked.emit(name)
            return
        if comp_here and self.module.has_computation(comp_here):
            comp = self.module.computation(comp_here)
            if name in comp:
                self.instruction_clicked.emit(comp_here, name)
                return
        try:
            comp, instr = self.module.find(name)
        except KeyError:
            return
        self.instruction_clicked.emit(comp.name, instr.name)


class HloTextPanel(QWidget):
    """The text view with its find bar under it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.view = HloTextView(self)
        self.find_bar = FindBar(self.view, self)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.find_bar)
        QShortcut(
            QKeySequence.StandardKey.Find,
            self,
            self.find_bar.open_bar,
            context=Qt.ShortcutContext.WidgetWithChildrenShortcut,
        )


__all__ = ["HloTextPanel", "HloTextView", "build_document", "text_source"]
