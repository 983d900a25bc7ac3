"""Every real folder opens right: lone HLO texts, names and backends from the
text, the points of a module (snapshots included), naming a module, the main
module, the kernel levels a backend has."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from xlaview.dump.contents import describe_hlo_head
from xlaview.dump.index import index_dump, index_file
from xlaview.dump.kernels import module_levels
from xlaview.dump.main_module import default_module
from xlaview.dump.points import NoSuchPointError
from xlaview.dump.records import ModuleLookupError
from xlaview.hlo.model import Frame
from xlaview.resources import sample_dump


def module_line_name(path: Path) -> str:
    """The oracle: the name on the file's ``HloModule`` line."""
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("HloModule "):
            return line.split()[1].rstrip(",")
    raise AssertionError(f"{path} has no HloModule line")


PLAIN_FOLDERS = [
    # folder, {file: (backend, slot)}: the name comes from each file's HloModule line
    ("Junyi-99__hlo-visualizer/examples/v6e-2x2",
     {"collectives.after.hlo": ("tpu", "after"), "collectives.before.hlo": ("tpu", "before")}),
    ("Junyi-99__hlo-visualizer/examples/v6e-1", {"cond_switch.after.hlo": ("tpu", "after")}),
    ("clarkechong__scale-your-amd/artifacts/hlo-fixtures/lhs/on",
     {"gfx950_gpu_after_optimizations.txt": ("gpu", "after")}),
    ("Gordi42__fridom/design/research/stencil_lowering/microbench/results/hlo",
     {"e1_d_conv_k3_ax0_n256.txt": ("gpu", "after")}),
    ("JueonPark__HLO_breakdown/original_results",
     {"bert_baseline_bw_hlo.txt": (None, "after"), "bert_baseline_fw_hlo.txt": (None, "after"),
      "bert_ndp_bw_hlo.txt": (None, "after")}),
]  # fmt: skip


@pytest.mark.parametrize(
    "folder,files",
    PLAIN_FOLDERS,
    ids=[f[0].split("/")[0] + "/" + f[0].split("/")[-1] for f in PLAIN_FOLDERS],
)
def test_a_folder_of_hlo_texts_is_a_module_per_file(corpus: Path, folder: str, files: dict) -> None:
    root = corpus / "real_dumps" / folder
    index = index_dump(root)
    assert not index.unrecognized and not index.problems, (index.unrecognized, index.problems)
    assert sorted(m.plain_file for m in index.modules) == sorted(files)
    assert len({m.ref for m in index.modules}) == len(index.modules), "refs tell modules apart"
    for module in index.modules:
        backend, slot = files[module.plain_file]
        assert module.name == module_line_name(root / module.plain_file), module.plain_file
        assert module.backend == backend, module.plain_file
        assert [label for label, _ in module.timeline()] == [slot], module.plain_file
        assert index.module(module.ref) is module


def test_the_gfx950_fixture_is_jit_lhs_on_alone_and_in_its_repository(corpus: Path) -> None:
    fixture = corpus / "real_dumps/clarkechong__scale-your-amd/artifacts/hlo-fixtures/lhs/on"
    alone = index_file(fixture / "gfx950_gpu_after_optimizations.txt")
    (module,) = alone.modules
    assert (module.name, module.backend) == ("jit_lhs_on", "gpu")
    whole = index_dump(corpus / "real_dumps/clarkechong__scale-your-amd")
    assert whole.module("jit_lhs_on").dump == "artifacts/hlo-fixtures/lhs/on"


def test_tf_2020_modules_are_named_by_their_text(corpus: Path) -> None:
    root = corpus / "real_dumps/morenfang__xla_hlo_dump_parse"
    index = index_dump(root)
    assert len(index.modules) == 109
    for module in index.modules:
        assert module.name == module_line_name(module.after_optimizations.path), module.ref
        assert module.key == module.name
    # cuDNN calls in the first KB of some; the rest say nothing there.
    assert {m.backend for m in index.modules} == {"gpu", None}
    assert index.module("module_0039") is index.module("39") is index.module("0039")


HEADS = [
    # text, (module name, entry name, backend, scheduled, looks like HLO)
    ("HloModule jit_f, is_scheduled=true, "
     "entry_computation_layout={(f32[64]{0:T(128)})->f32[64]{0:T(128)}}\n",
     ("jit_f", None, "tpu", True, True)),
    ("// RUN: hlo-opt %s\n// CHECK: x\n\nHloModule m\n\n"
     "ENTRY %main.4 (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0)\n}\n",
     ("m", "main.4", None, False, True)),
    ("fused {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n",
     (None, None, None, False, True)),
    ("HloModule g\n\nENTRY e {\n"
     "  %c = f32[] custom-call(), custom_call_target=\"__cublas$gemm\"\n}\n",
     ("g", "e", "gpu", False, True)),
    ("HloModule g\n\nENTRY e {\n"
     "  %f = f32[8]{0} fusion(), kind=kLoop, backend_config={\"operation_queue_id\":\"0\"}\n}\n",
     ("g", "e", "gpu", False, True)),
    ("HloModule c\n\nENTRY e {\n"
     "  %f = f32[8]{0} fusion(), kind=kLoop, "
     "backend_config={\"outer_dimension_partitions\":[\"2\"]}\n}\n",
     ("c", "e", "cpu", False, True)),
    ("HloModule h, entry_computation_layout={(f32[8]{0:S(5)})->f32[8]{0}}\n",
     ("h", None, None, False, True)),
    ("HloModule v, entry_computation_layout={(f32[8]{0:S(1)})->f32[8]{0}}\n",
     ("v", None, "tpu", False, True)),
    ("hello, this is a note\n", (None, None, None, False, False)),
]  # fmt: skip


