"""``X-buffer-assignment.txt`` (and ``X-buffer-assignment-values.txt``): every
allocation and the values placed in it."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from xlaview.dump.readers.common import NUMBER, ReportError, index_key, read_total_used, split_lines

# Allocation kinds, in the priority used when an allocation carries several flags.
KIND_PRIORITY = (
    "parameter",
    "constant",
    "thread-local",
    "output",
    "maybe-live-out",
    "preallocated-temp",
)


@dataclass(frozen=True, slots=True)
class BufferValue:
    """One HLO value placed in an allocation: ``<id name{index}>`` at ``offset``.

    ``shape_index`` is ``"{}"`` for values of non-tuple instructions (XLA omits
    the index there) and e.g. ``"{1}"`` for an element of a tuple.
    """

    id: int
    instruction: str
    shape_index: str
    offset: int
    size: int
    shape: str


@dataclass(frozen=True, slots=True)
class Allocation:
    """One ``allocation N: size S, <flags>:`` block of a buffer assignment.

    ``kind`` is the most telling flag (see ``KIND_PRIORITY``), or ``"temp"``:
    ``"output"`` when XLA printed ``output shape is |..|`` (the allocation holds
    the entry root), ``"maybe-live-out"`` when it only printed that flag. Every
    flag is kept as printed in ``flags``, unknown ones included.
    """

    index: int
    size: int
    kind: str
    parameter_number: int | None
    flags: tuple[str, ...]
    values: tuple[BufferValue, ...]
    line: int


@dataclass(frozen=True, slots=True)
class BufferAssignment:
    """A buffer-assignment report.

    ``positions`` comes from the ``Used values`` list (in the file itself up to
    2026-04, in ``-buffer-assignment-values.txt`` since): for each instruction,
    the ``(shape_index, value_id)`` pairs of the values it holds, including the
    values it only forwards (a ``get-tuple-element``, a ``bitcast``, a
    ``tuple`` element, an ``all-reduce-done``). Empty when the list was not read.
    """

    allocations: tuple[Allocation, ...]
    total_bytes: int | None
    diagnostics: tuple[ReportError, ...]
    positions: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    # Built on first lookup and cached: a viewer asks for thousands of
    # instructions, and a 21k-instruction module has tens of thousands of values.
    _holders: dict[str, list[tuple[str, Allocation, BufferValue]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def values_of(self, instruction: str) -> list[tuple[Allocation, BufferValue]]:
        """Every slice holding one of ``instruction``'s values, in shape index order.

        With ``positions`` read, this includes values the instruction forwards
        from another (the returned ``BufferValue`` then names its definer).
        """
        return [(a, v) for _, a, v in self._slices(instruction)]

    def index(self) -> None:
        """Build the lookup by instruction now (half a second for a 45 MB module's
        report): a loader in a worker thread calls this, so that the viewer's
        first question is answered at once."""
        if self._holders is None:
            object.__setattr__(self, "_holders", self._index_holders())

    def _slices(self, instruction: str) -> list[tuple[str, Allocation, BufferValue]]:
        """``(position shape index, allocation, value)`` for each value ``instruction`` holds."""
        self.index()
        assert self._holders is not None
        return self._holders.get(instruction, [])

    def _index_holders(self) -> dict[str, list[tuple[str, Allocation, BufferValue]]]:
        by_id: dict[int, tuple[Allocation, BufferValue]] = {}
        holders: dict[str, list[tuple[str, Allocation, BufferValue]]] = {}
        for allocation in self.allocations:
            for value in allocation.values:
                by_id[value.id] = (allocation, value)
                holders.setdefault(value.instruction, []).append(
                    (value.shape_index, allocation, value)
                )
        for name, pairs in self.positions.items():
            held = holders.setdefault(name, [])
            seen = {(index, v.id) for index, _, v in held}
            for index, value_id in pairs:
                found = by_id.get(value_id)
                if found is not None and (index, value_id) not in seen:
                    seen.add((index, value_id))
                    held.append((index, *found))
        for held in holders.values():
            held.sort(key=lambda s: (index_key(s[0]), s[2].id))
        return holders


# A flag is text up to the next comma outside |shape| bars; the parameter flag
# spans a comma of its own ("parameter 0, shape |f32[2]| at ShapeIndex {0,1}").
_FLAG = re.compile(
    r"\s*(parameter -?\d+, shape \|[^|]*\|(?: at ShapeIndex \{[^}]*\})?|(?:[^,|]|\|[^|]*\|)+)"
)
_PARAMETER = re.compile(r"parameter (-?\d{1,20})")


# Cached: most allocations repeat a handful of flag texts ("thread-local", ...).
@functools.lru_cache(maxsize=4096)
def _describe(flag_text: str | None) -> tuple[tuple[str, ...], str, int | None]:
    """``(flags, kind, parameter_number)`` of an allocation header's flag text."""
    flags = tuple(f for f in (m[1].strip() for m in _FLAG.finditer(flag_text or "")) if f)
    present = set()
    parameter = None
    for flag in flags:
        if flag.startswith("parameter "):
            present.add("parameter")
            match = _PARAMETER.match(flag)
            if match is not None:
                parameter = int(match[1])
        elif flag.startswith("output shape is"):
            present.add("output")
        else:
            present.add(flag)
    kind = next((k for k in KIND_PRIORITY if k in present), "temp")
    return flags, kind, parameter


