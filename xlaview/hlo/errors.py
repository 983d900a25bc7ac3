"""The one exception of the HLO layer, and located diagnostics."""

from __future__ import annotations

from bisect import bisect_right
from typing import NamedTuple

from xlaview.errors import LocatedError

# A message quotes at most this many characters of the text (a name, a value):
# a module written on one line must not put megabytes into an error.
QUOTE_LIMIT = 240


def elide(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to about ``limit`` characters, its middle replaced by `` … ``."""
    if len(text) <= limit:
        return text
    head = (limit - 3) * 2 // 3
    tail = limit - 3 - head
    return f"{text[:head]} … {text[len(text) - tail :]}"


class Location(NamedTuple):
    """A 1-based line and column, and the 0-based character offset in the text."""

    line: int
    column: int
    offset: int


def locate(text: str, offset: int) -> Location:
    """Line and column of ``offset`` in ``text`` (both 1-based)."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Location(line, column, offset)


class LineLocator:
    """Line and column of offsets in one text, in time linear in the text over
    all the questions asked.

    Offsets asked in increasing order count newlines from the last one asked;
    an offset before it starts from the nearest earlier one (checkpoints kept
    in offset order). `locate` from the start of the text, or a backwards
    ``rfind`` per question, is quadratic on a text written on one line.
    """

    __slots__ = ("_lines", "_offsets", "_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._offsets = [0]
        self._lines = [1]
        self._starts = [0]  # offset where the checkpoint's line starts

    def locate(self, offset: int) -> Location:
        offset = max(0, min(offset, len(self.text)))
        i = bisect_right(self._offsets, offset) - 1
        base, line, start = self._offsets[i], self._lines[i], self._starts[i]
        newlines = self.text.count("\n", base, offset)
        if newlines:
            line += newlines
            start = self.text.rfind("\n", base, offset) + 1
        if i == len(self._offsets) - 1 and offset > base:
            self._offsets.append(offset)
            self._lines.append(line)
            self._starts.append(start)
        return Location(line, offset - start + 1, offset)

    def note(self, offset: int, line: int) -> None:
        """Record that the line ``line`` starts at ``offset`` (known to the
        caller), sparing the count up to it. Only past the last offset asked."""
        if offset > self._offsets[-1] and (offset == 0 or self.text[offset - 1] == "\n"):
            self._offsets.append(offset)
            self._lines.append(line)
            self._starts.append(offset)


class HloSyntaxError(LocatedError, ValueError):
    """HLO text that does not parse.

    ``line`` and ``column`` are 1-based; ``message`` names what was expected;
    ``offset`` is the 0-based character offset (-1: unknown). ``path`` is
    filled in by callers that know which file the text came from.
    """

    def __init__(
        self, message: str, line: int, column: int, offset: int = -1, path: str | None = None
    ) -> None:
        # Messages quote names and values from the text; a bound keeps a hostile
        # text's one-megabyte name out of logs and dialogs.
        super().__init__(elide(message, 2 * QUOTE_LIMIT), path, line, column)
        self.offset = offset

    @classmethod
    def at(cls, text: str, offset: int, message: str) -> HloSyntaxError:
        loc = locate(text, offset)
        return cls(message, loc.line, loc.column, loc.offset)
