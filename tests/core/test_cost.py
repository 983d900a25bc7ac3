"""What each op costs, checked against XLA's own cost model (run out of process)
on real dumps compiled at test time and on the peer corpus; library calls and
the roofline checked by hand on real GPU dumps."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from cost_oracle import relative_difference, xla_costs
from oracle import corpus_hlo_texts

from xlaview.analysis.cost.devices import DEVICES, detect_device, peak_for
from xlaview.analysis.cost.roofline import roofline
from xlaview.analysis.cost.totals import module_cost
from xlaview.dump.modules import load_module
from xlaview.errors import XlaviewError
from xlaview.hlo import parse_module
from xlaview.resources import sample_dump

TOLERANCE = 0.005  # the 0.5%; XLA sums in float32
KEYS = (
    ("flops", "flops"),
    ("transcendentals", "transcendentals"),
    ("bytes accessed", "bytes_accessed"),
)
ROCM = (
    "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap/"
    "module_0011.jit_gspmd.gfx942_gpu_after_optimizations.txt"
)
ZOO_PROGRAMS = ("attention", "mlp_grad", "scan", "cond", "conv", "spmd")


def hlo_texts(folder: Path) -> list[Path]:
    """Every whole-module HLO text of a dump: the pass dumps, before and after."""
    reports = ("buffer-assignment", "live-range", "memory-usage")
    return sorted(p for p in folder.glob("*.txt") if not any(r in p.name for r in reports))


def mismatches(
    paths: list[Path], xla_compatible: bool, theirs: dict[str, dict] | None = None
) -> list[str]:
    """Files whose totals differ from XLA's by more than the tolerance."""
    if theirs is None:
        theirs = xla_costs(str(p) for p in paths)
    problems = []
    for path in paths:
        xla = theirs[str(path)]
        if not xla.get("ok"):
            continue
        module = parse_module(path.read_text(encoding="utf-8", errors="surrogateescape"))
        ours = module_cost(module, xla_compatible=xla_compatible).totals
        for key, attribute in KEYS:
            mine = getattr(ours, attribute)
            if relative_difference(mine, xla[key]) > TOLERANCE:
                problems.append(f"{path.name}: {key} ours {mine}, XLA's {xla[key]:.0f}")
    return problems


@pytest.fixture(scope="module")
def zoo_xla(zoo: dict[str, Path]) -> dict[str, dict]:
    """XLA's totals for every text of every zoo dump, from one worker."""
    return xla_costs(str(p) for program in ZOO_PROGRAMS for p in hlo_texts(zoo[program]))


@pytest.mark.slow
@pytest.mark.parametrize("program", ZOO_PROGRAMS)
def test_totals_equal_xla_on_every_pass_of_a_real_dump(
    zoo: dict[str, Path], zoo_xla: dict[str, dict], program: str
) -> None:
    paths = hlo_texts(zoo[program])
    assert any("after_optimizations" in p.name for p in paths) and len(paths) > 10
    assert all(zoo_xla[str(p)].get("ok") for p in paths), "XLA reads every pass dump"
    problems = mismatches(paths, xla_compatible=False, theirs=zoo_xla)
    assert not problems, f"{program}: {len(problems)} of {len(paths)} texts differ:\n" + "\n".join(
        problems[:20]
    )


@pytest.mark.slow
def test_totals_equal_xla_on_the_corpus(corpus: Path) -> None:
    """XLA's exact rules (custom calls unknown, async -done priced) on every
    corpus text XLA reads, except those whose shapes only XLA's inference knows."""
    paths = []
    for path in corpus_hlo_texts(corpus):
        try:
            module = parse_module(path.read_text(encoding="utf-8", errors="surrogateescape"))
        except XlaviewError:
            continue  # the parser's business (tests/core/test_parser_oracle.py)
        if any(i.shape.element_type == "unknown" for i in module.instructions()):
            continue  # ``ROOT r = add(x, y)``: shape left to XLA's inference
        paths.append(path)
    assert len(paths) > 400
    problems = mismatches(paths, xla_compatible=True)
    assert not problems, f"{len(problems)} of {len(paths)} texts differ:\n" + "\n".join(problems)


