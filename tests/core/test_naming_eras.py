"""File names of every era and framework that the index once got wrong: the
dialect-prefixed MLIR of 2022 GPU dumps, modules dumped as LLVM IR only,
TensorFlow cluster names, and the files XLA writes empty as a matter of course."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from commands import xlaview

from xlaview.dump.checks import empty_files
from xlaview.dump.index import index_dump
from xlaview.dump.naming import FileKind, guess_module_name, parse_file_name, routinely_empty

# --------------------------------------------------------------------------- names


# XLA:GPU 2021-2023 wrote the LMHLO it emitted from, named by
# FilenameFor(module, /*prefix=*/"lmhlo", /*suffix=*/"mlir"): the dialect in front.
DIALECT_NAMES = [
    ("lmhlo.module_0053.pjit_train_step.mlir", (53, "pjit_train_step", "lmhlo")),
    ("lmhlo.module_0007.cluster_7.7.mlir", (7, "cluster_7.7", "lmhlo")),
    ("lmhlo.module_0012.mlir", (12, None, "lmhlo")),
]


@pytest.mark.parametrize("name,expected", DIALECT_NAMES, ids=[n for n, _ in DIALECT_NAMES])
def test_dialect_prefixed_mlir(name: str, expected: tuple[int, str | None, str]) -> None:
    parsed = parse_file_name(name)
    assert parsed is not None, name
    assert (parsed.module_id, parsed.module_name, parsed.dialect) == expected
    assert (parsed.kind, parsed.format) == (FileKind.OTHER, "mlir")


GUESSES = [
    # (what follows module_NNNN. in a file no HLO dump names, the module name)
    # TensorFlow names end in XLA's ".<id>"; before, ".7" went with the suffix.
    ("cluster_7.7.ir-no-opt.ll", "cluster_7.7"),
    ("cluster_7.7.ptx", "cluster_7.7"),
    ("cluster_7.7.thunk_schedule", "cluster_7.7"),
    ("cluster_7.7.sdc_metadata.txt", "cluster_7.7"),
    ("cluster_0__XlaCompiledKernel_true__XlaNumResourceArgs_0_.65.ir-with-opt.ll",
     "cluster_0__XlaCompiledKernel_true__XlaNumResourceArgs_0_.65"),
    ("SyncTensorsGraph.1053.ptx", "SyncTensorsGraph.1053"),
    ("jit_f.wrapped_reduce-window.1_kernel_module.ir-no-opt.ll", "jit_f"),
    ("jit_f.obj-file.fusion.1_kernel_module.o", "jit_f"),
    ("jit_f.constants.ir-no-opt.ll", "jit_f"),
    ("jit_f.debug_options", "jit_f"),
    # A suffix alone (dumps before 2021-06 named no module): no name, not "ir-no-opt".
    ("ir-no-opt.ll", None),
    ("ir-with-opt.ll", None),
    ("ir-no-opt-noconst.ll", None),
    ("ir-with-opt.3.ll", None),
    ("ptx", None),
    ("thunk_schedule", None),
    ("sdc_metadata.txt", None),
    ("metadata.textproto", None),
    ("", None),
]  # fmt: skip


@pytest.mark.parametrize("rest,name", GUESSES, ids=[g[0] or "(empty)" for g in GUESSES])
def test_module_name_guess(rest: str, name: str | None) -> None:
    assert guess_module_name(rest) == name


ROUTINE = [
    ("module_0064.jit_step.cl_854318611.sdc_metadata.txt", "silent-data-corruption"),
    ("module_0011.jit_matmul.ptx", "library calls"),
    ("module_0011.jit_matmul.3.ptx", "library calls"),
    ("module_0011.jit_matmul.spv", "library calls"),
    ("module_0011.jit_matmul.debug_options", "default"),
]
NOT_ROUTINE = [
    "module_0011.jit_matmul.ir-no-opt.ll",
    "module_0011.jit_matmul.sm_8.0_gpu_after_optimizations.txt",
    "module_0011.jit_matmul.before_optimizations.txt",
    "module_0011.jit_matmul.0003.simp.after_a.before_b.txt",
    "module_0011.jit_matmul.cpu_after_optimizations-buffer-assignment.txt",
    "module_0011.jit_matmul.obj-file.fusion_kernel_module.o",
    "notes.ptx",  # not from XLA's dumper
]


@pytest.mark.parametrize("name,words", ROUTINE, ids=[r[0] for r in ROUTINE])
def test_routinely_empty(name: str, words: str) -> None:
    why = routinely_empty(name)
    assert why is not None and words in why


@pytest.mark.parametrize("name", NOT_ROUTINE)
def test_empty_is_a_problem(name: str) -> None:
    assert routinely_empty(name) is None


# --------------------------------------------------------------------------- folders

HLO = (
    "HloModule {name}, is_scheduled=true\n\n"
    "ENTRY %main () -> f32[] {{\n  ROOT %c = f32[] constant(1)\n}}\n"
)


def write(path: Path, text: str = "") -> None:
    path.write_text(text)


@pytest.fixture
def tpu_and_library_dump(tmp_path: Path) -> Path:
    """64 TPU modules with their empty sdc_metadata.txt, a GPU module of library
    calls only with an empty PTX, and two files empty by accident."""
    for i in range(64):
        stem = f"module_{i:04d}.jit_step_{i}.cl_854318611"
        write(tmp_path / f"{stem}.after_optimizations.txt", HLO.format(name=f"jit_step_{i}"))
        write(tmp_path / f"{stem}.sdc_metadata.txt")
    gpu = "module_0100.jit_matmul"
    write(tmp_path / f"{gpu}.sm_8.0_gpu_after_optimizations.txt", HLO.format(name="jit_matmul"))
    write(tmp_path / f"{gpu}.ptx")
    write(tmp_path / f"{gpu}.ir-no-opt.ll")  # an LLVM module always prints its ModuleID
    write(tmp_path / "module_0101.jit_h.before_optimizations.txt")  # an empty HLO text
    return tmp_path


def test_routine_empty_files_are_not_problems(tpu_and_library_dump: Path) -> None:
    index = index_dump(tpu_and_library_dump)
    assert sorted(p.path for p in index.problems) == [
        "module_0100.jit_matmul.ir-no-opt.ll",
        "module_0101.jit_h.before_optimizations.txt",
    ]
    assert all(p.message == "empty file" for p in index.problems)
    listed = empty_files(index)
    assert len(listed) == 65
    assert sum("sdc_metadata" in f.name for f, _ in listed) == 64
    assert [f.name for f, why in listed if f.name.endswith(".ptx")] == [
        "module_0100.jit_matmul.ptx"
    ]
    # They are still files of their modules.
    sdc = next(m for m in index.modules if m.name == "jit_step_3").other_files
    assert [f.name for f in sdc] == ["module_0003.jit_step_3.cl_854318611.sdc_metadata.txt"]


def test_summary_lists_empty_files_apart(tpu_and_library_dump: Path) -> None:
    document = json.loads(xlaview("summary", "--json", str(tpu_and_library_dump)).stdout)
    assert len(document["problems"]) == 2
    empty = {e["path"]: e["note"] for e in document["empty_files"]}
    assert len(empty) == 65 and "library calls" in empty["module_0100.jit_matmul.ptx"]
    matmul = next(m for m in document["modules"] if m["name"] == "jit_matmul")
    assert "module_0100.jit_matmul.ptx" in matmul["other_files"], "the JSON keys stay"
    text = xlaview("summary", str(tpu_and_library_dump)).stdout
    assert "65 empty files, as XLA writes them (not problems):" in text
    assert "and 63 more: TPU silent-data-corruption" in text
    assert "2 problems:" in text


def test_lmhlo_files_belong_to_their_module(tmp_path: Path) -> None:
    """A 2022 GPU dump: one lmhlo.module_*.mlir beside each module's HLO."""
    for i, name in ((1, "pjit_init"), (53, "pjit_train_step"), (7, "cluster_7.7")):
        stem = f"module_{i:04d}.{name}"
        write(tmp_path / f"{stem}.sm_7.0_gpu_after_optimizations.txt", HLO.format(name=name))
        write(tmp_path / f"lmhlo.{stem}.mlir", "module @m {\n}\n")
    index = index_dump(tmp_path)
    assert index.unrecognized == [] and index.problems == []
    for module in index.modules:
        assert [f.name for f in module.other_files] == [
            f"lmhlo.module_{module.id:04d}.{module.name}.mlir"
        ]


