"""``xlaview cost`` and the cost parts of ``inspect``, run as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from commands import xlaview
from cost_oracle import relative_difference, xla_costs

from xlaview.resources import sample_dump

SAMPLE = sample_dump()  # the seed: attention, seq 8192, bf16, CPU, unfused
ROCM = Path("real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap")
GEMM_FILE = "module_0011.jit_gspmd.gfx942_gpu_after_optimizations.txt"
OP_KEYS = {
    "name",
    "computation",
    "kind",
    "flops",
    "transcendentals",
    "bytes_read",
    "bytes_written",
    "bytes_accessed",
    "intensity",
    "time_s",
    "bound",
}


def test_cost_json_contract_on_the_seed_attention() -> None:
    out = json.loads(xlaview("cost", "--json", str(SAMPLE)).stdout)
    assert set(out) >= {
        "module",
        "device",
        "flops",
        "transcendentals",
        "bytes_accessed",
        "time_s",
        "executed",
        "ops",
    }
    assert set(out["executed"]) >= {"flops", "bytes_accessed"}
    # A CPU dump is priced on this machine's CPU, measured, and says so.
    assert out["module"] == "jit_attention" and out["device"] == "cpu"
    assert "XLA:CPU dump" in out["device_reason"] and out["device_spec"]["measured"]
    assert out["device_spec"]["memory"] == "RAM" and out["cpu_caveats"] == []
    assert all(set(op) >= OP_KEYS for op in out["ops"])
    times = [op["time_s"] for op in out["ops"]]
    assert times == sorted(times, reverse=True), "ranked by time"
    # on a CPU the two big dots lead, compute-bound; on an H100 the score
    # matrix's producers, each a pass over it in HBM
    assert {op["name"] for op in out["ops"][:2]} == {"dot_general.6", "dot_general.7"}
    assert [op["bound"] for op in out["ops"][:3]] == ["compute", "compute", "memory"]
    on_h100 = json.loads(xlaview("cost", "--json", str(SAMPLE), "--device", "h100").stdout)
    top = on_h100["ops"][:3]
    assert all(op["bound"] == "memory" for op in top), top
    assert {op["name"] for op in top} == {
        "convert_convert_fusion",
        "convert_exponential_fusion",
        "wrapped_convert.3",
    }, "the [8192,8192] producers"
    after = next(SAMPLE.glob("*cpu_after_optimizations.txt"))
    xla = xla_costs([str(after)])[str(after)]
    for key, ours in (
        ("flops", "flops"),
        ("transcendentals", "transcendentals"),
        ("bytes accessed", "bytes_accessed"),
    ):
        assert relative_difference(out[ours], xla[key]) < 0.005, (key, out[ours], xla[key])


@pytest.mark.slow
@pytest.mark.parametrize("program", ["mlp_grad", "scan", "spmd"])
def test_cost_totals_equal_xla_on_a_fresh_dump(zoo: dict[str, Path], program: str) -> None:
    out = json.loads(xlaview("cost", "--json", str(zoo[program])).stdout)
    after = Path(out["file"])
    xla = xla_costs([str(after)])[str(after)]
    for key, ours in (
        ("flops", "flops"),
        ("transcendentals", "transcendentals"),
        ("bytes accessed", "bytes_accessed"),
    ):
        assert relative_difference(out[ours], xla[key]) < 0.005, (program, key, out[ours], xla[key])
    if program == "scan":
        assert out["executed"]["flops"] > 4 * out["flops"], "the body runs 5 times"
        assert out["loops"] == [
            {
                "name": out["loops"][0]["name"],
                "computation": out["loops"][0]["computation"],
                "trip_count": 5,
            }
        ]


def test_cost_of_the_rocm_gemm(corpus: Path) -> None:
    out = json.loads(xlaview("cost", "--json", str(corpus / ROCM), "--module", "jit_gspmd").stdout)
    assert out["device"] == "mi300x"
    # Not the slowest op: the all-reduce waits on the Infinity Fabric longer.
    (gemm,) = [op for op in out["ops"] if op["name"] == "custom-call.1"]
    assert (gemm["name"], gemm["kind"], gemm["flops"]) == (
        "custom-call.1",
        "__cublas$lt$matmul",
        60_129_542_144,
    )
    assert gemm["bound"] == "compute" and 45e-6 < gemm["time_s"] < 47e-6
    other = json.loads(
        xlaview("cost", "--json", str(corpus / ROCM / GEMM_FILE), "--device", "TPU-v5e").stdout
    )
    assert other["device"] == "tpu-v5e"


def test_cost_table_and_a_wrong_device() -> None:
    out = xlaview("cost", str(SAMPLE), "--top", "3").stdout
    assert "(cpu: an XLA:CPU dump: this machine's CPU, measured)" in out
    assert "measured on this machine" in out and "RAM bytes" in out
    out = xlaview("cost", str(SAMPLE), "--top", "3", "--device", "h100").stdout
    assert "jit_attention on NVIDIA H100 SXM (h100: chosen with --device)" in out
    assert "convert_convert_fusion" in out and "memory" in out and "HBM bytes" in out
    # priced on an accelerator, a CPU dump says what XLA:CPU did differently
    assert "An XLA:CPU dump priced on an accelerator:" in out
    assert "dots run in f32 on operands XLA:CPU converted from bf16" in out
    proc = xlaview("cost", str(SAMPLE), "--device", "tpu-v9", check=False)
    assert proc.returncode == 2 and "unknown device 'tpu-v9'" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_inspect_json_gains_target_buffers_and_cost(corpus: Path) -> None:
    out = json.loads(
        xlaview("inspect", "--json", str(corpus / ROCM / GEMM_FILE), "-i", "custom-call.1").stdout
    )["instruction"]
    assert out["custom_call_target"] == "__cublas$lt$matmul"
    assert [(b["index"], b["size"]) for b in out["buffers"]] == [
        ("{0}", 117_440_512),
        ("{1}", 79_691_776),
    ]
    assert all(
        set(b) >= {"index", "shape", "allocation", "offset", "size", "memory_space"}
        for b in out["buffers"]
    )
    assert out["allocation"]["size"] == 117_440_512, "element {0}, not the pointer table"
    cost = out["cost"]
    assert cost["flops"] == 60_129_542_144 and cost["device"] == "mi300x"
    assert cost["bound"] == "compute"
    text = xlaview("inspect", str(corpus / ROCM / GEMM_FILE), "-i", "custom-call.1").stdout
    assert "(__cublas$lt$matmul)" in text and "buffer {1} s8[79691776]" in text
