"""Memory over time: every buffer as a bar over the schedule, and the allocated
bytes at each step, from the live-range and buffer-assignment reports."""

from __future__ import annotations

from dataclasses import dataclass, field

from xlaview.dump.reports import BufferAssignment, BufferValue, LiveRange


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
    does (a value is live from its start to its end, both included);
    ``occupied`` counts the bytes of the buffer-assignment slices those values
    sit in, once each: an op that writes its output over its input's slice
    counts once there. The peak is the moment XLA's report calls the peak."""

    sequence: tuple[str, ...]  # instruction at each step of the schedule
    buffers: tuple[BufferBar, ...]  # largest first
    usage: tuple[int, ...]  # bytes of live values at each step
    occupied: tuple[int, ...]  # bytes of distinct live slices at each step
    peak_time: int
    peak_bytes: int
    peak_buffers: tuple[BufferBar, ...]  # the buffers live at the peak, largest first
    allocation_sizes: dict[int, int] = field(default_factory=dict)

    def share(self, bar: BufferBar) -> float:
        return bar.size / self.peak_bytes if self.peak_bytes else 0.0


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
        [(b.start, False, xla_size(b)) for b in bars] + [(b.end + 1, True, xla_size(b)) for b in bars],
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
    if assignment is not None:
        for allocation in assignment.allocations:
            allocation_sizes[allocation.index] = allocation.size
            for value in allocation.values:
                assigned[value.instruction, value.shape_index] = (allocation.index, value)
    peak_sizes = dict(live.peak_buffers)
    bars = []
    for key, (start, end) in live.ranges.items():
        name, index = _split_key(key)
        found = assigned.get((name, index))
        if found is None:  # in no allocation: sized from the report's peak list
            bar = BufferBar(key, name, index, start, end, peak_sizes.get(key, 0), None, "")
        else:
            allocation, value = found
            bar = BufferBar(key, name, index, start, end, value.size, allocation, value.shape,
                            value.offset)
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
    occupied = _occupied(bars, horizon)
    peak_time = peak_moment(bars)
    peak_bytes = usage[peak_time] if 0 <= peak_time < len(usage) else 0
    at_peak = sorted((b for b in bars if b.start <= peak_time <= b.end), key=lambda b: -b.size)
    bars.sort(key=lambda b: (-b.size, b.start))
    return MemoryTimeline(live.sequence, tuple(bars), tuple(usage), tuple(occupied), peak_time,
                          peak_bytes, tuple(at_peak), allocation_sizes)


def _occupied(bars: list[BufferBar], horizon: int) -> list[int]:
    starting: dict[int, list[BufferBar]] = {}
    for bar in bars:
        starting.setdefault(bar.start, []).append(bar)
    live: list[BufferBar] = []
    out = []
    for t in range(horizon + 1):
        live = [b for b in live if b.end >= t] + starting.get(t, [])
        by_allocation: dict[int | None, list[tuple[int, int]]] = {}
        for b in live:
            key = b.allocation if b.allocation is not None else id(b)
            by_allocation.setdefault(key, []).append((b.offset, b.offset + b.size))
        total = 0
        for spans in by_allocation.values():
            spans.sort()
            end = -1
            for lo, hi in spans:
                if hi <= end:
                    continue
                total += hi - max(lo, end)
                end = hi
        out.append(total)
    return out
