"""Every command, as a user runs it, on dumps of TensorFlow and PyTorch/XLA
programs compiled at test time (tests/programs/frameworks.py; skipped, saying
why, where neither framework is installed)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import commands
import pytest
from cost_oracle import relative_difference, xla_costs
from programs.frameworks import (
    FIXTURES,
    dump_of,
    has_dot,
    kernel_files,
    params,
    prefix,
    program_module,
    summary,
)

from xlaview.analysis.reasons import REASONS

# TensorFlow names a module after its function: a_inference_<fn>_<n>__XlaMustCompile_...
TF_FUNCTION = re.compile(r"a_inference_(.+?)_\d+__")
MODULE_FILE = re.compile(r"module_(\d{4,})\.")


def xlaview(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m xlaview ARGS``, as a user runs it: it succeeds, and warns of nothing."""
    proc = commands.xlaview(*args)
    assert proc.stderr == "", f"xlaview {' '.join(args)} warned: {proc.stderr}"
    return proc


def as_json(*args: str) -> Any:
    return json.loads(xlaview(*args).stdout)


def module_key(module: dict[str, Any]) -> str:
    """The id as ``summary`` prints it: ``--module`` takes it."""
    return f"{module['id']:04d}"


@pytest.mark.parametrize("case", params())
def test_summary_indexes_every_module_and_file(request, case) -> None:
    folder = dump_of(request, case)
    index = summary(folder)
    assert index["problems"] == [], "nothing routine is a problem"
    assert index["unrecognized"] == []
    on_disk = sorted({int(m.group(1)) for f in os.listdir(folder) if (m := MODULE_FILE.match(f))})
    assert [m["id"] for m in index["modules"]] == on_disk, "every module indexed"
    listed: set[str] = set()
    for m in index["modules"]:
        assert m["backend"] == "cpu" and m["before_optimizations"], m["id"]
        passes = [f for f in os.listdir(folder) if re.match(re.escape(prefix(m)) + r"\.\d{4}\.", f)]
        assert sorted(p["file"] for p in m["passes"]) == sorted(passes), "every pass dump"
        assert [p["seq"] for p in m["passes"]] == sorted(p["seq"] for p in m["passes"])
        assert m["reports"]["buffer_assignment"] and m["reports"]["memory_usage"]
        memory = m["memory"]
        assert memory["source"] == "memory-usage-report" and memory["total_bytes"] > 0
        parts = ("parameter_bytes", "output_bytes", "temp_bytes", "constant_bytes")
        assert sum(memory[p] for p in parts) == memory["total_bytes"], memory
        report = (folder / m["reports"]["memory_usage"]).read_text()
        assert f"Total bytes used: {memory['total_bytes']} " in report, "XLA's own total"
        listed |= {m["before_optimizations"], m["after_optimizations"], *m["other_files"]}
        listed |= {p["file"] for p in m["passes"]} | {f for f in m["reports"].values() if f}
        listed |= set(m["stages"].values())
    assert listed == set(os.listdir(folder)), "every file belongs to its module"
    for m in index["modules"]:
        assert kernel_files(m), f"module {m['id']}: its kernels' LLVM IR is listed with it"


@pytest.mark.parametrize("case", params())
def test_summary_names_the_program(request, case) -> None:
    framework, _ = case
    index = summary(dump_of(request, case))
    for m in index["modules"]:
        if framework == "tensorflow":
            match = TF_FUNCTION.match(m["name"])
            assert match, m["name"]
            assert m["display_name"] == match.group(1), (m["name"], m.get("display_name"))
        else:
            assert m["display_name"] == m["name"]


@pytest.mark.parametrize("case", params())
def test_commands_default_to_the_program(request, case) -> None:
    folder = dump_of(request, case)
    main = program_module(folder, summary(folder))
    for command in ("cost", "traffic", "boundaries"):
        out = as_json(command, "--json", str(folder))
        assert out["module"] == main["name"], f"{command}: {out['module']}, not {main['name']}"
    diff = as_json("diff", "--json", str(folder), "--from", "before", "--to", "after")
    assert diff["module"] == main["name"], f"diff: {diff['module']}, not {main['name']}"
    # --module takes the name the module list shows (TensorFlow's function name) too
    out = as_json("cost", "--json", str(folder), "--module", main["display_name"])
    assert out["module"] == main["name"], f"--module {main['display_name']}: {out['module']}"


