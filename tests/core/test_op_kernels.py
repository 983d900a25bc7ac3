"""Each op's kernel is its own (the files XLA's emitters named after it, in
pipeline order), or it has none and says why: checked on every op of real
XLA:CPU dumps compiled at test time (with and without YNNPACK's library
fusions), of the ROCm and CPU dumps of the peer corpus, and on the names
XLA:GPU's Triton emitter gives its files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from xlaview.analysis.op_kernels import (
    CONTROL_FLOW,
    INSIDE_CALLER,
    LIBRARY_CALL,
    NO_OP,
    REASON_KINDS,
    RUNTIME,
    OpKernel,
    op_kernel,
    op_of_kernel,
    ops_with_kernels,
    sanitized,
)
from xlaview.dump.index import index_dump
from xlaview.dump.kernels import (
    KERNEL_LEVELS,
    OBJECT,
    classify,
    function_line,
    module_functions,
    module_levels,
    stage_order,
)
from xlaview.dump.modules import ModuleCache, load_module
from xlaview.hlo import Module

# The names XLA:CPU gives the files of the kernel of op X (what follows
# ``module_NNNN.<module>.``), read from its emitters: the fusion emitters'
# ``X_kernel_module``, kernels whose LLVM module is ``__compute_module_X``, the
# scatter emitter's bare ``X``, elemental kernels' ``X_elemental_kernel_module``
# and a small call's ``X_computation_kernel_module``; MLIR stages with
# --xla_dump_emitter_re.
_STEMS = (
    "{}_kernel_module", "__compute_module_{}", "{}", "{}_elemental_kernel_module",
    "{}_computation_kernel_module",
)  # fmt: skip
_ENDS = (
    ".ir-no-opt.ll", ".ir-with-opt.ll", "-pre-optimization.mlir", "-post-optimization.mlir",
    "-post-lowering.mlir", ".mlir-passes.log",
)  # fmt: skip


def files_named_after(op: str, names: set[str], prefix: str) -> set[str]:
    """The files of the dump XLA:CPU would have named after ``op``."""
    out = set()
    for stem in _STEMS:
        kernel = stem.format(op)
        wanted = [f"{prefix}{kernel}{end}" for end in _ENDS]
        wanted.append(f"{prefix}obj-file.{kernel}.o")
        out |= {n for n in wanted if n in names}
    return out


def every_op(module: Module) -> list[str]:
    return [i.name for comp in module.computations for i in comp.instructions]


def cpu_dump(folder: Path):
    module = index_dump(folder).module("jit_program")
    levels = module_levels(module)
    hlo = load_module(module.after_optimizations.path).module
    return module, levels, module_functions(levels), hlo


@pytest.mark.parametrize("variant", ["default", "no_ynn"])
def test_every_op_shows_its_own_kernel_or_none_with_a_reason(
    kernel_dumps: dict[str, Path], variant: str
) -> None:
    module, levels, functions, hlo = cpu_dump(kernel_dumps[variant])
    prefix = f"module_{module.id:04d}.{module.name}."
    names = {f.name for f in module.other_files}
    kernel_files = {
        n for n in names if n.endswith((".ll", ".o", ".mlir", ".log")) and n.startswith(prefix)
    }
    claimed: dict[str, str] = {}
    with_kernels = 0
    for op in every_op(hlo):
        kernel = op_kernel(hlo, op, levels, functions)
        own = files_named_after(op, names, prefix)
        if not kernel:
            assert not own, (op, own)
            assert kernel.reason and kernel.reason_kind in REASON_KINDS, (op, kernel)
            assert not kernel.pending, op
            continue
        with_kernels += 1
        files = {s.file.name for s in kernel.stages}
        assert kernel.reason is None, op
        if kernel.shared_with:  # compiled once for an identical fusion: its twin's files
            assert not own, op
            assert files == files_named_after(kernel.shared_with, names, prefix), op
            twin = hlo.instruction(kernel.shared_with)
            instr = hlo.instruction(op)
            assert (twin.opcode, twin.fusion_kind, str(twin.shape)) == (
                instr.opcode, instr.fusion_kind, str(instr.shape)
            ), op  # fmt: skip
            continue
        if all(s.function == kernel.name for s in kernel.stages) and files == own:
            for f in own:
                assert claimed.setdefault(f, op) == op, (f, op, claimed[f])
        else:  # a function of a file of many: the sort's comparator in part_NN
            assert hlo.instruction(op).opcode == "sort", op
            assert kernel.name == hlo.instruction(op).called_computations[0]
            assert all("part_" in f for f in files), files
            assert "comparator" in (kernel.note or "")
        # The stages in pipeline order, LLVM IR before LLVM's optimizations first of the two.
        orders = [stage_order(s.level) for s in kernel.stages]
        assert orders == sorted(orders) and len(set(orders)) == len(orders), op
        for stage in kernel.stages:
            if stage.level in ("ir_no_opt", "ir_with_opt"):
                text = stage.file.path.read_text()
                assert function_line(text, kernel.name or op), (op, stage.file.name)
    # Every kernel file of the dump is the kernel of the one op it is named after.
    parts = {n for n in kernel_files if re.search(r"\.(obj-file\.)?part_\d+\.", n)}
    assert kernel_files - parts == set(claimed), sorted(kernel_files - parts - set(claimed))
    assert with_kernels >= 20


def test_why_ops_have_no_kernel(kernel_dumps: dict[str, Path]) -> None:
    _, levels, functions, hlo = cpu_dump(kernel_dumps["default"])

    def kernel(op: str) -> OpKernel:
        return op_kernel(hlo, op, levels, functions)

    entry = hlo.entry
    assert entry is not None
    by_opcode: dict[str, list[str]] = {}
    for instr in entry.instructions:
        by_opcode.setdefault(instr.opcode, []).append(instr.name)
    ynn = [
        i for i in entry.instructions if i.opcode == "fusion" and "__ynn_fusion" in i.attribute_text
    ]
    assert ynn, "XLA:CPU's default flags hand the dots to YNNPACK"
    for fusion in ynn:
        k = kernel(fusion.name)
        assert k.reason_kind == LIBRARY_CALL and "YNNPACK" in (k.reason or ""), k
        body = hlo.computation(fusion.called_computations[0])
        for inner in body.instructions:
            k = kernel(inner.name)
            assert k.reason_kind == INSIDE_CALLER and fusion.name in (k.reason or ""), k
    expected = {
        "parameter": NO_OP, "constant": NO_OP, "bitcast": NO_OP, "get-tuple-element": NO_OP,
        "tuple": NO_OP, "while": CONTROL_FLOW, "conditional": CONTROL_FLOW,
        "fft": LIBRARY_CALL, "convolution": LIBRARY_CALL, "copy": RUNTIME,
    }  # fmt: skip
    for opcode, kind in expected.items():
        assert by_opcode.get(opcode), opcode
        for op in by_opcode[opcode]:
            assert kernel(op).reason_kind == kind, (op, kernel(op))
    for op in by_opcode["custom-call"]:
        target = hlo.instruction(op).attribute("custom_call_target") or ""
        k = kernel(op)
        if "TopK" in target:
            assert k.reason_kind == RUNTIME, k
        else:
            assert k.reason_kind == LIBRARY_CALL and "LAPACK" in (k.reason or ""), k
    # A small loop XLA:CPU compiles whole: the call has the kernel, what it runs is inside it.
    calls = [
        op for op in by_opcode["call"] if "xla_cpu_small_call" in hlo.instruction(op).attribute_text
    ]
    assert calls
    for op in calls:
        k = kernel(op)
        assert k and k.name == f"{op}_computation", k
        inner = hlo.computation(hlo.instruction(op).called_computations[0])
        for i in inner.instructions:
            assert kernel(i.name).reason_kind == INSIDE_CALLER, i.name
    # The scatter's emitter and the fusion emitters: MLIR, then LLVM IR, then the object.
    scatter = next(i.name for i in entry.instructions if i.name.startswith("wrapped_scatter"))
    assert kernel(scatter).levels == (
        "mlir_pre_optimization", "mlir_post_optimization", "mlir_post_lowering", "mlir_passes",
        "ir_no_opt", "ir_with_opt", OBJECT,
    )  # fmt: skip
    # Ops in a loop's body run kernels of their own.
    loop = hlo.instruction(by_opcode["while"][0])
    body = hlo.computation(loop.attributes["body"].lstrip("%"))
    assert any(kernel(i.name) for i in body.instructions if i.opcode == "fusion")


def test_unfused_dots_without_library_fusions_run_in_eigen(kernel_dumps: dict[str, Path]) -> None:
    _, levels, functions, hlo = cpu_dump(kernel_dumps["no_ynn"])
    assert hlo.entry is not None
    dots = [i.name for i in hlo.entry.instructions if i.opcode == "dot"]
    assert dots, "--xla_cpu_experimental_ynn_fusion_type= leaves the dots unfused"
    for op in dots:
        k = op_kernel(hlo, op, levels, functions)
        assert k.reason_kind == LIBRARY_CALL and "Eigen" in (k.reason or ""), k
    assert not any(
        "ynn" in f.name for f in index_dump(kernel_dumps["no_ynn"]).modules[0].other_files
    )


def test_inspect_json_lists_the_stages(kernel_dumps: dict[str, Path]) -> None:
    folder = kernel_dumps["default"]
    after = next(folder.glob("*cpu_after_optimizations.txt"))

    def inspect(op: str) -> dict:
        out = subprocess.run(
            [sys.executable, "-m", "xlaview", "inspect", "--json", str(after), "-i", op],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        return json.loads(out)["instruction"]["kernel"]

    hlo = load_module(after).module
    assert hlo.entry is not None
    scatter = next(i.name for i in hlo.entry.instructions if i.name.startswith("wrapped_scatter"))
    k = inspect(scatter)
    assert [s["level"] for s in k["stages"]][:4] == [key for key, _ in KERNEL_LEVELS][3:7]
    assert all((folder / s["file"]).is_file() and s["name"] for s in k["stages"])
    assert k["ir_no_opt"] == k["stages"][4]["file"] and k["object"] == k["stages"][-1]["file"]
    assert k["reason"] is None and k["function"] == scatter
    ynn = next(i.name for i in hlo.entry.instructions if "__ynn_fusion" in i.attribute_text)
    k = inspect(ynn)
    assert k["stages"] == [] and k["reason_kind"] == "library-call" and "YNNPACK" in k["reason"]
    assert {k[key] for key in ("ir_no_opt", "ir_with_opt", "ptx", "object")} == {None}


# -- the peer corpus ----------------------------------------------------------------


def test_rocm_kernels_are_functions_of_the_module_ir(corpus: Path) -> None:
    folder = corpus / "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap"
    index = index_dump(folder)
    seen = 0
    for module in index.modules:
        if module.after_optimizations is None or module.plain_file:
            continue
        levels = module_levels(module)
        functions = module_functions(levels)
        hlo = load_module(module.after_optimizations.path).module
        for op in every_op(hlo):
            k = op_kernel(hlo, op, levels, functions)
            instr = hlo.instruction(op)
            if k:
                seen += 1
                assert instr.opcode == "fusion" and k.name == sanitized(op), (op, k)
                for stage in k.stages:
                    text = stage.file.path.read_text()
                    assert re.search(rf"^define [^\n]*@{re.escape(k.name)}\(", text, re.M), stage
                continue
            assert k.reason and k.reason_kind in REASON_KINDS, (op, k)
            if instr.opcode == "custom-call":
                assert k.reason_kind == LIBRARY_CALL and "BLAS" in k.reason, k
            if instr.opcode.startswith("all-reduce"):
                assert k.reason_kind == RUNTIME, k
            # No file of the module defines a kernel named after it.
            assert sanitized(op) not in functions, op
    assert seen >= 8


def test_corpus_cpu_dump_ops_get_their_own_kernels(corpus: Path) -> None:
    index = index_dump(corpus / "real_dumps/carlesoctav__fme")
    seen = 0
    for module in index.modules:
        if module.after_optimizations is None:
            continue
        levels = module_levels(module)
        hlo = load_module(module.after_optimizations.path).module
        prefix = f"module_{module.id:04d}.{module.name}."
        names = {f.name for f in module.other_files}
        for op in every_op(hlo):
            k = op_kernel(hlo, op, levels, module_functions(levels))
            own = files_named_after(op, names, prefix)
            if k and not k.shared_with:
                assert {s.file.name for s in k.stages} == own, op
                assert k.levels[0] == (
                    "mlir_pre_optimization"
                    if any(n.endswith(".mlir") for n in own)
                    else "ir_no_opt"
                ), op
                seen += 1
            else:
                assert not own and (k or k.reason_kind in REASON_KINDS), (op, k)
    assert seen >= 40


# -- Triton's files, as XLA:GPU names them ------------------------------------------


def test_triton_stage_files_are_levels_of_their_fusion(tmp_path: Path) -> None:
    """The names of ``xla/backends/gpu/codegen/triton/fusion_emitter.cc``
    (``<fusion>.ttir.txt``...; pass logs without the ``module_NNNN.`` prefix,
    after the kernel, the fusion's name made a C name) and of Triton's own dumps
    (``<kernel>.ttgir``...): no GPU dump of the peer corpus has them, so a
    folder of empty files with those names."""
    prefix = "module_0004.jit_f."
    fusion = "gemm_fusion_dot.3"
    files = [
        f"{prefix}{fusion}.hlo",
        f"{prefix}{fusion}.before_validation.ttir.txt",
        f"{prefix}{fusion}.ttir.txt",
        f"{prefix}{fusion}.ttgir",
        f"{prefix}{fusion}.llir",
        f"jit_f.{sanitized(fusion)}.triton-passes.log",
        f"{prefix}ir-no-opt.ll",
        f"{prefix}ir-with-opt.ll",
        f"{prefix}ptx",
        f"{prefix}before_optimizations.txt",
        f"{prefix}sm_9.0_gpu_after_optimizations.txt",
    ]
    for name in files:
        (tmp_path / name).write_text("")
    hlo_text = (
        "HloModule jit_f\n\n"
        "gemm_fusion_dot.3_computation {\n"
        "  p0 = f32[16,16]{1,0} parameter(0)\n"
        "  ROOT d = f32[16,16]{1,0} dot(p0, p0), lhs_contracting_dims={1},"
        " rhs_contracting_dims={0}\n"
        "}\n\n"
        "ENTRY main {\n"
        "  x = f32[16,16]{1,0} parameter(0)\n"
        "  ROOT gemm_fusion_dot.3 = f32[16,16]{1,0} fusion(x), kind=kCustom, "
        'calls=gemm_fusion_dot.3_computation, backend_config={"fusion_backend_config":'
        '{"kind":"__triton_gemm"}}\n'
        "}\n"
    )
    (tmp_path / f"{prefix}sm_9.0_gpu_after_optimizations.txt").write_text(hlo_text)
    ir = f"define void @{sanitized(fusion)}(ptr %0) {{\n  ret void\n}}\n"
    (tmp_path / f"{prefix}ir-no-opt.ll").write_text(ir)
    (tmp_path / f"{prefix}ir-with-opt.ll").write_text(ir)
    (tmp_path / f"{prefix}ptx").write_text(f".visible .entry {sanitized(fusion)}(\n)\n{{\n}}\n")
    index = index_dump(tmp_path)
    module = index.module("jit_f")
    levels = module_levels(module, index.unrecognized)
    hlo = load_module(module.after_optimizations.path).module
    k = op_kernel(hlo, fusion, levels, module_functions(levels))
    assert k.levels == (
        "fusion_hlo", "xtile", "ttir", "ttgir", "llir", "triton_passes", "ir_no_opt",
        "ir_with_opt", "ptx",
    )  # fmt: skip
    assert {s.file.name for s in k.stages} == set(files) - {
        f"{prefix}before_optimizations.txt", f"{prefix}sm_9.0_gpu_after_optimizations.txt"
    }  # fmt: skip
    assert {s.function for s in k.stages if s.level in ("ir_no_opt", "ptx")} == {sanitized(fusion)}
    # A name of no kernel stays out: the module's own HLO, its thunks.
    assert classify("gpu_after_optimizations.txt") is None
    assert classify("thunk_sequence.txt") is None
    assert classify("1.ptx") == (None, "ptx", "1")
    assert classify("obj-file.part_00.o") == (None, OBJECT, "part_00")


def kernel_ops_one_by_one(module: Module, kernels: list[str]) -> list[str]:
    """`ops_with_kernels` as defined: each kernel's op, unless it runs inside another."""
    ops = {op for k in kernels if (op := op_of_kernel(module, k)) is not None}
    return sorted(op for op in ops if op_kernel(module, op, None).reason_kind != INSIDE_CALLER)


def check_kernel_lists(folder: Path) -> int:
    """Every pass of every module, read through one cache (passes share the
    computations they did not change, and what was found of them): the list
    is the one-by-one answer, as on a module read afresh."""
    cache, listed = ModuleCache(), 0
    for module in index_dump(folder).modules:
        levels = module_levels(module)
        functions = module_functions(levels) if any(levels.module_ir) else None
        kernels = [*levels.kernels, *(functions or ())]
        files = [step.file for step in module.passes[-6:]]
        if module.after_optimizations is not None:
            files.append(module.after_optimizations)
        for file in files:
            shared = ops_with_kernels(cache.load(file).module, levels, functions)
            fresh = load_module(file.path).module
            assert shared == kernel_ops_one_by_one(fresh, kernels), file.name
            listed += len(shared)
    return listed


def test_kernel_lists_of_every_pass(kernel_dumps: dict[str, Path]) -> None:
    assert sum(check_kernel_lists(folder) for folder in kernel_dumps.values()) >= 20


def test_kernel_lists_of_rocm_functions(corpus: Path) -> None:
    folder = corpus / "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap"
    assert check_kernel_lists(folder) >= 8
