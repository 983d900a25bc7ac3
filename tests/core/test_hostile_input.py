"""Hostile folders and reports in the core (issue 15): what the index lists
instead of opening, and report numbers checked before they size anything."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlaview.analysis import memory
from xlaview.analysis.memory import BufferBar, memory_timeline
from xlaview.dump.checks import sniff
from xlaview.dump.index import MAX_DEPTH, index_dump
from xlaview.dump.readers import read_buffer_assignment, read_live_range, read_memory_usage
from xlaview.dump.reports import load_reports
from xlaview.resources import sample_dump

SAMPLE = sample_dump()
AFTER = next(SAMPLE.glob("*cpu_after_optimizations.txt"))
LIVE_RANGE = next(SAMPLE.glob("*cpu_after_optimizations-live-range.txt")).read_text()


@pytest.mark.parametrize("kind,expected", [
    ("fifo", "not a regular file: a FIFO (named pipe); never opened"),
    ("zero", "not a regular file: a character device (a link to /dev/zero); never opened"),
    ("null", "not a regular file: a character device (a link to /dev/null); never opened"),
])  # fmt: skip
def test_special_files_named_like_dumps_are_listed_never_opened(
    tmp_path: Path, kind: str, expected: str
) -> None:
    shutil.copy(AFTER, tmp_path / AFTER.name)
    name = "module_0001.jit_g.cpu_after_optimizations.txt"
    report = AFTER.name.replace(".txt", "-live-range.txt")
    for path in (tmp_path / name, tmp_path / report):
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to(f"/dev/{kind}")
    index = index_dump(tmp_path)
    assert [m.key for m in index.modules] == ["jit_attention"], "a special file became a module"
    assert index.modules[0].reports.live_range is None
    problems = {p.path: p.message for p in index.problems + sniff(index)}
    assert problems == {name: expected, report: expected}
    assert "empty file" not in problems.values()


def test_repeated_pass_numbers_name_both_files(tmp_path: Path) -> None:
    text = AFTER.read_bytes()
    first = "module_0000.jit_f.0005.alpha.after_x.before_y.txt"
    second = "module_0000.jit_f.0005.beta.after_z.before_w.txt"
    for name in (second, first, "module_0000.jit_f.0004.alpha.after_a.before_x.txt"):
        (tmp_path / name).write_bytes(text)
    index = index_dump(tmp_path)
    (module,) = index.modules
    assert [(p.seq, p.file.name) for p in module.passes] == [
        (4, "module_0000.jit_f.0004.alpha.after_a.before_x.txt"),
        (5, first),
    ]
    assert module.file_at(5).name == first, "the first by name is shown"
    assert [f.name for f in module.other_files] == [second], "the other is kept, not dropped"
    (problem,) = index.problems
    assert problem.path == second and first in problem.message and "dumped twice" in problem.message


def test_dumps_deeper_than_the_index_searches_are_reported(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*["d"] * (MAX_DEPTH + 1))
    deep.mkdir(parents=True)
    shutil.copy(AFTER, deep / AFTER.name)
    shutil.copy(AFTER, tmp_path.joinpath(*["d"] * MAX_DEPTH, AFTER.name))
    index = index_dump(tmp_path)
    assert [m.dump for m in index.modules] == ["/".join(["d"] * MAX_DEPTH)]
    (problem,) = index.problems
    assert problem.path == "/".join(["d"] * (MAX_DEPTH + 1))
    assert problem.message == f"folder not searched: deeper than {MAX_DEPTH} folder levels"


def test_a_report_over_the_limit_is_a_problem_of_the_module(tmp_path: Path, monkeypatch) -> None:
    shutil.copy(AFTER, tmp_path / AFTER.name)
    report = tmp_path / AFTER.name.replace(".txt", "-live-range.txt")
    report.write_text(LIVE_RANGE)
    monkeypatch.setenv("XLAVIEW_MAX_FILE_SIZE", "1K")
    reports = load_reports(index_dump(tmp_path).modules[0])
    assert reports.live_range is None
    (problem,) = reports.problems
    assert problem.path == report.name and problem.message.startswith("too large: ")


# ---------------------------------------------------------------- live ranges


def _live_range(
    header: str = "HloLiveRange (max 3):",
    ranges: str = "    a{}:0-1\n",
    peak: str = "  Live ranges at 1 (peak):\n    a{}: 8 bytes\n",
) -> str:
    return (
        f"{header}\n  InstructionSequence:\n    0:a\n    1:b\n    2:c\n"
        f"  BufferLiveRange:\n{ranges}{peak}"
    )


@pytest.mark.parametrize("text,message,line", [
    (_live_range("HloLiveRange (max 3000000000):"),
     "schedule end 3000000000 out of range: the report lists 3 steps", 1),
    (_live_range("HloLiveRange (max -4):"), "schedule end -4 out of range", 1),
    (_live_range("HloLiveRange (max 2):"), "schedule end 2, but the report lists 3 steps", 1),
    (_live_range(ranges="    a{}:-5--9\n"), "live range -5--9 of a{} outside the schedule 0-3", 7),
    (_live_range(ranges="    a{}:2-1\n"), "live range 2-1 of a{} outside the schedule 0-3", 7),
    (_live_range(ranges="    a{}:0-4\n"), "live range 0-4 of a{} outside the schedule 0-3", 7),
    (_live_range(peak="  Live ranges at -1 (peak):\n"), "peak time -1 outside the schedule", 8),
    (_live_range(peak="  Live ranges at 99 (peak):\n"), "peak time 99 outside the schedule", 8),
    (_live_range("HloLiveRange (max " + "9" * 5000 + "):"), "unknown live-range line", 1),
])  # fmt: skip
def test_times_are_checked_before_they_size_the_timeline(
    text: str, message: str, line: int
) -> None:
    live = read_live_range(text, "x-live-range.txt")
    found = [(d.message, d.line) for d in live.diagnostics]
    assert any(m.startswith(message) and n == line for m, n in found), found
    assert live.max_time is None or 0 <= live.max_time <= 3
    assert all(0 <= s <= e <= 3 for s, e in live.ranges.values())
    assert live.peak_time is None or 0 <= live.peak_time <= 3
    timeline = memory_timeline(live, None)
    assert len(timeline.usage) <= 4 and len(timeline.occupied) <= 4


def test_a_3kb_report_claiming_3e9_steps_stays_small() -> None:
    text = LIVE_RANGE.replace(LIVE_RANGE.split("\n", 1)[0], "HloLiveRange (max 3000000000):")
    live = read_live_range(text)
    timeline = memory_timeline(live, None)
    steps = len(live.sequence)
    assert live.max_time is None and len(timeline.usage) == steps + 1, "sized by the schedule"


@pytest.mark.parametrize("reader", [read_buffer_assignment, read_live_range, read_memory_usage])
@pytest.mark.parametrize("junk", [
    "allocation 0: size " + "9" * 5000 + ", thread-local:\n",
    " value: <" + "1" * 5000 + " x{}> (size=1,offset=0): f32[]\n",
    "    " + "1" * 5000 + "KiB(  1%);  1KiB; 0; 1; f32[]\n",
    "    " + "(" * 50_000 + "%);\n",
    "HloLiveRange (max 5):\n  BufferLiveRange:\n    x:" + "1" * 30 + "-" + "2" * 30 + "\n",
    "  Stack trace breakdown for peak usage: " + "9 " * 3000 + "bytes\n",
])  # fmt: skip
def test_numbers_too_long_for_int64_are_diagnostics(reader, junk: str) -> None:
    """int() refuses more than 4300 digits, and XLA prints at most 19: such a
    number is a located problem, never an exception."""
    result = reader(junk, "x.txt")
    assert all(d.path == "x.txt" and d.line >= 1 for d in result.diagnostics)


# ---------------------------------------------------------------- occupancy


def _occupied_by_brute_force(bars: list[BufferBar], horizon: int) -> list[int]:
    out = []
    for t in range(horizon + 1):
        covered: set[tuple[object, int]] = set()
        for b in bars:
            if b.start <= t <= b.end:
                key = b.allocation if b.allocation is not None else id(b)
                covered.update((key, byte) for byte in range(b.offset, b.offset + b.size))
        out.append(len(covered))
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 6),
            st.integers(0, 6),
            st.integers(0, 12),
            st.integers(0, 12),
            st.sampled_from([None, 0, 1, 2]),
        ),
        max_size=12,
    )
)
def test_occupancy_sweep_matches_counting_bytes(raw: list[tuple]) -> None:
    bars = [
        BufferBar(f"b{i}", f"b{i}", "{}", min(s, e), max(s, e), size, allocation, "", offset)
        for i, (s, e, offset, size, allocation) in enumerate(raw)
    ]
    assert memory._occupied(bars, 7) == _occupied_by_brute_force(bars, 7)
