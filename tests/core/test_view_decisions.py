"""Decisions the window takes, made in the core and checked without Qt: which
lines and nodes a diff marks, the graph path across pass steps, the passes."""

from __future__ import annotations

import pytest

from xlaview.analysis import navigation
from xlaview.analysis.drawing.graph import build_graph
from xlaview.analysis.marks import (
    diff_marks,
    merged_ranges,
    selection_lines,
    traffic_edge_widths,
)
from xlaview.analysis.passes.diff import diff_modules
from xlaview.analysis.traffic import analyze_traffic
from xlaview.dump.index import index_dump
from xlaview.dump.modules import load_module
from xlaview.dump.points import previous_point
from xlaview.resources import sample_dump
from xlaview.text.lines import LineStarts

SCORE_FUSION = "convert_exponential_fusion"


@pytest.fixture(scope="module")
def sample():
    module = index_dump(sample_dump()).module("jit_attention")
    return module, module.points()


def fusion_point(points):
    return next(p for p in points if "after fusion" in p.title)


def test_pass_points_are_the_timeline_in_order(sample) -> None:
    module, points = sample
    assert [p.key for p in points] == ["before", *(str(p.seq) for p in module.passes), "after"]
    assert all(p.file.path.is_file() for p in points)
    assert previous_point(points, "before") is None
    assert previous_point(points, "after").key == str(module.passes[-1].seq)


@pytest.mark.parametrize(
    "given, key",
    [
        (12, "12"),
        ("0012", "12"),
        ("after", "after"),
        (" before ", "before"),
        ("after_optimizations", "after"),
    ],
)
def test_pass_keys_as_users_write_them(sample, given, key) -> None:
    module, _ = sample
    assert module.point(given).key == key


def test_diff_marks_of_the_fusion_pass(sample) -> None:
    _, points = sample
    after = fusion_point(points)
    old = load_module(previous_point(points, after.key).file.path).module
    new = load_module(after.file.path).module
    diff = diff_modules(old, new)
    marks = diff_marks(diff, new)
    assert marks.status[SCORE_FUSION] == "added"
    line = new.instruction(SCORE_FUSION).span.line
    assert any(first <= line <= last for first, last in marks.added_lines), "its line is green"
    entry = new.entry.name
    assert "exp.1" in marks.removed.get(entry, ()), "absorbed instructions are ghosts"
    assert diff_marks(None, new).status == {}


def test_graph_path_carried_over_a_pass_step(sample) -> None:
    _, points = sample
    before = load_module(points[0].file.path).module
    after = load_module(points[-1].file.path).module
    fused = navigation.fused_computation(after, after.instruction(SCORE_FUSION))
    assert fused is not None and after.has_computation(fused)
    path = navigation.path_to(fused, navigation.entry_path(after), after)
    assert path == [after.entry.name, fused]
    assert navigation.path_to(after.entry.name, path, after) == [after.entry.name]
    # Stepping to a pass without that fused computation falls back to the entry.
    assert navigation.carry_graph_path(path, before) == [before.entry.name]
    assert navigation.carry_graph_path(path, after) == path


def test_locate_an_instruction_or_nothing(sample) -> None:
    _, points = sample
    after = load_module(points[-1].file.path).module
    before = load_module(points[0].file.path).module
    comp, instr = navigation.locate(after, SCORE_FUSION)
    assert instr.name == SCORE_FUSION and comp.name == after.entry.name
    assert navigation.locate(before, SCORE_FUSION) is None, "a pass made it: not there before"


def test_selection_lines_mark_operands_users_and_body(sample) -> None:
    _, points = sample
    module = load_module(points[-1].file.path).module
    comp, instr = navigation.locate(module, SCORE_FUSION)
    lines = selection_lines(module, comp.name, instr.name)
    assert lines.selection == ((instr.span.line, instr.span.line),)
    body = module.computation(instr.called_computations[0])
    assert lines.blocks == ((body.span.line, module.last_line(body.span)),)
    operand_lines = {module.instruction(o).span.line for o in instr.operand_names}
    assert {first for first, _ in lines.operands} == operand_lines
    assert lines.users, "the fusion has users"


def test_traffic_edge_widths_grow_with_bytes(sample) -> None:
    _, points = sample
    module = load_module(points[-1].file.path).module
    graph = build_graph(module, module.entry.name)
    widths = traffic_edge_widths(analyze_traffic(module), graph)
    assert widths, "the [8192,8192] intermediates move bytes along edges"
    instruction = {n.key: n.instruction for n in graph.nodes}
    widest = max(widths, key=widths.get)
    assert instruction[widest[0]] in {SCORE_FUSION, "dot_general.6", "convert_convert_fusion"}
    assert all(2.0 <= w <= 16.0 for w in widths.values())
    assert traffic_edge_widths(None, graph) == {}


def test_highlighted_line_ranges_are_joined_where_they_touch() -> None:
    assert merged_ranges([(9, 9), (1, 2), (3, 3), (5, 7), (6, 8)]) == [(1, 3), (5, 9)]
    assert merged_ranges([]) == []


@pytest.mark.parametrize("near", [navigation.NEAR, 300])
def test_a_step_carries_the_top_line_into_the_text_before_it_is_parsed(
    gpt_dump, near, monkeypatch
) -> None:
    """The window shows a pass's text while it is parsed: the line kept on top
    found in the raw text is the one the parsed module gives, on every line of
    every pass step of a GPT train step. (A header looked for within 300
    characters of its old place: found there or, missed, in the whole text.)"""
    monkeypatch.setattr(navigation, "NEAR", near)
    module = index_dump(gpt_dump).modules[0]
    points = module.points()
    checked = 0
    for before_point, after_point in zip(points, points[1:], strict=False):
        before = load_module(before_point.file.path).module
        after = load_module(after_point.file.path).module
        starts = LineStarts(after.text)
        for line in range(1, before.text.count("\n") + 2, 7):
            expected = navigation.carried_line(before, line, after)
            got = navigation.carried_text_line(before, line, starts)
            assert got == expected, f"{before_point.key} -> {after_point.key}, line {line}"
            checked += expected is not None
    assert checked > 1000