@pytest.mark.parametrize("text,expected", HEADS, ids=[f"head{i}" for i in range(len(HEADS))])
def test_what_the_first_kb_say(text: str, expected: tuple) -> None:
    head = describe_hlo_head(text)
    got = (head.module_name, head.entry_name, head.backend, head.scheduled, head.looks_like_hlo)
    assert got == expected


def test_only_hlo_texts_become_modules(zoo: dict[str, Path], tmp_path: Path) -> None:
    (after,) = zoo["attention"].glob("*cpu_after_optimizations.txt")
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(after, folder / "model.txt")
    shutil.copy(after, folder / "renamed.hlo")
    (folder / "notes.txt").write_text("not HLO\n")
    (folder / "proto.hlo").write_bytes(b"\x08\x01\0\x12binary")
    (folder / "empty.hlo").write_text("")
    os.mkfifo(folder / "pipe.hlo")  # never opened: it would block a reader
    index = index_dump(folder)
    assert sorted(m.plain_file for m in index.modules) == ["model.txt", "renamed.hlo"]
    assert {m.name for m in index.modules} == {"jit_attention"}
    assert {m.backend for m in index.modules} == {"cpu"}
    assert sorted(f.name for f in index.unrecognized) == ["empty.hlo", "notes.txt", "proto.hlo"]
    assert any(p.path == "pipe.hlo" and "not a regular file" in p.message for p in index.problems)
    with pytest.raises(ModuleLookupError, match="0000 model.txt, 0001 renamed.hlo"):
        index.module("jit_attention")


# -- points ------------------------------------------------------------------------


def test_points_of_a_fresh_dump(zoo: dict[str, Path]) -> None:
    module = index_dump(zoo["attention"]).module("jit_attention")
    points = module.points()
    assert points[0].key == "before" and points[-1].key == "after"
    seqs = [p.seq for p in points[1:-1]]
    assert seqs == sorted(seqs) and len(seqs) == len(module.passes)
    kinds = {p.kind for p in points[1:-1]}
    snapshots = [p for p in points if p.kind == "snapshot"]
    assert kinds == {"pass", "snapshot"} and snapshots, "copy insertion dumps its steps"
    assert all(p.pipeline == "copy-insertion" and p.after for p in snapshots)
    first = points[1]
    for key in (first.key, f"{first.seq:04d}", first.seq):
        assert module.file_at(key) == first.file, key
    special = module.point("after_adding_special-case_copies")
    assert special.kind == "snapshot" and special.file.name.endswith(
        "after_adding_special-case_copies.txt"
    )
    assert module.point("after_optimizations").key == "after"
    with pytest.raises(
        NoSuchPointError, match=r"has no pass 'nosuch' \(it has: before, after; passes"
    ):
        module.point("nosuch")


def test_a_stage_snapshot_sits_where_xla_writes_it(zoo: dict[str, Path], tmp_path: Path) -> None:
    """GpuCompiler writes after_spmd_partitioner after the SPMD pipelines; the
    CPU compiler writes none, so a real dump's own text after partitioning
    stands in for it."""
    folder = tmp_path / "spmd"
    shutil.copytree(zoo["spmd"], folder)
    module = index_dump(folder).module("jit_layer")
    last_spmd = max(p.seq for p in module.passes if "spmd" in p.pipeline)
    shutil.copy(
        module.file_at(last_spmd).path,
        folder / f"module_{module.id:04d}.jit_layer.after_spmd_partitioner.txt",
    )
    module = index_dump(folder).module("jit_layer")
    labels = [p.key for p in module.points()]
    at = labels.index("after_spmd_partitioner")
    assert labels[at - 1] == str(last_spmd) and labels[at + 1] == str(last_spmd + 1), labels
    stage = module.point("after_spmd_partitioner")
    assert (stage.kind, stage.title, stage.seq) == ("stage", "after SPMD partitioning", None)
    # The pass after the snapshot is compared with the snapshot, its neighbour now.
    same = module.file_at(last_spmd + 1).path.read_bytes() == stage.file.path.read_bytes()
    assert module.unchanged(last_spmd + 1) == same


