"""Levels below HLO: kernel files attached to their module and instruction."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlaview.analysis.inspect import kernel_argument_map, kernel_files_for
from xlaview.dump.index import index_dump
from xlaview.dump.kernels import function_line, module_levels
from xlaview.dump.modules import load_module
from xlaview.dump.reports import load_reports
from xlaview.resources import sample_dump


def test_every_top_level_fusion_of_the_seed_has_its_kernel() -> None:
    module = index_dump(sample_dump()).module("jit_attention")
    levels = module_levels(module)
    assert levels.stablehlo is not None and levels.stablehlo.name == "module.mlir"
    hlo = load_module(module.after_optimizations.path).module
    reports = load_reports(module)
    fusions = [i for i in hlo.entry.instructions if i.opcode == "fusion"]
    assert len(fusions) == 15
    sized = 0
    for fusion in fusions:
        files, shared = kernel_files_for(hlo, fusion.name, levels)
        assert files is not None, fusion.name
        assert files.ir_no_opt.name.endswith(".ir-no-opt.ll"), fusion.name
        assert files.ir_with_opt.name.endswith(".ir-with-opt.ll"), fusion.name
        assert files.object.name.endswith(".o"), fusion.name
        kernel = shared or fusion.name
        ir = files.ir_no_opt.path.read_text()
        assert function_line(ir, kernel), f"{kernel} is defined in its IR"
        rows = kernel_argument_map(hlo, fusion.name, ir, reports, function=kernel)
        assert len(rows) == len(fusion.operand_names) + 1, fusion.name
        for row in rows:
            # LLVM's buffer sizes (emitted kernels carry them; wrapped ops do not).
            if row["dereferenceable"] is not None:
                assert row["dereferenceable"] == row["bytes"], (fusion.name, row)
                sized += 1
        assert rows[-1]["role"] == "result" and rows[-1]["allocation"] is not None
    assert sized >= 20


@pytest.mark.parametrize("folder", ["clarkechong__scale-your-amd", "carlesoctav__fme"])
def test_corpus_kernel_files_go_to_their_module(corpus: Path, folder: str) -> None:
    index = index_dump(corpus / "real_dumps" / folder)
    seen = 0
    for module in index.modules:
        levels = module_levels(module)
        assert not levels.unassigned, [f.name for f in levels.unassigned]
        kernel_like = [f for f in module.other_files if f.name.endswith((".ll", ".ptx", ".o"))]
        placed = {
            id(f)
            for k in levels.kernels.values()
            for f in (k.ir_no_opt, k.ir_with_opt, k.ptx, k.object)
            if f
        }
        placed |= {
            id(f) for k in levels.module_ir for f in (k.ir_no_opt, k.ir_with_opt, k.ptx) if f
        }
        assert {id(f) for f in kernel_like} == placed, module.name
        for f in kernel_like:
            assert f"module_{module.id:04d}." in f.name and (module.name or "") in f.name
        seen += len(kernel_like)
    assert seen > 10


def test_rocm_modules_have_their_module_ir_and_stablehlo(corpus: Path) -> None:
    index = index_dump(corpus / "real_dumps" / "clarkechong__scale-your-amd")
    for module in index.modules:
        if module.plain_file:  # the lone gfx950 fixture: a text, no levels
            continue
        levels = module_levels(module)
        assert levels.stablehlo is not None, module.name
        assert levels.module_ir and levels.module_ir[0].ir_no_opt is not None, module.name
        assert levels.module_ir[-1].ir_no_opt.name.endswith("constants.ir-no-opt.ll")
