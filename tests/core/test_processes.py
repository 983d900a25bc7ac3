"""Folders several processes wrote (ids repeat), and modules without a final
dump: every module told apart and found, the main module found across them,
reports kept with their module."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from programs.two_processes import BIG, FME, GSPMD, SMALL, copy_module, generate

from xlaview.dump.index import index_dump
from xlaview.dump.main_module import default_module, module_size, pick_module
from xlaview.dump.records import DumpIndex, DumpModule, ModuleLookupError
from xlaview.profile.events import EventTable, OpKey
from xlaview.profile.join import choose_module
from xlaview.profile.trace import Trace


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("jax")
    return generate(tmp_path_factory.mktemp("two_processes"))


def named(index: DumpIndex, name: str) -> list[DumpModule]:
    return [m for m in index.modules if m.name == name]


def no_repeated_passes(index: DumpIndex) -> None:
    twice = [p for p in index.problems if "dumped twice" in p.message]
    assert not twice, f"one process's passes shown as another's: {twice[:2]}"


# -- two JAX processes, one folder ---------------------------------------------------


def test_two_jax_processes_repeat_an_id_and_each_module_is_found(two_processes: Path) -> None:
    index = index_dump(two_processes)
    (big,) = named(index, BIG)
    (small,) = named(index, SMALL)
    assert big.id == small.id, "the two processes did not repeat an id: nothing here to test"
    n = f"{big.id:04d}"
    assert (big.ref, small.ref) == (f"{n}.{BIG}", f"{n}.{SMALL}"), "refs must tell them apart"
    for key in (big.ref, f"{big.id}.{BIG}", f"module_{n}.{BIG}", BIG):
        assert index.module(key) is big, key
    for key in (small.ref, f"{small.id}.{SMALL}", SMALL):
        assert index.module(key) is small, key
    with pytest.raises(ModuleLookupError, match=f"{n}.{BIG}, {n}.{SMALL}"):
        index.module(n)  # the strict lookup lists them by their refs
    assert big.after_optimizations and small.after_optimizations
    assert big.passes and small.passes
    no_repeated_passes(index)


def test_the_main_module_is_the_big_one_not_the_small_one_with_its_id(
    two_processes: Path,
) -> None:
    """jit__full_run is named like JAX's helpers (jit__normal) but is the
    user's: the main module, not the 25-instruction module of the other process."""
    index = index_dump(two_processes)
    main = default_module(index)
    assert main.name == BIG, f"main module {main.title} ({module_size(main)} instructions)"
    (small,) = named(index, SMALL)
    assert module_size(main) > module_size(small) > 0


def test_an_id_of_two_modules_takes_the_largest_and_says_so(two_processes: Path) -> None:
    index = index_dump(two_processes)
    (big,) = named(index, BIG)
    (small,) = named(index, SMALL)
    for key in (str(big.id), f"{big.id:04d}", f"module_{big.id:04d}"):
        module, note = pick_module(index, key)
        assert module is big, key
        assert note is not None and "using the largest" in note, note
        assert big.ref in note and small.ref in note, note
    assert pick_module(index, small.ref) == (small, None)
    assert pick_module(index, BIG) == (big, None)


def test_the_index_says_several_processes_wrote_the_folder(two_processes: Path) -> None:
    index = index_dump(two_processes)
    (big,) = named(index, BIG)
    assert index.processes, "nothing says two processes wrote the folder"
    assert any(big.ref in why for why in index.processes), index.processes
    document = index.to_json()
    assert document["several_processes"] is True
    refs = {m["name"]: m["ref"] for m in document["modules"]}
    assert refs[BIG] == big.ref


# -- real files of two modules under one id -----------------------------------------


