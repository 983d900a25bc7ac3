"""The commands on real folders as a new user meets them: lone HLO texts, 2020
names, snapshots, module ids, the small things a first run shows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xlaview.resources import sample_dump

SAMPLE = sample_dump()
V6E = "real_dumps/Junyi-99__hlo-visualizer/examples/v6e-2x2"
GSPMD = "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap"


def xlaview(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xlaview", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def ok(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    proc = xlaview(*args, env=env)
    assert proc.returncode == 0, f"xlaview {' '.join(args)}: {proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def user_error(*args: str, env: dict | None = None) -> str:
    """The one line a user error prints (exit status 2)."""
    proc = xlaview(*args, env=env)
    assert proc.returncode == 2, f"xlaview {' '.join(args)}: {proc.returncode} {proc.stderr}"
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def first_line_name(path: Path) -> str:
    return path.read_text().split(maxsplit=2)[1].rstrip(",")


# -- contract -----------------------------------------------------------------------


def test_summary_json_of_plain_hlo_texts(corpus: Path) -> None:
    root = corpus / V6E
    document = json.loads(ok("summary", "--json", str(root)).stdout)
    modules = document["modules"]
    files = sorted(p.name for p in root.iterdir())
    assert len(modules) == len(files) and document["unrecognized"] == []
    for module in modules:
        (text,) = [module["after_optimizations"] or module["before_optimizations"]]
        assert module["name"] == first_line_name(root / text), text
        assert module["backend"] == "tpu"
    assert sorted(m["after_optimizations"] or m["before_optimizations"] for m in modules) == files


def test_summary_json_names_every_2020_module(corpus: Path) -> None:
    root = corpus / "real_dumps/morenfang__xla_hlo_dump_parse"
    document = json.loads(ok("summary", "--json", str(root)).stdout)
    assert len(document["modules"]) == 109
    for module in document["modules"]:
        assert module["name"] == first_line_name(root / module["after_optimizations"])


def test_export_selects_in_a_folder_of_hlo_texts(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "y.png"
    proc = ok("export", str(corpus / V6E), "--select", "copy-done", "--out", str(out))
    assert out.stat().st_size > 10_000
    assert "propagateSizeHints" not in proc.stderr, "the offscreen plugin's notice is dropped"


@pytest.mark.parametrize("key", ["0011", "11", "module_0011", "jit_gspmd"])
def test_export_of_a_module_by_any_key(corpus: Path, tmp_path: Path, key: str) -> None:
    out = tmp_path / "g.svg"
    ok(
        "export",
        str(corpus / GSPMD),
        "--module",
        key,
        "--select",
        "custom-call.1",
        "--out",
        str(out),
    )
    assert "all-reduce-start" in out.read_text(), "jit_gspmd's graph"


def test_export_at_a_padded_pass_number(tmp_path: Path) -> None:
    out = tmp_path / "p.svg"
    ok("export", str(SAMPLE), "--pass", "0005", "--out", str(out))
    assert out.stat().st_size > 1000


def test_export_at_a_snapshot(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "s.svg"
    ok(
        "export",
        str(corpus / GSPMD),
        "--module",
        "0011",
        "--pass",
        "after_spmd_partitioner",
        "--select",
        "dot",
        "--out",
        str(out),
    )
    assert "all-reduce-start" not in out.read_text(), "the partitioned module, not the final one"


def test_diff_to_a_snapshot(corpus: Path) -> None:
    out = json.loads(
        ok(
            "diff",
            "--json",
            str(corpus / GSPMD),
            "--module",
            "module_0011",
            "--from",
            "before",
            "--to",
            "after_spmd_partitioner",
        ).stdout
    )
    assert out["to_file"].endswith("jit_gspmd.after_spmd_partitioner.txt")
    assert "main.0_spmd" in out["computations_added"], "the partitioned entry"


def test_pass_numbers_as_file_names_print_them() -> None:
    summary = json.loads(ok("summary", "--json", str(SAMPLE)).stdout)
    seq = summary["modules"][0]["passes"][5]["seq"]
    padded = json.loads(
        ok("diff", "--json", str(SAMPLE), "--from", f"{seq:04d}", "--to", "after").stdout
    )
    plain = json.loads(
        ok("diff", "--json", str(SAMPLE), "--from", str(seq), "--to", "after").stdout
    )
    assert padded["from_file"] == plain["from_file"]


# -- naming modules ------------------------------------------------------------------


@pytest.mark.parametrize("key", ["0000", "0", "module_0000", "jit_attention"])
def test_module_keys(key: str) -> None:
    out = json.loads(ok("traffic", "--json", str(SAMPLE), "--module", key).stdout)
    assert out["module"] == "jit_attention"


def test_a_shared_name_takes_the_largest_and_lists_the_others(
    zoo: dict[str, Path], tmp_path: Path
) -> None:
    for host in ("host0", "host1"):
        shutil.copytree(zoo["attention"], tmp_path / host)
    run = ok("traffic", "--json", str(tmp_path), "--module", "jit_attention")
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("note: 2 modules match 'jit_attention': using the largest"), line
    assert "host0/0000 jit_attention" in line and "host1/0000 jit_attention" in line
    assert json.loads(run.stdout)["notes"] == [line.removeprefix("note: ")]
    out = json.loads(ok("traffic", "--json", str(tmp_path), "--module", "host1/0000").stdout)
    assert out["module"] == "jit_attention" and out["notes"] == []
    assert "/host1/" in out["file"]


# -- small things ------------------------------------------------------------------


@pytest.mark.parametrize("args,message", [
    (["export", str(SAMPLE), "--select", "nosuch", "--out", "x.png"],
     "no instruction 'nosuch' in module_0000 jit_attention at after optimizations"),
    (["export", str(SAMPLE), "--pass", "nosuch", "--out", "x.png"],
     "jit_attention has no pass 'nosuch' (it has: before, after; passes 0..37)"),
    (["export", str(SAMPLE), "--module", "jit_nosuch", "--out", "x.png"],
     "no module 'jit_nosuch'"),
])  # fmt: skip
def test_export_errors_come_before_qt(args: list[str], message: str) -> None:
    # A platform that does not exist: had Qt started, it would have aborted.
    line = user_error(*args, env={"QT_QPA_PLATFORM": "nosuchplatform"})
    assert message in line, line


def test_summary_counts_a_lone_file(tmp_path: Path) -> None:
    (after,) = SAMPLE.glob("*cpu_after_optimizations.txt")
    shutil.copy(after, tmp_path / "model.txt")
    first = ok("summary", str(tmp_path)).stdout.splitlines()[0]
    size = after.stat().st_size / 1024
    assert first.endswith(f": 1 module, 1 file, {size:.1f} KiB"), first


@pytest.mark.slow
def test_traffic_elides_a_value_read_many_times(tmp_path: Path) -> None:
    script = (
        "import jax, jax.numpy as jnp, xlaview\n"
        "def fan_out(x, w):\n"
        "    h = jnp.tanh(x @ w)\n"
        "    return [jnp.sort(h * (i + 1.5), axis=1) for i in range(12)]\n"
        "spec = jax.ShapeDtypeStruct((64, 64), jnp.float32)\n"
        f"xlaview.collect(fan_out, spec, spec, out={str(tmp_path / 'fan')!r})\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=300, capture_output=True)
    document = json.loads(ok("traffic", "--json", str(tmp_path / "fan")).stdout)
    many = max(document["intermediates"], key=lambda i: len(i["consumers"]))
    assert len(many["consumers"]) == 12, "JSON keeps them all"
    row = next(
        line
        for line in ok("traffic", str(tmp_path / "fan")).stdout.splitlines()
        if f" {many['producer']} " in line
    )
    assert row.endswith(", ... and 8 more") and many["consumers"][0] in row, row
