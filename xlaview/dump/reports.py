"""A module's memory reports, read together and joined: what the buffer
assignment and the live range say about one instruction's value."""

from __future__ import annotations

from dataclasses import dataclass

from xlaview.dump.files import DumpReadError, read_text
from xlaview.dump.readers import (
    Allocation,
    BufferAssignment,
    BufferValue,
    LiveRange,
    MemoryUsageReport,
    ReportError,
    read_buffer_assignment,
    read_live_range,
    read_memory_usage,
)
from xlaview.dump.records import DumpFile, DumpModule
from xlaview.errors import Problem


@dataclass(frozen=True, slots=True)
class ModuleReports:
    """The memory reports of a module, read tolerantly (None where absent)."""

    buffer_assignment: BufferAssignment | None
    live_range: LiveRange | None
    memory_usage: MemoryUsageReport | None
    problems: tuple[Problem, ...]


def load_reports(module: DumpModule, values: bool = True) -> ModuleReports:
    """Read the buffer-assignment, live-range and memory-usage reports of a module.

    ``values=False`` leaves out the ``-buffer-assignment-values.txt`` (ten times
    the allocations' size; only ``positions`` needs it): enough for the module's
    memory (`xlaview.analysis.memory.module_memory`)."""
    problems: list[Problem] = []

    def text_of(f: DumpFile | None) -> str | None:
        if f is None:
            return None
        try:
            return read_text(f.path)
        except DumpReadError as err:
            problems.append(Problem(f.rel, err.message, err.line))
            return None

    reports = module.reports
    assignment = live = usage = None
    ba_text = text_of(reports.buffer_assignment)
    if ba_text is not None:
        assert reports.buffer_assignment is not None
        values_text = text_of(reports.buffer_assignment_values) if values else None
        assignment = read_buffer_assignment(ba_text, reports.buffer_assignment.rel, values_text)
        problems += _report_problems(assignment.diagnostics)
    live_text = text_of(reports.live_range)
    if live_text is not None:
        assert reports.live_range is not None
        live = read_live_range(live_text, reports.live_range.rel)
    elif ba_text is not None and "HloLiveRange" in ba_text:
        assert reports.buffer_assignment is not None
        live = read_live_range(ba_text, reports.buffer_assignment.rel)  # the pre-2026 layout
    if live is not None:
        problems += _report_problems(live.diagnostics)
    usage_text = text_of(reports.memory_usage)
    if usage_text is not None:
        assert reports.memory_usage is not None
        usage = read_memory_usage(usage_text, reports.memory_usage.rel)
        problems += _report_problems(usage.diagnostics)
    return ModuleReports(assignment, live, usage, tuple(problems))


def _report_problems(diagnostics: tuple[ReportError, ...]) -> list[Problem]:
    return [Problem(d.path or "", d.message, d.line or None) for d in diagnostics]


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
