"""A module's memory, one definition: XLA's memory-usage report total, split by
allocation kind, and the peak of live values beside it; on the bundled dump, on
freshly compiled programs (checked against the report files' own text), and on
damaged or missing reports."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from xlaview.analysis.memory import (
    MEMORY_PARTS,
    explain_memory,
    memory_part,
    memory_timeline,
    module_memory,
    stacked,
)
from xlaview.dump.index import index_dump
from xlaview.dump.readers import read_buffer_assignment, read_memory_usage
from xlaview.dump.reports import ModuleReports, load_reports
from xlaview.resources import sample_dump, sample_dump_default_flags
from xlaview.units import byte_tick_label, byte_ticks

SAMPLE, FUSED = sample_dump(), sample_dump_default_flags()
MIB = 1024 * 1024


def sample_reports() -> ModuleReports:
    return load_reports(index_dump(SAMPLE).module("jit_attention"))


def file_facts(module) -> dict[str, int]:
    """What the report files print, read with nothing of xlaview's readers: the
    memory-usage report's ``Total bytes`` (summed over memory spaces), each
    allocation's size by its flags, the live range's stack-trace peak."""
    report = Path(module.reports.memory_usage.path).read_text()
    totals = [int(n) for n in re.findall(r"^Total bytes: (\d+)", report, re.MULTILINE)]
    totals += [int(n) for n in re.findall(r"^Total bytes used: (\d+)", report, re.MULTILINE)]
    facts = {"total": sum(totals), "parameter": 0, "output": 0, "temp": 0, "constant": 0}
    assignment = Path(module.reports.buffer_assignment.path).read_text()
    for size, flags in re.findall(r"^allocation \d+: size (\d+)(.*):$", assignment, re.MULTILINE):
        if " parameter " in flags:
            part = "parameter"
        elif "constant" in flags:
            part = "constant"
        elif "thread-local" in flags:
            part = "temp"
        elif "output shape" in flags or "maybe-live-out" in flags:
            part = "output"
        else:
            part = "temp"
        facts[part] += int(size)
    live = Path(module.reports.live_range.path).read_text()
    (peak,) = re.findall(r"Stack trace breakdown for peak usage: ([\d ]+) bytes", live)
    facts["peak"] = int(peak.replace(" ", ""))
    return facts


def test_the_bundled_dump_has_one_memory_figure() -> None:
    memory = module_memory(sample_reports())
    assert memory is not None
    # "Total bytes: 406880316 (388.03MiB)" in the memory-usage report.
    assert memory.total_bytes == 406880316
    assert memory.source == "memory-usage-report"
    assert memory.parts == (
        ("parameter", 1048576 + 8192 + 8192),  # x, wq, wk
        ("output", 1048576),
        ("temp", 404766720 + 54),  # the preallocated-temp block, 18 thread-local scalars
        ("constant", 6),
    )
    assert sum(size for _, size in memory.parts) == memory.total_bytes
    # The live range's "Live ranges at 22 (peak)": 273 694 720 bytes.
    assert (memory.peak_live_bytes, memory.peak_live_time) == (273694720, 22)
    assert memory.describe() == (
        "memory 388.0 MiB (parameters 1.0 MiB, outputs 1.0 MiB, temporaries 386.0 MiB, "
        "constants 6 B); peak of live values 261.0 MiB"
    )


def test_the_difference_is_explained_from_the_files() -> None:
    reports = sample_reports()
    memory = module_memory(reports)
    timeline = memory_timeline(reports.live_range, reports.buffer_assignment)
    assert memory is not None
    # Step 17: the f32 exponentials (256 MiB at offset 0), the bf16 scores (128 MiB
    # after them), the 2 MiB wrapped_convert and the reduce's 16 KiB: the whole
    # temporaries' block in use, with the parameters and one constant.
    assert timeline.busiest_time == 17
    assert timeline.occupied[17] == 404766720 + 1064960 + 4
    note = explain_memory(memory, timeline)
    assert note == (
        "Memory is every allocation, each held for the whole run; the peak of live values "
        "adds up only the values live at step 22, the step XLA's live-range report calls "
        "the peak; the most in use at once is 387.0 MiB, at step 17."
    )
    assert explain_memory(replace(memory, peak_live_bytes=None)) is None


def test_in_use_is_split_by_part_and_never_above_the_memory() -> None:
    """The chart's curve: bytes of live slices by part. At step 21 the old curve
    counted convert_exponential_fusion and convert_convert_fusion, which share
    offset 0 of the temporaries' block, both: 515.05 MiB."""
    reports = sample_reports()
    memory = module_memory(reports)
    timeline = memory_timeline(reports.live_range, reports.buffer_assignment)
    assert memory is not None and memory.parts is not None
    assert set(timeline.in_use) == set(MEMORY_PARTS)
    for step, occupied in enumerate(timeline.occupied):
        assert sum(timeline.in_use[p][step] for p in MEMORY_PARTS) == occupied, step
    for part, size in memory.parts:
        assert max(timeline.in_use[part]) <= size, part
    assert max(timeline.occupied) <= memory.total_bytes
    assert timeline.usage[21] == 540065792  # 515.05 MiB: each value counted
    assert timeline.occupied[21] == 540065792 - 268435456


