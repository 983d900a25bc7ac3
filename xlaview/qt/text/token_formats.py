"""The character formats of a text's tokens, and the format ranges of its
spans, each made once and kept.

A view colours the lines in view at each step, some 2,000 spans; a range
made anew is four calls into Qt, and each call waits its turn for the
interpreter while a worker runs (13.7 ms a step beside a busy worker, 1.5 ms
with the ranges kept). A range's format is shared: Qt copies what it is given.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QTextCharFormat, QTextLayout

from xlaview.qt import theme

# Format ranges kept, at most (a long scroll through a big dump meets more).
MAX_RANGES = 50_000


class TokenFormats:
    """Formats by token name, ranges by (column, length, token)."""

    __slots__ = ("_formats", "_ranges")

    def __init__(self) -> None:
        self._formats: dict[str, QTextCharFormat] = {}
        self._ranges: dict[tuple[int, int, str], QTextLayout.FormatRange] = {}

    def format_for(self, token: str) -> QTextCharFormat:
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

    def range_for(self, span: tuple[int, int, str]) -> QTextLayout.FormatRange:
        """The format range of one (column, length, token) span."""
        r = self._ranges.get(span)
        if r is None:
            if len(self._ranges) >= MAX_RANGES:
                self._ranges.clear()
            r = QTextLayout.FormatRange()
            r.start, r.length, r.format = span[0], span[1], self.format_for(span[2])
            self._ranges[span] = r
        return r
