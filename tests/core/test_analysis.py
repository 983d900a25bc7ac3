"""Pass diffs, traffic, the memory timeline, comparing dumps, search: on real dumps."""

from __future__ import annotations

import gc
from itertools import pairwise
from pathlib import Path

import pytest

from xlaview.analysis.compare import compare_dumps
from xlaview.analysis.memory import memory_timeline
from xlaview.analysis.passes.diff import diff_modules
from xlaview.analysis.passes.history import instruction_history
from xlaview.analysis.search import search
from xlaview.analysis.traffic import analyze_traffic
from xlaview.dump.index import index_dump
from xlaview.dump.modules import load_module
from xlaview.dump.reports import load_reports
from xlaview.resources import sample_dump, sample_dump_default_flags

UNFUSED, FUSED = sample_dump(), sample_dump_default_flags()


def final(folder: Path):
    module = index_dump(folder).module("jit_attention")
    return module, load_module(module.after_optimizations.path).module


def test_traffic_ranks_the_materialized_score_matrix_first() -> None:
    _, module = final(UNFUSED)
    traffic = analyze_traffic(module)
    top = traffic.intermediates[:4]
    assert all("[8192,8192]" in i.shape for i in top), [i.shape for i in top]
    ranked = [i.traffic_bytes for i in traffic.intermediates]
    assert ranked == sorted(ranked, reverse=True)
    (bf16,) = [i for i in traffic.intermediates if i.shape.startswith("bf16[8192,8192]")]
    assert bf16.bytes == 134217728
    assert bf16.producer == "wrapped_convert.3" and bf16.producer_kind == "kLoop"
    assert set(bf16.consumers) == {"wrapped_reduce-window", "convert_exponential_fusion"}
    assert bf16.traffic_bytes >= 2 * bf16.bytes
    assert traffic.fusion_counts["kLoop"] == 15
    ops = {o.name: o for o in traffic.ops}
    assert ops["convert_exponential_fusion"].bytes_written == 268435456
    assert ops["convert_exponential_fusion"].bytes_read == 134217728 + 16384


def test_default_flags_fuse_the_whole_attention() -> None:
    _, module = final(FUSED)
    traffic = analyze_traffic(module)
    assert traffic.fusion_counts["kCustom"] == 1
    assert not [i for i in traffic.intermediates if "[8192,8192]" in i.shape]


def test_compare_shows_exactly_that_difference() -> None:
    (result,) = compare_dumps(index_dump(UNFUSED), index_dump(FUSED))
    left, right = result.to_json()["left"], result.to_json()["right"]
    assert "[8192,8192]" in left["largest_intermediates"][0]
    assert not any("[8192,8192]" in s for s in right["largest_intermediates"])
    assert left["fusion_counts"]["kLoop"] == 15 and right["fusion_counts"]["kCustom"] == 1
    assert left["total_traffic_bytes"] > 100 * right["total_traffic_bytes"]
    assert left["peak_memory_bytes"] > 100 * right["peak_memory_bytes"]


def point_module(dump_module, label: str):
    return load_module(dump_module.file_at(label).path).module


def fusion_pass(dump_module) -> str:
    return next(str(p.seq) for p in dump_module.passes if p.after == "fusion")


def previous_point(dump_module, label: str) -> str:
    labels = [lab for lab, _ in dump_module.timeline()]
    return labels[labels.index(label) - 1]


@pytest.mark.parametrize("folder", [UNFUSED], ids=["attention"])
def test_diff_across_the_fusion_pass_lists_fusions_and_what_they_absorbed(folder: Path) -> None:
    module = index_dump(folder).module("jit_attention")
    after = fusion_pass(module)
    old, new = point_module(module, previous_point(module, after)), point_module(module, after)
    diff = diff_modules(old, new)
    fusions = {a.name: a for a in diff.added if a.opcode == "fusion"}
    assert "convert_exponential_fusion" in fusions
    absorbed = fusions["convert_exponential_fusion"].absorbed
    assert {"exp.1", "sub.7"} <= set(absorbed), absorbed
    # Every absorbed instruction really left the entry computation...
    entry = new.entry
    assert not any(name in entry for a in fusions.values() for name in a.absorbed)
    # ...and every removed one went into some fusion.
    assert all(r.absorbed_into for r in diff.removed), [r.name for r in diff.removed]
    assert len(diff.computations_added) == len(fusions)


def test_a_diff_reports_progress_and_stops_when_told() -> None:
    """Before each changed computation it says how far it got; raising there
    stops it (the window's user stepped to another pass)."""
    module = index_dump(UNFUSED).module("jit_attention")
    after = fusion_pass(module)
    old, new = point_module(module, previous_point(module, after)), point_module(module, after)
    heard: list[float] = []
    assert diff_modules(old, new, heard.append) == diff_modules(old, new)
    assert heard and heard == sorted(heard) and all(0 <= f < 1 for f in heard)

    class SteppedAway(Exception):
        pass

    def stop(_fraction: float) -> None:
        raise SteppedAway

    with pytest.raises(SteppedAway):
        diff_modules(old, new, stop)


