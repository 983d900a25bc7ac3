"""The Kernel tab and the levels strip show the selected op's own kernel, stage
by stage in pipeline order, or say why it has none: on every op of the entry
of a real XLA:CPU dump compiled at test time."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtWidgets import QPlainTextEdit, QToolButton

from xlaview.analysis.op_kernels import op_kernel
from xlaview.dump.index import index_dump
from xlaview.dump.kernels import OBJECT, function_line, module_functions, module_levels
from xlaview.dump.modules import load_module


def strip_levels(window) -> list[str]:
    """The stages the levels strip offers, left to right."""
    buttons = window.levels_bar.kernel_stages.findChildren(QToolButton)
    shown = sorted((b for b in buttons if not b.isHidden()), key=lambda b: b.x())
    return [b.objectName().removeprefix("kernelStage_") for b in shown]


def test_each_op_shows_its_own_kernel_or_why_it_has_none(window, kernel_dumps) -> None:
    folder: Path = kernel_dumps["default"]
    module = index_dump(folder).module("jit_program")
    levels = module_levels(module)
    functions = module_functions(levels)
    hlo = load_module(module.after_optimizations.path).module
    assert hlo.entry is not None
    window.open_dump(folder)
    window.wait_idle()
    window.code_tabs.show_kernel()
    panel = window.code_tabs.kernel
    text = window.findChild(QPlainTextEdit, "kernelText")
    with_kernels = without = 0
    for instr in hlo.entry.instructions:
        window.select_instruction(instr.name)
        window.wait_idle()
        assert window.view_state()["selection"] == instr.name
        expected = op_kernel(hlo, instr.name, levels, functions)
        assert panel.kernel == expected, instr.name
        header = panel.header.text()
        if expected:
            with_kernels += 1
            assert panel.levels == expected.levels == tuple(strip_levels(window)), instr.name
            stage = expected.stage(panel.current_stage() or "")
            assert stage is not None and stage.level == "ir_no_opt", instr.name
            assert function_line(text.toPlainText(), expected.name or ""), instr.name
            assert html.escape(expected.name or "") in header and "no kernel" not in header
            assert not panel.split.isHidden()
        else:
            without += 1
            assert "has no kernel of its own" in header, instr.name
            assert html.escape(expected.reason or "") in header, (instr.name, header)
            assert panel.split.isHidden() and not panel.levels and not strip_levels(window)
            assert "no kernel" in window.levels_bar.kernel_name.text()
    assert with_kernels >= 10 and without >= 10


def test_the_levels_strip_walks_a_kernel_stage_by_stage(window, kernel_dumps) -> None:
    folder: Path = kernel_dumps["default"]
    window.open_dump(folder)
    window.wait_idle()
    hlo = window.model.loaded.module
    scatter = next(i.name for i in hlo.entry.instructions if i.name.startswith("wrapped_scatter"))
    window.select_instruction(scatter)
    window.wait_idle()
    kernel = window.code_tabs.kernel.kernel
    assert kernel and strip_levels(window)[0] == "mlir_pre_optimization"
    assert strip_levels(window)[-1] == OBJECT
    text = window.findChild(QPlainTextEdit, "kernelText")
    for level in strip_levels(window):
        window.levels_bar.stage_buttons[level].click()
        window.wait_idle()
        assert window.code_tabs.currentWidget() is window.code_tabs.kernel
        assert window.code_tabs.kernel.current_stage() == level
        assert window.levels_bar.stage_buttons[level].isChecked()
        stage = kernel.stage(level)
        assert stage is not None
        shown = text.toPlainText()
        if level == OBJECT:
            assert "object file" in shown and stage.file.rel in shown
        else:
            assert shown == stage.file.path.read_text(), level
    # The menu picks an op with a kernel of its own.
    names = [a.text() for a in window.levels_bar.filled_menu().actions()]
    assert scatter in names and not any(n.startswith("ynn_fusion") for n in names)


def test_a_gpu_kernel_is_its_function_in_the_module_ir(window, corpus) -> None:
    folder = corpus / "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap"
    window.open_dump(folder, module="0005")
    window.wait_idle()
    window.code_tabs.show_kernel()
    window.select_instruction("wrapped_slice.7")
    window.wait_idle()
    kernel = window.code_tabs.kernel.kernel
    # Only the optimized IR defines it (the unoptimized file of the folder holds one shard).
    assert kernel and kernel.name == "wrapped_slice_7" and kernel.levels == ("ir_with_opt",)
    code = window.findChild(QPlainTextEdit, "kernelText").toPlainText()
    line = function_line(code, "wrapped_slice_7")
    assert line and "define amdgpu_kernel void @wrapped_slice_7(" in code.splitlines()[line - 1]
    window.select_instruction("self.1")
    window.wait_idle()
    assert "a parameter" in window.code_tabs.kernel.header.text()