@pytest.mark.parametrize("case", params())
def test_cost_totals_equal_xla(request, case) -> None:
    folder = dump_of(request, case)
    index = summary(folder)
    afters = {m["id"]: str(folder / m["after_optimizations"]) for m in index["modules"]}
    theirs = xla_costs(afters.values())
    for m in index["modules"]:
        ours = as_json("cost", "--json", str(folder), "--module", module_key(m))
        xla = theirs[afters[m["id"]]]
        assert xla["ok"], xla
        assert ours["module"] == m["name"] and ours["device"] == "cpu"
        assert ours["unknown_ops"] == [] and ours["loops"] == []
        for key, mine in (
            ("flops", ours["flops"]),
            ("transcendentals", ours["transcendentals"]),
            ("bytes accessed", ours["bytes_accessed"]),
        ):
            assert relative_difference(mine, xla[key]) < 0.005, (m["name"], key, mine, xla[key])
        assert ours["executed"]["flops"] == ours["flops"], "no loops: executed once"
        assert all(op["time_s"] is not None for op in ours["ops"]), "every op priced"
        if has_dot(folder, m):
            dots = [op for op in ours["ops"] if op["kind"] == "dot"]
            assert dots and sum(op["flops"] for op in dots) > 0.5 * ours["flops"]
    # The text form prints the same module.
    text = xlaview("cost", str(folder)).stdout
    assert "FLOP" in text and "bound" in text


@pytest.mark.parametrize("case", params())
def test_inspect_joins_each_module_and_its_kernels(request, case) -> None:
    folder = dump_of(request, case)
    index = summary(folder)
    for m in index["modules"]:
        after = folder / m["after_optimizations"]
        whole = as_json("inspect", "--json", str(after))["summary"]
        assert whole["module"] == m["name"]
        assert whole["memory"] == m["memory"], "one memory figure everywhere"
        assert whole["instructions"] > 0 and whole["memory_text"].startswith("memory ")
        kernels = kernel_files(m)
        assert kernels, f"{m['name']}: no kernel files"
        # One kernel of each kind the module has (a run of inspect takes a second).
        for (name, file), *_ in kernels.values():
            out = as_json("inspect", "--json", str(after), "--instruction", name)
            kernel = out["instruction"]["kernel"]
            assert kernel is not None, f"{name}: no kernel, though {file} is its IR"
            assert kernel["ir_no_opt"] == file, (name, kernel["ir_no_opt"])
            assert kernel["ir_with_opt"] and kernel["object"], kernel
            assert out["instruction"]["cost"] is not None
            assert out["instruction"]["allocation"] is not None, f"{name}: no buffer"
            text = xlaview("inspect", str(after), "--instruction", name).stdout
            assert f"kernel {name}" in text and "LLVM IR after opt" in text, text
    # An unfused dot is a library call, with no kernel of its own.
    main = program_module(folder, index)
    after = folder / main["after_optimizations"]
    dot = re.search(r"^\s+(?:ROOT )?%?([\w.-]+) = \S+ dot\(", after.read_text(), re.M)
    assert dot, "the step's dots stay unfused on XLA:CPU"
    out = as_json("inspect", "--json", str(after), "--instruction", dot.group(1))
    kernel = out["instruction"]["kernel"]
    assert out["instruction"]["opcode"] == "dot", out["instruction"]
    assert kernel["ir_no_opt"] is None and kernel["reason_kind"] == "library-call", kernel


@pytest.mark.parametrize("case", params())
def test_traffic_and_boundaries_agree(request, case) -> None:
    framework, program = case
    folder = dump_of(request, case)
    index = summary(folder)
    reasons = set(REASONS)
    for m in index["modules"]:
        key = module_key(m)
        traffic = as_json("traffic", "--json", str(folder), "--module", key)
        cost = as_json("cost", "--json", str(folder), "--module", key)
        bounds = as_json("boundaries", "--json", str(folder), "--module", key)
        assert traffic["module"] == bounds["module"] == m["name"]
        assert traffic["notes"] == []
        # The same bytes as XLA's bytes accessed, tuples' index tables aside.
        assert relative_difference(traffic["total_traffic_bytes"], cost["bytes_accessed"]) < 0.005
        assert {b["producer"] for b in bounds["boundaries"]} == {
            i["producer"] for i in traffic["intermediates"]
        }, "one boundary per materialized intermediate"
        assert (
            sum(b["bytes"] for b in bounds["boundaries"]) == traffic["intermediate_traffic_bytes"]
        )
        assert sum(bounds["by_reason"].values()) == traffic["intermediate_traffic_bytes"]
        for b in bounds["boundaries"]:
            assert b["reason"] in reasons and b["evidence"], b
            assert b["inside"] is None, "no library kernel with a body on these"
        assert xlaview("traffic", str(folder), "--module", key).stdout.startswith(m["name"])
        assert xlaview("boundaries", str(folder), "--module", key).stdout.startswith(m["name"])
    if program == "attention":
        # softmax(q k^T) reads the [128,128] scores twice (max, then exp): online softmax.
        bounds = as_json("boundaries", "--json", str(folder))
        scores = [b for b in bounds["boundaries"] if b["shape"].startswith("f32[128,128]")]
        softmax = [b for b in scores if b["reason"] == "multi-pass"]
        assert softmax, scores
        assert all("online softmax" in (b["suggestion"] or "") for b in softmax), softmax


