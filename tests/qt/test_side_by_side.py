"""Compare With Folder, op by op: the other dump in a second window beside the
first, the selection followed through the matches, the ops the other lacks or
changed marked on both sides, the changes ranked (a click selects on both)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlaview.qt import theme
from xlaview.resources import sample_dump, sample_dump_default_flags

UNFUSED, FUSED = sample_dump(), sample_dump_default_flags()


def _pair(window, first: Path, second: Path):
    window.open_dump(first)
    window.wait_idle()
    window.compare_with(second)
    other = window.compared_window
    assert other is not None
    for w in (window, other, window):
        w.wait_idle()
    return other


def test_the_library_fusion_side_by_side(window, qtbot) -> None:
    other = _pair(window, UNFUSED, FUSED)
    qtbot.addWidget(other)
    state = window.view_state()["compare"]
    assert state["other"] == str(FUSED) and state["passes"] == {"a": "after", "b": "after"}
    assert other.view_state()["compare"]["other"] == str(UNFUSED), "each names the other"
    assert other.view_state()["module"] == window.view_state()["module"] == "jit_attention"
    assert state["counts"]["metadata"] > 0
    top = state["changes"][0]
    assert top["what"] == "merged fusion" and top["b"] == ["ynn_fusion"], top
    squares = [i for i in top["intermediates"] if "[8192,8192]" in i["shape"]]
    assert squares and all(i["side"] == "a" for i in squares), "the removed intermediates"
    # The ranked table of both windows, rank first; a click selects on both sides.
    for w in (window, other):
        rows = w.compare.changes
        assert rows.rowCount() == len(state["changes"])
        assert rows.data(rows.index(0, 0)) == "1" and rows.data(rows.index(0, 1)) == top["what"]
        assert rows.data(rows.index(0, 3)).startswith("-"), "a memory saving is signed"
    window.compare.change_clicked.emit(0)
    for w in (window, other):
        w.wait_idle()
    assert window.view_state()["selection"] == top["a"][0]
    assert other.view_state()["selection"] == "ynn_fusion"
    # What is marked: the fused attention in the second graph, merged away in the first.
    legend = other.graph_pane.main.legend()
    assert legend is not None and legend[0] == f"compared with {UNFUSED.name}"
    assert {colour for colour, _ in legend[1]} == set(theme.COMPARE_FILLS.values())
    assert other.graph_pane.main.canvas.fills["ynn_fusion"] == theme.COMPARE_FILLS["regrouped"]
    fused_line = other.text.highlighted("compare-regrouped")
    assert fused_line, "the fusion's line in the second text"
    lines = sum(last - first + 1 for first, last in window.text.highlighted("compare-regrouped"))
    assert lines >= len(top["a"]), "each op merged away, a line (adjacent ones joined)"


def test_a_selection_follows_through_the_matches_both_ways(window, qtbot) -> None:
    other = _pair(window, UNFUSED, FUSED)
    qtbot.addWidget(other)
    state = window.view_state()["compare"]
    merged = state["changes"][0]["a"]
    window.select_instruction(merged[-1])
    other.wait_idle()
    assert other.view_state()["selection"] == "ynn_fusion", "a merged op: its fusion"
    other.select_instruction("x.1")
    window.wait_idle()
    assert window.view_state()["selection"] == "x.1", "matched by name, back the other way"


def test_a_pass_step_is_matched_again_and_closing_ends_it(window, qtbot) -> None:
    other = _pair(window, UNFUSED, FUSED)
    qtbot.addWidget(other)
    window.select_pass("before")
    window.wait_idle()
    other.wait_idle()
    state = window.view_state()["compare"]
    assert state["passes"] == {"a": "before", "b": "after"}
    assert window.view_state()["text_pass"] == "before"
    other.close()
    window.wait_idle()
    assert window.view_state()["compare"] is None and window.compared_window is None
    assert (window.width(), window.height()) == (1600, 1000), "its place before the tiling"
    assert window.graph_pane.main.legend() is None
    assert not window.text.highlighted("compare-only")
    assert window.compare.changes.rowCount() == 0


@pytest.mark.slow
def test_the_same_program_twice_marks_nothing(window, qtbot, matching_dumps) -> None:
    other = _pair(window, matching_dumps["default"], matching_dumps["again"])
    qtbot.addWidget(other)
    state = window.view_state()["compare"]
    assert state["counts"]["name"] == state["matched"] > 0
    assert state["only_a"] == state["only_b"] == [] and state["changes"] == []
    for w in (window, other):
        assert not w.graph_pane.main.canvas.fills
        assert not any(w.text.highlighted(f"compare-{k}") for k in theme.COMPARE_LINES)


def test_the_second_window_opens_on_the_first_ones_selection(window, qtbot) -> None:
    window.open_dump(UNFUSED)
    window.wait_idle()
    window.select_instruction("x.1")
    window.compare_with(FUSED)
    other = window.compared_window
    qtbot.addWidget(other)
    for w in (window, other, window, other):
        w.wait_idle()
    assert other.view_state()["selection"] == "x.1"
    assert other.bottom_tabs.currentWidget() is other.compare, "its Compare tab in front"


@pytest.mark.slow
def test_an_op_only_one_dump_has_is_marked_and_moves_nothing(window, qtbot, matching_dumps):
    other = _pair(window, matching_dumps["extra_op"], matching_dumps["default"])
    qtbot.addWidget(other)
    window.select_instruction("x.1")
    other.wait_idle()
    state = window.view_state()["compare"]
    assert state["only_a"] and not state["only_b"], "the code change's new ops"
    only = state["only_a"][0]
    marks = window.graph_pane.main.canvas.fills
    assert marks[only] == theme.COMPARE_FILLS["only"]
    assert window.text.highlighted("compare-only"), "its line in the text"
    window.select_instruction(only)
    other.wait_idle()
    assert other.view_state()["selection"] == "x.1", "an op only the first has moves nothing"
    assert only in other.status.text() and "only in the first" in other.status.text()


def test_closing_the_first_window_closes_the_second(window, qtbot) -> None:
    other = _pair(window, UNFUSED, FUSED)
    assert other.isVisible()
    window.close()
    assert not other.isVisible() and window.compared_window is None