@pytest.mark.parametrize("folder", [SAMPLE, FUSED], ids=["unfused", "default-flags"])
def test_bundled_dumps_match_their_files(folder: Path) -> None:
    (module,) = index_dump(folder).modules
    check_against_files(module)


def check_against_files(module) -> None:
    facts = file_facts(module)
    reports = load_reports(module)
    memory = module_memory(reports)
    assert memory is not None, module.name
    assert memory.total_bytes == facts["total"], module.name
    assert dict(memory.parts or ()) == {p: facts[p] for p in MEMORY_PARTS}, module.name
    assert sum(dict(memory.parts or ()).values()) == memory.total_bytes, module.name
    assert memory.peak_live_bytes == facts["peak"], module.name
    timeline = memory_timeline(reports.live_range, reports.buffer_assignment)
    assert max(timeline.occupied) <= memory.total_bytes, module.name
    note = explain_memory(memory, timeline)
    assert note is not None and f"step {memory.peak_live_time}," in note, note
    at_peak = timeline.occupied[timeline.peak_time]
    assert ("each counted" in note) == (memory.peak_live_bytes > at_peak), note


def test_freshly_compiled_programs_match_their_own_reports(zoo: dict[str, Path]) -> None:
    checked = []
    for name, folder in zoo.items():
        for module in index_dump(folder).modules:
            if module.reports.memory_usage is not None and module.reports.live_range is not None:
                check_against_files(module)
                checked.append(name)
    assert len(checked) >= 5, checked


def test_memory_without_a_report_is_the_allocations_summed() -> None:
    reports = sample_reports()
    memory = module_memory(replace(reports, memory_usage=None))
    assert memory is not None and memory.source == "buffer-assignment"
    assert memory.total_bytes == 406880316 and memory.parts == module_memory(reports).parts


def test_a_split_that_does_not_add_up_is_not_given() -> None:
    reports = sample_reports()
    text = Path(index_dump(SAMPLE).module("jit_attention").reports.memory_usage.path).read_text()
    damaged = read_memory_usage(text.replace("406880316", "406880317"))
    memory = module_memory(replace(reports, memory_usage=damaged))
    assert memory is not None and memory.total_bytes == 406880317
    assert memory.parts is None and memory.temp_bytes is None
    assert "temporaries" not in memory.describe()


def test_no_report_no_memory() -> None:
    assert module_memory(None) is None
    empty = ModuleReports(None, None, None, ())
    assert module_memory(empty) is None
    truncated = ModuleReports(read_buffer_assignment("BufferAssignment:\n"), None, None, ())
    assert module_memory(truncated) is None


@pytest.mark.parametrize(
    "kind,part",
    [
        ("parameter", "parameter"),
        ("output", "output"),
        ("maybe-live-out", "output"),
        ("constant", "constant"),
        ("thread-local", "temp"),
        ("preallocated-temp", "temp"),
        ("temp", "temp"),
        ("something-new", "temp"),
    ],
)
def test_each_allocation_kind_counts_in_one_part(kind: str, part: str) -> None:
    assert memory_part(kind) == part


@pytest.mark.parametrize(
    "top,labels",
    [
        (406880316, ["0 B", "128 MiB", "256 MiB", "384 MiB"]),
        (2113554, ["0 B", "512 KiB", "1 MiB", "1.5 MiB", "2 MiB"]),
        (264, ["0 B", "64 B", "128 B", "192 B", "256 B"]),
        (5 * 1024 * MIB, ["0 B", "1 GiB", "2 GiB", "3 GiB", "4 GiB", "5 GiB"]),
        (0, ["0 B"]),
    ],
)
def test_byte_ticks_are_binary_and_labelled_exactly(top: int, labels: list[str]) -> None:
    assert [byte_tick_label(t) for t in byte_ticks(top)] == labels


def test_the_chart_stacks_the_allocations_largest_at_the_bottom() -> None:
    reports = sample_reports()
    timeline = memory_timeline(reports.live_range, reports.buffer_assignment)
    bases, total = stacked(timeline)
    used = {bar.allocation for bar in timeline.buffers}
    assert set(bases) == used, "every allocation a value sits in, and no other"
    sizes = dict(timeline.allocation_sizes)
    for bar in timeline.buffers:
        sizes.setdefault(bar.allocation, bar.offset + bar.size)
    order = sorted(used, key=bases.__getitem__)
    assert [bases[a] for a in order] == [
        sum(sizes[b] for b in order[:k]) for k in range(len(order))
    ]
    assert [sizes[a] for a in order] == sorted((sizes[a] for a in order), reverse=True)
    assert total == max(1, sum(sizes[a] for a in used))
    for bar in timeline.buffers:  # every bar inside its allocation's band
        assert bases[bar.allocation] + bar.offset + bar.size <= total