def test_corpus_snapshots_are_points(corpus: Path) -> None:
    index = index_dump(
        corpus / "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap"
    )
    for module in index.modules:
        points = module.points()
        assert [p.key for p in points] == ["before", "after_spmd_partitioner", "after"], module.ref
        assert [p.kind for p in points] == ["stage"] * 3
        assert module.file_at("after_spmd_partitioner").name.endswith(".after_spmd_partitioner.txt")


# -- naming a module ------------------------------------------------------------


def test_a_module_by_id_in_every_form_and_by_name(corpus: Path) -> None:
    index = index_dump(corpus / "real_dumps/carlesoctav__fme")
    normal = index.module("jit__normal")
    for key in (
        "0029",
        "29",
        29,
        "module_0029",
        "xla_dump/0029",
        "xla_dump/jit__normal",
        normal.title,
    ):
        assert index.module(key) is normal, key
    with pytest.raises(ModuleLookupError) as err:
        index.module("jit_convert_element_type")
    assert "xla_dump/0001 jit_convert_element_type" in str(err.value)
    assert "xla_dump/0009 jit_convert_element_type" in str(err.value)
    assert [m.id for m in err.value.modules] == [1, 9]
    with pytest.raises(KeyError, match="no module 'jit_nosuch'"):
        index.module("jit_nosuch")


def test_same_ids_in_two_dumps(zoo: dict[str, Path], tmp_path: Path) -> None:
    """One dump per host: the same ids and names side by side."""
    for host in ("host0", "host1"):
        shutil.copytree(zoo["attention"], tmp_path / "run" / host)
    index = index_dump(tmp_path / "run")
    assert index.dumps == ["host0", "host1"]
    with pytest.raises(
        ModuleLookupError, match="host0/0000 jit_attention, host1/0000 jit_attention"
    ):
        index.module("0")
    assert index.module("host1/0000").dump == "host1"
    assert index.module("host1/jit_attention").dump == "host1"
    assert all(index.module(m.ref) is m for m in index.modules)


# -- the main module ------------------------------------------------------------

MAIN_MODULES = [
    ("Junyi-99__hlo-visualizer/examples/v6e-2x2", {"collectives.after.hlo (jit_collectives)"}),
    ("carlesoctav__fme", {"module_0027 jit_init"}),  # not jax.random's helpers, bigger as they are
    ("clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap",
     {"module_0011 jit_gspmd", "module_0014 jit_shardmap"}),
    ("morenfang__xla_hlo_dump_parse",
     {"module_0224 cluster_18__XlaCompiledKernel_true__"
      "XlaNumConstantArgs_143__XlaNumResourceArgs_0_.4119"}),
]  # fmt: skip


@pytest.mark.parametrize(
    "folder,titles", MAIN_MODULES, ids=[f[0].split("/")[0] for f in MAIN_MODULES]
)
def test_the_main_module_of_corpus_folders(corpus: Path, folder: str, titles: set) -> None:
    assert default_module(index_dump(corpus / "real_dumps" / folder)).title in titles


def test_the_main_module_of_one_module_and_of_none(tmp_path: Path) -> None:
    index = index_dump(sample_dump())
    assert default_module(index) is index.modules[0]
    with pytest.raises(ModuleLookupError, match="no XLA module files"):
        default_module(index_dump(tmp_path))


# -- kernel levels ----------------------------------------------------------------


def test_kernel_levels_are_those_the_backend_wrote(corpus: Path) -> None:
    cpu = index_dump(sample_dump()).module("jit_attention")
    assert module_levels(cpu).kernel_levels == ("ir_no_opt", "ir_with_opt"), "no PTX on CPU"
    fme = index_dump(corpus / "real_dumps/carlesoctav__fme")
    levels = module_levels(fme.module("jit__normal"))
    assert levels.kernel_levels == (
        "mlir_pre_optimization",
        "mlir_post_optimization",
        "mlir_post_lowering",
        "ir_no_opt",
        "ir_with_opt",
    )
    with_mlir = [k for k in levels.kernels.values() if k.mlir]
    assert with_mlir and all(
        f.name.endswith(".mlir")
        for k in with_mlir
        for key, f in k.levels()
        if key.startswith("mlir_")
    )
    rocm = index_dump(corpus / "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap")
    assert {module_levels(m).kernel_levels for m in rocm.modules} == {("ir_no_opt", "ir_with_opt")}
    tpu = index_dump(corpus / "real_dumps/Junyi-99__hlo-visualizer")
    assert {module_levels(m).kernel_levels for m in tpu.modules} == {()}


@pytest.mark.parametrize("frame,text", [
    (Frame("_linear.py", 55, 0, ""), "_linear.py:55"),
    (Frame("model.py", 12, 4, "forward"), "model.py:12 (forward)"),
])  # fmt: skip
def test_a_frame_without_a_function(frame: Frame, text: str) -> None:
    assert str(frame) == text