# -- beyond XLA's CPU model ---------------------------------------------------------------


def test_rocm_gemm_priced_from_its_backend_config(corpus: Path) -> None:
    path = corpus / ROCM
    module = load_module(path).module
    cost = module_cost(module)
    gemm = cost.op("custom-call.1")
    assert gemm is not None and gemm.kind == "__cublas$lt$matmul"
    # [4096,512] x [512,14336], contracting dimension 1 of the left operand: 2*M*N*K.
    assert gemm.flops == 2 * 4096 * 14336 * 512 == 60_129_542_144
    assert gemm.bytes_read == (4096 * 512 * 2, 512 * 14336 * 2)
    assert gemm.bytes_written == 4096 * 14336 * 2  # result {0}; the s8 workspace is scratch
    choice = detect_device(module, path)
    assert choice.device.name == "mi300x" and choice.detected, choice
    placed = roofline(cost, choice.device).op("custom-call.1")
    assert placed is not None and placed.bound == "compute" and placed.precision == "bf16"
    assert placed.time_s == pytest.approx(60_129_542_144 / 1307.4e12)
    assert 45e-6 < placed.time_s < 47e-6
    # XLA's CPU model knows nothing of it: -1 for FLOPs and bytes.
    xla_model = module_cost(module, xla_compatible=True).op("custom-call.1")
    assert xla_model is not None and not xla_model.known


MASKRCNN = "real_dumps/morenfang__xla_hlo_dump_parse/data/module_{}.after_optimizations.txt"


@pytest.mark.parametrize(
    ("name", "module", "instruction", "flops"),
    [
        # (output grad [1,256,14,14], filter [2,2,256,256]) -> input grad [1,256,28,28]:
        # forward conv 28x28 -> 14x14, 2x2 window, stride 2: each output point 2*2*256 MACs.
        ("backward input, strided", "0389", "custom-call.10", 2 * 256 * 256 * 14 * 14 * 2 * 2),
        # (input [1,256,13,19], output grad [1,3,13,19]) -> filter [1,1,256,3]: 1x1 window.
        ("backward filter", "0123", "custom-call.164", 2 * 256 * 3 * 13 * 19),
        # input [1,256,25,34], filter 3x3x256x256, pad 1: 3x3 window over 25x34 minus the
        # taps that fall in the padding: (3*25-2)*(3*34-2) valid (tap, output) pairs.
        (
            "bias-activation forward",
            "0311",
            "custom-call.153",
            2 * 256 * 256 * (3 * 25 - 2) * (3 * 34 - 2),
        ),
    ],
)
def test_cudnn_convolutions_counted_as_their_forward_convolution(
    corpus: Path, name: str, module: str, instruction: str, flops: int
) -> None:
    cost = module_cost(load_module(corpus / MASKRCNN.format(module)).module)
    op = cost.op(instruction)
    assert op is not None and op.kind.startswith("__cudnn$conv"), (name, op)
    assert op.flops == flops, f"{name}: {op.flops} FLOPs, by hand {flops}"
    assert op.matrix


ONEDNN = """HloModule onednn
ENTRY e {
  lhs = f32[64,32]{1,0} parameter(0)
  rhs = f32[32,16]{1,0} parameter(1)
  ROOT r = f32[64,16]{1,0} custom-call(lhs, rhs), custom_call_target="__onednn$matmul",
    backend_config={"onednn_matmul_config":{}}
}
"""


def test_onednn_matmul_on_cpu() -> None:
    op = module_cost(parse_module(ONEDNN)).op("r")
    assert (
        op is not None
        and op.flops == 2 * 64 * 16 * 32
        and op.bytes_accessed == (64 * 32 + 32 * 16 + 64 * 16) * 4
    )


def test_executed_totals_multiply_a_scan_by_its_trip_count(zoo: dict[str, Path]) -> None:
    path = next(zoo["scan"].glob("*cpu_after_optimizations.txt"))
    cost = module_cost(load_module(path).module)
    (loop,) = cost.loops
    assert loop.trip_count == 5, "jax.lax.scan over 5 steps"
    body_ops = [op for op in cost.ops if op.executions == 5]
    assert body_ops and {op.computation for op in body_ops} == {body_ops[0].computation}
    # Single iteration (XLA): body + condition once; executed: body x5, condition x6.
    body = sum(op.flops for op in body_ops)
    condition = sum(op.flops for op in cost.ops if op.executions == 6)
    entry = cost.totals.flops - body - condition
    assert cost.executed.flops == entry + 5 * body + 6 * condition
    assert cost.executed.bytes_accessed > 4 * cost.totals.bytes_accessed // 2