@pytest.mark.parametrize("case", params())
def test_diff_shows_what_the_passes_did(request, case) -> None:
    folder = dump_of(request, case)
    main = program_module(folder, summary(folder))
    key = module_key(main)
    whole = as_json(
        "diff", "--json", str(folder), "--module", key, "--from", "before", "--to", "after"
    )
    assert whole["module"] == main["name"]
    assert whole["added"] and whole["removed"], "optimization changed the module"
    (fusion,) = [p for p in main["passes"] if p["after"] == "fusion"]
    seqs = [p["seq"] for p in main["passes"]]
    earlier = seqs[seqs.index(fusion["seq"]) - 1]
    step = as_json(
        "diff",
        "--json",
        str(folder),
        "--module",
        key,
        "--from",
        str(earlier),
        "--to",
        str(fusion["seq"]),
    )
    assert step["to_file"] == fusion["file"]
    fusions = [a for a in step["added"] if a["opcode"] == "fusion"]
    assert fusions and all(a["absorbed"] for a in fusions), "each new fusion with what it absorbed"
    absorbed = {n for a in fusions for n in a["absorbed"]}
    assert absorbed <= {r["name"] for r in step["removed"]}, "absorbed instructions leave the entry"
    text = xlaview(
        "diff", str(folder), "--module", key, "--from", str(earlier), "--to", str(fusion["seq"])
    ).stdout
    assert f"{len(step['added'])} added, {len(step['removed'])} removed" in text.splitlines()[0]
    assert "absorbed" in text


@pytest.mark.parametrize("case", params())
def test_export_draws_the_program(request, case, tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    folder = dump_of(request, case)
    main = program_module(folder, summary(folder))
    png, svg = tmp_path / "x.png", tmp_path / "x.svg"
    xlaview("export", str(folder), "--module", module_key(main), "--out", str(png))
    image = QImage(str(png))
    assert not image.isNull() and (image.width(), image.height()) == (1600, 1000)
    colours = {image.pixel(x, y) for x in range(0, 1600, 8) for y in range(0, 1000, 8)}
    assert len(colours) > 100, f"the PNG is all but blank: {len(colours)} colours"
    assert png.stat().st_size > 50_000
    xlaview("export", str(folder), "--module", module_key(main), "--out", str(svg))
    drawn = svg.read_text()
    entry = (folder / main["after_optimizations"]).read_text().split("\nENTRY ", 1)[1]
    fusions = re.findall(r"^\s+(?:ROOT )?%?([\w.-]+) = \S+ fusion\(", entry, re.M)
    assert fusions and all(f in drawn for f in fusions), "every top-level fusion is drawn"
    # With --select, the instruction shows selected.
    selected = tmp_path / "selected.png"
    xlaview(
        "export",
        str(folder),
        "--module",
        module_key(main),
        "--select",
        fusions[0],
        "--out",
        str(selected),
    )
    assert QImage(str(selected)) != image, "the selection shows"


@pytest.mark.parametrize("framework", list(FIXTURES))
def test_collect_dumps_a_framework_program(framework: str, tmp_path: Path) -> None:
    """``xlaview collect -- COMMAND`` adds the dump flags to any program's XLA."""
    from programs import frameworks

    python, why = frameworks.interpreter(framework)
    if python is None:
        pytest.skip(why)
    out = tmp_path / "dump"
    env = {**os.environ, **dict(frameworks.FRAMEWORKS[framework].env)}
    env.pop("XLA_FLAGS", None)
    command = [python, frameworks.__file__, "--run", framework, "attention"]
    proc = subprocess.run(
        [sys.executable, "-m", "xlaview", "collect", "--out", str(out), "--", *command],
        capture_output=True,
        text=True,
        timeout=frameworks.TIMEOUT_S,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "1 module," in proc.stdout, proc.stdout
    (module,) = summary(out)["modules"]
    assert module["passes"] and module["after_optimizations"], module
