"""Traffic with XLA's byte rules (issue 13): slices read their slice, one buffer
is one intermediate, on-chip values are not memory traffic, loops count their
trips; buffers per tuple element; memory-space names; kinds shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlaview.analysis.buffers import bytes_per_memory_space, primary_memory, result_buffers
from xlaview.analysis.kinds import custom_call_target, kind_name, op_label
from xlaview.analysis.memory_spaces import memory_space
from xlaview.analysis.traffic import analyze_traffic
from xlaview.dump.index import index_dump
from xlaview.dump.modules import load_module
from xlaview.dump.reports import load_reports
from xlaview.hlo import parse_module
from xlaview.resources import sample_dump_default_flags

ROCM = Path("real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap")

SLICE = """HloModule slices
fused_slice {
  p = f32[1024,1024]{1,0} parameter(0)
  s = f32[16,1024]{1,0} slice(p), slice={[0:16], [0:1024]}
  ROOT n = f32[16,1024]{1,0} negate(s)
}
ENTRY e {
  x = f32[1024,1024]{1,0} parameter(0)
  a = f32[1024,1024]{1,0} exponential(x)
  s = f32[16,1024]{1,0} slice(a), slice={[0:16], [0:1024]}
  f = f32[16,1024]{1,0} fusion(a), kind=kLoop, calls=fused_slice
  ROOT t = (f32[16,1024]{1,0}, f32[16,1024]{1,0}) tuple(s, f)
}
"""


def test_a_slice_is_charged_what_it_reads() -> None:
    traffic = analyze_traffic(parse_module(SLICE))
    ops = {o.name: o for o in traffic.ops}
    slice_bytes = 16 * 1024 * 4
    assert ops["s"].bytes_read == slice_bytes, "the slice op reads its slice, not 4 MiB"
    assert ops["f"].bytes_read == slice_bytes, "so does a fusion reading through a slice"
    (a,) = [i for i in traffic.intermediates if i.producer == "a"]
    assert set(a.consumers) == {"s", "f"}
    assert a.traffic_bytes == a.bytes + 2 * slice_bytes


IN_PLACE = """HloModule in_place
ENTRY e {
  p = f32[1024]{0} parameter(0)
  u = f32[16]{0} parameter(1)
  i = s32[] parameter(2)
  a = f32[1024]{0} exponential(p)
  d = f32[1024]{0} dynamic-update-slice(a, u, i)
  ROOT r = f32[1024]{0} negate(d)
}
"""


def test_an_in_place_update_is_not_a_second_intermediate() -> None:
    traffic = analyze_traffic(parse_module(IN_PLACE))
    assert [i.producer for i in traffic.intermediates] == ["a"]
    (a,) = traffic.intermediates
    assert a.consumers == ("r",) and a.aliases == ("d",), a
    ops = {o.name: o for o in traffic.ops}
    assert ops["d"].bytes_written == 16 * 4, "the update is all it writes"


def test_an_async_pair_is_one_intermediate(corpus: Path) -> None:
    index = index_dump(corpus / ROCM)
    dump_module = index.module("jit_gspmd")
    path = dump_module.after_optimizations.path
    for reports in (None, load_reports(dump_module)):
        traffic = analyze_traffic(load_module(path).module, reports)
        producers = [i.producer for i in traffic.intermediates]
        assert producers == ["custom-call.1#0"], (reports is not None, producers)
        assert traffic.intermediates[0].consumers == ("all-reduce-start",)
        assert "all-reduce-done" not in {o.name for o in traffic.ops}


VMEM = """HloModule vmem
ENTRY e {
  p = f32[8,128]{1,0:T(8,128)} parameter(0)
  a = f32[8,128]{1,0:T(8,128)S(1)} exponential(p)
  b = f32[8,128]{1,0:T(8,128)} negate(a)
  ROOT c = f32[8,128]{1,0:T(8,128)} add(b, b)
}
"""


def test_on_chip_values_are_not_memory_traffic() -> None:
    traffic = analyze_traffic(parse_module(VMEM))
    assert [i.producer for i in traffic.intermediates] == ["b"], "a lives in TPU VMEM, S(1)"
    ops = {o.name: o for o in traffic.ops}
    assert ops["a"].bytes_written == 0 and ops["b"].bytes_read == 0
    assert ops["a"].bytes_read == ops["b"].bytes_written == 8 * 128 * 4


def test_loop_bodies_count_their_trips(zoo: dict[str, Path]) -> None:
    path = next(zoo["scan"].glob("*cpu_after_optimizations.txt"))
    traffic = analyze_traffic(load_module(path).module)
    in_body = [i for i in traffic.intermediates if i.executions == 5]
    assert in_body, "the scan body's intermediates run 5 times"
    for i in in_body:
        assert i.traffic_bytes == (i.bytes + (i.read_bytes or 0)) * 5
    entry = [o for o in traffic.ops if o.executions == 1]
    assert entry and all(o.computation == entry[0].computation for o in entry)


def test_a_tuple_result_joins_the_buffer_assignment_per_element(corpus: Path) -> None:
    dump_module = index_dump(corpus / ROCM).module("jit_gspmd")
    module = load_module(dump_module.after_optimizations.path).module
    reports = load_reports(dump_module)
    gemm = module.instruction("custom-call.1")
    buffers = result_buffers(gemm, reports)
    assert [b.index for b in buffers] == ["{0}", "{1}"]
    assert buffers[0].memory is not None and buffers[0].memory.value.size == 117_440_512
    assert buffers[1].memory is not None and buffers[1].memory.value.size == 79_691_776
    primary = primary_memory(gemm, reports)
    assert primary is not None and primary.value.size == 117_440_512, "not the 16 B table"
    assert primary.peak_share == pytest.approx(0.463, abs=0.001)
    assert reports.buffer_assignment is not None
    spaces = bytes_per_memory_space(reports.buffer_assignment)
    assert [s.number for s, _ in spaces] == [0]


@pytest.mark.parametrize(
    ("number", "platform", "name", "main_memory"),
    [
        (0, "tpu", "HBM", True),
        (0, None, "device memory", True),
        (1, "tpu", "VMEM", False),
        (1, "gpu", "collective", True),
        (2, "tpu", "sync flags", False),
        (4, "tpu", "SMEM", False),
        (5, None, "host", False),
        (6, "tpu", "scalar memory", False),
        (0, "cpu", "RAM", True),
    ],
)
def test_memory_space_names(
    number: int, platform: str | None, name: str, main_memory: bool
) -> None:
    space = memory_space(number, platform)
    assert (space.name, space.main_memory) == (name, main_memory)


def test_kinds_name_custom_call_targets_and_custom_fusions(corpus: Path) -> None:
    gemm = load_module(corpus / ROCM / "module_0011.jit_gspmd.gfx942_gpu_after_optimizations.txt")
    instr = gemm.module.instruction("custom-call.1")
    assert custom_call_target(instr) == "__cublas$lt$matmul"
    assert kind_name(instr) == "__cublas$lt$matmul"
    assert op_label(instr) == "custom-call __cublas$lt$matmul"
    after = next(sample_dump_default_flags().glob("*cpu_after_optimizations.txt"))
    module = load_module(after).module
    (ynn,) = [i for i in module.instructions() if i.fusion_kind == "kCustom"]
    assert kind_name(ynn) == "__ynn_fusion"
    assert op_label(ynn) == "fusion kCustom __ynn_fusion"


class Stop(Exception):
    """Raised by a progress report, as the window's worker does for a job nobody wants."""


