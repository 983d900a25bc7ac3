"""Memory over time: every buffer as a bar over the schedule, and the allocated
bytes at each step, from the live-range and buffer-assignment reports."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from xlaview.dump.readers import BufferAssignment, BufferValue, LiveRange


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
    if assignment is not None:
        for alloc in assignment.allocations:
            allocation_sizes[alloc.index] = alloc.size
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
    occupied = _occupied(bars, horizon)
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
    )


def _occupied(bars: list[BufferBar], horizon: int) -> list[int]:
    """Bytes of distinct live slices at each step: a sweep over time keeping,
    per allocation, the union of its live slices (`_Cover`), so a step costs
    the bars starting or ending there, not all bars live across it."""
    changes: dict[int, list[tuple[BufferBar, int]]] = {}
    ends: dict[int | None, set[int]] = {}
    for bar in bars:
        changes.setdefault(bar.start, []).append((bar, 1))
        changes.setdefault(bar.end + 1, []).append((bar, -1))
        if bar.allocation is not None:
            ends.setdefault(bar.allocation, set()).update((bar.offset, bar.offset + bar.size))
    covers = {allocation: _Cover(sorted(xs)) for allocation, xs in ends.items()}
    total = 0
    out = []
    for t in range(horizon + 1):
        for bar, delta in changes.get(t, ()):
            if bar.allocation is None:  # in no allocation: a slice of its own
                total += delta * max(0, bar.size)
                continue
            cover = covers[bar.allocation]
            before = cover.length
            cover.add(bar.offset, bar.offset + bar.size, delta)
            total += cover.length - before
        out.append(total)
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
