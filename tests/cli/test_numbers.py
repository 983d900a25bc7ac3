"""Figures a performance engineer would quote, checked as they are printed:
inside library kernels, collectives on the interconnect, custom calls of
unknown cost, loops, precision peaks and tile padding (issue 25)."""

# ruff: noqa: E501  (hand-written HLO keeps XLA's one-line instructions)

from __future__ import annotations

import json
from pathlib import Path

import pytest
from commands import xlaview

from xlaview.analysis.cost.collectives import wire_bytes


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("jax")
    from programs.figures import generate

    return generate(tmp_path_factory.mktemp("figures"))


def _final(folder: Path) -> Path:
    return next(folder.glob("*after_optimizations.txt"))


# -- inside a library kernel -------------------------------------------------------------


def test_the_seed_attention_under_default_flags_shows_its_scores(figures) -> None:
    """XLA:CPU makes the whole attention one __ynn_fusion: priced at its
    operands alone it would look compute-bound with no boundary. Its body's
    [8192,8192] scores are counted as what the library may materialize."""
    path = str(figures["attention_default"])
    cost = json.loads(xlaview("cost", "--json", "--device", "tpu-v6e", path).stdout)
    library = [op for op in cost["ops"] if op["opaque"]]
    assert library, "no opaque op: did XLA stop making a library fusion?"
    top = max(library, key=lambda op: op["interior_bytes"])
    assert top["kind"] == "__ynn_fusion"
    assert top["interior_bytes"] >= 128 << 20
    assert top["interior_time_s"] > top["time_s"]
    text = xlaview("cost", "--device", "tpu-v6e", path).stdout
    assert "library kernels hide their interior" in text

    bounds = json.loads(xlaview("boundaries", "--json", path).stdout)
    inside = [b for b in bounds["boundaries"] if b["inside"] == top["name"]]
    scores = [b for b in inside if b["shape"].startswith("f32[8192,8192]")]
    assert scores and scores[0]["reason"] == "multi-pass", inside
    assert "online softmax" in (scores[0]["suggestion"] or "")
    assert sum(b["bytes"] for b in inside) == top["interior_bytes"]
    said = xlaview("boundaries", "--why", path).stdout
    assert "may be materialized by the library" in said


# -- collectives -----------------------------------------------------------------------


def test_an_8_device_all_reduce_is_bound_by_the_interconnect(figures) -> None:
    path = str(figures["allreduce8"])
    cost = json.loads(xlaview("cost", "--json", "--device", "tpu-v6e", path).stdout)
    spec = cost["device_spec"]
    (op,) = [op for op in cost["ops"] if op["collective"]]
    collective = op["collective"]
    assert collective["kind"] == "all-reduce" and collective["group_size"] == 8
    assert collective["payload_bytes"] == 4096 * 4096 * 4  # XLA:CPU adds bf16 in f32
    ring = 2 * 7 / 8 * collective["payload_bytes"] / spec["interconnect_bytes_per_s"]
    assert collective["wire_bytes"] == wire_bytes("all-reduce", 8, collective["payload_bytes"])
    assert op["bound"] == "interconnect"
    assert op["time_s"] >= ring * (1 - 1e-9)


# -- custom calls nobody can price ----------------------------------------------------------

FMHA = """HloModule fmha, entry_computation_layout={(bf16[4,8,1024,64]{3,2,1,0}, bf16[4,8,1024,64]{3,2,1,0}, bf16[4,8,1024,64]{3,2,1,0}, bf16[1024,1024]{1,0})->bf16[4,8,1024,64]{3,2,1,0}}

ENTRY %main (q: bf16[4,8,1024,64], k: bf16[4,8,1024,64], v: bf16[4,8,1024,64], w: bf16[1024,1024]) -> bf16[4,8,1024,64] {
  %q = bf16[4,8,1024,64]{3,2,1,0} parameter(0)
  %k = bf16[4,8,1024,64]{3,2,1,0} parameter(1)
  %v = bf16[4,8,1024,64]{3,2,1,0} parameter(2)
  %w = bf16[1024,1024]{1,0} parameter(3)
  %fmha = (bf16[4,8,1024,64]{3,2,1,0}, u8[0]{0}) custom-call(%q, %k, %v), custom_call_target="__cudnn$fmhaSoftmax", backend_config={"cudnn_fmha_backend_config":{"fmha_scale":0.125}}
  %out = bf16[4,8,1024,64]{3,2,1,0} get-tuple-element(%fmha), index=0
  %gemm = (bf16[1024,1024]{1,0}, s8[4194304]{0}) custom-call(%w, %w), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
  ROOT %r = bf16[4,8,1024,64]{3,2,1,0} copy(%out)
}
"""  # fmt: skip