def test_a_diff_asks_to_go_on_between_the_fusions_a_pass_made(monkeypatch) -> None:
    """Which removed ops each new fusion took in is worked out a few fusions
    between two progress reports: on the fusion pass of a mixture of experts
    (7,000 new fusions) it went 0.3 s with none, which a step away waited
    out. Here every fusion is followed by a report before the next is read."""
    from xlaview.analysis.passes import diff as diff_module

    module = index_dump(UNFUSED).module("jit_attention")
    after = fusion_pass(module)
    old, new = point_module(module, previous_point(module, after)), point_module(module, after)
    monkeypatch.setattr(diff_module, "FUSIONS_BETWEEN_CHECKS", 1, raising=False)
    since_report = [0]
    stretches: list[int] = []
    read_fusion = diff_module._replaced_roots

    def reading(*args, **kwargs):
        since_report[0] += 1
        stretches.append(since_report[0])
        return read_fusion(*args, **kwargs)

    def report(_fraction: float) -> None:
        since_report[0] = 0

    monkeypatch.setattr(diff_module, "_replaced_roots", reading)
    diff = diff_modules(old, new, report)
    fusions = [a for a in diff.added if a.opcode == "fusion"]
    assert len(stretches) == len(fusions) >= 3
    assert max(stretches) == 1, f"{max(stretches)} fusions read without a report between"


def test_the_marks_of_a_diff_ask_to_go_on(monkeypatch) -> None:
    """Marking a fusion pass's diff on its text (10,000 new fusions of a
    U-Net: 70 ms) asks now and then whether the window still wants it."""
    from xlaview.analysis import marks

    module = index_dump(UNFUSED).module("jit_attention")
    after = fusion_pass(module)
    old, new = point_module(module, previous_point(module, after)), point_module(module, after)
    diff = diff_modules(old, new)
    monkeypatch.setattr(marks, "MARKS_BETWEEN_CHECKS", 1, raising=False)
    asked: list[int] = []
    assert marks.diff_marks(diff, new, lambda: asked.append(1)) == marks.diff_marks(diff, new)
    assert len(asked) == len(diff.added) + len(diff.changed) > 0


def test_a_diff_runs_with_the_collector_paused() -> None:
    """The records of a diff are made with the cyclic collector paused, as a
    parse's are: collections that a fusion pass's 30,000 records set off
    walked both modules, half the diff's time on a mixture of experts."""
    module = index_dump(UNFUSED).module("jit_attention")
    after = fusion_pass(module)
    old, new = point_module(module, previous_point(module, after)), point_module(module, after)
    collecting: list[bool] = []  # asked before each changed computation
    diff = diff_modules(old, new, lambda _fraction: collecting.append(gc.isenabled()))
    assert diff.added and diff.removed and collecting
    assert not any(collecting), "the collector ran during the diff"
    assert gc.isenabled(), "and runs again after it"


def test_a_pass_that_changed_nothing_has_an_empty_diff() -> None:
    module = index_dump(UNFUSED).module("jit_attention")
    unchanged = [p for p in module.passes if module.unchanged(p.seq)]
    assert unchanged
    for p in unchanged[:5]:
        label = str(p.seq)
        diff = diff_modules(
            point_module(module, previous_point(module, label)), point_module(module, label)
        )
        assert diff.empty, f"pass {label} is byte-identical yet diffs: {diff.to_json()}"


@pytest.mark.slow
def test_diff_on_every_pass_of_real_programs(zoo: dict[str, Path]) -> None:
    for folder in zoo.values():
        index = index_dump(folder)
        for module in index.modules:
            points = module.timeline()
            for (_, a), (label, b) in pairwise(points):
                diff = diff_modules(load_module(a.path).module, load_module(b.path).module)
                if a.path.read_bytes() == b.path.read_bytes():
                    assert diff.empty, (folder.name, label)


def test_memory_timeline_peak_equals_the_report(zoo: dict[str, Path]) -> None:
    folders = [UNFUSED, FUSED, *zoo.values()]
    checked = 0
    for folder in folders:
        for module in index_dump(folder).modules:
            reports = load_reports(module)
            if reports.live_range is None:
                continue
            timeline = memory_timeline(reports.live_range, reports.buffer_assignment)
            assert timeline.peak_bytes == reports.live_range.peak_bytes, (folder, module.name)
            assert timeline.peak_time == reports.live_range.peak_time, (folder, module.name)
            # Slices shared in place are counted once: never more than what is allocated.
            allocated = sum(a.size for a in reports.buffer_assignment.allocations)
            assert max(timeline.occupied) <= allocated
            checked += 1
    assert checked >= 8


def test_memory_timeline_on_corpus_dumps(corpus: Path) -> None:
    for name in ("clarkechong__scale-your-amd", "carlesoctav__fme"):
        for module in index_dump(corpus / "real_dumps" / name).modules:
            reports = load_reports(module)
            if reports.live_range is not None:
                timeline = memory_timeline(reports.live_range, reports.buffer_assignment)
                assert timeline.peak_bytes == reports.live_range.peak_bytes, module.name


def test_instruction_history_finds_the_pass_that_created_a_fusion() -> None:
    module = index_dump(UNFUSED).module("jit_attention")
    files = [(label, f.path) for label, f in module.timeline()]
    events = instruction_history(files, "convert_exponential_fusion")
    assert events[0].what == "appeared" and events[0].point == fusion_pass(module)
    gone = instruction_history(files, "exp.1")
    assert any(e.what == "disappeared" and e.point == fusion_pass(module) for e in gone)


@pytest.mark.parametrize("query,expected", [
    ("op:dot", {"dot_general.4", "dot_general.5", "dot_general.6", "dot_general.7"}),
    ("shape:bf16[8192,8192] op:fusion", {"wrapped_convert.3"}),
    ("meta:exp op:fusion", {"convert_exponential_fusion"}),
    ("src:attention.py:6 name:reduce_max.10", {"reduce_max.10"}),
])  # fmt: skip
def test_search(query: str, expected: set[str]) -> None:
    _, module = final(UNFUSED)
    assert {h.name for h in search(module, query)} >= expected
    if "name:" in query or "shape:" in query:
        assert {h.name for h in search(module, query)} == expected