def test_traffic_asks_to_go_on_as_it_prices_and_reads_each_top_level_op(monkeypatch) -> None:
    """The window stops a pass's traffic at a progress report once the user
    steps away: after its computations were priced, the moe's 40,000-op
    entry went on 0.7 s with none, and the next pass's text waited for it."""
    from xlaview.analysis import traffic as traffic_module
    from xlaview.analysis.cost import totals

    monkeypatch.setattr(totals, "CHECK_EVERY", 1)
    monkeypatch.setattr(traffic_module, "CHECK_EVERY", 1)
    (path,) = sample_dump_default_flags().glob("*after_optimizations.txt")
    module = load_module(path).module
    told: list[float] = []
    assert analyze_traffic(module, progress=told.append) == analyze_traffic(module)
    entry = len(module.entry.instructions)
    assert len(told) >= 2 * entry, "asked for each op priced and each op read"
    for stop_at in (entry // 2, entry + entry // 2):  # while pricing, while reading
        calls: list[float] = []

        def stop_later(fraction: float, calls: list[float] = calls, stop_at: int = stop_at) -> None:
            calls.append(fraction)
            if len(calls) > stop_at:
                raise Stop

        with pytest.raises(Stop):
            analyze_traffic(module, progress=stop_later)


def test_traffic_of_an_unfused_entry_asks_to_go_on_all_along() -> None:
    """No stretch of a big entry's traffic goes without a progress report:
    pricing the entry, walking it for the steps it runs, the values read
    and the sorting at the end each went on with none (on the moe's
    40,000-op entry: 0.2-0.45 s each, which a step away waited out). The
    unfused module of 3,000 sine-and-multiply layers, 12,000 ops: the
    longest stretch was a quarter of the whole, now a twenty-fifth."""
    import itertools
    import os
    import subprocess
    import sys
    import time

    from xlaview.collector import gc_paused

    # Lowered in a process of its own: JAX started here would warn at every
    # later fork (the command line's helper process forks).
    lower = (
        "import jax, jax.numpy as jnp\n"
        "def layers(x):\n"
        "    for k in range(3000):\n"
        "        x = jnp.sin(x) * (1.0 + k)\n"
        "    return x\n"
        "s = jax.ShapeDtypeStruct((8, 128), jnp.float32)\n"
        "print(jax.jit(layers).lower(s).as_text('hlo'))\n"
    )
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    text = subprocess.run(
        [sys.executable, "-c", lower], env=env, capture_output=True, text=True, check=True
    ).stdout
    shares = []
    for _ in range(3):  # the best of three: a busy machine stretches one at random
        module = parse_module(text)
        assert module.entry is not None and len(module.entry.instructions) > 10_000
        told: list[float] = []

        def tell(_fraction: float, told: list[float] = told) -> None:
            told.append(time.perf_counter())

        with gc_paused():  # as the window's worker runs it
            start = time.perf_counter()
            analyze_traffic(module, progress=tell)
            end = time.perf_counter()
        marks = [start, *told, end]
        shares.append(max(b - a for a, b in itertools.pairwise(marks)) / (end - start))
    assert min(shares) < 0.12, f"the longest stretch without a report: {min(shares):.0%} of it all"


def test_pricing_many_fusions_asks_to_go_on_every_few_of_them(monkeypatch) -> None:
    """Each top-level fusion is priced with its body: a train step's went
    100-145 ms between two progress reports when they came every 1,024 ops
    and every 256 computations entered. Now a few dozen are priced between
    two, however the walk comes to them."""
    from xlaview.analysis.cost import model as cost_model

    fusions = 600
    bodies = "".join(
        f"fused_{k} {{\n  p.{k} = f32[64]{{0}} parameter(0)\n"
        f"  e.{k} = f32[64]{{0}} exponential(p.{k})\n"
        f"  ROOT n.{k} = f32[64]{{0}} negate(e.{k})\n}}\n\n"
        for k in range(fusions)
    )
    chain = "".join(
        f"  f.{k} = f32[64]{{0}} fusion({'x' if k == 0 else f'f.{k - 1}'}), kind=kLoop, "
        f"calls=fused_{k}\n"
        for k in range(fusions)
    )
    module = parse_module(
        f"HloModule many_fusions\n\n{bodies}ENTRY e {{\n  x = f32[64]{{0}} parameter(0)\n"
        f"{chain}  ROOT r = f32[64]{{0}} negate(f.{fusions - 1})\n}}\n"
    )
    since_report = [0]
    stretches: list[int] = []
    price = cost_model.CostModel.price

    def pricing(self, instr, comp):
        since_report[0] += 1
        stretches.append(since_report[0])
        return price(self, instr, comp)

    def report(_fraction: float) -> None:
        since_report[0] = 0

    monkeypatch.setattr(cost_model.CostModel, "price", pricing)
    analyze_traffic(module, progress=report)
    assert len(stretches) > 3 * fusions
    assert max(stretches) <= 300, f"{max(stretches)} prices without a report between"