ASYNC = """HloModule async_pair
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b) }
ENTRY e {
  p = f32[1024]{0} parameter(0)
  s = f32[1024]{0} all-reduce-start(p), to_apply=add, replica_groups={}
  ROOT d = f32[1024]{0} all-reduce-done(s)
}
"""


def test_an_async_pair_is_priced_as_xla_prices_it() -> None:
    """Each half like any op (the -done writes its result once more), as
    XLA's cost analysis does; the transfer itself is the start's."""
    module = parse_module(ASYNC)
    ours = module_cost(module)
    xla = xla_costs_of_text(ASYNC)
    assert ours.totals.bytes_accessed == xla == 4 * 4096
    done, start = ours.op("d"), ours.op("s")
    assert done is not None and done.collective is None
    assert start is not None and start.collective is not None


def xla_costs_of_text(text: str) -> float:
    """XLA:CPU's "bytes accessed" of an HLO text (through a file, out of process)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "module.hlo"
        path.write_text(text)
        result = xla_costs([str(path)])[str(path)]
    assert result.get("ok"), result
    return result["bytes accessed"]


COPY = """HloModule copy_pair
ENTRY e {
  a = f32[1024]{0} parameter(0)
  cs = (f32[1024]{0}, f32[1024]{0}, u32[]) copy-start(a)
  ROOT cd = f32[1024]{0} copy-done(cs)
}
"""


def test_a_copy_pair_is_priced_as_xla_prices_it() -> None:
    # XLA:CPU charges the source handed on, the context, and the -done.
    module = parse_module(COPY)
    xla = xla_costs_of_text(COPY)
    assert module_cost(module).totals.bytes_accessed == xla > 4 * 4096


def test_on_chip_memory_is_not_main_memory_traffic(corpus: Path) -> None:
    path = corpus / "real_dumps/Junyi-99__hlo-visualizer/examples/v6e-2x2/collectives.after.hlo"
    module = load_module(path).module
    cost = module_cost(module)
    assert cost.platform == "tpu"
    start = cost.op("copy-start")
    assert start is not None
    # HBM f32[1,64] -> VMEM: the read is main memory, the VMEM copy (and its flag) are not.
    assert start.memory_bytes < start.bytes_accessed
    choice = detect_device(module, path)
    assert choice.device.name == "tpu-v6e" and choice.detected


# -- the seed's attention on H100 --------------------------------------------------------


def test_attention_score_matrices_rank_first_and_are_memory_bound() -> None:
    path = next(sample_dump().glob("*cpu_after_optimizations.txt"))
    module = load_module(path).module
    cost = module_cost(module)
    choice = detect_device(module, path)
    assert choice.device.name == "cpu" and choice.detected, "an XLA:CPU dump: this machine's CPU"
    roof = roofline(cost, DEVICES["h100"])
    ranked = sorted(zip(cost.ops, roof.ops, strict=True), key=lambda pair: -pair[1].time_s)
    top = [(op, placed) for op, placed in ranked[:3]]
    for op, placed in top:
        shape = module.instruction(op.name).shape
        assert shape.dims == (8192, 8192), (op.name, str(shape))
        assert placed.bound == "memory", op.name
    assert roof.time_s == pytest.approx(sum(r.time_s for r in roof.ops))
    assert math.isclose(sum(r.share for r in roof.ops), 1.0, rel_tol=1e-9)


@pytest.mark.parametrize(
    ("element_type", "matrix", "asked", "gpu", "tpu"),
    [
        ("bf16", True, "default", "bf16", "bf16"),
        ("f32", True, "default", "tf32", "bf16"),
        ("f32", True, "highest", "f32", "bf16x6"),
        ("f8e4m3fn", True, "default", "fp8", "bf16"),
        ("bf16", False, "default", "f32", "bf16"),
        ("f64", True, "default", "f64_matrix", "bf16"),
    ],
)
def test_peak_by_element_type(
    element_type: str, matrix: bool, asked: str, gpu: str, tpu: str
) -> None:
    assert peak_for(DEVICES["h100"], element_type, matrix, asked)[1] == gpu
    # TPUs publish no f32 rate: f32 products run in bf16 passes, the bf16 peak stands in.
    assert peak_for(DEVICES["tpu-v5e"], element_type, matrix, asked)[1] == tpu


def test_fused_instructions_priced_on_request(zoo: dict[str, Path]) -> None:
    path = next(zoo["scan"].glob("*cpu_after_optimizations.txt"))
    module = load_module(path).module
    cost = module_cost(module)
    fusions = [op for op in cost.ops if op.opcode == "fusion" and op.executions == 5]
    assert fusions, "the scan body's fusions"
    for fusion in fusions:
        called = module.instruction(fusion.name).called_computations[0]
        inner = [cost.op(i.name) for i in module.computation(called).instructions]
        assert all(op is not None and not op.top_level and op.executions == 5 for op in inner)
        # A fusion's FLOPs are its fused instructions' (reducers scaled inside them).
        assert fusion.flops == sum(op.flops for op in inner if op is not None), fusion.name
    assert cost.op("no-such-instruction") is None


@pytest.mark.parametrize(
    ("path", "platform", "expected", "detected"),
    [
        ("d/module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt", None, "h100", True),
        ("d/module_0001.jit_f.sm_8.0_gpu_after_optimizations.txt", None, "a100", True),
        ("d/module_0001.jit_f.gfx942_gpu_after_optimizations.txt", None, "mi300x", True),
        ("runs/v5p-8/module_0001.jit_f.after_optimizations.txt", "tpu", "tpu-v5p", True),
        ("runs/x/module_0001.jit_f.after_optimizations.txt", "tpu", "tpu-v5e", False),
        ("d/module_0001.jit_f.cpu_after_optimizations.txt", None, "cpu", True),
        # a pass dump beside its module's XLA:CPU after-optimizations file
        ("c/module_0001.jit_f.0003.simp.after_algsimp.before_dce.txt", None, "cpu", True),
        ("d/module_0001.jit_f.after_optimizations.txt", None, "h100", False),
    ],
)
def test_device_from_the_dump(
    tmp_path: Path, path: str, platform: str | None, expected: str, detected: bool
) -> None:
    if path.startswith("c/"):  # its module's optimized HLO names XLA:CPU
        (tmp_path / "c").mkdir()
        (tmp_path / "c/module_0001.jit_f.cpu_after_optimizations.txt").write_text("HloModule f\n")
    choice = detect_device(None, tmp_path / path, platform)
    assert (choice.device.name, choice.detected) == (expected, detected), choice.reason


def test_library_bodies_alike_but_for_names_are_staged_once(tmp_path: Path) -> None:
    """Five inputs of two sizes pooled twice under XLA:CPU's default flags
    (as a U-Net's pooling gradients): a library fusion each, whose bodies
    run two programs under other names. Each program is staged and priced
    once, and every op's interior bytes are those of its own body staged."""
    pytest.importorskip("jax")
    from programs.figures import generate

    from xlaview.analysis.cost.interior import interior_bytes, interior_of, is_opaque

    folder = generate(tmp_path, ("pooled_layers",))["pooled_layers"]
    module = load_module(next(folder.glob("*after_optimizations.txt"))).module
    assert module.entry is not None
    opaque = [i for i in module.entry.instructions if is_opaque(i)]
    staged = {i.name: interior_of(module, i) for i in opaque}
    staged = {name: found for name, found in staged.items() if found and found.module}
    assert len(staged) >= 4, "fewer library fusions of two stages or more: did XLA fuse otherwise?"
    known: dict[str, int] = {}
    for instr in opaque:
        found = staged.get(instr.name)
        assert interior_bytes(module, instr, known) == (found.interior_bytes if found else 0)
    assert 2 <= len(known) < len(staged)
    assert len(set(known.values())) == len(known), "the two sizes' interiors differ"
