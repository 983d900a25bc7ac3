"""Readers for the memory reports XLA writes beside the final HLO dump.

XLA writes, next to ``*_after_optimizations.txt``:

* ``X-buffer-assignment.txt``: every allocation and the values placed in it.
  Up to 2026-04 the same file also held ``Total bytes used``, the ``Used values``
  list and an appended ``HloLiveRange`` section; since then those live in
  ``X-buffer-assignment-values.txt`` and ``X-live-range.txt``.
* ``X-live-range.txt``: the schedule, each value's live range, the values live
  at the peak and a stack-trace breakdown of the peak.
* ``X-memory-usage-report.txt``: allocations (or, since 2026-03, memory spaces)
  sorted by size, with the slots of values sharing an offset.

Every era is read: the allocations' lines themselves changed over the years
(the allocation's address after its number until 2022, the values as
LogicalBuffers or HloValues printed whole in 2019; ``buffer_assignment`` quotes
each format), the live range gained cumulative sums and a stack-trace
breakdown of its peak, the memory report its memory spaces.

Readers are tolerant: a line they do not understand becomes a located
``ReportError`` in ``diagnostics`` and reading goes on, so a truncated or
damaged report still opens. They never raise on bad input.
"""

from xlaview.dump.readers.buffer_assignment import (
    Allocation,
    BufferAssignment,
    BufferValue,
    read_buffer_assignment,
)
from xlaview.dump.readers.common import ReportError
from xlaview.dump.readers.live_range import LiveRange, read_live_range
from xlaview.dump.readers.memory_usage import (
    MemoryRow,
    MemorySpace,
    MemoryUsageReport,
    read_memory_usage,
)

__all__ = [
    "Allocation", "BufferAssignment", "BufferValue", "LiveRange", "MemoryRow", "MemorySpace",
    "MemoryUsageReport", "ReportError", "read_buffer_assignment", "read_live_range",
    "read_memory_usage",
]  # fmt: skip
