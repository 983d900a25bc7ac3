"""The line numbers beside the HLO text: the file's lines, also when the view
shows a window of a big text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

from xlaview.qt import theme

if TYPE_CHECKING:
    from xlaview.qt.text.hlo_text import HloTextView


class LineNumberArea(QWidget):
    def __init__(self, editor: HloTextView) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.line_number_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        editor = self.editor
        painter = QPainter(self)
        painter.fillRect(event.rect(), QColor(theme.PANEL))
        painter.setPen(QColor(theme.FAINT))
        painter.setFont(editor.font())
        first = editor.firstVisibleBlock()
        top = editor.blockBoundingGeometry(first).translated(editor.contentOffset()).top()
        metrics = editor.fontMetrics()
        count = sum(1 for _ in editor.visible_blocks())
        start = editor.first + first.blockNumber() + 1
        numbers = "\n".join(str(start + i) for i in range(count))
        width = self.width() - 6
        # One call for the whole column: each call into Qt from Python waits for
        # the GIL while workers run, and a column has dozens of lines.
        if metrics.leading() == 0:
            painter.drawText(
                QRectF(0, top, width, count * metrics.height()),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop,
                numbers,
            )
        else:
            for i, number in enumerate(numbers.split("\n")):
                painter.drawText(
                    0,
                    round(top + i * metrics.height()),
                    width,
                    metrics.height(),
                    Qt.AlignmentFlag.AlignRight,
                    number,
                )
        painter.end()
