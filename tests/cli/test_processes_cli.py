"""The commands on a folder two processes wrote (its module ids repeat) and on
a module whose after-optimizations dump is missing: each command works on the
module asked for, says which it took when several fit, and which text stands
in for a missing final dump."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from commands import xlaview
from programs.two_processes import BIG, FME, GSPMD, SMALL, copy_module, generate

ANALYSES = ("traffic", "cost", "boundaries")
# The commands whose JSON names the text read and the notes; boundaries keeps
# exactly its keys (its notes are on stderr only).
SAY_SOURCE = ("traffic", "cost")


def ok(*args: str) -> subprocess.CompletedProcess[str]:
    run = xlaview(*args, check=False, env={"JAX_PLATFORMS": "cpu"})
    assert run.returncode == 0, f"xlaview {' '.join(args)}: exit {run.returncode}: {run.stderr}"
    assert "Traceback" not in run.stderr, run.stderr
    return run


def notes(run: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in run.stderr.splitlines() if line.startswith("note: ")]


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("jax")
    return generate(tmp_path_factory.mktemp("two_processes"))


@pytest.fixture(scope="module")
def repeated_id(two_processes: Path) -> int:
    document = json.loads(ok("summary", "--json", str(two_processes)).stdout)
    ids = {m["name"]: m["id"] for m in document["modules"]}
    assert ids[BIG] == ids[SMALL], "the two processes did not repeat an id: nothing to test"
    return ids[BIG]


# -- two processes, one folder -------------------------------------------------------


@pytest.mark.parametrize("command", ANALYSES)
def test_without_module_the_big_module_of_the_repeated_id(
    two_processes: Path, repeated_id: int, command: str
) -> None:
    run = ok(command, "--json", str(two_processes))
    document = json.loads(run.stdout)
    assert document["module"] == BIG, f"{command} analysed {document['module']}, not {BIG}"
    assert notes(run) == [], run.stderr
    if command in SAY_SOURCE:
        assert f"module_{repeated_id:04d}.{BIG}." in Path(document["file"]).name
        assert document["notes"] == []


@pytest.mark.parametrize("command", ANALYSES)
def test_an_id_two_modules_share_takes_the_largest_and_says_so_once(
    two_processes: Path, repeated_id: int, command: str
) -> None:
    run = ok(command, "--json", str(two_processes), "--module", str(repeated_id))
    document = json.loads(run.stdout)
    assert document["module"] == BIG
    (said,) = notes(run)  # once, though traffic and boundaries resolve the module twice
    n = f"{repeated_id:04d}"
    assert f"2 modules match '{repeated_id}': using the largest, {n}.{BIG}" in said, said
    assert f"{n}.{SMALL}" in said, "the note names the other module"
    if command in SAY_SOURCE:
        assert document["notes"] == [said.removeprefix("note: ")]


@pytest.mark.parametrize(
    "key,name",
    [("{n}.{SMALL}", SMALL), ("{i}.{SMALL}", SMALL), ("module_{n}.{BIG}", BIG), (BIG, BIG),
     (SMALL, SMALL)],
)  # fmt: skip
def test_every_module_of_the_repeated_id_by_its_ref_or_name(
    two_processes: Path, repeated_id: int, key: str, name: str
) -> None:
    key = key.format(n=f"{repeated_id:04d}", i=repeated_id, SMALL=SMALL, BIG=BIG)
    run = ok("traffic", "--json", str(two_processes), "--module", key)
    assert json.loads(run.stdout)["module"] == name, key
    assert notes(run) == [], run.stderr


def test_summary_says_several_processes_wrote_the_folder(
    two_processes: Path, repeated_id: int
) -> None:
    document = json.loads(ok("summary", "--json", str(two_processes)).stdout)
    assert document["several_processes"] is True and document["processes"]
    refs = sorted(m["ref"] for m in document["modules"])
    n = f"{repeated_id:04d}"
    assert refs == [f"{n}.{BIG}", f"{n}.{SMALL}"]
    text = ok("summary", str(two_processes)).stdout
    assert "several processes wrote this folder" in text, text
    assert f"{n}.{BIG}" in text and "ID.NAME" in text


def test_diff_of_the_small_module_by_its_ref(two_processes: Path, repeated_id: int) -> None:
    ref = f"{repeated_id:04d}.{SMALL}"
    run = ok(
        "diff", "--json", str(two_processes), "--module", ref, "--from", "before", "--to", "after"
    )
    assert json.loads(run.stdout)["module"] == SMALL


def test_export_of_a_folder_whose_ids_repeat(two_processes: Path, tmp_path: Path) -> None:
    """export used to fail with "2 modules match": the window is now told the
    module by a ref that names one."""
    out = tmp_path / "window.png"
    run = ok("export", str(two_processes), "--out", str(out))
    assert out.stat().st_size > 0, run.stderr


# -- real files of two modules under one id -----------------------------------------


def test_real_modules_under_one_id(corpus: Path, tmp_path: Path) -> None:
    source, folder = corpus / GSPMD, tmp_path / "dump"
    copy_module(source, "module_0003.jit_broadcast_in_dim", folder)
    copy_module(source, "module_0011.jit_gspmd", folder, as_id=3)
    out = json.loads(ok("traffic", "--json", str(folder)).stdout)
    assert out["module"] == "jit_gspmd" and "module_0003.jit_gspmd." in out["file"]
    assert json.loads(ok("boundaries", "--json", str(folder)).stdout)["module"] == "jit_gspmd"
    run = ok("cost", "--json", str(folder), "--module", "0003.jit_broadcast_in_dim")
    assert json.loads(run.stdout)["module"] == "jit_broadcast_in_dim" and notes(run) == []


# -- a module without its after-optimizations dump ------------------------------------


@pytest.fixture
def without_final(corpus: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "xla_dump"
    shutil.copytree(corpus / FME, folder)
    (folder / "module_0027.jit_init.cpu_after_optimizations.txt").unlink()
    return folder


LAST_PASS = (
    "module_0027.jit_init.0001.spmd-partitioner.after_spmd-partitioning.before_pipeline-end.txt"
)


@pytest.mark.parametrize("command", ANALYSES)
@pytest.mark.parametrize("module", [None, "jit_init", "27"])
def test_a_module_without_a_final_dump_uses_its_last_pass_dump(
    without_final: Path, command: str, module: str | None
) -> None:
    args = (command, "--json", str(without_final)) + (("--module", module) if module else ())
    run = ok(*args)
    document = json.loads(run.stdout)
    assert document["module"] == "jit_init"
    (said,) = notes(run)
    assert said == (
        "note: module_0027 jit_init has no after-optimizations dump: using its last pass dump, "
        + LAST_PASS
    )
    if command in SAY_SOURCE:
        assert Path(document["file"]).name == LAST_PASS, document["file"]
        assert document["notes"] == [said.removeprefix("note: ")]


def test_summary_keeps_the_reports_of_a_module_without_a_final_dump(without_final: Path) -> None:
    document = json.loads(ok("summary", "--json", str(without_final)).stdout)
    (init,) = [m for m in document["modules"] if m["name"] == "jit_init"]
    assert init["after_optimizations"] is None and len(init["passes"]) == 2
    assert init["reports"]["buffer_assignment"] and init["memory"]["total_bytes"] > 0
    about = [p for p in document["problems"] if "0027" in p["path"] + p["message"]]
    assert not about, f"its reports listed as problems: {about}"


def test_a_module_with_no_hlo_text_is_one_line_exit_2(without_final: Path) -> None:
    for path in without_final.glob("module_0027.jit_init.*.txt"):
        if "buffer-assignment" not in path.name and "memory-usage" not in path.name:
            path.unlink()
    run = xlaview("traffic", str(without_final), "--module", "jit_init", check=False)
    assert run.returncode == 2, run
    assert run.stderr.strip() == (
        "xlaview traffic: module_0027 jit_init has no HLO text here "
        "(only reports: buffer_assignment, memory_usage)"
    )
