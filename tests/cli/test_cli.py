"""The headless commands, run as a user runs them (a new process each)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from commands import xlaview

from xlaview.resources import sample_dump, sample_dump_default_flags

SAMPLE = sample_dump()  # the seed: attention, seq 8192, bf16, CPU, unfused
FUSED = sample_dump_default_flags()  # the same program, XLA's default flags


def test_summary_json_contract() -> None:
    document = json.loads(xlaview("summary", "--json", str(SAMPLE)).stdout)
    assert set(document) >= {"root", "modules", "unrecognized"}
    (module,) = document["modules"]
    assert set(module) >= {
        "id",
        "name",
        "backend",
        "before_optimizations",
        "after_optimizations",
        "passes",
        "reports",
        "other_files",
    }
    assert (module["id"], module["name"], module["backend"]) == (0, "jit_attention", "cpu")
    assert module["after_optimizations"] == "module_0000.jit_attention.cpu_after_optimizations.txt"
    seqs = [p["seq"] for p in module["passes"]]
    assert seqs == sorted(seqs) and len(seqs) == len(
        list(SAMPLE.glob("*.[0-9][0-9][0-9][0-9].*.txt"))
    )
    assert all(set(p) == {"seq", "pipeline", "after", "before", "file"} for p in module["passes"])
    assert all(module["reports"].values()), "the four reports"
    assert all(not Path(f).is_absolute() for f in module["other_files"])
    assert document["unrecognized"] == []


def test_summary_table() -> None:
    out = xlaview("summary", str(SAMPLE)).stdout
    assert "jit_attention" in out and "cpu" in out and "live-range" in out


def test_inspect_the_score_fusion() -> None:
    """The seed's f32[8192,8192] fusion: kind, body, operands, layout, bytes, memory."""
    after = next(SAMPLE.glob("*cpu_after_optimizations.txt"))
    out = json.loads(
        xlaview(
            "inspect", "--json", str(after), "--instruction", "convert_exponential_fusion"
        ).stdout
    )
    assert out["module"] == "jit_attention"
    d = out["instruction"]
    assert (d["opcode"], d["fusion_kind"], d["shape"]) == ("fusion", "kLoop", "f32[8192,8192]{1,0}")
    assert d["fused_computation"] == "fused_computation.2"
    assert d["operands"] == [
        {"name": "wrapped_reduce", "shape": "bf16[8192]{0}"},
        {"name": "wrapped_convert.3", "shape": "bf16[8192,8192]{1,0}"},
    ]
    assert d["layout"] == {"minor_to_major": [1, 0], "tiles": [], "memory_space": None}
    assert d["bytes"] == {"output": 268435456, "operands": 16384 + 134217728}
    ba = next(SAMPLE.glob("*-buffer-assignment.txt")).read_text()
    assert d["allocation"]["kind"] == "preallocated-temp"
    assert (
        f"allocation {d['allocation']['index']}: size {d['allocation']['allocation_size']}," in ba
    )
    assert (
        f"convert_exponential_fusion @0> (size={d['allocation']['size']},"
        f"offset={d['allocation']['offset']})"
    ) in ba
    live = next(SAMPLE.glob("*-live-range.txt")).read_text()
    start, end = d["live_range"]
    assert f"convert_exponential_fusion{{}}:{start}-{end}" in live


def test_inspect_module_summary() -> None:
    after = next(SAMPLE.glob("*cpu_after_optimizations.txt"))
    out = json.loads(xlaview("inspect", "--json", str(after)).stdout)
    assert out["summary"]["fusions"] == {"kLoop": 15}
    assert out["summary"]["peak_memory_bytes"] > 268435456


MEMORY_KEYS = {
    "total_bytes", "parameter_bytes", "output_bytes", "temp_bytes", "constant_bytes",
    "peak_live_bytes",
}  # fmt: skip
# The one memory figure of the bundled dump, in the words every view uses.
SAMPLE_MEMORY = (
    "memory 388.0 MiB (parameters 1.0 MiB, outputs 1.0 MiB, temporaries 386.0 MiB, "
    "constants 6 B); peak of live values 261.0 MiB"
)


def test_summary_json_gives_each_module_its_memory() -> None:
    (module,) = json.loads(xlaview("summary", "--json", str(SAMPLE)).stdout)["modules"]
    memory = module["memory"]
    assert set(memory) >= MEMORY_KEYS
    # The memory-usage report's "Total bytes: 406880316 (388.03MiB)", split exactly.
    assert memory["total_bytes"] == 406880316
    parts = ("parameter_bytes", "output_bytes", "temp_bytes", "constant_bytes")
    assert sum(memory[k] for k in parts) == memory["total_bytes"]
    assert memory["peak_live_bytes"] == 273694720


def test_summary_json_memory_is_null_without_reports(tmp_path: Path) -> None:
    after = next(SAMPLE.glob("*cpu_after_optimizations.txt"))
    (tmp_path / after.name).write_bytes(after.read_bytes())
    (module,) = json.loads(xlaview("summary", "--json", str(tmp_path)).stdout)["modules"]
    assert module["memory"] is None


