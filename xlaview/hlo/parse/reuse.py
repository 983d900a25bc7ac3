"""Computations a module repeats from the pass before it, found by comparing
texts rather than by hashing each computation.

A pass usually changes a few computations and prints the others exactly as
before, in the same order, often at the same offsets. The two texts are
compared (in C) from a computation the new text shares with the old one, found
by name; the stretch they have in common holds computations whose parse is the
previous module's, taken a run at a time, moved by the shift between the two
texts when there is one. Where the texts part, the next computation is looked
up by name again. What differs goes the usual way (`ComputationStore`, then
the parsers). The work is that of the changes plus one comparison in C, not a
step per computation of the module.
"""

from __future__ import annotations

import re

from xlaview.hlo.model import Computation, Module, Span
from xlaview.hlo.parse.edited import editable
from xlaview.turns import turn

_FIRST_BLOCK = 256
_LARGEST_BLOCK = 1 << 16
# A computation's header line: ``[ENTRY ]%name (``.
_HEADER_NAME = re.compile(r"(?:ENTRY[ \t]+)?%?([A-Za-z_][A-Za-z0-9_.\-]*)")


def common_length(a: str, a0: int, b: str, b0: int) -> int:
    """How many characters ``a`` from ``a0`` and ``b`` from ``b0`` share.

    Blocks grow while the texts agree and shrink once they part, so texts
    that part at once cost a few small comparisons, long agreeing ones a few
    large ones."""
    limit = min(len(a) - a0, len(b) - b0)
    i = 0
    block = _FIRST_BLOCK
    while i + block <= limit and a[a0 + i : a0 + i + block] == b[b0 + i : b0 + i + block]:
        i += block
        block = min(block * 4, _LARGEST_BLOCK)
    while block > 1:
        block = max(block // 8, 1)
        while i + block <= limit and a[a0 + i : a0 + i + block] == b[b0 + i : b0 + i + block]:
            i += block
    return i


class PreviousModule:
    """The computations of ``previous`` that ``text`` repeats, taken a run at
    a time (`run_at`)."""

    __slots__ = (
        "_chained",
        "_comps",
        "_k_at",
        "_k_named",
        "_new0",
        "_old0",
        "_prepared",
        "_reach",
        "_shared",
        "previous",
        "text",
    )

    def __init__(self, text: str, previous: Module) -> None:
        self.text = text
        self.previous = previous
        self._prepared = False  # the tables below are made on first use
        self._comps: list[Computation] = []
        self._reach: list[int] = []
        self._chained: list[bool] = []
        self._k_at: dict[int, int] = {}
        self._k_named: dict[str, int] = {}
        # The stretch followed: text[_new0:_new0 + _shared] == old[_old0:_old0 + _shared].
        self._new0 = self._old0 = self._shared = 0

    def _prepare(self) -> None:
        """The previous module's computations of the fast path in text order
        (their parse depends on their text alone; the careful path's may carry
        diagnostics and inline ones), how far each reaches, and whether only
        blank space separates each from the next."""
        old_text = self.previous.text
        comps = [c for c in self.previous.computations if c.parsed is not None]
        starts = [c.span.offset for c in comps]
        if starts != sorted(starts):  # (inline computations come before their caller)
            comps.sort(key=lambda c: c.span.offset)
            starts.sort()
        find = old_text.find
        turn()  # (each of these lists: a few ms over 30,000 computations)
        # The fast path read up to the newline ending the closing line.
        reach = [find("\n", c.span.end) + 1 or len(old_text) for c in comps]
        turn()
        self._chained = [
            end <= start and not old_text[end:start].strip()
            for end, start in zip(reach, starts[1:], strict=False)
        ]
        self._chained.append(False)  # the last one
        self._comps, self._reach, self._prepared = comps, reach, True
        turn()
        self._k_at = {start: k for k, start in enumerate(starts)}
        self._k_named = {c.name: k for k, c in enumerate(comps)}

    def run_at(self, pos: int, line: int) -> list[Computation]:
        """The previous module's computations this text repeats from ``pos``
        (the start of a header on ``line``) on, one after another with only
        blank space between them, each with its span in this text; empty when
        the computation at ``pos`` is not one of them."""
        if not self._prepared:
            self._prepare()
        comps = self._comps
        k = self._k_at.get(self._old0 + pos - self._new0, -1)
        if k < 0 or not self._repeated(k):
            k = self._realign(pos)
            if k < 0:
                return []
        first = comps[k].span
        moved, down = pos - first.offset, line - first.line
        reach, chained = self._reach, self._chained
        shared_end = self._old0 + self._shared
        run = []
        while True:
            comp = comps[k]
            if moved or down:
                span = comp.span
                parsed = comp.parsed
                assert parsed is not None
                comp = Computation.from_parsed(
                    parsed, Span(span.line + down, 1, span.offset + moved, span.end + moved)
                )
            run.append(comp)
            if not chained[k]:
                return run
            k += 1
            if reach[k] >= shared_end and not self._repeated(k):
                return run

    def edited(self, pos: int) -> Computation | None:
        """The previous module's computation of the name at ``pos`` (a header
        this text does not repeat as it was), if it is big and its
        instructions are built: what an edit of it can be parsed from
        (`xlaview.hlo.parse.edited.parse_fast_edit`)."""
        if not self._prepared:
            self._prepare()
        k = self._named(pos)
        if k < 0:
            return None
        comp = self._comps[k]
        return comp if editable(comp) else None

    def has_name(self, pos: int) -> bool:
        """Whether the previous module has a computation of the name of the header at ``pos``."""
        if not self._prepared:
            self._prepare()
        return self._named(pos) >= 0

    def _repeated(self, k: int) -> bool:
        """Whether the stretch followed holds the ``k``-th computation, up to
        the end of its closing line (the end of both texts: to the end)."""
        start = self._comps[k].span.offset
        reach = self._reach[k]
        shared_end = self._old0 + self._shared
        if start < self._old0 or reach > shared_end:
            return False
        if reach == len(self.previous.text):  # it ends the old text: the new must end too
            return self._new0 + self._shared == len(self.text) and shared_end == reach
        return True

    def _realign(self, pos: int) -> int:
        """The previous computation of the name at ``pos``, if the texts agree
        from there on (the stretch followed from now on); -1 if not."""
        k = self._named(pos)
        if k < 0:
            return -1
        old0 = self._comps[k].span.offset
        shared = common_length(self.text, pos, self.previous.text, old0)
        if old0 + shared < self._reach[k]:
            return -1
        self._new0, self._old0, self._shared = pos, old0, shared
        return k if self._repeated(k) else -1

    def _named(self, pos: int) -> int:
        """Which of the previous computations has the name of the header at ``pos`` (-1: none)."""
        m = _HEADER_NAME.match(self.text, pos)
        return self._k_named.get(m.group(1), -1) if m else -1
