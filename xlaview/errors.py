"""The one root of xlaview's own errors, the located error, and the problem a
file's error is listed as.

Every error the core raises on purpose derives from `XlaviewError`, so that a
caller (the window's slots, the command line) can tell "this input is wrong"
from a bug with one ``except``. Each keeps the built-in base it had
(`ValueError`, `OSError`), so existing ``except`` clauses still hold. An error
about a place in a file is a `LocatedError`: the HLO parser's, the report
readers', the file readers' and the trace readers' errors all are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class XlaviewError(Exception):
    """Something in the input (a dump, a report, a file name) xlaview cannot use."""


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with a file, found while indexing or reading it."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class LocatedError(XlaviewError):
    """What is wrong, and where: ``path`` (None where the caller knows it, not
    the reader), 1-based ``line`` and ``column`` (0 where unknown)."""

    def __init__(
        self, message: str, path: str | None = None, line: int = 0, column: int = 0
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = ":".join(str(part) for part in (self.path, self.line, self.column) if part)
        return f"{where}: {self.message}" if where else self.message

    def to_problem(self, path: str | None = None) -> Problem:
        """The problem the Problems list shows (``path``: where the caller
        read the text from, if the error does not say)."""
        message = f"{self.message} (column {self.column})" if self.column else self.message
        return Problem(self.path or path or "", message, self.line or None)

    def __reduce__(self) -> tuple[Any, ...]:
        # Every field across pickling (helper processes), whatever the
        # subclass's constructor takes.
        return _restore, (type(self), self.args, dict(self.__dict__))


def _restore(cls: type[LocatedError], args: tuple[Any, ...], state: dict[str, Any]) -> LocatedError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error
