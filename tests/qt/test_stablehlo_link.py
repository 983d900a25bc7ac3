"""The StableHLO tab linked to the HLO both ways, through XLA's op_name and
stack frames and MLIR's loc: the selected op's StableHLO lines are marked, and
a click on a StableHLO line selects what it became."""

from __future__ import annotations

from PySide6.QtCore import Qt

from xlaview.resources import sample_dump
from xlaview.text.mlir_locations import mlir_origins


def origins_of(folder):
    (mlir,) = folder.glob("*/module.mlir")
    return mlir_origins(mlir.read_text())


def test_the_window_links_hlo_and_stablehlo(window, qtbot) -> None:
    window.open_dump(sample_dump())
    window.wait_idle()
    window.select_instruction("dot_general.6")
    window.code_tabs.show_stablehlo()
    window.wait_idle()
    view = window.code_tabs.stablehlo.view
    marked = view.highlighted("selection")
    assert len(marked) == 1, marked
    line = marked[0][0]
    assert "stablehlo.dot_general" in view.document().findBlockByNumber(line - 1).text()
    # A click on another matmul's line selects the HLO op it became.
    other = next(
        o.line
        for o in origins_of(sample_dump())
        if o.op_name == "jit(attention)/dot_general" and o.line != line
    )
    block = view.document().findBlockByNumber(other - 1)
    view.show_span(other)
    rect = view.blockBoundingGeometry(block).translated(view.contentOffset())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    window.wait_idle()
    selected = window.view_state()["selection"]
    assert selected not in (None, "dot_general.6")
    assert window.model.loaded.module.instruction(selected).opcode == "dot"
    assert view.highlighted("selection") == [(other, other)]


def test_a_marked_range_covers_its_last_line(window) -> None:
    """A highlight of lines 19-21 paints line 21 too (it ended at the start of
    its last line: every range of several lines lost one, diff marks included)."""
    window.open_dump(sample_dump())
    window.wait_idle()
    view = window.text
    view.set_highlights({"selection": ([(19, 21)], "#ffff00")})
    (mark,) = [s for s in view.extraSelections() if s.cursor.hasSelection()]
    document = view.document()
    first = document.findBlock(mark.cursor.selectionStart()).blockNumber() + 1
    last = document.findBlock(mark.cursor.selectionEnd()).blockNumber() + 1
    assert (first, last) == (19, 21)
    assert mark.cursor.selectionEnd() > document.findBlockByNumber(20).position()
