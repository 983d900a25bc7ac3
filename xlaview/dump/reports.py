"""Readers for the memory reports XLA writes beside the final HLO dump, and their join.

XLA writes, next to ``*_after_optimizations.txt``:

* ``X-buffer-assignment.txt``: every allocation and the values placed in it.
  Up to 2026-04 the same file also held ``Total bytes used``, the ``Used values``
  list and an appended ``HloLiveRange`` section; since then those live in
  ``X-buffer-assignment-values.txt`` and ``X-live-range.txt``.
* ``X-live-range.txt``: the schedule, each value's live range, the values live
  at the peak and a stack-trace breakdown of the peak.
* ``X-memory-usage-report.txt``: allocations (or, since 2026-03, memory spaces)
  sorted by size, with the slots of values sharing an offset.

Readers are tolerant: a line they do not understand becomes a located
``ReportError`` in ``diagnostics`` and reading goes on, so a truncated or
damaged report still opens. They never raise on bad input.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from xlaview.errors import XlaviewError

# Allocation kinds, in the priority used when an allocation carries several flags.
KIND_PRIORITY = (
    "parameter",
    "constant",
    "thread-local",
    "output",
    "maybe-live-out",
    "preallocated-temp",
)


class ReportError(XlaviewError, ValueError):
    """A report line that does not read as expected: where, and what was expected.

    Readers collect these in ``diagnostics`` rather than raising them.
    """

    def __init__(self, message: str, path: str | None = None, line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __str__(self) -> str:
        where = f"{self.path}:" if self.path else ""
        return f"{where}{self.line}: {self.message}"

    def __reduce__(self):  # keep the location across pickling (worker processes)
        return (ReportError, (self.message, self.path, self.line))


# --------------------------------------------------------------------------- records


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
            held.sort(key=lambda s: (_index_key(s[0]), s[2].id))
        return holders


@dataclass(frozen=True, slots=True)
class LiveRange:
    """An ``HloLiveRange`` report: schedule, live ranges, and the peak.

    ``ranges`` keys are ``name{shape_index}`` exactly as printed (``"x.1{}"``).
    ``peak_buffers`` are ``(name, bytes)`` as printed under ``Live ranges at T
    (peak)``: ``"x.1{}"`` since the format gained cumulative sums, a bare
    ``"x.1"`` before. ``peak_bytes`` is their sum (or the stack-trace total when
    the list is missing). ``stack_breakdown`` keeps the tree lines as text.
    """

    sequence: tuple[str, ...]
    max_time: int | None
    ranges: dict[str, tuple[int, int]]
    peak_time: int | None
    peak_buffers: tuple[tuple[str, int], ...]
    peak_bytes: int | None
    stack_breakdown: tuple[str, ...]
    diagnostics: tuple[ReportError, ...]
    # Built on first lookup and cached, for the same reason as BufferAssignment's.
    _peak: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    def range_of(self, instruction: str, shape_index: str = "{}") -> tuple[int, int] | None:
        """``(start, end)`` logical times of the value ``instruction{shape_index}``."""
        return self.ranges.get(instruction + shape_index)

    def is_live_at_peak(self, instruction: str, shape_index: str = "{}") -> bool:
        """Whether the value is listed among the buffers live at the peak."""
        if self._peak is None:
            object.__setattr__(self, "_peak", dict(self.peak_buffers))
        assert self._peak is not None
        # The pre-cumulative format listed bare instruction names.
        return instruction + shape_index in self._peak or instruction in self._peak


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


@dataclass(frozen=True, slots=True)
class InstructionMemory:
    """Where one instruction's value lives, how long, and its share of the peak.

    ``peak_share`` is ``value.size / peak_bytes`` when the value is live at the
    peak, else None.
    """

    allocation: Allocation
    value: BufferValue
    live_range: tuple[int, int] | None
    peak_share: float | None

    @property
    def allocation_size(self) -> int:
        return self.allocation.size


# --------------------------------------------------------------------------- helpers


def _split_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only, so line numbers match editors even on junk
    holding form feeds or the other breaks ``str.splitlines`` honours."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text.split("\n")


def _index_key(shape_index: str) -> tuple[int, ...]:
    digits = shape_index.strip("{}").replace(" ", "")
    try:
        return tuple(int(d) for d in digits.split(",")) if digits else ()
    except ValueError:
        return (1 << 62,)  # unreadable indices sort last


# Numbers as XLA prints them: int64 has at most 19 digits, so a longer run
# is damage, and never reaches int() (which refuses over 4300 digits and would
# take quadratic time below that).
_N = r"\d{1,20}"
_GROUPED = r"\d[\d ]{0,40}"  # "506 734 612": digit groups split by spaces
# A memory-usage row starts ``   6.9KiB(  1%);`` (the running total and its
# share). No "(" in the first field and no "%" in the share: with ``\S+?`` and
# ``[^)]*`` a line of brackets took quadratic time.
_CUMULATIVE = r"\s*([^\s(]+)\([^)%]*%\);"


def _int(text: str) -> int:
    """An integer XLA may print with spaces between digit groups ("8 288")."""
    return int(text.replace(" ", ""))


_HUMAN_BYTES = re.compile(r"(-?\d{1,20}(?:\.\d{1,20})?)([KMGTPE]i)?B$")
_UNIT: dict[str | None, int] = {None: 1}
_UNIT.update((f"{prefix}i", 1 << (10 * n)) for n, prefix in enumerate("KMGTPE", start=1))


def _human_bytes(text: str) -> int | None:
    """``"6.9KiB"`` -> 7066 (XLA rounded it; exact only when printed in bytes)."""
    match = _HUMAN_BYTES.match(text)
    if match is None:
        return None
    return round(float(match[1]) * _UNIT[match[2]])


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

_ALLOCATION = re.compile(rf"allocation ({_N}): size ({_N})(?:, (.*))?:$")
# A value: ``<id name{index}>``, with XLA's optional phi mark and position.
_VALUE_REF = rf"<({_N}) ([^\s<>{{}}]+)(\{{[\d,]*\}})?(?: \(phi\))?(?: @-?\d+)?>"
_VALUE = re.compile(r" value: " + _VALUE_REF + rf" \(size=({_N}),offset=({_N})\): (.*)$")
_TOTAL_USED = re.compile(rf"Total bytes used: ({_N})")
_ALLOCATION_FORM = "'allocation N: size S, <flags>:'"
_VALUE_FORM = "' value: <id name> (size=N,offset=N): shape'"
_POSITION_FORM = "a position 'name' or 'name {index}'"
_VALUE_HEADER = re.compile(_VALUE_REF + "$")
_POSITION = re.compile(r"  ([^\s{}]+)(?: (\{[\d,]*\}))?$")


def _total_used(line: str, path: str | None, number: int,
                diagnostics: list[ReportError]) -> int | None:
    """N of a ``Total bytes used: N`` line (both reports end a section with one)."""
    match = _TOTAL_USED.match(line)
    if match is None:
        diagnostics.append(ReportError("expected 'Total bytes used: N'", path, number))
        return None
    return int(match[1])


class _AssignmentReader:
    """Accumulates one buffer assignment from its file(s); see ``read_buffer_assignment``."""

    def __init__(self) -> None:
        self.allocations: list[Allocation] = []
        self.total_bytes: int | None = None
        self.positions: dict[str, list[tuple[str, int]]] = {}
        self.diagnostics: list[ReportError] = []
        self.saw_header = False

    def feed(self, text: str, path: str | None) -> None:
        lines = _split_lines(text)
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
        total = _total_used(line, path, number, self.diagnostics)
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


# --------------------------------------------------------------------------- live range

_LIVE_RANGE_START = re.compile(r"^HloLiveRange\b", re.MULTILINE)
_LIVE_RANGE_HEADER = re.compile(rf"HloLiveRange \(max (-?{_N})\):$")
_SEQUENCE_ENTRY = re.compile(rf"\s+({_N}):(\S.*)$")
_BUFFER_RANGE = re.compile(rf"\s+(\S.*):(-?{_N})-(-?{_N})$")
_PEAK_HEADER = re.compile(rf"\s*Live ranges at (-?{_N}) \(peak\):$")
_PEAK_ENTRY = re.compile(
    rf"\s+(\S.*?): ({_GROUPED}) bytes(?: \(cumulative: ({_GROUPED}) bytes\))?$"
)
_STACK_HEADER = re.compile(rf"\s*Stack trace breakdown for peak usage: ({_GROUPED}) bytes$")


def read_live_range(text: str, path: str | None = None) -> LiveRange:
    """Read a ``-live-range.txt``, or the ``HloLiveRange`` section of an old
    combined ``-buffer-assignment.txt``."""
    diagnostics: list[ReportError] = []
    sequence: list[str] = []
    ranges: dict[str, tuple[int, int]] = {}
    peak_buffers: list[tuple[str, int]] = []
    stack: list[str] = []
    max_time: int | None = None
    peak_time: int | None = None
    max_line = peak_line = 0
    read_ranges: list[tuple[str, int, int, int]] = []  # (key, start, end, line): checked at the end
    # The peak as XLA printed it twice more, with the line: checked against the sum.
    stack_total: tuple[int, int] | None = None
    last_cumulative: tuple[int, int] | None = None

    start = _LIVE_RANGE_START.search(text)
    if start is None:
        diagnostics.append(ReportError("expected an 'HloLiveRange (max N):' section", path, 1))
        body, first = "", 1
    else:
        body, first = text[start.start() :], text.count("\n", 0, start.start()) + 1

    section = None
    lines = _split_lines(body)
    for number, line in enumerate(lines, first):
        stripped = line.strip()
        if not stripped:
            continue
        if not line.startswith("    "):  # section headers are indented less than entries
            section = None
            if stripped == "InstructionSequence:":
                section = "sequence"
            elif stripped == "BufferLiveRange:":
                section = "ranges"
            elif (match := _PEAK_HEADER.match(line)) is not None:
                section, peak_time, peak_line = "peak", int(match[1]), number
            elif (match := _STACK_HEADER.match(line)) is not None:
                section, stack_total = "stack", (_int(match[1]), number)
            elif (match := _LIVE_RANGE_HEADER.match(line)) is not None:
                max_time, max_line = int(match[1]), number
            else:
                # An unknown section: report its header once and skip its entries.
                section = "unknown"
                message = f"unknown live-range line {stripped[:40]!r}"
                diagnostics.append(ReportError(message, path, number))
            continue
        if section == "sequence":
            match = _SEQUENCE_ENTRY.match(line)
            if match is None:
                diagnostics.append(ReportError("expected 'N:name'", path, number))
                continue
            if int(match[1]) != len(sequence):
                message = f"expected position {len(sequence)}, got {match[1]}"
                diagnostics.append(ReportError(message, path, number))
            sequence.append(match[2])
        elif section == "ranges":
            match = _BUFFER_RANGE.match(line)
            if match is None:
                diagnostics.append(ReportError("expected 'name{index}:start-end'", path, number))
            else:
                read_ranges.append((match[1], int(match[2]), int(match[3]), number))
        elif section == "peak":
            match = _PEAK_ENTRY.match(line)
            if match is None:
                message = "expected 'name{index}: N bytes (cumulative: N bytes)'"
                diagnostics.append(ReportError(message, path, number))
            else:
                peak_buffers.append((match[1], _int(match[2])))
                if match[3] is not None:
                    last_cumulative = (_int(match[3]), number)
        elif section == "stack":
            stack.append(line[4:])
        elif section is None:
            diagnostics.append(ReportError("entry outside a live-range section", path, number))

    # Times size the memory timeline (a list entry per step): each must lie in
    # the schedule, and the schedule in the file (a step is a line of it).
    steps = len(sequence)
    bound = max(steps, len(lines))
    if max_time is not None and not 0 <= max_time <= bound:
        message = f"schedule end {max_time} out of range: the report lists {steps} steps"
        diagnostics.append(ReportError(message, path, max_line))
        max_time = None
    elif max_time is not None and steps and max_time != steps:
        message = f"schedule end {max_time}, but the report lists {steps} steps"
        diagnostics.append(ReportError(message, path, max_line))
    horizon = max_time if max_time is not None else (steps or bound)
    for key, start, end, number in read_ranges:
        if 0 <= start <= end <= horizon:
            ranges[key] = (start, end)
        else:
            message = f"live range {start}-{end} of {key[:80]} outside the schedule 0-{horizon}"
            diagnostics.append(ReportError(message, path, number))
    if peak_time is not None and not 0 <= peak_time <= horizon:
        message = f"peak time {peak_time} outside the schedule 0-{horizon}"
        diagnostics.append(ReportError(message, path, peak_line))
        peak_time = None

    peak_bytes = sum(b for _, b in peak_buffers) if peak_buffers else None
    if peak_bytes is None and stack_total is not None:
        peak_bytes = stack_total[0]
    # A mismatch between the printed forms of the peak means a damaged list.
    printed_forms = ((last_cumulative, "the last cumulative"), (stack_total, "the stack total"))
    for printed, what in printed_forms:
        if peak_buffers and printed is not None and printed[0] != peak_bytes:
            message = f"peak buffers sum to {peak_bytes} bytes but {what} is {printed[0]}"
            diagnostics.append(ReportError(message, path, printed[1]))
    return LiveRange(
        sequence=tuple(sequence),
        max_time=max_time,
        ranges=ranges,
        peak_time=peak_time,
        peak_buffers=tuple(peak_buffers),
        peak_bytes=peak_bytes,
        stack_breakdown=tuple(stack),
        diagnostics=tuple(diagnostics),
    )


# --------------------------------------------------------------------------- memory usage

_SPACE = re.compile(rf"Memory Space:\s*(.*?)(?: \(color=(-?{_N})\))?$")
_SPACE_TOTAL = re.compile(rf"Total bytes: ({_N})")
_SLOT_ROW = re.compile(_CUMULATIVE + rf"\s*([^\s;]+);\s*(-?{_N});\s*({_N});\s?(.*)$")
_TITLE = rf"allocation ({_N}): size (\S+?)(?:, .*)?:"
_ALLOCATION_ROW = re.compile(_CUMULATIVE + r"\s*([^\s;]+); (" + _TITLE + ")$")
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

    for number, line in enumerate(_split_lines(text), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("---"):
            continue
        if (match := _SLOT_ROW.match(line)) is not None:
            current = space()
            current.rows.append(
                MemoryRow(
                    kind="slot",
                    size=_human_bytes(match[2]),
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
                    size=_human_bytes(match[5]),
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
            if (total := _total_used(line, path, number, diagnostics)) is not None:
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


# --------------------------------------------------------------------------- join


def memory_of(
    instruction: str,
    assignment: BufferAssignment,
    live_range: LiveRange | None,
    shape_index: str = "{}",
) -> InstructionMemory | None:
    """Allocation, offset, size, live range and peak share of ``instruction{shape_index}``.

    None when no allocation holds it. When several values meet at that index
    (a ``while`` phi), the one the instruction defines is preferred. For a
    forwarded value (needs ``positions``), the live range is the definer's.
    """
    shape_index = shape_index.replace(" ", "")
    held = [(a, v) for index, a, v in assignment._slices(instruction) if index == shape_index]
    if not held:
        return None
    allocation, value = next(
        ((a, v) for a, v in held if v.instruction == instruction and v.shape_index == shape_index),
        held[0],
    )
    if live_range is None:
        return InstructionMemory(allocation, value, None, None)
    live = live_range.range_of(value.instruction, value.shape_index)
    if live is None:
        live = live_range.range_of(instruction, shape_index)
    share = None
    if live_range.peak_bytes and live_range.is_live_at_peak(value.instruction, value.shape_index):
        share = value.size / live_range.peak_bytes
    return InstructionMemory(allocation, value, live, share)
