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
    # Built at the `DIRECT_LOOKUPS`-th lookup and cached: a viewer asks for
    # thousands of instructions, and a 21k-instruction module has tens of
    # thousands of values; the first few are answered by a scan.
    _holders: dict[str, list[tuple[str, Allocation, BufferValue]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _lookups: int = field(default=0, init=False, repr=False, compare=False)

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
        if self._holders is None and self._lookups < DIRECT_LOOKUPS:
            # A command asks about one op: the index of a U-Net's 50,000
            # values took 0.5 s, a scan for one op's 10-20 ms.
            object.__setattr__(self, "_lookups", self._lookups + 1)
            return self._slices_of(instruction)
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
            _add_positions(holders.setdefault(name, []), pairs, by_id)
        for held in holders.values():
            _sort_slices(held)
        return holders

    def _slices_of(self, instruction: str) -> list[tuple[str, Allocation, BufferValue]]:
        """`_slices` of one instruction, found by one scan of every value (as
        the index finds them)."""
        pairs = self.positions.get(instruction, ())
        wanted = {value_id for _, value_id in pairs}
        held: list[tuple[str, Allocation, BufferValue]] = []
        by_id: dict[int, tuple[Allocation, BufferValue]] = {}
        for a in self.allocations:
            for v in a.values:
                if v.instruction == instruction:
                    held.append((v.shape_index, a, v))
                if v.id in wanted:
                    by_id[v.id] = (a, v)
        _add_positions(held, pairs, by_id)
        _sort_slices(held)
        return held


# Lookups `BufferAssignment` answers by a scan before it builds its index.
DIRECT_LOOKUPS = 4


def _add_positions(
    held: list[tuple[str, Allocation, BufferValue]],
    pairs: tuple[tuple[str, int], ...],
    by_id: dict[int, tuple[Allocation, BufferValue]],
) -> None:
    """The values an instruction holds by its positions (forwarded ones
    included), after those it defines, each once."""
    seen = {(index, v.id) for index, _, v in held}
    for index, value_id in pairs:
        found = by_id.get(value_id)
        if found is not None and (index, value_id) not in seen:
            seen.add((index, value_id))
            held.append((index, *found))


def _sort_slices(held: list[tuple[str, Allocation, BufferValue]]) -> None:
    held.sort(key=lambda s: (index_key(s[0]), s[2].id))


# A flag is text up to the next comma outside |shape| bars and {index} braces;
# the parameter flag spans a comma of its own ("parameter 0, shape |f32[2]| at
# ShapeIndex {0,1}"; before late 2019 "parameter 0 at ShapeIndex {0,1}"). No
# "{" inside braces: a line of them must not take quadratic time.
_FLAG = re.compile(
    r"\s*(parameter -?\d+, shape \|[^|]*\|(?: at ShapeIndex \{[^}]*\})?"
    r"|(?:[^,|{]|\|[^|]*\||\{[^{}]*\})+)"
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
#
# The allocations as XLA printed them in each era (`BufferAllocation::ToString`, in
# tensorflow/compiler/xla/service/buffer_assignment.cc, then xla/service/):
#
# * to mid-2019, LogicalBuffers: `allocation %d: %p, size %d` (`, parameter N at
#   ShapeIndex {..}`, no shapes), values `  %s [%d,%d]: %s` of
#   `LogicalBuffer::ToString` (`name[index](#id @color)`) then offset, size and shape;
# * mid-2019, for a few weeks, HloValues printed whole by `HloValue::ToString`:
#   `  id [PHI ]name{index} @color, positions:`, its positions and uses on lines of
#   their own, then ` [offset,size]: shape`;
# * late 2019 to 2022: ` value: %s (size=%d,offset=%d): %s` of
#   `HloValue::ToShortString` (`<id name{index} @color>`), the header still with the
#   allocation's address (`allocation 0: 0x15c1e9f0, size 16384, ...`), the
#   parameter's `shape |..|` and `output shape is |..|` added;
# * 2022 on: the address dropped (`allocation %d: size %d`).

# `%p` as glibc and absl print it; tensorflow::strings::Printf gave the platform's.
_ADDRESS = r"(?:(?:0[xX])?[0-9a-fA-F]{1,16}|\(nil\)), "
_ALLOCATION = re.compile(rf"allocation ({NUMBER}): (?:{_ADDRESS})?size ({NUMBER})(?:, (.*))?:$")
_NAME = r"([^\s<>{}\[\]]+)"
_INDEX = r"(\{[\d,]*\})?"
# A value: ``<id name{index}>``, with XLA's optional phi mark and color; before
# the angle brackets (2019), ``id [PHI ]name{index} @color``.
_VALUE_REF = rf"<({NUMBER}) {_NAME}{_INDEX}(?: \(phi\))?(?: @-?\d+)?>"
_BARE_REF = rf"({NUMBER}) (?:PHI )?{_NAME}{_INDEX}(?: @-?\d+)?"
_SIZE_OFFSET = rf" \(size=({NUMBER}),offset=({NUMBER})\): (.*)$"
_VALUE = re.compile(r" value: " + _VALUE_REF + _SIZE_OFFSET)
_BARE_VALUE = re.compile(r" value: " + _BARE_REF + _SIZE_OFFSET)
# Mid-2019: ``  name[index](#id @color) [offset,size]: shape``.
_LOGICAL_BUFFER = re.compile(
    rf"  {_NAME}\[([\d,]*)\]\(#({NUMBER})(?: @-?\d+)?\) \[({NUMBER}),({NUMBER})\]: (.*)$"
)
# Mid-2019, a value over several lines: its header, positions, uses, placement.
_WHOLE_VALUE = re.compile(rf"  {_BARE_REF}, positions:$")
_WHOLE_VALUE_END = re.compile(rf" \[({NUMBER}),({NUMBER})\]: (.*)$")
_CUT_SHORT = "value cut short: no ' [offset,size]: shape' line"
_ALLOCATION_FORM = "'allocation N: size S, <flags>:'"
_VALUE_FORM = "' value: <id name> (size=N,offset=N): shape'"
_POSITION_FORM = "a position 'name' or 'name {index}'"
_VALUE_HEADER = re.compile(_VALUE_REF + "(, positions:)?$")
_BARE_HEADER = re.compile(_BARE_REF + "(, positions:)?$")
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
        # A mid-2019 value printed over several lines: (id, name, index, line), and
        # whether its positions are being read (else its uses).
        whole: tuple[int, str, str, int] | None = None
        in_positions = False

        def place(value: BufferValue, number: int) -> None:
            if header is None:
                if not skipping:
                    error(ReportError("value outside an allocation", path, number))
                return
            end = value.offset + value.size
            if end > size_limit:
                message = f"value {value.id} ends at byte {end}, past its allocation's {size_limit}"
                error(ReportError(message, path, number))
            values.append(value)

        for number, line in enumerate(lines, 1):
            if line.startswith(" value: "):
                match = match_value(line) or _BARE_VALUE.match(line)
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
                if whole is not None:
                    error(ReportError(_CUT_SHORT, path, whole[3]))
                if header is not None:
                    self._add_allocation(header, values)
                header, values, whole = None, [], None
                match = _ALLOCATION.match(line)
                skipping = match is None
                if match is None:
                    error(ReportError(f"expected {_ALLOCATION_FORM}", path, number))
                else:
                    size_limit = int(match[2])
                    header = (int(match[1]), size_limit, match[3], number)
            elif line.startswith("  "):
                if whole is not None:
                    if in_positions:
                        self._position(line, whole[0], path, number)
                    continue  # a use
                if (match := _LOGICAL_BUFFER.match(line)) is not None:
                    name, index, id_, offset_text, size_text, shape = match.groups()
                    value = BufferValue(
                        int(id_), name, f"{{{index}}}", int(offset_text), int(size_text), shape
                    )
                    place(value, number)
                elif (match := _WHOLE_VALUE.match(line)) is not None:
                    whole = (int(match[1]), match[2], match[3] or "{}", number)
                    in_positions = True
                else:
                    error(ReportError(f"expected {_VALUE_FORM}", path, number))
            elif whole is not None and line == " uses:":
                in_positions = False
            elif whole is not None and (match := _WHOLE_VALUE_END.match(line)) is not None:
                id_number, name, index, start = whole
                offset, size = int(match[1]), int(match[2])
                place(BufferValue(id_number, name, index, offset, size, match[3]), start)
                whole = None
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
        if whole is not None:
            error(ReportError(_CUT_SHORT, path, whole[3]))
        if header is not None:
            self._add_allocation(header, values)
        return used_values

    def _position(self, line: str, value_id: int, path: str | None, number: int) -> None:
        match = _POSITION.match(line)
        if match is None:
            self.diagnostics.append(ReportError(f"expected {_POSITION_FORM}", path, number))
        else:
            self.positions.setdefault(match[1], []).append((match[2] or "{}", value_id))

    def _read_used_values(self, lines: list[str], start: int, path: str | None) -> None:
        """Read the ``Used values:`` list from line index ``start`` for ``positions``."""
        error = self.diagnostics.append
        value_id: int | None = None  # the entry being read
        in_positions = False
        for number, line in enumerate(lines[start:], start + 1):
            if line.startswith("  "):
                if in_positions and value_id is not None:
                    self._position(line, value_id, path, number)
            elif line.startswith("<") or line[:1].isdigit():
                match = _VALUE_HEADER.match(line) or _BARE_HEADER.match(line)
                value_id = None if match is None else int(match[1])
                # Before 2020 the positions followed on the header's line.
                in_positions = match is not None and match[4] is not None
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
