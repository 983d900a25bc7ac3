"""The main graph folded into groups: a model of named scopes opens folded,
groups open and close in place, a selection opens the groups on its way, a
pass step keeps the groups open, and the grouping can be chosen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scoped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JAX step of 8 blocks, each a named scope holding ``attention`` and ``mlp``."""
    pytest.importorskip("jax")
    out = tmp_path_factory.mktemp("scoped")
    program = ROOT / "tests" / "programs" / "scoped.py"
    subprocess.run([sys.executable, str(program), str(out), "--blocks", "8"], check=True)
    return out


def opened(window, path: Path) -> dict:
    window.open_dump(path)
    assert window.wait_idle()
    return window.view_state()


def group_names(state: dict) -> dict[str, bool]:
    return {g["name"]: g["open"] for g in state["graph_groups"]}


def test_a_model_of_named_scopes_opens_folded_by_its_scopes(window, scoped) -> None:
    state = opened(window, scoped)
    groups = group_names(state)
    assert 2 <= state["graph_boxes"] <= 60, state["graph_boxes"]
    blocks = [name for name in groups if name.endswith(tuple(f"(block_{i})" for i in range(8)))]
    assert len(blocks) >= 8, groups  # forward and backward of each block
    assert all(groups[name] for name in blocks), "a level at a time: the blocks fit, all open"
    inner = [name for name in groups if name.endswith(("/attention", "/mlp"))]
    assert len(inner) >= 2 * len(blocks) - 2, groups
    assert not any(groups[name] for name in inner), "the next level would not fit: all folded"
    positions = window.graph_positions()
    for name in inner:
        assert f"group:{name}" in positions, f"{name} is drawn as one box"


def test_opening_and_closing_a_group_keeps_the_other_boxes_in_place(window, scoped) -> None:
    state = opened(window, scoped)
    groups = group_names(state)
    inner = next(name for name in groups if name.endswith("jvp(block_2)/attention"))
    before, boxes = window.graph_positions(), state["graph_boxes"]

    window.open_group(inner)
    assert window.wait_idle()
    after = window.view_state()
    assert group_names(after)[inner] is True
    assert after["graph_boxes"] > boxes + 5, "its ops are boxes now"
    positions = window.graph_positions()
    assert f"group:{inner}" not in positions, "an open group is a frame, not a box"
    kept = [k for k in before if k in positions and k != f"group:{inner}"]
    still = [k for k in kept if positions[k] == before[k]]
    assert len(still) >= 0.8 * len(kept), f"{len(kept) - len(still)} of {len(kept)} boxes moved"

    window.close_group(inner)
    assert window.wait_idle()
    closed = window.view_state()
    assert closed["graph_boxes"] == boxes
    assert group_names(closed)[inner] is False
    assert f"group:{inner}" in window.graph_positions()


def test_selecting_an_instruction_inside_a_folded_group_opens_it(window, scoped) -> None:
    state = opened(window, scoped)
    shown = window.graph_positions()
    module = window.model.loaded.module
    hidden = next(
        i.name
        for i in module.entry.instructions
        if "block_5" in (i.op_name or "") and i.opcode != "parameter" and i.name not in shown
    )
    window.select_instruction(hidden)
    assert window.wait_idle()
    after = window.view_state()
    assert after["selection"] == hidden
    assert hidden in window.graph_positions(), "the groups on its way opened"
    assert hidden in window.graph_on_screen(), "and the view shows it"
    assert after["graph_boxes"] > state["graph_boxes"]


def test_a_pass_step_keeps_the_open_groups(window, scoped) -> None:
    window.set_graph_grouping("scope")  # fold whatever the size: early passes are small
    state = opened(window, scoped)
    block = next(name for name in group_names(state) if name.endswith("jvp(block_1)"))
    window.open_group(block)
    assert window.wait_idle()
    points = [p for p in window.model.points if p.seq is not None]
    window.select_pass(points[-2].seq)
    assert window.wait_idle()
    stepped = group_names(window.view_state())
    if block in stepped:
        assert stepped[block] is True, "the group open before the step is open after it"


def test_grouping_none_draws_every_node(window, scoped) -> None:
    opened(window, scoped)
    window.set_graph_grouping("none")
    assert window.wait_idle()
    state = window.view_state()
    assert state["graph_groups"] == []
    assert state["graph_grouping"] == "none"
    assert not any(k.startswith("group:") for k in window.graph_positions())


def test_a_gpt_folds_its_layers_as_a_repeat(window, gpt_dump) -> None:
    state = opened(window, gpt_dump)  # 329 nodes: folded by scope
    assert state["graph_grouping"] is None and state["graph_groups"]
    window.open_group("block x 2")  # a name only one group has: its groups around open too
    assert window.wait_idle()
    repeats = [g for g in window.view_state()["graph_groups"] if g["kind"] == "repeat"]
    outer = next(g for g in repeats if g["repeats"] == 2)
    assert outer["open"] and outer["name"].endswith("/block x 2"), outer
    window.close_group(outer["name"])
    assert window.wait_idle()
    assert f"group:{outer['name']}" in window.graph_positions(), "drawn as one box"
    window.set_graph_grouping("repeats")  # no scopes: the layers alone are no repeat here
    assert window.wait_idle()
    assert window.view_state()["graph_grouping"] == "repeats"