@pytest.fixture
def gspmd_under_another_id(corpus: Path, tmp_path: Path) -> Path:
    """A ROCm dump's jit_gspmd (module_0011) written as module_0003 beside that
    dump's own module_0003, jit_broadcast_in_dim: what a second process writes."""
    source = corpus / GSPMD
    folder = tmp_path / "dump"
    copy_module(source, "module_0003.jit_broadcast_in_dim", folder)
    copy_module(source, "module_0011.jit_gspmd", folder, as_id=3)
    shutil.copytree(source / "jit_gspmd_1785936100892", folder / "jit_gspmd_1785936100892")
    return folder


def test_real_modules_under_one_id(gspmd_under_another_id: Path) -> None:
    index = index_dump(gspmd_under_another_id)
    assert [m.ref for m in index.modules] == ["0003.jit_broadcast_in_dim", "0003.jit_gspmd"]
    gspmd = index.module("0003.jit_gspmd")
    assert gspmd.name == "jit_gspmd" and gspmd.backend == "gpu"
    assert any(f.rel.startswith("jit_gspmd_1785936100892/") for f in gspmd.other_files)
    assert default_module(index) is gspmd
    assert pick_module(index, "3")[0] is gspmd
    assert index.processes and not index.problems, index.problems


# -- what shows the process: timestamps, backends, per-process folders ----------------


def test_timestamps_tell_two_processes_of_one_id_and_name_apart(
    corpus: Path, tmp_path: Path
) -> None:
    """Two processes compiled jit_init as module_0027 with
    --xla_dump_include_timestamp: each keeps its own passes and final dump."""
    source, folder = corpus / FME, tmp_path / "dump"
    first, second = "1700000000000001.", "1700000000900002."
    copy_module(source, "module_0027.jit_init", folder, prefix=first, stamp=True, mtime=1e9)
    copy_module(source, "module_0027.jit_init", folder, prefix=second, stamp=True, mtime=2e9)
    index = index_dump(folder)
    modules = named(index, "jit_init")
    assert [m.process for m in modules] == [first[:-1], second[:-1]]
    assert [m.ref for m in modules] == [
        f"0027.jit_init@{first[:-1]}",
        f"0027.jit_init@{second[:-1]}",
    ]
    for m in modules:
        assert len(m.passes) == 2 and m.before_optimizations and m.after_optimizations, m.title
        assert m.reports.buffer_assignment and m.reports.memory_usage, m.title
        assert index.module(m.ref) is m
    # Files XLA never stamps (debug options, LLVM IR) were written last by the second.
    assert any(f.name.endswith(".debug_options") for f in modules[1].other_files)
    no_repeated_passes(index)
    assert any("2 processes" in why for why in index.processes), index.processes


def test_a_cpu_and_a_gpu_compile_of_one_id_and_name(corpus: Path, tmp_path: Path) -> None:
    """jit_broadcast_in_dim compiled for ROCm (module_0003) by one process, then
    for CPU as module_0003 by another: the second's before-optimizations text
    replaced the first's; the final dumps and reports say which is which."""
    folder = tmp_path / "dump"
    copy_module(corpus / GSPMD, "module_0003.jit_broadcast_in_dim", folder, mtime=1e9)
    copy_module(corpus / FME, "module_0019.jit_broadcast_in_dim", folder, as_id=3, mtime=2e9)
    index = index_dump(folder)
    modules = {m.process: m for m in named(index, "jit_broadcast_in_dim")}
    assert set(modules) == {"gfx942_gpu", "cpu"}, "two compiles of one id and name"
    gpu, cpu = modules["gfx942_gpu"], modules["cpu"]
    assert (gpu.backend, cpu.backend) == ("gpu", "cpu")
    assert gpu.after_optimizations and "gfx942_gpu_after" in gpu.after_optimizations.name
    assert cpu.after_optimizations and "cpu_after" in cpu.after_optimizations.name
    assert gpu.reports.live_range and not cpu.reports.live_range
    assert "after_spmd_partitioner" in gpu.stages, "GpuCompiler's stage is the GPU compile's"
    assert cpu.before_optimizations and gpu.before_optimizations is None
    assert cpu.ref == "0003.jit_broadcast_in_dim@cpu" and index.module(cpu.ref) is cpu
    assert "(cpu)" in cpu.title


