"""The memory timeline as the Memory tab shows it, made on the worker: the
allocations stacked for the chart and a row per value live at the peak."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xlaview.analysis.memory import MemoryTimeline, memory_timeline, stacked
from xlaview.dump.readers import BufferAssignment, LiveRange
from xlaview.units import human_bytes

# A table row: its texts, a sort key per cell, and the instruction a click selects.
PeakRow = tuple[Sequence[str], Sequence[Any], str]


@dataclass(frozen=True, slots=True)
class MemoryShown:
    timeline: MemoryTimeline
    bases: dict[int | None, int]  # allocation -> where it stands in the stack
    total: int  # the stack's height in bytes
    peak_rows: list[PeakRow]  # the values live at the peak, largest first


def memory_shown(live: LiveRange, assignment: BufferAssignment | None) -> MemoryShown:
    timeline = memory_timeline(live, assignment)
    bases, total = stacked(timeline)
    rows: list[PeakRow] = []
    for bar in timeline.peak_buffers:  # largest first
        share = timeline.share(bar)
        rows.append(
            (
                (bar.key, human_bytes(bar.size), f"{share:.1%}", f"{bar.start} … {bar.end}"),
                (bar.key, bar.size, share, bar.start),
                bar.instruction,
            )
        )
    return MemoryShown(timeline, bases, total, rows)
