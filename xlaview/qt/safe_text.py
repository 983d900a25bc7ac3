"""The one rule for text from a dump (names, metadata, file names, paths):
it reaches the screen as plain text or escaped HTML, never as Qt rich text
that a name could smuggle markup into (an ``<img src=...>`` loads a file).

Labels built here are plain text unless asked otherwise; rich labels and
tooltips get dump text through `esc`; a tooltip is always escaped HTML.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QPainter,
    QPaintEvent,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

MAX_SHOWN = 400  # characters of one value in a message or a tooltip


def elide(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut in the middle to at most ``limit`` characters."""
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return f"{text[:half]}…{text[-half:]}"


def esc(value: object, limit: int | None = MAX_SHOWN) -> str:
    """Dump text made safe to put inside rich text (elided to ``limit``
    characters; None: whole, where the view shows it whole on purpose)."""
    text = str(value)
    return html.escape(text if limit is None else elide(text, limit))


def esc_whole(value: object) -> str:
    """A value escaped and shown whole: where a long name or source line is
    read on purpose (the inspector)."""
    return esc(value, None)


def tooltip(text: str) -> str:
    """A tooltip that shows ``text`` exactly, newlines kept (Qt takes any
    tooltip that looks like markup for rich text)."""
    lines = [esc(line) for line in text.split("\n")[:40]]
    return "<p style='white-space:pre'>" + "<br>".join(lines) + "</p>"


def label(parent: QWidget, rich: bool = False) -> QLabel:
    """A label: plain text, or rich text whose dump parts went through `esc`."""
    out = QLabel(parent)
    out.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    return out


class SteadyLabel(QLabel):
    """A label whose text changes without laying the window out again.

    `QLabel.setText` asks every layout up to the window's to be made again
    (the text may want another size), and what they hold is painted again:
    9 ms each time a pass step set the Traffic tab's two-line summary. This
    one keeps its text and paints it itself, wrapped to its width if it
    wraps words: plain text, on one line elided in the middle to the width
    it is given (TF computation names run to hundreds of characters) and
    whole in its tooltip; or rich text (its dump parts through `esc`)."""

    def __init__(self, parent: QWidget, rich: bool = False) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        self._text = ""
        self._document: QTextDocument | None = None  # rich text: one, its text set as painted
        self._laid = False  # whether it holds the text and font now

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        if text == self._text:
            return
        self._text = text
        self._laid = False
        if self.textFormat() == Qt.TextFormat.PlainText and not self.wordWrap():
            self.setToolTip(tooltip(text) if text else "")
        self.update()

    def text(self) -> str:
        return self._text

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = self.contentsRect()
        if self.textFormat() == Qt.TextFormat.PlainText:
            align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
            painter.setPen(self.palette().windowText().color())
            if self.wordWrap():
                painter.drawText(rect, int(align | Qt.TextFlag.TextWordWrap), self._text)
            else:
                mode = Qt.TextElideMode.ElideMiddle
                shown = self.fontMetrics().elidedText(self._text, mode, rect.width())
                painter.drawText(rect, int(align), shown)
        else:
            document = self._laid_out(rect.width())
            # Centred in its height as a label centres it, and cut at it.
            top = rect.top() + max(0, (rect.height() - int(document.size().height())) // 2)
            painter.setClipRect(rect)
            painter.translate(rect.left(), top)
            context = QAbstractTextDocumentLayout.PaintContext()
            palette = QPalette(self.palette())
            palette.setColor(QPalette.ColorRole.Text, palette.windowText().color())
            context.palette = palette
            document.documentLayout().draw(painter, context)
        painter.end()

    def _laid_out(self, width: int) -> QTextDocument:
        document = self._document
        if document is None:
            document = self._document = QTextDocument(self)
            document.setDocumentMargin(0)
        if not self._laid or document.defaultFont() != self.font():
            document.setDefaultFont(self.font())
            document.setHtml(self._text)
            self._laid = True
        wrap = width if self.wordWrap() else -1
        if document.textWidth() != wrap:
            document.setTextWidth(wrap)
        return document


def steady_label(
    parent: QWidget, lines: int = 1, margins: tuple[int, int] = (0, 0), rich: bool = False
) -> QLabel:
    """A label ``lines`` lines high that takes the width it is given: its text
    changes as the user steps without laying the window out again (a label
    whose size hint changes moves docks and splitters, and every view is
    resized and repainted: 50 ms and more per step; `SteadyLabel`). Plain
    text on one line is elided in the middle, the whole of it in the tooltip."""
    out = SteadyLabel(parent, rich)
    out.setWordWrap(lines > 1)
    out.setContentsMargins(margins[0], margins[1], margins[0], margins[1])
    out.setFixedHeight(lines * out.fontMetrics().lineSpacing() + 2 * margins[1] + 2)
    out.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    return out
