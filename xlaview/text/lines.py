"""Lines of a big text, found a megabyte at a time: one C call over a 30 MB
text (``str.count``, ``str.splitlines``) holds the GIL for 100 ms, which the
window's GUI thread would wait for."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from typing import overload

from xlaview.turns import turn

CHUNK = 1 << 20  # characters searched in one call


def count_newlines(text: str, start: int = 0, end: int | None = None) -> int:
    """``text.count("\\n", start, end)``, a megabyte at a time."""
    end = len(text) if end is None else min(end, len(text))
    return sum(text.count("\n", i, min(i + CHUNK, end)) for i in range(start, end, CHUNK))


def line_offset(text: str, line: int, offset: int = 0, at_line: int = 1) -> int:
    """Where 1-based ``line`` starts, searching on from ``offset`` (``at_line``
    starts there), newlines counted a megabyte at a time: splitting a 30 MB
    file into lines is one C call that holds the GIL for 100 ms."""
    while at_line < line:
        end = min(len(text), offset + CHUNK)
        newlines = text.count("\n", offset, end)
        if at_line + newlines < line and end < len(text):
            at_line, offset = at_line + newlines, end
            continue
        while at_line < line:
            offset = text.index("\n", offset) + 1
            at_line += 1
    return offset


_NEWLINE = re.compile("\n")
# Characters of a `LineStarts` block: its lines are listed in a millisecond
# (on the GUI thread, where the view asks a window of a new pass's lines).
BLOCK = 1 << 18


class LineStarts(Sequence[int]):
    """Where each 0-based line of ``text`` starts (a text ending in a newline
    ends with an empty line), found a block at a time when first asked.

    Made, it has counted the newlines of each block (in C); the starts of
    one block's lines are listed when a line there is asked. A pass shows
    a few windows of its text and looks one computation up: every line's start,
    a match object each, took 15 ms of each step on a 6 MB pass (100 ms on
    45 MB), with the GIL held. Safe to share between threads (a block
    listed twice at once is listed alike)."""

    __slots__ = ("_blocks", "_count", "_first", "_offsets", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        offsets, first = [0], [0]
        n = len(text)
        start = line = 0
        while True:
            turn()  # (a block: 0.1-0.3 ms in C; 45 MB is 180 of them)
            cut = text.find("\n", start + BLOCK) if start + BLOCK < n else -1
            stop = n if cut < 0 else cut + 1  # each block ends with a line
            line += text.count("\n", start, stop)
            if stop >= n:
                break
            offsets.append(stop)
            first.append(line)
            start = stop
        self._count = line + 1
        self._offsets, self._first = offsets, first  # each block's first offset and line
        self._blocks: list[array[int] | None] = [None] * len(offsets)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...
    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("line out of range")
        b = bisect_right(self._first, index) - 1
        return self._block(b)[index - self._first[b]]

    def line_of(self, offset: int) -> int:
        """The 0-based line holding character ``offset`` (the first line before
        the text, the last past its end)."""
        b = max(0, bisect_right(self._offsets, offset) - 1)
        block = self._blocks[b]
        if block is None:  # counted, not listed: a fourth of the time
            start = self._offsets[b]
            return self._first[b] + self.text.count("\n", start, max(start, offset))
        return max(0, self._first[b] + bisect_right(block, offset) - 1)

    def _block(self, b: int) -> array[int]:
        block = self._blocks[b]
        if block is None:
            start = self._offsets[b]
            # (The newline ending a block starts the next one's first line.)
            end = self._offsets[b + 1] - 1 if b + 1 < len(self._offsets) else len(self.text)
            block = array("q", [start])
            block.extend(m.end() for m in _NEWLINE.finditer(self.text, start, end))
            self._blocks[b] = block
        return block