IR_HEAD = (
    "; ModuleID = '{module_id}'\n"
    'source_filename = "{source}"\n'
    'target triple = "nvptx64-nvidia-cuda"\n'
)


def test_ir_only_modules_are_named_by_their_ir(tmp_path: Path) -> None:
    """Dumps before 2021-06 named no module in their files; a module dumped as
    LLVM IR only (no HLO text) takes its name from the IR, not from "ir-no-opt"."""
    write(
        tmp_path / "module_0003.ir-no-opt.ll", IR_HEAD.format(module_id="cluster_3.3", source="x")
    )
    write(tmp_path / "module_0003.ir-with-opt.ll", IR_HEAD.format(module_id="other", source="y"))
    write(tmp_path / "module_0003.ptx", "//\n.version 7.0\n")
    # ModuleID missing: source_filename; XLA:CPU's "__compute_module" names no module.
    write(tmp_path / "module_0004.ir-no-opt.ll", 'source_filename = "jit_f"\n')
    write(
        tmp_path / "module_0005.ir-no-opt.ll",
        IR_HEAD.format(module_id="__compute_module", source="__compute_module"),
    )
    # A TensorFlow cluster whose only files name it: its ".7" stays.
    write(
        tmp_path / "module_0007.cluster_7.7.ir-no-opt.ll",
        IR_HEAD.format(module_id="cluster_7.7", source="cluster_7.7"),
    )
    write(tmp_path / "module_0007.cluster_7.7.ptx", "//\n")
    index = index_dump(tmp_path)
    names = {m.id: m.name for m in index.modules}
    assert names == {3: "cluster_3.3", 4: "jit_f", 5: None, 7: "cluster_7.7"}
    by_id = {m.id: m for m in index.modules}
    assert len(by_id[3].other_files) == 3 and by_id[3].backend == "gpu"
    assert len(by_id[7].other_files) == 2, "one module, not one per guessed name"
