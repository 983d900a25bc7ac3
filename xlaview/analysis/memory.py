"""A module's memory, one definition for every view: what the device holds
(`ModuleMemory`), and memory over time: every buffer as a bar over the
schedule, and the bytes in use at each step, from the live-range and
buffer-assignment reports."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from xlaview.dump.readers import BufferAssignment, BufferValue, LiveRange
from xlaview.dump.reports import ModuleReports
from xlaview.units import human_bytes

# The parts of a module's memory, in the order they are named.
MEMORY_PARTS = ("parameter", "output", "temp", "constant")
PART_NAMES = {
    "parameter": "parameters",
    "output": "outputs",
    "temp": "temporaries",
    "constant": "constants",
}
# An allocation's kind (``Allocation.kind``) -> the part it counts in. Thread-local
# allocations are the scratch of ops' called computations (a reduce's scalars):
# temporaries too. An entry parameter aliased with an output counts as a parameter.
_PART_OF_KIND = {
    "parameter": "parameter",
    "output": "output",
    "maybe-live-out": "output",
    "constant": "constant",
    "thread-local": "temp",
    "preallocated-temp": "temp",
    "temp": "temp",
}

# The figures of `ModuleMemory.to_json`, with the words every view names them by.
MEMORY_FIGURES = (
    ("total_bytes", "memory"),
    ("parameter_bytes", "parameters"),
    ("output_bytes", "outputs"),
    ("temp_bytes", "temporaries"),
    ("constant_bytes", "constants"),
    ("peak_live_bytes", "peak of live values"),
)

MEMORY_REPORT = "memory-usage-report"
BUFFER_ASSIGNMENT = "buffer-assignment"


def memory_part(allocation_kind: str) -> str:
    """The part of the memory (`MEMORY_PARTS`) an allocation of that kind counts in."""
    return _PART_OF_KIND.get(allocation_kind, "temp")


@dataclass(frozen=True, slots=True)
class ModuleMemory:
    """What the device must hold to run a module: "memory", wherever xlaview says it.

    ``total_bytes`` is XLA's memory-usage report's total (``Total bytes``, summed
    over its memory spaces), or without a report the buffer assignment's
    allocations summed (XLA's report total is that sum). Every allocation is held
    for the whole run, so the total is its size, not what is in use at a step.
    The split adds up to it exactly: each allocation counts once, by its kind
    (`memory_part`); it is None when there is no buffer assignment, or when its
    allocations do not add up to the report's total (a damaged file).

    ``peak_live_bytes`` is a second figure, the *peak of live values*: the sum of
    the values XLA's live-range report lists as live at the step it calls the
    peak (``peak_live_time``); None without a live-range report. ``source`` is
    the file the total comes from: ``"memory-usage-report"`` or
    ``"buffer-assignment"``.
    """

    total_bytes: int
    parameter_bytes: int | None
    output_bytes: int | None
    temp_bytes: int | None
    constant_bytes: int | None
    peak_live_bytes: int | None
    source: str
    peak_live_time: int | None = None

    @property
    def parts(self) -> tuple[tuple[str, int], ...] | None:
        """``(part, bytes)`` in `MEMORY_PARTS` order, or None when not split."""
        sizes = (self.parameter_bytes, self.output_bytes, self.temp_bytes, self.constant_bytes)
        if any(size is None for size in sizes):
            return None
        return tuple((part, size or 0) for part, size in zip(MEMORY_PARTS, sizes, strict=True))

    def to_json(self) -> dict[str, Any]:
        """The ``memory`` object of ``summary``, ``inspect`` and ``compare --json``."""
        return {
            "total_bytes": self.total_bytes,
            "parameter_bytes": self.parameter_bytes,
            "output_bytes": self.output_bytes,
            "temp_bytes": self.temp_bytes,
            "constant_bytes": self.constant_bytes,
            "peak_live_bytes": self.peak_live_bytes,
            "peak_live_time": self.peak_live_time,
            "source": self.source,
        }

    def describe(self) -> str:
        """``memory 388.0 MiB (parameters 1.0 MiB, outputs 1.0 MiB, temporaries
        386.0 MiB, constants 6 B); peak of live values 261.0 MiB``: the words
        every view uses."""
        parts = self.parts
        split = (
            " (" + ", ".join(f"{PART_NAMES[p]} {human_bytes(b)}" for p, b in parts) + ")"
            if parts is not None
            else ""
        )
        return (
            f"memory {human_bytes(self.total_bytes)}{split}; "
            f"peak of live values {human_bytes(self.peak_live_bytes)}"
        )


def module_memory(reports: ModuleReports | None) -> ModuleMemory | None:
    """The module's memory by the one definition (see `ModuleMemory`); None when
    the dump has neither a memory-usage report nor a buffer assignment for it."""
    if reports is None:
        return None
    assignment, report, live = reports.buffer_assignment, reports.memory_usage, reports.live_range
    split: dict[str, int] | None = None
    if assignment is not None and assignment.allocations:
        split = dict.fromkeys(MEMORY_PARTS, 0)
        for allocation in assignment.allocations:
            split[memory_part(allocation.kind)] += allocation.size
    if report is not None and report.total_bytes is not None:
        total, source = report.total_bytes, MEMORY_REPORT
        if split is not None and sum(split.values()) != total:
            split = None  # a damaged or truncated file: no split that does not add up
    elif split is not None:
        total, source = sum(split.values()), BUFFER_ASSIGNMENT
    else:
        return None
    peak = live.peak_bytes if live is not None else None
    peak_time = live.peak_time if live is not None and peak is not None else None
    return ModuleMemory(
        total_bytes=total,
        parameter_bytes=split["parameter"] if split else None,
        output_bytes=split["output"] if split else None,
        temp_bytes=split["temp"] if split else None,
        constant_bytes=split["constant"] if split else None,
        peak_live_bytes=peak,
        source=source,
        peak_live_time=peak_time,
    )


def explain_memory(memory: ModuleMemory, timeline: MemoryTimeline | None = None) -> str | None:
    """One sentence on why memory and the peak of live values differ; None
    without a peak of live values.

    Memory is the size of every allocation, each held for the whole run (the
    temporaries' block sized to fit every temporary at its offset); the peak of
    live values adds up what is live at one step only. That step is the one
    XLA's live-range report names, and its walk counts a value ending at a step
    with those starting there, so the step is often not the busiest: with the
    timeline, the sentence names the busiest step and what is in use there.
    """
    if memory.peak_live_bytes is None:
        return None
    step = f" at step {memory.peak_live_time}" if memory.peak_live_time is not None else ""
    sentence = (
        "Memory is every allocation, each held for the whole run; the peak of live values "
        f"adds up only the values live{step}, the step XLA's live-range report calls the peak"
    )
    if timeline is not None and timeline.occupied:
        busiest = timeline.busiest_time
        peak_time = timeline.peak_time
        at_peak = timeline.occupied[peak_time] if 0 <= peak_time < len(timeline.occupied) else 0
        if busiest != peak_time and timeline.occupied[busiest] > at_peak:
            sentence += (
                f"; the most in use at once is {human_bytes(timeline.occupied[busiest])}, "
                f"at step {busiest}"
            )
        if memory.peak_live_bytes > at_peak:
            sentence += " (values that share one slice there are each counted)"
    return sentence + "."


@dataclass(frozen=True, slots=True)
class BufferBar:
    key: str  # "name{shape_index}" as the live-range report prints it
    instruction: str
    shape_index: str
    start: int
    end: int
    size: int
    allocation: int | None
    shape: str
    offset: int = 0  # within its allocation


@dataclass(frozen=True, slots=True)
class MemoryTimeline:
    """``usage`` counts every value live at a step, as XLA's live-range report
    does (a value is live from its start to its end, both included), so two
    values sharing one slice (an op writing its output over its input's) both
    count at the step where one ends and the other starts; ``occupied`` counts
    the bytes of the buffer-assignment slices those values sit in, once each:
    the bytes *in use* at each step, never more than the module's memory.
    ``in_use`` splits ``occupied`` by part (`MEMORY_PARTS`, by the kind of the
    allocation holding the slice). The peak is the moment XLA's report calls
    the peak, and ``peak_bytes`` the peak of live values."""

    sequence: tuple[str, ...]  # instruction at each step of the schedule
    buffers: tuple[BufferBar, ...]  # largest first
    usage: tuple[int, ...]  # bytes of live values at each step
    occupied: tuple[int, ...]  # bytes of distinct live slices at each step
    peak_time: int
    peak_bytes: int
    peak_buffers: tuple[BufferBar, ...]  # the buffers live at the peak, largest first
    allocation_sizes: dict[int, int] = field(default_factory=dict)
    allocation_kinds: dict[int, str] = field(default_factory=dict)  # Allocation.kind
    # Part -> bytes of its live slices at each step; summed over parts, ``occupied``.
    in_use: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def share(self, bar: BufferBar) -> float:
        return bar.size / self.peak_bytes if self.peak_bytes else 0.0

    @property
    def busiest_time(self) -> int:
        """The first step with the most bytes in use (0 for an empty schedule)."""
        occupied = self.occupied
        return max(range(len(occupied)), key=occupied.__getitem__) if occupied else 0

    def part_of(self, bar: BufferBar) -> str:
        """The part of the memory the bar's slice counts in (temp when in no allocation)."""
        kind = self.allocation_kinds.get(bar.allocation) if bar.allocation is not None else None
        return memory_part(kind) if kind is not None else "temp"


def stacked(timeline: MemoryTimeline) -> tuple[dict[int | None, int], int]:
    """The allocations stacked, largest at the bottom, as the memory chart
    draws them: each allocation's base (a bar stands at its base plus the
    value's offset, as tall as its size), and the height of the stack."""
    sizes: dict[int | None, int] = {k: v for k, v in timeline.allocation_sizes.items()}
    for bar in timeline.buffers:
        sizes.setdefault(bar.allocation, bar.offset + bar.size)
    used = {bar.allocation for bar in timeline.buffers}
    bases: dict[int | None, int] = {}
    base = 0
    for allocation, size in sorted(sizes.items(), key=lambda kv: -(kv[1] or 0)):
        if allocation in used:
            bases[allocation] = base
            base += size or 0
    return bases, max(1, base)


def _split_key(key: str) -> tuple[str, str]:
    brace = key.find("{")
    return (key, "{}") if brace < 0 else (key[:brace], key[brace:])


def peak_moment(bars: list[BufferBar]) -> int:
    """The step XLA's HloLiveRange reports as the peak.

    XLA walks start events (at ``start``) and end events (at ``end + 1``) in
    time order, starts before ends at one time, and keeps the time of the
    highest running total. That total double-counts a buffer ending just as
    another starts, and sizes every value of a tuple-shaped instruction as the
    tuple's table of pointers (8 bytes an element), so the moment is not
    always the maximum of ``usage``; following XLA's walk is what makes our
    peak the report's.
    """
    elements: dict[str, set[str]] = {}
    for b in bars:
        if b.shape_index != "{}":
            first = b.shape_index.strip("{}").split(",")[0].strip()
            elements.setdefault(b.instruction, set()).add(first)

    def xla_size(b: BufferBar) -> int:
        tuple_elements = elements.get(b.instruction)
        return 8 * len(tuple_elements) if tuple_elements else b.size

    events = sorted(
        [(b.start, False, xla_size(b)) for b in bars]
        + [(b.end + 1, True, xla_size(b)) for b in bars],
        key=lambda e: (e[0], e[1]),
    )
    running = peak = 0
    moment = 0
    for time, is_end, size in events:
        running += -size if is_end else size
        if running > peak:
            peak, moment = running, time
    return moment


def memory_timeline(live: LiveRange, assignment: BufferAssignment | None) -> MemoryTimeline:
    """Bars, usage and occupancy over the schedule, and XLA's peak."""
    assigned: dict[tuple[str, str], tuple[int, BufferValue]] = {}  # -> (allocation, value)
    allocation_sizes: dict[int, int] = {}
    allocation_kinds: dict[int, str] = {}
    if assignment is not None:
        for alloc in assignment.allocations:
            allocation_sizes[alloc.index] = alloc.size
            allocation_kinds[alloc.index] = alloc.kind
            for value in alloc.values:
                assigned[value.instruction, value.shape_index] = (alloc.index, value)
    peak_sizes = dict(live.peak_buffers)
    bars = []
    for key, (start, end) in live.ranges.items():
        if not 0 <= start <= end:  # read_live_range drops these: a LiveRange built by hand
            continue
        name, index = _split_key(key)
        found = assigned.get((name, index))
        if found is None:  # in no allocation: sized from the report's peak list
            bar = BufferBar(key, name, index, start, end, peak_sizes.get(key, 0), None, "")
        else:
            allocation, value = found
            bar = BufferBar(
                key, name, index, start, end, value.size, allocation, value.shape, value.offset
            )
        bars.append(bar)
    horizon = max([live.max_time or 0, *(b.end for b in bars)]) if bars else (live.max_time or 0)
    delta = [0] * (horizon + 2)
    for bar in bars:
        delta[bar.start] += bar.size
        delta[bar.end + 1] -= bar.size
    usage = []
    running = 0
    for t in range(horizon + 1):
        running += delta[t]
        usage.append(running)
    parts = {
        id(bar): memory_part(allocation_kinds.get(bar.allocation, "temp"))
        if bar.allocation is not None
        else "temp"
        for bar in bars
    }
    in_use = _in_use(bars, horizon, parts)
    occupied = [sum(column) for column in zip(*in_use.values(), strict=True)]
    peak_time = peak_moment(bars)
    peak_bytes = usage[peak_time] if 0 <= peak_time < len(usage) else 0
    at_peak = sorted((b for b in bars if b.start <= peak_time <= b.end), key=lambda b: -b.size)
    bars.sort(key=lambda b: (-b.size, b.start))
    return MemoryTimeline(
        live.sequence,
        tuple(bars),
        tuple(usage),
        tuple(occupied),
        peak_time,
        peak_bytes,
        tuple(at_peak),
        allocation_sizes,
        allocation_kinds,
        {part: tuple(steps) for part, steps in in_use.items()},
    )


def _occupied(bars: list[BufferBar], horizon: int) -> list[int]:
    """Bytes of distinct live slices at each step (see `_in_use`)."""
    return _in_use(bars, horizon, {})["temp"]


def _in_use(bars: list[BufferBar], horizon: int, parts: dict[int, str]) -> dict[str, list[int]]:
    """Bytes of distinct live slices at each step, per part (``parts``: id of a
    bar -> its part, temp when absent; an allocation's slices are all of one
    part): a sweep over time keeping, per allocation, the union of its live
    slices (`_Cover`), so a step costs the bars starting or ending there, not
    all bars live across it."""
    changes: dict[int, list[tuple[BufferBar, int]]] = {}
    ends: dict[int | None, set[int]] = {}
    for bar in bars:
        changes.setdefault(bar.start, []).append((bar, 1))
        changes.setdefault(bar.end + 1, []).append((bar, -1))
        if bar.allocation is not None:
            ends.setdefault(bar.allocation, set()).update((bar.offset, bar.offset + bar.size))
    covers = {allocation: _Cover(sorted(xs)) for allocation, xs in ends.items()}
    totals = dict.fromkeys(MEMORY_PARTS, 0)
    out: dict[str, list[int]] = {part: [] for part in MEMORY_PARTS}
    for t in range(horizon + 1):
        for bar, delta in changes.get(t, ()):
            part = parts.get(id(bar), "temp")
            if bar.allocation is None:  # in no allocation: a slice of its own
                totals[part] += delta * max(0, bar.size)
                continue
            cover = covers[bar.allocation]
            before = cover.length
            cover.add(bar.offset, bar.offset + bar.size, delta)
            totals[part] += cover.length - before
        for part in MEMORY_PARTS:
            out[part].append(totals[part])
    return out


class _Cover:
    """The length of a union of intervals with fixed ends, under adds and
    removes: a segment tree over the ends (O(log n) a change), each node
    counting the intervals that cover it whole."""

    __slots__ = ("count", "covered", "xs")

    def __init__(self, xs: list[int]) -> None:
        self.xs = xs
        size = 4 * max(1, len(xs))
        self.count = [0] * size
        self.covered = [0] * size

    @property
    def length(self) -> int:
        return self.covered[1]

    def add(self, lo: int, hi: int, delta: int) -> None:
        i, j = bisect_left(self.xs, lo), bisect_left(self.xs, hi)
        if i < j:
            self._update(1, 0, len(self.xs) - 1, i, j, delta)

    def _update(self, node: int, left: int, right: int, i: int, j: int, delta: int) -> None:
        # The node covers xs[left]..xs[right]; the change covers xs[i]..xs[j].
        if j <= left or right <= i:
            return
        if i <= left and right <= j:
            self.count[node] += delta
        else:
            middle = (left + right) // 2
            self._update(2 * node, left, middle, i, j, delta)
            self._update(2 * node + 1, middle, right, i, j, delta)
        if self.count[node] > 0:
            self.covered[node] = self.xs[right] - self.xs[left]
        elif right - left == 1:
            self.covered[node] = 0
        else:
            self.covered[node] = self.covered[2 * node] + self.covered[2 * node + 1]
