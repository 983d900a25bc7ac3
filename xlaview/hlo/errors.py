"""The one exception of the HLO layer, and located diagnostics."""

from __future__ import annotations

from typing import NamedTuple

from xlaview.errors import XlaviewError


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


class HloSyntaxError(XlaviewError, ValueError):
    """HLO text that does not parse.

    ``line`` and ``column`` are 1-based; ``message`` names what was expected.
    ``source`` is filled in by callers that know which file the text came from.
    """

    def __init__(
        self, message: str, line: int, column: int, offset: int = -1, source: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        self.source = source

    @classmethod
    def at(cls, text: str, offset: int, message: str) -> HloSyntaxError:
        loc = locate(text, offset)
        return cls(message, loc.line, loc.column, loc.offset)

    def with_source(self, source: str) -> HloSyntaxError:
        return HloSyntaxError(self.message, self.line, self.column, self.offset, source)

    def __str__(self) -> str:
        where = f"{self.source}:" if self.source else ""
        return f"{where}{self.line}:{self.column}: {self.message}"

    def __reduce__(self):  # keep the location across pickling (worker processes)
        return (HloSyntaxError, (self.message, self.line, self.column, self.offset, self.source))