def test_per_process_folders_are_one_run(corpus: Path, tmp_path: Path) -> None:
    """--xla_dump_hlo_to_subfolder: <module>/<host>_<pid>/ per module and process.
    The main module is found among all of them, not only in the folder written last."""
    source, root = corpus / FME, tmp_path / "run"
    copy_module(
        source,
        "module_0019.jit_broadcast_in_dim",
        root / "jit_broadcast_in_dim/hostA_101",
        mtime=1e9,
    )
    copy_module(source, "module_0027.jit_init", root / "jit_init/hostA_101", mtime=1.1e9)
    copy_module(source, "module_0029.jit__normal", root / "jit__normal/hostB_202", mtime=2e9)
    index = index_dump(root)
    assert {m.name: m.process for m in index.modules} == {
        "jit_broadcast_in_dim": "hostA_101", "jit_init": "hostA_101", "jit__normal": "hostB_202",
    }  # fmt: skip
    assert default_module(index).name == "jit_init", "not jax.random's helper, written last"
    assert any("per-process folders" in why for why in index.processes), index.processes
    assert index.module("jit_init").title == "module_0027 jit_init"  # its folder names the process


def test_one_process_one_folder_says_nothing(corpus: Path) -> None:
    index = index_dump(corpus / FME)
    assert index.processes == [] and index.to_json()["several_processes"] is False
    assert all(m.process is None and m.ref == f"{m.id:04d}" for m in index.modules)


# -- a module without its after-optimizations dump ------------------------------------


def without_final(corpus: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "xla_dump"
    shutil.copytree(corpus / FME, folder)
    (folder / "module_0027.jit_init.cpu_after_optimizations.txt").unlink()
    return folder


def test_reports_stay_with_a_module_whose_final_dump_is_missing(
    corpus: Path, tmp_path: Path
) -> None:
    index = index_dump(without_final(corpus, tmp_path))
    init = index.module("jit_init")
    assert init.after_optimizations is None and len(init.passes) == 2
    assert init.reports.buffer_assignment and init.reports.memory_usage
    listed = [p for p in index.problems if "module_0027" in p.message or "0027" in p.path]
    assert not listed, f"its reports listed as problems: {listed}"
    assert module_size(init) > 0, "sized by its last pass dump"
    assert default_module(index) is init


def test_reports_of_a_module_with_no_hlo_text_at_all_are_a_problem(
    corpus: Path, tmp_path: Path
) -> None:
    folder = without_final(corpus, tmp_path)
    for path in folder.glob("module_0027.jit_init.*.txt"):
        if "buffer-assignment" not in path.name and "memory-usage" not in path.name:
            path.unlink()
    index = index_dump(folder)
    listed = [p for p in index.problems if "report without its module" in p.message]
    assert len(listed) == 2 and all("module_0027 jit_init" in p.message for p in listed)


def _trace_of(module: str | None) -> Trace:
    """A trace timing one op of ``module`` (None: nothing at all)."""
    table = EventTable()
    if module is not None:
        thread = table.thread_id("/device:CPU:0", "XLA Ops", 0)
        table.add(OpKey(module, "fusion", "/device:CPU:0", None), "run", thread, 0.0, 1e-3)
    return Trace(Path("trace"), (), table.finish(), len(table))


def test_profile_picks_of_an_id_two_processes_used_the_one_the_trace_timed(
    two_processes: Path,
) -> None:
    index = index_dump(two_processes)
    (big,) = named(index, BIG)
    (small,) = named(index, SMALL)
    key = str(big.id)
    assert choose_module(_trace_of(SMALL), index, key) is small, "the module that ran"
    assert choose_module(_trace_of(BIG), index, key) is big
    assert choose_module(_trace_of(None), index, key) is big, "nothing timed: the largest"
