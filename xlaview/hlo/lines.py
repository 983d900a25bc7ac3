"""Which computation and instruction each line of a module's text belongs to.

A 45 MB module has 350k lines: a dict from line to owner costs a second's
work and tens of megabytes per pass. `LineOwners` keeps one range of lines per
computation parsed the fast way (one instruction per line, by construction)
and one per instruction of the others, and answers a line by bisection.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping
from itertools import islice
from operator import add, attrgetter, gt, itemgetter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xlaview.hlo.model import Computation, Module

Owner = tuple[str, str | None]
_PARSED, _SPAN, _LINE = attrgetter("parsed"), attrgetter("span"), itemgetter(0)


class LineOwners(Mapping[int, Owner]):
    """Line (1-based) -> (computation, instruction name, or None for the
    computation's header line). Lines of nothing (blank lines, closing braces,
    the module header) are absent. Read-only."""

    __slots__ = ("_computations", "_ends", "_fallback", "_owners", "_starts", "_text")

    def __init__(self, module: Module) -> None:
        # The module's parts, not the module: a module keeps its LineOwners,
        # and a cycle would keep a 45 MB module alive until a full collection.
        self._computations = module.computations
        self._text = module.text
        self._starts: list[int] | None = None
        self._ends: list[int] = []
        # Per range: a computation whose lines past the header are its
        # instructions in order (fast path), or a fixed owner.
        self._owners: list[Computation | Owner] = []
        self._fallback: dict[int, Owner] | None = None
        # Built now, by whoever asks for the map (a worker thread, in the
        # window), not by the first click on a line: milliseconds for a module
        # of the fast path, longer for a careful one's per-instruction ranges.
        self._build()

    def _build(self) -> None:
        computations = self._computations
        parsed = list(map(_PARSED, computations))
        if None not in parsed:  # all of the fast path: a range each, in C
            starts = list(map(_LINE, map(_SPAN, computations)))
            self._ends = list(map(add, starts, map(len, parsed)))
            self._owners = list(computations)
            # In order when each starts below the one before (none inline).
            if starts and (starts[0] < 1 or not all(map(gt, islice(starts, 1, None), self._ends))):
                self._fallback = self._as_dict(starts)
            self._starts = starts
            return
        self._build_ranges()

    def _build_ranges(self) -> None:
        """`_build` with computations of the careful parse: a range per instruction."""
        starts: list[int] = []
        ends, owners = self._ends, self._owners
        text = self._text
        last = 0
        ordered = True
        for comp in self._computations:
            line = comp.span.line
            if comp.parsed is not None:
                ranges: list[tuple[int, int, Computation | Owner]] = [
                    (line, line + len(comp), comp)
                ]
            else:
                ranges = [(line, line, (comp.name, None))]
                for instr in comp.instructions:
                    span = instr.span
                    end = span.line + text.count("\n", span.offset, span.end)
                    ranges.append((span.line, end, (comp.name, instr.name)))
            for start, end, owner in ranges:
                if start <= last:
                    ordered = False  # inline computations inside their caller's line
                starts.append(start)
                ends.append(end)
                owners.append(owner)
                last = max(last, end)
        if not ordered:
            self._fallback = self._as_dict(starts)
        self._starts = starts

    def _as_dict(self, starts: list[int]) -> dict[int, Owner]:
        """The old per-line dict, later ranges winning: for texts whose ranges overlap."""
        owners: dict[int, Owner] = {}
        for start, end, owner in zip(starts, self._ends, self._owners, strict=False):
            for line in range(start, end + 1):
                owners[line] = _resolve(owner, start, line)
        return owners

    def __getitem__(self, line: int) -> Owner:
        if self._starts is None:
            self._build()
        if self._fallback is not None:
            return self._fallback[line]
        assert self._starts is not None
        i = bisect_right(self._starts, line) - 1
        if i < 0 or line > self._ends[i]:
            raise KeyError(line)
        return _resolve(self._owners[i], self._starts[i], line)

    def __iter__(self) -> Iterator[int]:
        if self._starts is None:
            self._build()
        if self._fallback is not None:
            return iter(self._fallback)
        assert self._starts is not None
        return (
            line
            for start, end in zip(self._starts, self._ends, strict=False)
            for line in range(start, end + 1)
        )

    def __len__(self) -> int:
        if self._starts is None:
            self._build()
        if self._fallback is not None:
            return len(self._fallback)
        assert self._starts is not None
        return sum(end - start + 1 for start, end in zip(self._starts, self._ends, strict=False))


def find_at_line_start(
    text: str, needle: str, start: int = 0, end: int | None = None, leads: tuple[str, ...] = ()
) -> int:
    """Where a line of ``text[start:end]`` starts with ``needle``, or with one of
    ``leads`` and then ``needle`` (the start of that line); -1 if none does.
    A search in C, not a walk of the lines."""
    end = len(text) if end is None else end
    pos = text.find(needle, start, end)
    while pos >= 0:
        for lead in ("", *leads):
            at = pos - len(lead)
            if at >= start and text.startswith(lead, at) and (at == 0 or text[at - 1] == "\n"):
                return at
        pos = text.find(needle, pos + 1, end)
    return -1


def _resolve(owner: Computation | Owner, start: int, line: int) -> Owner:
    if isinstance(owner, tuple):
        return owner
    if line == start:
        return (owner.name, None)
    return (owner.name, _instruction_name(owner, line - start - 1))


def _instruction_name(comp: Computation, index: int) -> str:
    if comp.built or comp.parsed is None:
        return comp.instructions[index].name
    return comp.parsed.name_at(index)
