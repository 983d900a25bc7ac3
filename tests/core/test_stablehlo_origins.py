"""The origins of StableHLO ops read from MLIR's locations, and the join
with the HLO through XLA's op_name and stack frames (both ways)."""

from __future__ import annotations

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


def test_locations_that_loop_or_never_end_are_cut() -> None:
    text = "\n".join(
        [
            "%0 = stablehlo.add %a, %b : tensor<f32> loc(#loc1)",
            "%1 = stablehlo.add %a, %b : tensor<f32> loc(" + "(" * 50_000,
            "%2 = stablehlo.add %a, %b : tensor<f32> loc(#loc9)",
            "%3 = stablehlo.add %a, %b : tensor<f32> loc(#loc8)",
            "#loc1 = loc(#loc2)",
            '#loc2 = loc("jit(f)/add"(#loc1))',
            "#loc9 = loc(" + "callsite(" * 200 + '"x.py":3:1' + " at #loc1)" * 200 + ")",
            "#loc8 = loc(" + "callsite(" * 20 + '"x.py":3:1' + " at #loc1)" * 20 + ")",
        ]
    )
    # Aliases naming each other are followed once round; a chain of 200
    # callsites is cut, one of 20 is read.
    origins = mlir_origins(text)
    assert [(o.line, o.op_name, o.file, o.source_line) for o in origins] == [
        (1, "jit(f)/add", None, None),
        (4, None, "x.py", 3),
    ]
