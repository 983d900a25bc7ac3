"""The StableHLO tab linked to the HLO both ways, through XLA's op_name and
stack frames and MLIR's loc: the selected op's StableHLO lines are marked, and
a click on a StableHLO line selects what it became."""

from __future__ import annotations

from PySide6.QtCore import Qt

from xlaview.analysis.navigation import hlo_ops_from, stablehlo_lines
from xlaview.dump.modules import load_module
from xlaview.resources import sample_dump, sample_dump_default_flags
from xlaview.text.mlir_locations import mlir_origins


def origins_of(folder):
    (mlir,) = folder.glob("*/module.mlir")
    return mlir_origins(mlir.read_text())


def test_origins_resolve_the_locations_jax_prints() -> None:
    origins = origins_of(sample_dump())
    dots = [o for o in origins if o.op_name == "jit(attention)/dot_general"]
    assert len(dots) == 4
    assert all(o.file and o.file.endswith("attention.py") for o in dots)
    # Four matmuls, four places in the source (line and column).
    assert len({(o.source_line, o.column) for o in dots}) == 4


def test_each_matmul_goes_to_its_own_line_and_back() -> None:
    """Without the library fusion each matmul is an HLO dot of its own; with
    it (XLA:CPU's default) the whole block is one fusion, which all four lines
    became, found through its body's metadata."""
    for folder, distinct in ((sample_dump(), 4), (sample_dump_default_flags(), 1)):
        origins = origins_of(folder)
        (final,) = folder.glob("*cpu_after_optimizations.txt")
        module = load_module(final).module
        linked = 0
        for instr in module.entry.instructions:
            lines = stablehlo_lines(origins, module, instr)
            for line in lines:
                origin = next(o for o in origins if o.line == line)
                assert instr.name in hlo_ops_from(origin, module), (instr.name, line)
            linked += bool(lines)
        dots = [o for o in origins if o.op_name == "jit(attention)/dot_general"]
        became = [hlo_ops_from(o, module)[:1] for o in dots]
        assert all(became) and len({b[0] for b in became}) == distinct, became
        assert linked >= min(6, len(module.entry.instructions) - 3), folder


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
