"""The kernel and StableHLO tabs, and the levels strip."""

from __future__ import annotations

from PySide6.QtWidgets import QPlainTextEdit

from xlaview.resources import sample_dump


def test_selecting_a_fusion_shows_its_kernel(window, qtbot, tmp_path) -> None:
    from xlaview.qt import export

    window.open_dump(sample_dump())
    window.wait_idle()
    window.select_instruction("convert_exponential_fusion")
    window.code_tabs.show_kernel()
    window.wait_idle()
    assert window.view_state()["selection"] == "convert_exponential_fusion"
    code = window.findChild(QPlainTextEdit, "kernelText").toPlainText()
    assert "define ptr @convert_exponential_fusion(" in code
    assert "object file" in window.code_tabs.kernel.header.text()
    assert window.code_tabs.kernel.arguments.rowCount() == 3
    assert "wrapped_reduce" in window.code_tabs.kernel.arguments.item(0, 1).text()
    # After LLVM's optimizations.
    window.code_tabs.kernel.show_level("ir_with_opt")
    window.wait_idle()
    optimized = window.findChild(QPlainTextEdit, "kernelText").toPlainText()
    assert optimized != code and "@convert_exponential_fusion(" in optimized
    png = export.window_png(window, tmp_path / "kernel.png")
    assert png.stat().st_size > 50_000
    # The levels strip lists the kernels; the StableHLO tab shows module.mlir.
    assert window.levels_bar.filled_menu().actions()
    window.code_tabs.show_stablehlo()
    window.wait_idle()
    mlir = window.findChild(QPlainTextEdit, "stablehloText").toPlainText()
    assert "stablehlo.dot_general" in mlir


def test_instruction_without_kernel(window, qtbot) -> None:
    window.open_dump(sample_dump())
    window.wait_idle()
    window.select_instruction("dot_general.6")
    window.wait_idle()
    assert "no kernel" in window.code_tabs.kernel.header.text()


def test_a_long_kernel_file_shows_the_part_around_the_kernel() -> None:
    from xlaview.qt.render.code import EXCERPT_CONTEXT, MAX_LINES_SHOWN, excerpt

    lines = [f"; line {n}" for n in range(1, 3 * MAX_LINES_SHOWN + 1)]
    text = "\n".join(lines)
    kernel = 2 * MAX_LINES_SHOWN
    shown, first, note = excerpt(text, kernel)
    assert first == kernel - EXCERPT_CONTEXT
    assert shown.split("\n") == lines[first - 1 : first - 1 + MAX_LINES_SHOWN]
    assert f"of {len(lines):,}" in note
    # Near the end, the last lines; at the start, the first; short files whole.
    shown, first, _ = excerpt(text + "\n", len(lines))
    assert shown.split("\n") == (lines + [""])[-MAX_LINES_SHOWN:]
    assert excerpt(text, None)[0].split("\n") == lines[:MAX_LINES_SHOWN]
    assert excerpt("a\nb", 2) == ("a\nb", 1, "")
