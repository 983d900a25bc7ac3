"""Computations a module repeats from the pass before it, found by comparing
texts rather than by hashing each computation.

A pass usually changes a few computations and prints the others exactly as
before, often at the same offsets (XLA prints the entry last, and it is the
one most passes change). From the first computation on, the text common to
the two files (compared a block at a time, in C) holds computations whose
parse is the previous module's: they are taken as they are, moved by the
shift between the two texts when there is one. What differs goes the usual
way (`ComputationStore`, then the parsers).
"""

from __future__ import annotations

from xlaview.hlo.model import Computation, Module, Span

_BLOCK = 1 << 16


def common_length(a: str, a0: int, b: str, b0: int) -> int:
    """How many characters ``a`` from ``a0`` and ``b`` from ``b0`` share."""
    limit = min(len(a) - a0, len(b) - b0)
    i = 0
    for block in (_BLOCK, 4096, 256, 16, 1):
        while i + block <= limit and a[a0 + i : a0 + i + block] == b[b0 + i : b0 + i + block]:
            i += block
    return i


class PreviousModule:
    """The computations of ``previous`` that ``text`` repeats, looked up by
    where they would start in ``text``."""

    __slots__ = ("_by_offset", "_common", "_old_start", "_start", "previous", "text")

    def __init__(self, text: str, previous: Module) -> None:
        self.text = text
        self.previous = previous
        self._start = -1  # where the computations of this text start (aligned on first use)
        self._old_start = 0
        self._common = 0
        self._by_offset: dict[int, Computation] = {}

    def _align(self, pos: int) -> None:
        """Line the first computation of each text up, and measure what follows alike."""
        self._start = pos
        # Only computations of the fast path: their parse depends on their text
        # alone (the careful path's may carry diagnostics and inline ones).
        shared = [c for c in self.previous.computations if c.parsed is not None]
        if not shared:
            return
        self._old_start = min(c.span.offset for c in self.previous.computations)
        self._common = common_length(self.text, pos, self.previous.text, self._old_start)
        self._by_offset = {c.span.offset: c for c in shared}

    def computation_at(self, pos: int, line: int) -> Computation | None:
        """The previous module's computation if ``text`` repeats it at ``pos``
        (its header on ``line``), with this text's span."""
        if self._start < 0:
            self._align(pos)
        rel = pos - self._start
        if rel < 0 or rel >= self._common:
            return None
        old = self._by_offset.get(self._old_start + rel)
        if old is None:
            return None
        span = old.span
        # Its closing line and the newline ending it (or the end of both
        # texts) must be common too: the fast path read up to there.
        old_text = self.previous.text
        newline = old_text.find("\n", span.end)
        if newline >= 0:
            if newline - self._old_start >= self._common:
                return None
        elif not len(old_text) - self._old_start == self._common == len(self.text) - self._start:
            return None
        if span.offset == pos and span.line == line:
            return old  # same place: the same object, built instructions and all
        parsed = old.parsed
        assert parsed is not None
        return Computation.from_parsed(parsed, Span(line, 1, pos, pos + span.end - span.offset))
