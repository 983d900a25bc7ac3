"""``X-live-range.txt`` (before 2026-04, a section of the buffer assignment):
the schedule, each value's live range, the values live at the peak."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xlaview.dump.readers.common import GROUPED, NUMBER, ReportError, grouped_int, split_lines


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


_LIVE_RANGE_START = re.compile(r"^HloLiveRange\b", re.MULTILINE)
_LIVE_RANGE_HEADER = re.compile(rf"HloLiveRange \(max (-?{NUMBER})\):$")
_SEQUENCE_ENTRY = re.compile(rf"\s+({NUMBER}):(\S.*)$")
_BUFFER_RANGE = re.compile(rf"\s+(\S.*):(-?{NUMBER})-(-?{NUMBER})$")
_PEAK_HEADER = re.compile(rf"\s*Live ranges at (-?{NUMBER}) \(peak\):$")
_PEAK_ENTRY = re.compile(rf"\s+(\S.*?): ({GROUPED}) bytes(?: \(cumulative: ({GROUPED}) bytes\))?$")
_STACK_HEADER = re.compile(rf"\s*Stack trace breakdown for peak usage: ({GROUPED}) bytes$")


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

    section_start = _LIVE_RANGE_START.search(text)
    if section_start is None:
        diagnostics.append(ReportError("expected an 'HloLiveRange (max N):' section", path, 1))
        body, first = "", 1
    else:
        offset = section_start.start()
        body, first = text[offset:], text.count("\n", 0, offset) + 1

    section = None
    lines = split_lines(body)
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
                section, stack_total = "stack", (grouped_int(match[1]), number)
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
                peak_buffers.append((match[1], grouped_int(match[2])))
                if match[3] is not None:
                    last_cumulative = (grouped_int(match[3]), number)
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