def test_a_custom_call_of_unknown_cost_is_named_not_zero(tmp_path: Path) -> None:
    path = tmp_path / "fmha.hlo"
    path.write_text(FMHA)
    cost = json.loads(xlaview("cost", "--json", "--device", "h100", str(path)).stdout)
    assert [u["kind"] for u in cost["unknown_ops"]] == ["__cudnn$fmhaSoftmax"]
    fmha = next(op for op in cost["ops"] if op["name"] == "fmha")
    assert fmha["bound"] == "unknown" and fmha["time_s"] is None and fmha["share"] is None
    gemm = next(op for op in cost["ops"] if op["name"] == "gemm")
    assert gemm["share"] < 1.0  # the copy shares the known time with it
    text = xlaview("cost", "--device", "h100", str(path)).stdout
    assert "1 ops of unknown cost: __cudnn$fmhaSoftmax (fmha)" in text


# -- loops, precision, tiles ------------------------------------------------------------


def test_a_scan_leads_with_what_it_executes(zoo: dict[str, Path]) -> None:
    path = str(zoo["scan"])
    cost = json.loads(xlaview("cost", "--json", "--device", "h100", path).stdout)
    loops = [loop for loop in cost["loops"] if loop["trip_count"]]
    assert loops and cost["executed"]["time_s"] > cost["time_s"]
    first = xlaview("cost", "--device", "h100", path).stdout.splitlines()[1]
    assert first.startswith("executed (each loop body × its trip count)")


def test_an_f64_dot_on_h100_runs_at_the_fp64_tensor_core_rate(figures) -> None:
    path = str(figures["f64_dot"])
    cost = json.loads(xlaview("cost", "--json", "--device", "h100", path).stdout)
    dots = [op for op in cost["ops"] if op["flops"] >= 2 * 2048**3]
    assert dots and all(op["peak_flops_per_s"] == pytest.approx(66.9e12) for op in dots)
    assert cost["device_spec"]["peak_flops_per_s"]["f64_matrix"] == pytest.approx(66.9e12)


TILED = """HloModule tiles, entry_computation_layout={(f32[8192,1]{1,0:T(8,128)})->f32[8192,1]{1,0:T(8,128)}}

%fused_a (p0: f32[8192,1]) -> f32[8192,1] {
  %p0 = f32[8192,1]{1,0:T(8,128)} parameter(0)
  ROOT %e = f32[8192,1]{1,0:T(8,128)} exponential(%p0)
}

%fused_b (p1: f32[8192,1]) -> f32[8192,1] {
  %p1 = f32[8192,1]{1,0:T(8,128)} parameter(0)
  ROOT %n = f32[8192,1]{1,0:T(8,128)} negate(%p1)
}

ENTRY %main (x: f32[8192,1]) -> f32[8192,1] {
  %x = f32[8192,1]{1,0:T(8,128)} parameter(0)
  %a = f32[8192,1]{1,0:T(8,128)} fusion(%x), kind=kLoop, calls=%fused_a
  ROOT %b = f32[8192,1]{1,0:T(8,128)} fusion(%a), kind=kLoop, calls=%fused_b
}
"""  # fmt: skip


def test_tile_padding_is_counted_alike_in_cost_and_traffic(tmp_path: Path) -> None:
    """f32[8192,1] in (8,128) tiles is stored in 8192 x 128 floats: 4 MiB, not 32 KiB."""
    path = tmp_path / "tiles.hlo"
    path.write_text(TILED)
    padded = 8192 * 128 * 4
    cost = json.loads(xlaview("cost", "--json", "--device", "tpu-v5e", str(path)).stdout)
    ops = {op["name"]: op for op in cost["ops"]}
    assert ops["a"]["bytes_accessed"] == 2 * padded
    assert ops["a"]["padding_bytes"] == 2 * (padded - 8192 * 4)
    traffic = json.loads(xlaview("traffic", "--json", str(path)).stdout)
    assert traffic["total_traffic_bytes"] == cost["bytes_accessed"] == 4 * padded
    assert traffic["intermediate_traffic_bytes"] == 2 * padded
