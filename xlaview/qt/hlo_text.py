"""The HLO text view: line numbers, lazy highlighting, find, go to definition.

Colours come from a whole-file lex done once off the GUI thread
(`xlaview.text.spans.line_spans`); a line gets its colours when it first
scrolls into view, so opening a 20k-instruction module costs no more than
showing one screen.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShortcut,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextLayout,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextDocumentLayout,
    QPlainTextEdit,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from xlaview.hlo import Module
from xlaview.qt import theme
from xlaview.text.spans import LineSpans

_NAME_CHARS = re.compile(r"[A-Za-z0-9_.\-]")


DOCUMENT_CHUNK_LINES = 100


def build_document(text: str) -> QTextDocument:
    """A plain-text document for the view, safe to build on a worker thread
    (the caller moves it to the GUI thread). It gets its font and layout when
    shown: anything touching fonts on a worker thread holds Qt's font lock
    and stalls the GUI thread.

    The text goes in a hundred lines at a time (a third of a millisecond, no
    slower in all): a Qt call holds the GIL throughout, `setPlainText` of a
    20k-line module would keep the GUI thread out of Python for 80 ms, and a
    view that paints calls into Python hundreds of times, each call waiting
    for the chunk in progress."""
    document = QTextDocument()
    document.setUndoRedoEnabled(False)
    cursor = QTextCursor(document)
    lines = text.split("\n")
    for i in range(0, len(lines), DOCUMENT_CHUNK_LINES):
        chunk = "\n".join(lines[i : i + DOCUMENT_CHUNK_LINES])
        cursor.insertText("\n" + chunk if i else chunk)
    return document


class LineNumberArea(QWidget):
    def __init__(self, editor: HloTextView) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.line_number_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_line_numbers(event)


class HloTextView(QPlainTextEdit):
    """Read-only HLO text. Clicking a line selects its instruction; Ctrl+click
    on a name jumps to where it is defined."""

    instruction_clicked = Signal(str, str)  # computation, instruction
    computation_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hloText")
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(theme.monospace_font(10))
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.module: Module | None = None
        self._spans: LineSpans | None = None
        self._formatted: set[int] = set()
        self._formats: dict[str, QTextCharFormat] = {}
        self._line_owner: dict[int, tuple[str, str | None]] = {}  # line -> (computation, instr)
        self._document: QTextDocument | None = None
        self._formatting = False
        self._selections: dict[str, list[QTextEdit.ExtraSelection]] = {}
        self._numbers = LineNumberArea(self)
        self.blockCountChanged.connect(self._update_margin)
        self.updateRequest.connect(self._on_update_request)
        self._update_margin()

    # -- content --------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """Show plain text that is no module: a message, an error."""
        self.set_document(None, build_document(text), {})

    def set_document(self, module: Module | None, document: QTextDocument,
                     line_owners: dict[int, tuple[str, str | None]]) -> None:
        """Show a document built off the GUI thread (`build_document`)."""
        self.module = module
        self._spans = None
        self._formatted.clear()
        self._selections.clear()
        self._line_owner = line_owners
        position = self.verticalScrollBar().value()
        previous = self._document
        # The view owns the documents it shows (Qt parent), and drops the last one.
        document.setParent(self)
        document.setDefaultFont(self.font())
        document.setDocumentLayout(QPlainTextDocumentLayout(document))
        self.setDocument(document)
        self._document = document
        if previous is not None and previous is not document:
            previous.deleteLater()
        self.verticalScrollBar().setValue(position)
        self.setExtraSelections([])
        self._update_margin()

    @property
    def spans(self) -> LineSpans | None:
        """The colours of the text shown, once they came."""
        return self._spans

    def set_spans(self, spans: LineSpans) -> None:
        """Colours for the current text (one list of spans per line)."""
        self._spans = spans
        self._formatted.clear()
        self._apply_visible_formats()

    def _format_for(self, token: str) -> QTextCharFormat:
        fmt = self._formats.get(token)
        if fmt is None:
            fmt = QTextCharFormat()
            for prefix, colour, bold in theme.TOKEN_COLORS:
                if token.startswith(prefix):
                    fmt.setForeground(QColor(colour))
                    if bold:
                        fmt.setFontWeight(600)
                    break
            self._formats[token] = fmt
        return fmt

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self._numbers.scroll(0, dy)
        else:
            self._numbers.update(0, rect.y(), self._numbers.width(), rect.height())
        self._apply_visible_formats()

    def _visible_blocks(self, extra_lines: int = 0):
        """The blocks in view (lines never wrap: one block, one line of text)."""
        block = self.firstVisibleBlock()
        count = self.viewport().height() // max(1, self.fontMetrics().height()) + 2 + extra_lines
        for _ in range(count):
            if not block.isValid():
                return
            yield block
            block = block.next()

    def _apply_visible_formats(self) -> None:
        if self._spans is None or self._formatting:
            return
        first = last = None
        for block in self._visible_blocks(extra_lines=20):  # a little ahead of the scroll
            number = block.blockNumber()
            if number in self._formatted or number >= len(self._spans):
                continue
            self._formatted.add(number)
            ranges = []
            for column, length, token in self._spans[number]:
                r = QTextLayout.FormatRange()
                r.start, r.length, r.format = column, length, self._format_for(token)
                ranges.append(r)
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
        digits = max(4, len(str(self.blockCount())))
        return 14 + self.fontMetrics().horizontalAdvance("9") * digits

    def _update_margin(self, _count: int = 0) -> None:
        self.setViewportMargins(self.line_number_width(), 0, 0, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        cr = self.contentsRect()
        self._numbers.setGeometry(QRect(cr.left(), cr.top(), self.line_number_width(), cr.height()))

    def paint_line_numbers(self, event: QPaintEvent) -> None:
        painter = QPainter(self._numbers)
        painter.fillRect(event.rect(), QColor("#f1f3f5"))
        painter.setPen(QColor("#adb5bd"))
        painter.setFont(self.font())
        first = self.firstVisibleBlock()
        top = self.blockBoundingGeometry(first).translated(self.contentOffset()).top()
        metrics = self.fontMetrics()
        count = sum(1 for _ in self._visible_blocks())
        numbers = "\n".join(str(first.blockNumber() + 1 + i) for i in range(count))
        width = self._numbers.width() - 6
        # One call for the whole column: each call into Qt from Python waits for
        # the GIL while workers run, and a column has dozens of lines.
        if metrics.leading() == 0:
            painter.drawText(QRectF(0, top, width, count * metrics.height()),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop, numbers)
        else:
            for i, number in enumerate(numbers.split("\n")):
                painter.drawText(0, round(top + i * metrics.height()), width, metrics.height(),
                                 Qt.AlignmentFlag.AlignRight, number)
        painter.end()

    # -- selection ------------------------------------------------------------
    def show_span(self, line: int) -> None:
        """Scroll so that ``line`` (1-based) is in view, a third from the top."""
        block = self.document().findBlockByNumber(max(0, line - 1))
        cursor = QTextCursor(block)
        self.setTextCursor(cursor)
        visible = max(1, self.viewport().height() // max(1, self.fontMetrics().height()))
        self.verticalScrollBar().setValue(max(0, line - 1 - visible // 3))

    def set_highlights(self, kind: str, lines: list[tuple[int, int]], colour: str) -> None:
        """Background colour over line ranges (1-based, inclusive), by kind of highlight."""
        selections = []
        doc = self.document()
        for first, last in lines:
            start = doc.findBlockByNumber(first - 1)
            end = doc.findBlockByNumber(last - 1)
            if not start.isValid():
                continue
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(QColor(colour))
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            cursor = QTextCursor(start)
            if end.isValid() and end != start:
                cursor.setPosition(end.position(), QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            selections.append(sel)
        self._selections[kind] = selections
        self._refresh_selections()

    def _refresh_selections(self) -> None:
        # Later kinds paint over earlier ones: blocks, then neighbours, then the selection.
        order = ("diff-added", "diff-changed", "block", "operands", "users", "search", "selection")
        merged = [s for kind in order for s in self._selections.get(kind, [])]
        self.setExtraSelections(merged)

    # -- mouse ----------------------------------------------------------------
    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if event.button() != Qt.MouseButton.LeftButton or self.textCursor().hasSelection():
            return
        cursor = self.cursorForPosition(event.position().toPoint())
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self._go_to_definition(cursor)
            return
        owner = self._line_owner.get(cursor.blockNumber() + 1)
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
        owner = self._line_owner.get(cursor.blockNumber() + 1)
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


class FindBar(QWidget):
    """Ctrl+F: find in the text, Enter / Shift+Enter for next / previous."""

    def __init__(self, view: HloTextView) -> None:
        super().__init__(view.parentWidget())
        self.view = view
        self._counted: tuple[QTextDocument | None, str, int] = (None, "", 0)
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
        self.edit.returnPressed.connect(lambda: self.find(backward=False))
        self.edit.textChanged.connect(self._on_text_changed)
        QShortcut(QKeySequence("Shift+Return"), self.edit, lambda: self.find(backward=True))
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
        self.view.set_highlights("search", [], theme.SELECTION)
        self.hide()
        self.view.setFocus()

    def _on_text_changed(self, text: str) -> None:
        if not text:
            self.count.setText("")
            self.view.set_highlights("search", [], theme.SELECTION)
            return
        self.find(backward=False, from_start=True)

    def find(self, backward: bool = False, from_start: bool = False) -> bool:
        text = self.edit.text()
        if not text:
            return False
        doc = self.view.document()
        flags = QTextDocument.FindFlag(0)
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        cursor = self.view.textCursor()
        if from_start:
            cursor.setPosition(cursor.selectionStart())
        found = doc.find(text, cursor, flags)
        if found.isNull():  # wrap around
            start = QTextCursor(doc)
            if backward:
                start.movePosition(QTextCursor.MoveOperation.End)
            found = doc.find(text, start, flags)
        total = self._count(doc, text)
        if found.isNull():
            self.count.setText("no match")
            return False
        self.view.setTextCursor(found)
        self.view.centerCursor()
        line = found.blockNumber() + 1
        self.view.set_highlights("search", [(line, line)], "#ffe066")
        self.count.setText(f"{total} matches")
        return True


    def _count(self, doc: QTextDocument, text: str) -> int:
        """Matches in ``doc``, without regard to case as `QTextDocument.find`;
        counted once per query and document, not at each Enter."""
        counted_doc, counted_text, total = self._counted
        if counted_doc is not doc or counted_text != text:
            total = doc.toPlainText().lower().count(text.lower())
            self._counted = (doc, text, total)
        return total


class HloTextPanel(QWidget):
    """The text view with its find bar under it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.view = HloTextView(self)
        self.find_bar = FindBar(self.view)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.find_bar)
        QShortcut(QKeySequence.StandardKey.Find, self, self.find_bar.open_bar,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
