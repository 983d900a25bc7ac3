"""``X-memory-usage-report.txt``: allocations (or, since 2026-03, memory
spaces) sorted by size, with the slots of values sharing an offset."""

from __future__ import annotations

import re
from dataclasses import dataclass

from xlaview.dump.readers.common import (
    CUMULATIVE,
    NUMBER,
    ReportError,
    human_bytes,
    read_total_used,
    split_lines,
)


@dataclass(frozen=True, slots=True)
class MemoryRow:
    """One row of a memory-usage report.

    ``kind`` is ``"slot"`` for a table row (values sharing one offset of an
    allocation: ``size; offset; used_by_n_values; shapes_list``) or
    ``"allocation"`` for a row of the 2024-10..2026-03 ``Allocations sorted by
    size`` summary (its description is in ``raw``). XLA prints sizes rounded
    (``6.9KiB``): ``size`` is that reading in bytes, exact only below 1 KiB, and
    ``size_text`` is what was printed. ``allocation`` is the allocation index
    where the report names it (the older format only); ``table`` numbers the
    slot tables of a memory space from 0 in print order (largest allocation
    first), so rows of one allocation share it.
    """

    kind: str
    size: int | None
    size_text: str
    offset: int | None
    value_count: int | None
    shapes: str
    allocation: int | None
    table: int | None
    line: int
    raw: str


@dataclass(frozen=True, slots=True)
class MemorySpace:
    """One ``Memory Space: name (color=N)`` section.

    The 2024-10..2026-03 format has no memory spaces: its rows are all in one
    space named ``"default"`` with ``color`` None. ``notes`` keeps XLA's
    ``The rest N values are ... not shown`` lines.
    """

    name: str
    color: int | None
    total_bytes: int | None
    rows: tuple[MemoryRow, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MemoryUsageReport:
    """A memory-usage report.

    ``total_bytes`` is ``Total bytes used`` in the 2024-10..2026-03 format, the
    sum of the memory spaces' totals since.
    """

    total_bytes: int | None
    spaces: tuple[MemorySpace, ...]
    diagnostics: tuple[ReportError, ...]


_SPACE = re.compile(rf"Memory Space:\s*(.*?)(?: \(color=(-?{NUMBER})\))?$")
_SPACE_TOTAL = re.compile(rf"Total bytes: ({NUMBER})")
_SLOT_ROW = re.compile(CUMULATIVE + rf"\s*([^\s;]+);\s*(-?{NUMBER});\s*({NUMBER});\s?(.*)$")
_TITLE = rf"allocation ({NUMBER}): size (\S+?)(?:, .*)?:"
_ALLOCATION_ROW = re.compile(CUMULATIVE + r"\s*([^\s;]+); (" + _TITLE + ")$")
_ALLOCATION_TITLE = re.compile(_TITLE + "$")
_NOT_SHOWN = re.compile(r"\s*The rest \d+ \w+ are less than")


class _SpaceBuilder:
    __slots__ = ("name", "color", "total_bytes", "rows", "notes", "tables")

    def __init__(self, name: str, color: int | None) -> None:
        self.name = name
        self.color = color
        self.total_bytes: int | None = None
        self.rows: list[MemoryRow] = []
        self.notes: list[str] = []
        self.tables = 0

    def build(self) -> MemorySpace:
        rows, notes = tuple(self.rows), tuple(self.notes)
        return MemorySpace(self.name, self.color, self.total_bytes, rows, notes)


def read_memory_usage(text: str, path: str | None = None) -> MemoryUsageReport:
    """Read a ``-memory-usage-report.txt`` (2024-10..2026-03 or 2026-03+ format)."""
    diagnostics: list[ReportError] = []
    spaces: list[_SpaceBuilder] = []
    total_used: int | None = None  # the older format's single total
    allocation: int | None = None  # older format: whose value table we are in

    def space() -> _SpaceBuilder:
        if not spaces:  # the older format: one implicit space
            spaces.append(_SpaceBuilder("default", None))
        return spaces[-1]

    for number, line in enumerate(split_lines(text), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("---"):
            continue
        if (match := _SLOT_ROW.match(line)) is not None:
            current = space()
            current.rows.append(
                MemoryRow(
                    kind="slot",
                    size=human_bytes(match[2]),
                    size_text=match[2],
                    offset=int(match[3]),
                    value_count=int(match[4]),
                    shapes=match[5],
                    allocation=allocation,
                    table=current.tables - 1 if current.tables else None,
                    line=number,
                    raw=line,
                )
            )
        elif (match := _ALLOCATION_ROW.match(line)) is not None:
            space().rows.append(
                MemoryRow(
                    kind="allocation",
                    size=human_bytes(match[5]),
                    size_text=match[5],
                    offset=None,
                    value_count=None,
                    shapes="",
                    allocation=int(match[4]),
                    table=None,
                    line=number,
                    raw=line,
                )
            )
        elif stripped.startswith("cumulative_size;"):
            if "shapes_list" in stripped:
                space().tables += 1
        elif (match := _ALLOCATION_TITLE.match(line)) is not None:
            allocation = int(match[1])
        elif _NOT_SHOWN.match(line):
            space().notes.append(stripped)
        elif (match := _SPACE.match(line)) is not None:
            spaces.append(_SpaceBuilder(match[1], None if match[2] is None else int(match[2])))
            allocation = None
        elif line.startswith("Total bytes:"):
            if (match := _SPACE_TOTAL.match(line)) is None:
                diagnostics.append(ReportError("expected 'Total bytes: N'", path, number))
            else:
                space().total_bytes = int(match[1])
        elif line.startswith("Total bytes used:"):
            if (total := read_total_used(line, path, number, diagnostics)) is not None:
                total_used = space().total_bytes = total
        elif stripped.startswith("Allocations sorted by size"):
            space()
        else:
            message = f"unknown memory-usage line {stripped[:40]!r}"
            diagnostics.append(ReportError(message, path, number))

    built = tuple(s.build() for s in spaces)
    if not built:
        expected = "expected 'Memory Space: name (color=N)' or 'Total bytes used: N'"
        diagnostics.insert(0, ReportError(expected, path, 1))
    if total_used is not None:
        total = total_used
    elif built and all(s.total_bytes is not None for s in built):
        total = sum(s.total_bytes or 0 for s in built)
    else:
        total = None
    return MemoryUsageReport(total_bytes=total, spaces=built, diagnostics=tuple(diagnostics))