def test_inspect_and_compare_say_the_same_memory() -> None:
    after = next(SAMPLE.glob("*cpu_after_optimizations.txt"))
    inspected = xlaview("inspect", str(after)).stdout
    compared = xlaview("compare", str(SAMPLE), str(FUSED)).stdout
    for out in (inspected, compared):
        assert SAMPLE_MEMORY in out, out
        assert "the most in use at once is 387.0 MiB, at step 17" in out, out
    summary = json.loads(xlaview("inspect", "--json", str(after)).stdout)["summary"]
    document = json.loads(xlaview("compare", "--json", str(SAMPLE), str(FUSED)).stdout)
    left = document["modules"][0]["left"]
    assert summary["memory"] == left["memory"] and summary["memory_text"] == SAMPLE_MEMORY
    assert set(left["memory"]) >= MEMORY_KEYS and left["memory"]["total_bytes"] == 406880316
    # The key kept for older readers: the peak of live values.
    assert summary["peak_memory_bytes"] == left["peak_memory_bytes"] == 273694720


def test_inspect_of_a_broken_file_says_where(tmp_path: Path) -> None:
    after = next(SAMPLE.glob("*cpu_after_optimizations.txt"))
    text = after.read_text()
    cut = text.index("%convert_divide_fusion = ")
    broken = tmp_path / after.name
    broken.write_text(text[:cut] + "%convert_divide_fusion = f32[8192]{0} fusion(%wrapped_red")
    proc = xlaview("inspect", "--json", str(broken), "-i", "convert_convert_fusion", check=False)
    assert proc.returncode == 2
    line = text[:cut].count("\n") + 1
    assert f":{line}:" in proc.stderr or f"line {line}" in proc.stderr, proc.stderr
    ok = xlaview("inspect", "--json", str(broken), "-i", "convert_exponential_fusion")
    assert json.loads(ok.stdout)["instruction"]["fusion_kind"] == "kLoop"
    assert "warning" in ok.stderr


@pytest.mark.parametrize("args,message", [
    (["summary", "/no/such/folder"], "not a folder"),
    (["inspect", "/no/such/file.txt"], "no such file"),
    (["inspect", "SAMPLE_AFTER", "-i", "nope"], "no instruction"),
    (["boundaries", "/no/such/folder"], "no such file"),
])  # fmt: skip
def test_user_errors_are_one_clear_line(args: list[str], message: str) -> None:
    after = str(next(SAMPLE.glob("*cpu_after_optimizations.txt")))
    proc = xlaview(*[after if a == "SAMPLE_AFTER" else a for a in args], check=False)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_traffic_json_contract() -> None:
    out = json.loads(xlaview("traffic", "--json", str(SAMPLE)).stdout)
    assert set(out) >= {"module", "total_traffic_bytes", "intermediates", "fusions"}
    first = out["intermediates"][0]
    assert set(first) >= {
        "producer",
        "producer_kind",
        "shape",
        "bytes",
        "consumers",
        "traffic_bytes",
    }
    ranked = [i["traffic_bytes"] for i in out["intermediates"]]
    assert ranked == sorted(ranked, reverse=True)
    assert "[8192,8192]" in first["shape"]
    (bf16,) = [i for i in out["intermediates"] if i["shape"].startswith("bf16[8192,8192]")]
    assert bf16["bytes"] == 134217728 and bf16["traffic_bytes"] >= 2 * bf16["bytes"]
    assert all(set(f) >= {"name", "kind", "bytes_read", "bytes_written"} for f in out["fusions"])


def test_traffic_of_an_hlo_file_with_default_flags() -> None:
    from xlaview.resources import sample_dump_default_flags

    after = next(sample_dump_default_flags().glob("*cpu_after_optimizations.txt"))
    out = json.loads(xlaview("traffic", "--json", str(after)).stdout)
    assert not [i for i in out["intermediates"] if "[8192,8192]" in i["shape"]]
    # The one kCustom fusion shows its name (issue 13): XLA:CPU's YNNPACK fusion.
    assert [f["kind"] for f in out["fusions"]].count("__ynn_fusion") == 1
    assert out["fusion_counts"]["kCustom"] == 1


def test_boundaries_json_contract() -> None:
    """The contract of issue 17: exactly these keys; the seed's bf16 score matrix is
    multi-pass (online softmax), the f32 one leaving the dot a library call."""
    out = json.loads(xlaview("boundaries", "--json", str(SAMPLE)).stdout)
    assert set(out) == {"module", "boundaries", "by_reason"} and out["module"] == "jit_attention"
    reasons = [
        "multi-pass",
        "library-call",
        "layout-change",
        "shared-read",
        "collective",
        "control-flow",
        "output",
        "other",
    ]
    assert sorted(out["by_reason"]) == sorted(reasons)
    for b in out["boundaries"]:
        assert set(b) == {
            "producer",
            "value",
            "shape",
            "bytes",
            "consumers",
            "reason",
            "evidence",
            "suggestion",
            "inside",
        }, b
        assert b["inside"] is None, "no library kernel in the unfused sample"
        assert b["reason"] in reasons and b["evidence"][0]["reason"] == b["reason"]
        assert all(set(e) == {"reason", "text", "ops"} for e in b["evidence"])
    assert sum(b["bytes"] for b in out["boundaries"]) == sum(out["by_reason"].values())
    (bf16,) = [b for b in out["boundaries"] if b["shape"].startswith("bf16[8192,8192]")]
    assert bf16["reason"] == "multi-pass" and "online softmax" in bf16["suggestion"]
    assert bf16["bytes"] == 3 * 134217728, "written once, read twice"
    (dot,) = [b for b in out["boundaries"] if b["producer"] == "dot_general.6"]
    assert dot["reason"] == "library-call" and dot["suggestion"] is None


