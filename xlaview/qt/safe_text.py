"""The one rule for text from a dump (names, metadata, file names, paths):
it reaches the screen as plain text or escaped HTML, never as Qt rich text
that a name could smuggle markup into (an ``<img src=...>`` loads a file).

Labels built here are plain text unless asked otherwise; rich labels and
tooltips get dump text through `esc`; a tooltip is always escaped HTML.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPaintEvent
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


class ElidedLabel(QLabel):
    """One line of plain text, elided in the middle to the width it is given
    (TF computation names run to hundreds of characters), whole in its tooltip."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        super().setText(text)
        self.setToolTip(tooltip(text) if text else "")

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideMiddle, rect.width()
        )
        painter.setPen(self.palette().windowText().color())
        painter.drawText(
            rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown
        )
        painter.end()


def steady_label(
    parent: QWidget, lines: int = 1, margins: tuple[int, int] = (0, 0), rich: bool = False
) -> QLabel:
    """A label ``lines`` lines high that takes the width it is given: its text
    changes as the user steps without laying the window out again (a label
    whose size hint changes moves docks and splitters, and every view is
    resized and repainted: 50 ms and more per step). One line of plain text
    is elided in the middle, the whole of it in the tooltip."""
    out = ElidedLabel(parent) if lines == 1 and not rich else label(parent, rich)
    out.setWordWrap(lines > 1)
    out.setContentsMargins(margins[0], margins[1], margins[0], margins[1])
    out.setFixedHeight(lines * out.fontMetrics().lineSpacing() + 2 * margins[1] + 2)
    out.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    return out
