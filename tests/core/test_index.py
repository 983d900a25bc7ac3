"""Dump folders: file names of every XLA era, the module index, broken folders."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xlaview.dump.checks import sniff
from xlaview.dump.index import index_dump
from xlaview.dump.naming import FileKind, parse_file_name

NAMES = [
    # file name -> (module id, module name, kind, details)
    ("module_0000.jit_attn.0005.HLO_passes_through_layout_assignment.after_float-normalization-bf16.before_float-normalization-f8e5m2.txt",
     (0, "jit_attn", FileKind.PASS,
      {"seq": 5, "pipeline": "HLO_passes_through_layout_assignment",
       "after": "float-normalization-bf16", "before": "float-normalization-f8e5m2"})),
    ("module_0000.jit_attn.0033.copy-insertion.after_adding_copies_to_resolve_interference.txt",
     (0, "jit_attn", FileKind.SNAPSHOT,
      {"seq": 33, "pipeline": "copy-insertion",
       "after": "adding_copies_to_resolve_interference", "before": None})),
    ("module_0000.jit_attn.cpu_after_optimizations-buffer-assignment-values.txt",
     (0, "jit_attn", FileKind.REPORT,
      {"report": "buffer_assignment_values", "backend_prefix": "cpu"})),
    ("module_0039.after_optimizations.txt",
     (39, None, FileKind.STAGE, {"stage": "after_optimizations"})),
    ("module_0001.jit_convert_element_type.gfx942_gpu_after_optimizations.txt",
     (1, "jit_convert_element_type", FileKind.STAGE, {"backend_prefix": "gfx942_gpu"})),
    ("module_0002.jit_f.sm_8.0_gpu_after_optimizations-memory-usage-report.txt",
     (2, "jit_f", FileKind.REPORT, {"backend_prefix": "sm_8.0_gpu", "report": "memory_usage"})),
    ("module_0267.jit_train_step.cl_854318611.after_optimizations.txt",
     (267, "jit_train_step", FileKind.STAGE, {"changelist": 854318611})),
    ("1646136118794537.module_4922.cluster_0__XlaCompiledKernel_true__XlaNumResourceArgs_0_.65.before_optimizations.txt",
     (4922, "cluster_0__XlaCompiledKernel_true__XlaNumResourceArgs_0_.65", FileKind.STAGE,
      {"timestamp": 1646136118794537})),
    ("module_0001.SyncTensorsGraph.1053.0005.optimization.after_x.before_y.txt",
     (1, "SyncTensorsGraph.1053", FileKind.PASS, {"seq": 5})),
    ("module_12345.big.0000.p.after_pipeline-start.before_pipeline-end.txt",
     (12345, "big", FileKind.PASS, {})),
    ("module_0031.tt_jit_fwd_relu.after_codegen.txt",
     (31, "tt_jit_fwd_relu", FileKind.STAGE, {"stage": "after_codegen"})),
    ("module_0000.jit_attn.before_optimizations.dot",
     (0, "jit_attn", FileKind.STAGE, {"format": "dot"})),
    ("module_0000.jit_f.after_optimizations.top_level.html",
     (0, "jit_f", FileKind.STAGE, {"format": "top_level.html"})),
    ("module_0000.jit_attn.debug_options", (0, None, FileKind.OTHER, {})),
    ("fused_computation.module_0001.jit_f._fusion.html", (1, "jit_f", FileKind.OTHER, {})),
]  # fmt: skip


@pytest.mark.parametrize("name,expected", NAMES, ids=[n[:50] for n, _ in NAMES])
def test_file_names(name: str, expected: tuple) -> None:
    module_id, module_name, kind, details = expected
    parsed = parse_file_name(name)
    assert parsed is not None
    assert (parsed.module_id, parsed.module_name, parsed.kind) == (module_id, module_name, kind)
    for key, value in details.items():
        assert getattr(parsed, key) == value, f"{key}: {getattr(parsed, key)!r}"


def test_non_dump_names() -> None:
    assert parse_file_name("README.md") is None
    assert parse_file_name("gfx950_gpu_after_optimizations.txt") is None


@pytest.mark.slow
@pytest.mark.parametrize("program", ["attention", "mlp_grad", "scan", "cond", "conv", "spmd"])
def test_fresh_dump_indexes_every_file(zoo: dict[str, Path], program: str) -> None:
    folder = zoo[program]
    index = index_dump(folder)
    assert len(index.modules) >= 1 and not index.problems and not index.unrecognized
    main = max(index.modules, key=lambda m: len(m.passes))
    assert main.backend == "cpu"
    assert main.before_optimizations and main.after_optimizations
    assert all(f for _, f in main.reports.items()), "all four reports of the final module"
    seqs = [p.seq for p in main.passes]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    pass_files = sorted(
        p.name for p in folder.glob(f"module_{main.id:04d}.*.[0-9][0-9][0-9][0-9].*.txt")
    )
    assert sorted(p.file.name for p in main.passes) == pass_files, "every pass file, once"
    listed = {f.path for m in index.modules for f in m.all_files()}
    on_disk = {p.absolute() for p in folder.rglob("*") if p.is_file()}
    assert listed == on_disk, f"not indexed: {sorted(str(p) for p in on_disk - listed)[:5]}"


CORPUS_FOLDERS = [
    # folder, modules, backends, expectations on one module
    ("carlesoctav__fme", 15, {"cpu"},
     ("jit_init", {"passes": [0, 1], "reports": {"buffer_assignment", "memory_usage"}})),
    ("clarkechong__scale-your-amd", 8, {"gpu"},
     ("jit_gspmd",
      {"passes": [],
       "reports": {"buffer_assignment", "buffer_assignment_values", "live_range", "memory_usage"},
       "stages": {"after_spmd_partitioner"},
       "subfolder": "jit_gspmd_1785936100892"})),
    # 2020 TF: no names in file names; backends where the first KB show one (cuDNN calls).
    ("morenfang__xla_hlo_dump_parse", 109, {"gpu", None},
     ("module_0039", {"passes": [], "reports": set()})),
    # Folders of lone HLO texts: a module each.
    ("JueonPark__HLO_breakdown", 3, {None},
     ("bert_ndp_bw_hlo.txt", {"passes": [], "reports": set()})),
    ("Junyi-99__hlo-visualizer", 3, {"tpu"}, ("jit_cond_switch", {"passes": [], "reports": set()})),
    ("Gordi42__fridom", 1, {"gpu"}, ("jit_f", {"passes": [], "reports": set()})),
]  # fmt: skip


@pytest.mark.parametrize(
    "folder,count,backends,expect", CORPUS_FOLDERS, ids=[f[0] for f in CORPUS_FOLDERS]
)
def test_corpus_dump_folders(corpus: Path, folder: str, count: int, backends: set, expect) -> None:
    index = index_dump(corpus / "real_dumps" / folder)
    assert len(index.modules) == count
    assert {m.backend for m in index.modules} == backends
    assert not index.problems, index.problems
    files_on_disk = sum(1 for p in (corpus / "real_dumps" / folder).rglob("*") if p.is_file())
    listed = sum(len(m.all_files()) for m in index.modules) + len(index.unrecognized)
    assert listed == files_on_disk, "every file is listed, once"
    assert all(m.name for m in index.modules), "every module has a name, from its file or its text"
    assert all(m.timeline() for m in index.modules), "every module has an HLO text"
    if expect:
        name, facts = expect
        module = index.module(name)
        assert [p.seq for p in module.passes] == facts["passes"]
        assert {k for k, v in module.reports.items() if v} == facts["reports"]
        if "stages" in facts:
            assert set(module.stages) == facts["stages"]
        if "subfolder" in facts:
            assert any(facts["subfolder"] in f.rel for f in module.other_files)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for p in folder.rglob("*"):
        try:
            st = p.lstat()
        except OSError:
            continue
        out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def broken_dump(zoo: dict[str, Path], tmp_path: Path) -> Path:
    """A real dump with the usual kinds of damage added."""
    folder = tmp_path / "broken"
    shutil.copytree(zoo["attention"], folder)
    (after,) = folder.glob("*cpu_after_optimizations.txt")
    text = after.read_text()
    after.write_text(text[: len(text) // 2])  # cut in the middle
    (folder / "module_0077.jit_junk.before_optimizations.txt").write_bytes(os.urandom(3000) + b"\0")
    (folder / "module_0078.jit_empty.before_optimizations.txt").write_text("")
    (folder / "random.bin").write_bytes(os.urandom(100))
    (folder / "loop_a").symlink_to(folder / "loop_b")
    (folder / "loop_b").symlink_to(folder / "loop_a")
    (folder / "subdir_loop").symlink_to(folder, target_is_directory=True)
    (ba,) = folder.glob("*cpu_after_optimizations-buffer-assignment.txt")
    shutil.copy(ba, folder / "module_0099.jit_other.cpu_after_optimizations-buffer-assignment.txt")
    unreadable = folder / "module_0080.jit_locked.before_optimizations.txt"
    unreadable.write_text("HloModule x\n")
    unreadable.chmod(0)
    return folder


def test_broken_folder_still_lists_everything(broken_dump: Path) -> None:
    before = snapshot(broken_dump)
    index = index_dump(broken_dump)
    problems = index.problems + sniff(index)
    by_path = {p.path: p.message for p in problems}
    assert any("loop_a" in p for p in by_path), problems
    assert any("cut short" in m for m in by_path.values()), problems
    assert any("binary" in m and "jit_junk" in p for p, m in by_path.items()), problems
    assert any("empty" in m and "jit_empty" in p for p, m in by_path.items()), problems
    assert any("without its module" in m and "jit_other" in p for p, m in by_path.items())
    assert index.module("jit_attention").after_optimizations is not None
    assert "random.bin" in [f.rel for f in index.unrecognized]
    assert snapshot(broken_dump) == before, "indexing wrote into the dump folder"


def test_summary_cli_on_broken_folder(broken_dump: Path) -> None:
    before = snapshot(broken_dump)
    proc = subprocess.run(
        [sys.executable, "-m", "xlaview", "summary", "--json", str(broken_dump)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert {m["name"] for m in document["modules"]} >= {"jit_attention", "jit_junk", "jit_empty"}
    assert document["problems"]
    assert all(not Path(f).is_absolute() for m in document["modules"] for f in m["other_files"])
    text = subprocess.run(
        [sys.executable, "-m", "xlaview", "summary", str(broken_dump)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert text.returncode == 0 and "problems" in text.stdout and "jit_attention" in text.stdout
    assert snapshot(broken_dump) == before


def test_unchanged_passes_are_found_lazily(zoo: dict[str, Path]) -> None:
    index = index_dump(zoo["attention"])
    module = index.module("jit_attention")
    flags = {p.seq: module.unchanged(p.seq) for p in module.passes}
    for p in module.passes:
        points = [f for _, f in module.timeline()]
        i = points.index(p.file)
        same = points[i - 1].path.read_bytes() == p.file.path.read_bytes()
        assert flags[p.seq] == same, p.file.name
    assert any(flags.values()), "pipeline-start dumps repeat their input"
    fresh = index_dump(zoo["attention"]).module("jit_attention")
    assert fresh.unchanged_passes() == flags, "one walk gives the same answers"


def test_module_cache_parses_a_file_once_for_threads_asking_together(monkeypatch) -> None:
    import threading
    import time

    from xlaview.dump import modules
    from xlaview.resources import sample_dump

    (path,) = sample_dump().glob("*cpu_after_optimizations.txt")
    parse = modules.load_text
    calls = []

    def slow_parse(p, text, **kwargs):
        calls.append(p)
        time.sleep(0.2)  # long enough for the second thread to ask meanwhile
        return parse(p, text, **kwargs)

    monkeypatch.setattr(modules, "load_text", slow_parse)
    cache = modules.ModuleCache()
    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.load(path))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert results[0] is results[1]
