"""Regular expressions over big texts, a slice of lines at a time.

A regular expression runs in C with the GIL held: one ``findall`` over the
12 MB entry of a pass keeps every other thread out of Python for a quarter
of a second, the window's GUI thread included, which then stalls in the
middle of painting. A pattern that matches within a line gives the same
matches read a slice of whole lines at a time, and between slices the
interpreter hands the GIL over.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from xlaview.turns import turn

# The text one call reads: at most a few milliseconds of regular expression
# (the line pattern read 128 KiB of a U-Net pass in up to 16 ms, 32 KiB in 6).
SLICE = 1 << 15


def findall_by_lines(
    pattern: re.Pattern[str],
    text: str,
    start: int,
    end: int,
    check: Callable[[], None] | None = None,
) -> list[Any]:
    """``pattern.findall(text, start, end)`` for a ``pattern`` whose matches
    hold no newline but the one they may start with, read a slice of whole
    lines at a time; ``start`` at a line start or the newline before it,
    ``end`` at a line's end (a newline, or the end of the text).
    ``check`` is called between slices (it may raise to stop)."""
    if end - start <= SLICE:
        return pattern.findall(text, start, end)
    out: list[Any] = []
    while start < end:
        if check is not None and out:
            check()
        turn()
        cut = text.find("\n", start + SLICE, end) if start + SLICE < end else -1
        stop = end if cut < 0 else cut
        out += pattern.findall(text, start, stop)
        start = stop  # the newline: where a line's match may start
    return out