def test_the_whole_folded_graph_exports_with_its_key(window, scoped, tmp_path) -> None:
    from PySide6.QtGui import QImage

    from xlaview.qt import export

    opened(window, scoped)
    view = window.graph_pane.main
    scene = view.scene().sceneRect()
    image = QImage(str(export.whole_graph_png(view, tmp_path / "whole.png")))
    assert image.width() >= min(scene.width(), 16000) - 1, "the whole scene, not the view"
    assert image.height() > scene.height() * min(1.0, 16000 / scene.width()), "and a key"
    svg = export.graph_svg(view, tmp_path / "whole.svg").read_text()
    assert "jvp(block_0)" in svg and "folded group" in svg, "group names and the key as text"


def test_the_minimap_shows_the_view_and_a_click_moves_it(window, qtbot, scoped) -> None:
    from PySide6.QtCore import QPoint, Qt

    opened(window, scoped)
    window.set_graph_grouping("none")  # every node: wider than the view
    assert window.wait_idle()
    view = window.graph_pane.main
    minimap = view.minimap
    assert minimap.isVisible(), "the graph is wider than the view: the minimap shows"
    before = view.mapToScene(view.viewport().rect().center())
    target = QPoint(minimap.width() - 4, minimap.height() // 2)
    qtbot.mouseClick(minimap, Qt.MouseButton.LeftButton, pos=target)
    after = view.mapToScene(view.viewport().rect().center())
    assert after.x() > before.x() + 100, (before, after)


def test_search_hits_show_on_the_folded_groups_that_hold_them(window, scoped) -> None:
    state = opened(window, scoped)
    folded = [g["name"] for g in state["graph_groups"] if not g["open"]]
    assert folded
    window.search("op:dot")
    window.wait_idle()
    marked = window.graph_pane.main.canvas.emphasis
    hits = {
        window.search_panel.rows_model.index(r, 0).data()
        for r in range(window.search_panel.rows_model.rowCount())
    }
    assert hits, "the blocks' dots are found"
    shown = {f"group:{name}" for name in folded} & marked
    assert shown, ("a folded block holding a dot is marked", sorted(marked)[:20])
    window.search("no_such_instruction_anywhere")
    window.wait_idle()
    assert not window.graph_pane.main.canvas.emphasis, "no hit, nothing marked"


def test_forward_and_backward_of_a_block_fold_together_when_asked(window, scoped) -> None:
    state = opened(window, scoped)
    assert state["graph_phases"] == "apart"
    apart, apart_groups = group_names(state), state["graph_groups"]
    assert any("transpose(jvp(block_3))" in name for name in apart), apart
    window.set_graph_phases("together")
    assert window.wait_idle()
    state = window.view_state()
    assert state["graph_phases"] == "together"
    together = group_names(state)
    assert not any("jvp(" in name for name in together), together
    blocks = [name for name in together if name.endswith("/block_3")]
    assert len(blocks) == 1, together
    (group,) = [g for g in state["graph_groups"] if g["name"] == blocks[0]]
    phases = [g for g in apart_groups if g["name"].endswith(("/jvp(block_3)", "(jvp(block_3))"))]
    assert len(phases) == 2, "forward and backward, apart"
    assert group["nodes"] == sum(g["nodes"] for g in phases), "one group holds both"
    window.open_group(blocks[0])
    assert window.wait_idle()
    assert group_names(window.view_state())[blocks[0]], "it opens as one group"
    window.set_graph_phases("apart")
    assert window.wait_idle()
    assert group_names(window.view_state()).keys() == apart.keys()
    with pytest.raises(ValueError):
        window.set_graph_phases("sideways")


def test_a_pass_steps_changes_mark_its_folded_groups_summed_in_slices(
    window, scoped, qtbot, monkeypatch
) -> None:
    """A fusion pass changes 50,000 ops: the folded groups' marks are summed a
    slice at a time between the window's events, not in one 50-100 ms piece;
    once summed they are those `group_marks` gives at once."""
    from xlaview.analysis.folding import group_marks, view
    from xlaview.qt.graph import pane

    monkeypatch.setattr(view, "AGGREGATE_CHUNK", 1)
    monkeypatch.setattr(pane, "GROUP_SLICE_S", 0.0)  # a mark per turn of the event loop
    graphs: list = []  # the main graphs shown, as the model says them
    window.model.graph_shown.connect(graphs.append)
    opened(window, scoped)
    canvas_of = lambda: window.graph_pane.main.canvas  # noqa: E731
    for point in reversed(window.model.module.passes):
        window.select_pass(str(point.seq))
        assert window.wait_idle()
        status = window.model.changes.diff.marks.status
        if len(status) > 10 and window.view_state()["graph_groups"]:
            break
    else:
        pytest.fail("no pass changes a folded graph")
    folded = graphs[-1].result.folded
    expected = group_marks(folded.folding, folded.paths, status, pane._any_change)
    assert expected, "the changed ops lie in folded groups"
    qtbot.waitUntil(lambda: expected.items() <= canvas_of().diff.items(), timeout=10000)
    assert canvas_of().diff == status | expected
