"""Real names are long (TF: hundreds of characters): the panes keep their
room, titles elide with the whole name in a tooltip, F fits the whole graph."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

LONG = "cluster_16__XlaCompiledKernel_true__XlaNumConstantArgs_0__XlaNumResourceArgs_0_" * 4


def long_named_module(folder: Path) -> Path:
    """A hand-written edge case: a computation name of 320 characters."""
    folder.mkdir()
    (folder / "module_0000.long.cpu_after_optimizations.txt").write_text(
        f"HloModule long\n\nENTRY %{LONG} (p: f32[4]) -> f32[4] {{\n"
        "  %p = f32[4]{0} parameter(0)\n  ROOT %n = f32[4]{0} negate(f32[4]{0} %p)\n}\n"
    )
    return folder


def test_a_long_name_squeezes_nothing(window, qtbot, tmp_path: Path) -> None:
    from xlaview.qt.main_window import MIN_PANE_WIDTH

    window.open_dump(long_named_module(tmp_path / "dump"))
    window.wait_idle()
    assert window.view_state()["computation"] == LONG
    text_width, graph_width = window.main_split.sizes()
    assert abs(text_width - graph_width) < 0.2 * (text_width + graph_width), (
        f"text {text_width} px beside graph {graph_width} px"
    )
    # Dragging the splitter to the edge keeps both.
    window.main_split.moveSplitter(0, 1)
    assert min(window.main_split.sizes()) >= MIN_PANE_WIDTH
    window.reset_layout()
    text_width, graph_width = window.main_split.sizes()
    assert abs(text_width - graph_width) < 0.2 * (text_width + graph_width)
    breadcrumb = window.findChild(QLabel, "breadcrumb")
    assert LONG not in breadcrumb.text(), "elided in the title"
    assert LONG in breadcrumb.toolTip(), "whole in the tooltip"


def test_f_fits_the_whole_graph(window, qtbot, gpt_dump) -> None:
    window.open_dump(gpt_dump)
    window.wait_idle()
    view = window.graph_pane.main
    scene = view.canvas.boundingRect()
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    assert not visible.contains(scene), "a big graph opens at a readable zoom, not whole"
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_F)
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    assert visible.adjusted(-2, -2, 2, 2).contains(scene), "F shows every node"
    qtbot.keyClick(view, Qt.Key.Key_R)
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    assert not visible.contains(scene) and visible.top() <= scene.top() + 50, "R: the top row"
