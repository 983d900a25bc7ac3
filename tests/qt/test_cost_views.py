"""The Cost tab, the roofline plot, the graph coloured by estimated time and
the inspector's cost, on the bundled dump and on a ROCm GEMM of the corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from commands import xlaview
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from xlaview.analysis.cost.devices import DEVICES
from xlaview.qt import export, theme
from xlaview.resources import sample_dump, sample_dump_default_flags

BIG = "[8192,8192]"
ROCM = "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap"


def show_cost_tab(window, folder: Path | None = None) -> None:
    window.open_dump(folder or sample_dump())
    window.wait_idle()
    window.bottom_tabs.setCurrentWidget(window.cost_panel)
    window.wait_idle()


def on_h100(window) -> None:
    """Price on the H100 (the bundled XLA:CPU dump defaults to this machine's CPU)."""
    window.model.costing.set_device("h100")
    window.wait_idle()


def table_names(panel) -> list[str]:
    """The ops as the Cost table lists them, top first."""
    return [panel.rows_model.index(row, 0).data() for row in range(panel.rows_model.rowCount())]


def cell(panel, name: str, column: int) -> str:
    row = table_names(panel).index(name)
    return panel.rows_model.index(row, column).data()


def touching_big_arrays(window) -> tuple[set[str], set[str]]:
    """(producers, producers and readers) of an [8192,8192] array in the entry."""
    entry = window.model.loaded.module.entry
    shapes = {i.name: str(i.shape) for i in entry.instructions}
    producers = {name for name, shape in shapes.items() if BIG in shape}
    readers = {
        i.name for i in entry.instructions if any(BIG in shapes.get(o, "") for o in i.operand_names)
    }
    return producers, producers | readers


def test_seed_ranks_the_score_matrices_first_and_memory_bound(window) -> None:
    show_cost_tab(window)
    panel = window.cost_panel
    assert panel.shown is not None, "the Cost tab priced the shown pass"
    assert panel.shown.device.name == "cpu", "an XLA:CPU dump: this machine's CPU by default"
    assert "this machine's CPU, measured" in panel.device_reason.text(), panel.device_reason.text()
    assert panel.device.currentData() == "cpu" and "RAM traffic" in panel.summary.text()
    assert not panel.shown.caveats, "priced on a CPU, no caveat of one"
    on_h100(window)
    assert panel.shown.device.name == "h100" and "chosen by you" in panel.device_reason.text()
    names = table_names(panel)
    producers, touching = touching_big_arrays(window)
    top = names[: len(touching)]
    assert set(top) == touching, f"the ops on {BIG} arrays rank first by time: {top}"
    assert producers <= set(names[:5]), f"the {BIG} producers are in the top five: {names[:5]}"
    for name in top:
        assert cell(panel, name, 6) == "memory", f"{name} is memory-bound"
    share = sum(panel.shown.roof.op(name).share for name in top)
    assert share > 0.95, f"they take {share:.1%} of the estimated time"
    assert "18.1 GFLOP" in panel.summary.text() and "698 µs" in panel.summary.text(), (
        panel.summary.text()
    )
    assert not panel.measured_shown(), "no trace: no measured columns"
    assert panel.shown.caveats and "XLA:CPU dump priced on" in panel.summary.text()
    assert "converted from bf16" in panel.summary.toolTip()


def test_device_switch_places_the_same_cost_on_another_roofline(window) -> None:
    show_cost_tab(window)
    panel = window.cost_panel
    before = panel.shown
    index = panel.device.findData("mi300x")
    panel.device.setCurrentIndex(index)
    panel.device.activated.emit(index)
    window.wait_idle()
    after = panel.shown
    assert after.device.name == "mi300x" and after.chosen
    assert after.cost is before.cost, "a device switch recomputes the roofline only"
    top = table_names(panel)[0]
    op = after.cost.op(top)
    expected = op.memory_bytes / DEVICES["mi300x"].memory_bandwidth
    assert after.roof.op(top).time_s == pytest.approx(expected), "memory time at 5.3 TB/s"
    assert "chosen" in panel.device_reason.text()
    assert "AMD Instinct MI300X" in panel.summary.text()


def test_a_row_and_a_dot_select_their_op(window, qtbot) -> None:
    show_cost_tab(window)
    on_h100(window)
    panel = window.cost_panel
    row = table_names(panel).index("dot_general.6")
    table = panel.table
    table.scrollTo(table.model().index(row, 0))
    qtbot.mouseClick(
        table.viewport(),
        Qt.MouseButton.LeftButton,
        pos=table.visualRect(table.model().index(row, 0)).center(),
    )
    window.wait_idle()
    assert window.view_state()["selection"] == "dot_general.6"
    point = panel.plot.point_of("convert_exponential_fusion")
    assert point is not None, "every op with FLOPs and bytes has a dot"
    qtbot.mouseClick(panel.plot, Qt.MouseButton.LeftButton, pos=point.toPoint())
    window.wait_idle()
    assert window.view_state()["selection"] == "convert_exponential_fusion"
    assert panel.plot.selected == "convert_exponential_fusion", "the selected dot is marked"
    text = window.inspector.toPlainText()
    assert "Cost on NVIDIA H100 SXM".upper() in text.upper() and "memory-bound" in text, text
    assert "268 MFLOP" in text and "120 µs" in text, text


def test_heat_colours_the_nodes_and_follows_pass_steps_and_the_fused_pane(
    window, tmp_path: Path
) -> None:
    show_cost_tab(window)
    on_h100(window)
    panel, pane = window.cost_panel, window.graph_pane
    panel.heat.setCurrentIndex(panel.heat.findData("estimate"))
    window.select_instruction("convert_exponential_fusion")
    window.wait_idle()
    fills = pane.main.canvas.fills
    assert fills.get("convert_convert_fusion") and fills.get("convert_exponential_fusion"), fills
    title, stops = pane.main.legend()
    assert title == "estimated time on NVIDIA H100 SXM" and len(stops) > 2, (title, stops)
    assert all(label.startswith("≥ ") and label[-1] == "s" for _, label in stops), stops
    fused = pane.fused.canvas.fills
    assert fused, "the fusion's body is coloured by what its instructions cost alone"
    keys = [p.key for p in window.timeline.points]
    window.select_pass(keys[-2])
    window.wait_idle()
    assert str(window.view_state()["graph_pass"]) == keys[-2]
    assert pane.main.canvas.fills, "the colouring survives a pass step"
    assert panel.shown.pass_key == keys[-2], "the Cost tab follows the pass"
    hottest = QColor(theme.HEAT_COLORS[-1]).rgb()
    image = QImage(str(export.graph_png(pane.main, tmp_path / "graph.png", scale=1.0)))
    assert any(
        image.pixel(x, y) == hottest
        for x in range(0, image.width(), 2)
        for y in range(0, image.height(), 2)
    ), "the export shows the colours"
    panel.heat.setCurrentIndex(panel.heat.findData("off"))
    window.wait_idle()
    assert not pane.main.canvas.fills and pane.main.legend() is None


def test_inspector_prices_a_selection_without_the_cost_tab(window) -> None:
    window.open_dump(sample_dump())
    window.wait_idle()
    on_h100(window)
    window.select_instruction("dot_general.6")
    window.wait_idle()
    text = window.inspector.toPlainText()
    assert "8.59 GFLOP" in text and "81.4 µs" in text and "memory-bound" in text, text


def test_rocm_gemm_in_the_inspector(window, corpus: Path) -> None:
    (path,) = (corpus / ROCM).glob("module_0011.*gfx942_gpu_after_optimizations.txt")
    show_cost_tab(window, path)
    panel = window.cost_panel
    assert panel.shown.device.name == "mi300x" and panel.shown.detected.detected
    assert "gfx942" in panel.device_reason.text() or "MI300X" in panel.device_reason.text()
    assert cell(panel, "custom-call.1", 1) == "__cublas$lt$matmul"
    window.select_instruction("custom-call.1")
    window.wait_idle()
    text = window.inspector.toPlainText()
    head = text.splitlines()[:3]
    assert any("custom-call __cublas$lt$matmul" in line for line in head), head
    for wanted in (
        "60.1 GFLOP",
        "46.0 µs",
        "compute-bound",
        "{0}",
        "bf16[4096,14336]",
        "112.0 MiB",
        "{1}",
        "s8[79691776]",
        "76.0 MiB",
    ):
        assert wanted in text, f"{wanted!r} missing from the inspector:\n{text}"
    node = next(n for n in window.graph_pane.main.graph.nodes if n.instruction == "custom-call.1")
    assert node.label == "custom-call __cublas$lt$matmul", node.label


def test_colouring_by_measured_time_does_not_carry_over_to_another_folder(window) -> None:
    show_cost_tab(window)
    window.model.costing.set_heat("measured")
    window.wait_idle()
    assert window.cost_panel.heat.currentData() == "measured", "the box follows the model"
    assert "no profile loaded" in window.graph_pane.main.legend()[0]
    window.open_dump(sample_dump_default_flags())
    window.wait_idle()
    assert window.model.costing.heat_mode == "off"
    assert window.cost_panel.heat.currentData() == "off"
    assert window.graph_pane.main.legend() is None, "no 'no profile loaded' legend left over"


def test_every_share_reads_in_the_inspector(window, gpt_dump: Path) -> None:
    """A share under 0.1% reads '<0.1%' in the inspector (it was taken for an
    HTML tag and the row left blank: ynn_fusion.123 of a GPT step), library
    fusions and loop fusions alike."""
    (final,) = gpt_dump.glob("*cpu_after_optimizations.txt")
    ops = json.loads(xlaview("cost", "--json", "--all", str(final)).stdout)["ops"]
    tiny = [o for o in ops if o["share"] is not None and 0 < o["share"] < 0.001]
    kinds = {o["kind"]: o["name"] for o in tiny if o["computation"] == ops[0]["computation"]}
    assert len(kinds) >= 2, f"too few kinds of op with a share under 0.1%: {kinds}"
    window.open_dump(gpt_dump)
    window.wait_idle()
    for name in kinds.values():
        window.select_instruction(name)
        window.wait_idle()
        lines = window.inspector.toPlainText().splitlines()
        share = lines[lines.index("share") + 1]
        assert share.startswith("<0.1% of the module's"), f"{name}: share row reads {share!r}"