def test_boundaries_table() -> None:
    after = str(next(SAMPLE.glob("*cpu_after_optimizations.txt")))
    out = xlaview("boundaries", after, "--top", "4", "--why").stdout
    assert "multi-pass" in out and "library-call" in out and "wrapped_convert.3" in out
    assert "suggestion: online softmax" in out
    only = xlaview("boundaries", str(SAMPLE), "--reason", "library-call", "--top", "0").stdout
    table = only.split("\n\n")[1]
    assert "library-call" in table and "multi-pass" not in table


def test_diff_json_across_the_fusion_pass() -> None:
    summary = json.loads(xlaview("summary", "--json", str(SAMPLE)).stdout)
    passes = summary["modules"][0]["passes"]
    fusion = next(p["seq"] for p in passes if p["after"] == "fusion")
    before = passes[[p["seq"] for p in passes].index(fusion) - 1]["seq"]
    out = json.loads(
        xlaview(
            "diff",
            "--json",
            str(SAMPLE),
            "--module",
            "jit_attention",
            "--from",
            str(before),
            "--to",
            str(fusion),
        ).stdout
    )
    assert set(out) >= {"added", "removed", "changed"}
    fusions = {a["name"]: a for a in out["added"] if a["opcode"] == "fusion"}
    assert "exp.1" in fusions["convert_exponential_fusion"]["absorbed"]
    assert all(r["absorbed_into"] for r in out["removed"])
    same = json.loads(
        xlaview("diff", "--json", str(SAMPLE), "--from", str(before), "--to", str(before)).stdout
    )
    assert same["added"] == same["removed"] == same["changed"] == []


def test_inspect_names_each_fusions_kernel_files() -> None:
    after = next(SAMPLE.glob("*cpu_after_optimizations.txt"))
    out = json.loads(
        xlaview("inspect", "--json", str(after), "-i", "wrapped_reduce-window.1").stdout
    )
    kernel = out["instruction"]["kernel"]
    paths = {key: kernel[key] for key in ("ir_no_opt", "ir_with_opt", "ptx", "object")}
    assert paths == {
        "ir_no_opt": "module_0000.jit_attention.wrapped_reduce-window.1_kernel_module.ir-no-opt.ll",
        "ir_with_opt": (
            "module_0000.jit_attention.wrapped_reduce-window.1_kernel_module.ir-with-opt.ll"
        ),
        "ptx": None,
        "object": "module_0000.jit_attention.obj-file.wrapped_reduce-window.1_kernel_module.o",
    }
    assert all((SAMPLE / p).is_file() for p in paths.values() if p)
    assert [s["file"] for s in kernel["stages"]] == [
        paths["ir_no_opt"],
        paths["ir_with_opt"],
        paths["object"],
    ]
    dot = json.loads(xlaview("inspect", "--json", str(after), "-i", "dot_general.6").stdout)
    none = dot["instruction"]["kernel"]
    assert {none[key] for key in paths} == {None} and none["stages"] == []
    assert none["reason_kind"] == "library-call" and "Eigen" in none["reason"]


def test_compare_says_why_a_module_is_not_matched_op_by_op(tmp_path: Path) -> None:
    """A module whose after-optimizations file holds no computation (a header
    only) is compared side by side; op by op it says why not (it stopped
    compare with exit status 2)."""
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "module_0000.jit_f.cpu_after_optimizations.txt").write_text(
        "HloModule jit_f, entry_computation_layout={()->f32[]}\n"
    )
    out = xlaview("compare", "--json", str(dump), str(dump))
    document = json.loads(out.stdout)
    assert "no HLO computation" in document["matched_module"]["problem"]
    assert document["matches"] == [] and document["modules"][0]["module"] == "jit_f"
    text = xlaview("compare", str(dump), str(dump)).stdout
    assert text.startswith("Not compared op by op:")


def test_the_command_line_starts_without_the_drawing() -> None:
    """Every command builds the whole parser first: its lists of choices (the
    graph's groupings) come without importing the folding and the drawing,
    which took 150 ms of each command's start, `summary` and `--help` included."""
    script = (
        "import sys\n"
        "from xlaview.cli import build_parser\n"
        "build_parser()\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(\n"
        "    ('xlaview.analysis.folding', 'xlaview.analysis.drawing')))\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
