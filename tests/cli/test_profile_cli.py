"""``xlaview profile`` and ``xlaview.collect(profile=N)``, run as a user runs them."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

OP_KEYS = {
    "name",
    "count",
    "measured_s",
    "mean_s",
    "flops",
    "bytes_accessed",
    "time_s",
    "achieved_flops_per_s",
    "achieved_bytes_per_s",
    "roofline_fraction",
}


def xlaview(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xlaview", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )


def trace_sums(trace_json: Path, module: str) -> dict[str, tuple[int, float]]:
    with gzip.open(trace_json) as handle:
        events = json.load(handle)["traceEvents"]
    found: dict[str, list] = defaultdict(lambda: [0, 0.0])
    for e in events:
        args = e.get("args", {})
        if e.get("ph") == "X" and args.get("hlo_module") == module and "hlo_op" in args:
            found[args["hlo_op"]][0] += 1
            found[args["hlo_op"]][1] += e["dur"] * 1e-6
    return {op: (n, s) for op, (n, s) in found.items()}


@pytest.mark.slow
@pytest.mark.parametrize("trace_arg", ["log dir", "json file"])
def test_json_contract_and_counts(profiled: dict[str, Path], trace_arg: str) -> None:
    folder = profiled["mlp_scan"]
    (trace_json,) = (folder / "trace").glob("plugins/profile/*/*.trace.json.gz")
    trace = folder / "trace" if trace_arg == "log dir" else trace_json
    proc = xlaview(
        "profile", "--json", str(folder / "dump"), str(trace), "--module", "jit_mlp_scan"
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert set(document) == {
        "module",
        "device",
        "runs",
        "measured_s",
        "matched_s",
        "unmatched",
        "ops",
    }
    assert document["module"] == "jit_mlp_scan" and document["runs"] == 3
    assert document["unmatched"] == [] and document["matched_s"] == document["measured_s"]
    expected = trace_sums(trace_json, "jit_mlp_scan")
    ops = {op["name"]: op for op in document["ops"]}
    assert set(ops) == set(expected), "every op the trace timed, and only those"
    for name, (count, seconds) in expected.items():
        op = ops[name]
        assert set(op) == OP_KEYS, name
        assert op["count"] == count, f"{name}: {op['count']} events, the trace has {count}"
        assert op["measured_s"] == pytest.approx(seconds, rel=0.01), name
        assert op["mean_s"] == pytest.approx(seconds / count, rel=0.01), name
        assert op["flops"] is not None and op["bytes_accessed"] is not None, f"{name}: static cost"
    # A CPU dump is priced on this machine's CPU, measured: the trace of this
    # machine beside its own roofline, no op faster than it.
    assert document["device"] == "cpu"
    assert all(op["time_s"] is not None for op in ops.values())
    fast = [(n, op["roofline_fraction"]) for n, op in ops.items() if op["roofline_fraction"] > 1.05]
    assert not fast, fast


def test_static_cost_and_roofline_beside_the_measure(profiled: dict[str, Path]) -> None:
    from xlaview.analysis.cost.devices import device
    from xlaview.analysis.cost.roofline import roofline
    from xlaview.analysis.cost.totals import module_cost
    from xlaview.dump import index_dump, load_module

    folder = profiled["mlp_scan"]
    proc = xlaview(
        "profile", "--json", str(folder / "dump"), str(folder / "trace"), "--device", "h100"
    )
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["device"] == "h100"
    (module,) = [m for m in index_dump(folder / "dump").modules if m.name == "jit_mlp_scan"]
    cost = module_cost(load_module(module.after_optimizations.path).module)
    line = roofline(cost, device("h100"))
    loops = 0
    for op in document["ops"]:
        # a while op's rates are of what one run executes: its body x the trip count
        static = cost.run_totals(op["name"]) or cost.op(op["name"])
        loops += static is not cost.op(op["name"])
        assert (op["flops"], op["bytes_accessed"]) == (static.flops, static.bytes_accessed), op
        expected = line.run_time(op["name"]) or line.op(op["name"]).time_s
        assert op["time_s"] == pytest.approx(expected), op["name"]
        assert op["roofline_fraction"] == pytest.approx(op["time_s"] / op["mean_s"]), op["name"]
        assert op["achieved_flops_per_s"] == pytest.approx(op["flops"] / op["mean_s"]), op["name"]
        assert op["achieved_bytes_per_s"] == pytest.approx(op["bytes_accessed"] / op["mean_s"])
    # x @ w with x f32[64,32], w f32[32,64]: 2 * 64 * 32 * 64 FLOPs, in a fusion of its own
    dots = [op for op in document["ops"] if op["flops"] == 2 * 64 * 32 * 64]
    assert len(dots) == 1 and dots[0]["count"] == 3, [
        (o["name"], o["flops"]) for o in document["ops"]
    ]
    (loop,) = [op for op in document["ops"] if op["name"].startswith("while")]
    body = cost.op(loop["name"])
    assert loops == 1 and loop["flops"] >= 5 * body.flops, "the scan's 5 iterations, not one"


def test_unmatched_events_in_json(profiled: dict[str, Path]) -> None:
    dump, trace = profiled["one_body"] / "dump", profiled["other_body"] / "trace"
    proc = xlaview("profile", "--json", str(dump), str(trace), "--module", "jit_body")
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["ops"] == [] and document["matched_s"] == 0
    names = {u["name"] for u in document["unmatched"]}
    assert names and all(set(u) == {"name", "count", "measured_s"} for u in document["unmatched"])
    assert "wrapped_exponential" in names


def test_text_output_and_default_module(profiled: dict[str, Path]) -> None:
    folder = profiled["mlp_scan"]
    proc = xlaview("profile", str(folder / "dump"), str(folder / "trace"))
    assert proc.returncode == 0, proc.stderr
    assert "jit_mlp_scan: 3 runs" in proc.stdout and "while" in proc.stdout


@pytest.mark.parametrize("args,message", [
    (["DUMP", "nowhere"], "nowhere: no such file or folder"),
    (["DUMP", "DUMP"], "no trace here"),
    (["DUMP", "TRACE", "--module", "jit_nothing"], "no module 'jit_nothing'"),
    (["DUMP", "TRACE", "--trace-device", "/device:TPU:9"], "no device '/device:TPU:9'"),
    (["DUMP", "TRACE", "--device", "tpu-v9"], "unknown device 'tpu-v9'"),
])  # fmt: skip
def test_errors_are_one_clear_line(
    profiled: dict[str, Path], args: list[str], message: str
) -> None:
    folder = profiled["mlp_scan"]
    args = [
        str(folder / "dump") if a == "DUMP" else str(folder / "trace") if a == "TRACE" else a
        for a in args
    ]
    proc = xlaview("profile", *args)
    assert proc.returncode == 2, proc.stdout
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.slow
def test_collect_profile_runs_and_stores_a_trace(tmp_path: Path) -> None:
    script = tmp_path / "api.py"
    script.write_text(
        textwrap.dedent(f"""
        import jax, jax.numpy as jnp, xlaview

        def step(x, w, scale):
            return jnp.tanh(x @ w).sum() * scale

        spec = jax.ShapeDtypeStruct
        folder = xlaview.collect(step, spec((16, 32), jnp.bfloat16), spec((32, 8), jnp.bfloat16),
                                 2.0, static_argnums=2, profile=3, out={str(tmp_path / "d")!r})
        print(folder)
    """)
    )
    proc = subprocess.run(
        [sys.executable, str(script)], check=False, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    folder = Path(proc.stdout.strip().splitlines()[-1])
    from xlaview.dump import index_dump
    from xlaview.profile import choose_module, find_trace, measure_dump_module, read_trace

    found = find_trace(folder)
    assert found is not None and found.parent.parent.parent == folder / "trace"
    trace = read_trace(found)
    index = index_dump(folder)
    module = choose_module(trace, index)
    measured = measure_dump_module(trace, index, module)
    assert module.name == "jit_step" and measured.matched_by == "program id"
    assert measured.runs == 3 and measured.ops and not measured.unmatched
    assert all(op.count % 3 == 0 for op in measured.ops), [(o.name, o.count) for o in measured.ops]
    document = json.loads(xlaview("profile", "--json", str(folder), str(found)).stdout)
    assert document["module"] == "jit_step" and document["runs"] == 3


def test_collect_profile_takes_a_count(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    from xlaview.collection import CollectError, collect

    with pytest.raises(CollectError, match="number of runs"):
        collect(lambda x: x, 1.0, out=tmp_path / "d", profile=-1)