# --------------------------------------------------------------------------- buffer assignment

_ALLOCATION = re.compile(rf"allocation ({NUMBER}): size ({NUMBER})(?:, (.*))?:$")
# A value: ``<id name{index}>``, with XLA's optional phi mark and position.
_VALUE_REF = rf"<({NUMBER}) ([^\s<>{{}}]+)(\{{[\d,]*\}})?(?: \(phi\))?(?: @-?\d+)?>"
_VALUE = re.compile(r" value: " + _VALUE_REF + rf" \(size=({NUMBER}),offset=({NUMBER})\): (.*)$")
_ALLOCATION_FORM = "'allocation N: size S, <flags>:'"
_VALUE_FORM = "' value: <id name> (size=N,offset=N): shape'"
_POSITION_FORM = "a position 'name' or 'name {index}'"
_VALUE_HEADER = re.compile(_VALUE_REF + "$")
_POSITION = re.compile(r"  ([^\s{}]+)(?: (\{[\d,]*\}))?$")


class _AssignmentReader:
    """Accumulates one buffer assignment from its file(s); see ``read_buffer_assignment``."""

    def __init__(self) -> None:
        self.allocations: list[Allocation] = []
        self.total_bytes: int | None = None
        self.positions: dict[str, list[tuple[str, int]]] = {}
        self.diagnostics: list[ReportError] = []
        self.saw_header = False

    def feed(self, text: str, path: str | None) -> None:
        lines = split_lines(text)
        used_values = self._read_allocations(lines, path)
        if used_values is not None:
            self._read_used_values(lines, used_values, path)

    def _read_allocations(self, lines: list[str], path: str | None) -> int | None:
        """Read up to ``Used values:``; returns that line's number, if there is one.

        The loop is kept flat and tests the common line first: a big module has
        tens of thousands of value lines.
        """
        error = self.diagnostics.append
        match_value = _VALUE.match
        # The allocation being read: its header fields, its size, its values.
        header: tuple[int, int, str | None, int] | None = None
        size_limit = 0
        values: list[BufferValue] = []
        used_values = None
        skipping = False  # the values of an unreadable header: reported once, by the header
        for number, line in enumerate(lines, 1):
            if line.startswith(" value: "):
                match = match_value(line)
                if match is None:
                    error(ReportError(f"expected {_VALUE_FORM}", path, number))
                    continue
                if header is None:
                    if not skipping:
                        error(ReportError("value outside an allocation", path, number))
                    continue
                id_, name, index, size_text, offset_text, shape = match.groups()
                size, offset = int(size_text), int(offset_text)
                if offset + size > size_limit:
                    end = offset + size
                    message = f"value {id_} ends at byte {end}, past its allocation's {size_limit}"
                    error(ReportError(message, path, number))
                values.append(BufferValue(int(id_), name, index or "{}", offset, size, shape))
            elif line.startswith("allocation "):
                if header is not None:
                    self._add_allocation(header, values)
                header, values = None, []
                match = _ALLOCATION.match(line)
                skipping = match is None
                if match is None:
                    error(ReportError(f"expected {_ALLOCATION_FORM}", path, number))
                else:
                    size_limit = int(match[2])
                    header = (int(match[1]), size_limit, match[3], number)
            elif line == "BufferAssignment:":
                self.saw_header = True
            elif line.startswith("Total bytes used:"):
                self._total(line, path, number)
            elif line == "Used values:":
                used_values = number
                break
            elif line.startswith("HloLiveRange"):
                break  # the old combined file's appended live range: read_live_range's part
            elif line.strip():
                error(ReportError(f"expected {_ALLOCATION_FORM} or {_VALUE_FORM}", path, number))
        if header is not None:
            self._add_allocation(header, values)
        return used_values

    def _read_used_values(self, lines: list[str], start: int, path: str | None) -> None:
        """Read the ``Used values:`` list from line index ``start`` for ``positions``."""
        error = self.diagnostics.append
        positions = self.positions
        value_id: int | None = None  # the entry being read
        in_positions = False
        for number, line in enumerate(lines[start:], start + 1):
            if line.startswith("  "):
                if in_positions and value_id is not None:
                    match = _POSITION.match(line)
                    if match is None:
                        error(ReportError(f"expected {_POSITION_FORM}", path, number))
                    else:
                        positions.setdefault(match[1], []).append((match[2] or "{}", value_id))
            elif line.startswith("<"):
                match = _VALUE_HEADER.match(line)
                value_id = None if match is None else int(match[1])
                in_positions = False
                if match is None:
                    error(ReportError("expected a value '<id name>'", path, number))
            elif line == " positions:":
                in_positions = True
            elif line == " uses:" or line.startswith(" from instruction:"):
                in_positions = False
            elif line.startswith("HloLiveRange"):
                break
            elif line.startswith("Total bytes used:"):
                self._total(line, path, number)
            elif line.strip():
                error(ReportError("expected a line of the 'Used values' list", path, number))

    def _total(self, line: str, path: str | None, number: int) -> None:
        total = read_total_used(line, path, number, self.diagnostics)
        if total is not None:
            self.total_bytes = total

    def _add_allocation(
        self, header: tuple[int, int, str | None, int], values: list[BufferValue]
    ) -> None:
        index, size, flag_text, line = header
        flags, kind, parameter = _describe(flag_text)
        allocation = Allocation(index, size, kind, parameter, flags, tuple(values), line)
        self.allocations.append(allocation)


def _values_path(path: str | None) -> str | None:
    """XLA names the values file after the allocations file."""
    if path is None or not path.endswith("-buffer-assignment.txt"):
        return None
    return path.removesuffix(".txt") + "-values.txt"


def read_buffer_assignment(
    text: str, path: str | None = None, values_text: str | None = None
) -> BufferAssignment:
    """Read a ``-buffer-assignment.txt`` (either format).

    ``values_text`` is the ``-buffer-assignment-values.txt`` of the same module
    (2026-04 and later); it brings ``total_bytes`` and ``positions``. Read only
    when given: it is ten times the size of the allocations.
    """
    reader = _AssignmentReader()
    reader.feed(text, path)
    if not reader.saw_header and not reader.allocations:
        reader.diagnostics.insert(0, ReportError("expected 'BufferAssignment:'", path, 1))
    if values_text is not None:
        reader.feed(values_text, _values_path(path))
    return BufferAssignment(
        allocations=tuple(reader.allocations),
        total_bytes=reader.total_bytes,
        diagnostics=tuple(reader.diagnostics),
        positions={name: tuple(pairs) for name, pairs in reader.positions.items()},
    )
