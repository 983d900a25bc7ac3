"""Why each boundary is there: real CPU dumps of programs whose answer is known,
the seed's attention, hand-written GPU-style edge cases, and the peer corpus."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from xlaview.analysis.boundaries.explain import (
    PRECEDENCE,
    REASONS,
    Boundaries,
    Boundary,
    module_boundaries,
)
from xlaview.analysis.traffic import analyze_traffic
from xlaview.dump.index import index_dump
from xlaview.dump.modules import load_module
from xlaview.hlo import Module, parse_module
from xlaview.resources import sample_dump

# Keeps XLA:CPU from handing reductions and dots to YNN fusions: the ops stay
# XLA's own kLoop fusions (``wrapped_reduce``...), as in the seed's sample.
UNFUSED_FLAGS = "--xla_cpu_experimental_ynn_fusion_type="


@pytest.fixture(scope="module", params=["default", "unfused"])
def programs(request, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Module]:
    """tests/programs/boundary_programs.py compiled for CPU: module name -> after optimizations."""
    pytest.importorskip("jax")
    from programs.boundary_programs import generate

    flags = UNFUSED_FLAGS if request.param == "unfused" else ""
    folder = generate(tmp_path_factory.mktemp(f"boundaries-{request.param}"), flags)
    return {
        m.name: load_module(m.after_optimizations.path).module
        for m in index_dump(folder).modules
        if m.after_optimizations is not None
    }


def check(result: Boundaries, module: Module) -> None:
    """What holds for every boundary of every module."""
    assert len(result.boundaries) == len(analyze_traffic(module).intermediates), (
        "one per intermediate"
    )
    for b in result.boundaries:
        assert b.reason in REASONS, b
        assert b.evidence and b.evidence[0].reason == b.reason == b.reasons[0], (
            f"{b.value}: deciding fact first"
        )
        first = PRECEDENCE.index(b.reason)  # layout-change has two places: each fact takes one
        assert all(
            any(k >= first for k, r in enumerate(PRECEDENCE) if r == e.reason) for e in b.evidence
        ), f"{b.value}: {b.reasons} out of precedence"
        for e in b.evidence:
            for op in e.ops:
                assert op.instruction in module.computation(op.computation), (
                    f"{b.value}: {op} not in the module"
                )
    assert sum(result.by_reason().values()) == sum(b.bytes for b in result.boundaries)
    json.dumps(result.to_json())


def boundary(result: Boundaries, shape: str) -> Boundary:
    found = [b for b in result.boundaries if b.shape.startswith(shape)]
    assert len(found) == 1, f"{shape}: {[(b.value, b.shape) for b in result.boundaries]}"
    return found[0]


def inner_ops(b: Boundary, reason: str) -> set[str]:
    """Ops of the evidence for ``reason`` that sit inside fused computations."""
    return {o.computation for e in b.evidence if e.reason == reason for o in e.ops}


@pytest.mark.slow
@pytest.mark.parametrize("name,shape,suggests", [
    ("jit_softmax", "f32[512,1024]", "online softmax"),
    ("jit_layer_norm", "f32[512,1024]", "Welford"),
])  # fmt: skip
def test_normalisations_are_multi_pass(
    programs: dict[str, Module], name: str, shape: str, suggests: str
) -> None:
    """The rows are reduced, then read again: every boundary of the program is
    multi-pass, and the big one names the reduce and the op that reads again."""
    module = programs[name]
    result = module_boundaries(module)
    check(result, module)
    assert {b.reason for b in result.boundaries} == {"multi-pass"}, [
        (b.value, b.reason) for b in result.boundaries
    ]
    big = boundary(result, shape)
    assert big.suggestion and suggests in big.suggestion, big.suggestion
    assert all(suggests in (b.suggestion or "") for b in result.boundaries)
    assert module.entry is not None
    entry = module.entry.name
    assert inner_ops(big, "multi-pass") - {entry}, (
        "the reduce and the re-read inside fused computations"
    )
    evidence = big.evidence[0]
    inner = [
        module.computation(o.computation).instruction(o.instruction)
        for o in evidence.ops
        if o.computation != entry
    ]
    assert {"reduce", "reduce-window"} & {i.opcode for i in inner}, evidence


@pytest.mark.slow
def test_a_transpose_fused_into_a_dots_operand_is_the_dots_boundary(
    programs: dict[str, Module],
) -> None:
    """tanh and the batch-first transpose in one fusion feed the dot: the value
    would be written for the dot anyway (library-call); the layout change is in
    the evidence, with the copy that moves the data."""
    module = programs["jit_transposed_matmul"]
    result = module_boundaries(module)
    check(result, module)
    b = boundary(result, "f32[8,128,64]")
    assert b.reason == "library-call" and "layout-change" in b.reasons, b.reasons
    moved = [o for e in b.evidence if e.reason == "layout-change" for o in e.ops]
    assert any(
        module.computation(o.computation).instruction(o.instruction).opcode in ("copy", "transpose")
        for o in moved
        if module.entry is not None and o.computation != module.entry.name
    ), moved


@pytest.mark.slow
def test_a_transpose_alone_feeding_a_dot_is_a_layout_change(programs: dict[str, Module]) -> None:
    """The value exists only re-laid out: the dot reading the original layout removes it."""
    module = programs["jit_transpose_only_matmul"]
    result = module_boundaries(module)
    check(result, module)
    b = boundary(result, "f32[8,128,64]")
    assert b.reason == "layout-change" and b.suggestion, (b.reasons, b.suggestion)
    assert b.saved_bytes == b.bytes == 2 * b.value_bytes


@pytest.mark.slow
def test_one_value_read_by_two_fusions_is_a_shared_read(programs: dict[str, Module]) -> None:
    module = programs["jit_shared_read"]
    result = module_boundaries(module)
    check(result, module)
    b = boundary(result, "f32[512,1024]")
    assert b.reason == "shared-read" and len(b.consumers) == 2, (b.reasons, b.consumers)
    assert b.value_bytes == 512 * 1024 * 4
    assert b.bytes == 3 * b.value_bytes, "written once, read twice"
    assert b.saved_bytes == b.value_bytes, "reading it once saves one read"
    assert "multi-output" in (b.suggestion or "")
    assert {o.instruction for o in b.evidence[0].ops} == set(b.consumers)


@pytest.mark.slow
def test_a_program_output_is_written_anyway(programs: dict[str, Module]) -> None:
    module = programs["jit_program_output"]
    result = module_boundaries(module)
    check(result, module)
    b = boundary(result, "f32[256,256]")
    assert b.reason == "output"
    assert b.saved_bytes == b.bytes - b.value_bytes, "the write stays"


@pytest.mark.slow
def test_a_loops_result_is_a_control_flow_boundary(programs: dict[str, Module]) -> None:
    module = programs["jit_while_loop"]
    result = module_boundaries(module)
    check(result, module)
    entry = module.entry
    assert entry is not None
    (b,) = [b for b in result.boundaries if b.computation == entry.name]
    assert entry.instruction(b.producer).opcode == "while" and b.value.endswith("#1"), b
    assert b.reason == "control-flow", b.reasons
    inside = [b for b in result.boundaries if b.computation != entry.name]
    assert inside and all(b.reason == "library-call" for b in inside), (
        "the body's dot feeds its tanh"
    )


@pytest.mark.slow
def test_an_all_reduce_is_a_collective_boundary(programs: dict[str, Module]) -> None:
    module = programs["jit_all_reduce"]
    result = module_boundaries(module)
    check(result, module)
    around = [b for b in result.boundaries if "all-reduce" in (b.producer, *b.consumers)]
    assert len(around) == 2, result.boundaries
    assert all(b.reason == "collective" for b in around)


def test_the_seeds_attention() -> None:
    """The bf16 score matrix is read by a max and again by exp(x - max); the f32
    one leaves the unfused dot."""
    folder = sample_dump()
    module = load_module(index_dump(folder).module("jit_attention").after_optimizations.path).module
    result = module_boundaries(module)
    check(result, module)
    scores = boundary(result, "bf16[8192,8192]")
    assert scores.reason == "multi-pass" and "online softmax" in (scores.suggestion or "")
    assert scores.value == "wrapped_convert.3"
    ops = {o.instruction for o in scores.evidence[0].ops}
    assert {
        "reduce-window.4",
        "sub.0",
        "wrapped_reduce-window",
        "convert_exponential_fusion",
    } <= ops, ops
    (leaving,) = [b for b in result.boundaries if b.producer == "dot_general.6"]
    assert leaving.reason == "library-call" and leaving.shape.startswith("f32[8192,8192]")
    exp = result.find("convert_exponential_fusion")  # exp(x - max), summed, then divided
    assert (
        exp is not None
        and exp.reason == "multi-pass"
        and "online softmax" in (exp.suggestion or "")
    )
    assert result.by_reason()["multi-pass"] > result.by_reason()["library-call"] > 0


GPU_SOFTMAX = """HloModule gpu_softmax

%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(%a, %b)
}

%fused_softmax (p0: f32[128,256]) -> f32[128,256] {
  %p0 = f32[128,256]{1,0} parameter(0)
  %ninf = f32[] constant(-inf)
  %rmax = f32[128]{0} reduce(%p0, %ninf), dimensions={1}, to_apply=%max
  %b = f32[128,256]{1,0} broadcast(%rmax), dimensions={0}
  %sub = f32[128,256]{1,0} subtract(%p0, %b)
  ROOT %e = f32[128,256]{1,0} exponential(%sub)
}

ENTRY %main (x: f32[128,64], w: f32[64,256]) -> f32[128,256] {
  %x = f32[128,64]{1,0} parameter(0)
  %w = f32[64,256]{1,0} parameter(1)
  %gemm = (f32[128,256]{1,0}, s8[4]{0}) custom-call(%x, %w), custom_call_target="__cublas$gemm"
  %scores = f32[128,256]{1,0} get-tuple-element(%gemm), index=0
  ROOT %softmax = f32[128,256]{1,0} fusion(%scores), kind=kInput, calls=%fused_softmax
}
"""

LOOP_CARRY = """HloModule loop_carry

%f_tanh (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  ROOT %t = f32[8]{0} tanh(%p)
}

%f_exp (q: f32[8]) -> f32[8] {
  %q = f32[8]{0} parameter(0)
  ROOT %e = f32[8]{0} exponential(%q)
}

%body (s: (s32[], f32[8])) -> (s32[], f32[8]) {
  %s = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[8]{0} get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %carried = f32[8]{0} fusion(%v), kind=kLoop, calls=%f_tanh
  %used = f32[8]{0} fusion(%carried), kind=kLoop, calls=%f_exp
  ROOT %out = (s32[], f32[8]{0}) tuple(%next, %carried)
}

%cond (c: (s32[], f32[8])) -> pred[] {
  %c = (s32[], f32[8]{0}) parameter(0)
  %k = s32[] get-tuple-element(%c), index=0
  %n = s32[] constant(4)
  ROOT %lt = pred[] compare(%k, %n), direction=LT
}

ENTRY %main (x: f32[8]) -> (s32[], f32[8]) {
  %x = f32[8]{0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[8]{0}) tuple(%zero, %x)
  ROOT %loop = (s32[], f32[8]{0}) while(%init), condition=%cond, body=%body
}
"""


def test_a_gemm_feeding_a_one_kernel_softmax_is_multi_pass_before_library_call() -> None:
    """GPU-style: the softmax fusion reduces the scores and reads them again in one
    kernel. A one-pass rewrite (flash attention) removes this boundary; the
    library call is kept in the evidence."""
    module = parse_module(GPU_SOFTMAX)
    result = module_boundaries(module)
    check(result, module)
    (b,) = result.boundaries
    assert (b.producer, b.value, b.reason) == ("gemm", "gemm#0", "multi-pass")
    assert b.reasons == ("multi-pass", "library-call")
    assert {(o.computation, o.instruction) for o in b.evidence[0].ops} >= {
        ("fused_softmax", "rmax"),
        ("fused_softmax", "sub"),
    }
    assert "online softmax" in (b.suggestion or "")


def test_a_value_carried_to_the_next_iteration_is_control_flow() -> None:
    module = parse_module(LOOP_CARRY)
    result = module_boundaries(module)
    check(result, module)
    (b,) = result.boundaries
    assert (b.value, b.computation, b.consumers, b.reason) == (
        "carried",
        "body",
        ("used",),
        "control-flow",
    )
    assert "while body" in b.evidence[0].text


def corpus_modules(corpus: Path) -> list[Path]:
    """Every GPU and TPU after-optimizations module of the peer corpus."""
    with open(corpus / "MANIFEST.tsv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [
        corpus / r["local_path"]
        for r in rows
        if r["backend"] in ("gpu", "tpu")
        and r["kind"] == "hlo-module"
        and r["local_path"].startswith("real_dumps/")
        and not any(w in r["local_path"] for w in ("before", "spmd_partitioner"))
    ]


def test_every_corpus_boundary_gets_a_reason(corpus: Path) -> None:
    paths = corpus_modules(corpus)
    assert len(paths) >= 120, f"only {len(paths)} GPU/TPU modules: is the corpus complete?"
    seen: dict[str, int] = dict.fromkeys(REASONS, 0)
    for path in paths:
        module = load_module(path).module
        result = module_boundaries(module)
        check(result, module)
        for b in result.boundaries:
            seen[b.reason] += 1
    assert sum(seen.values()) > 6000
    # No corpus loop or branch hands a value to main memory (the TPU conditional's
    # stay on chip): control-flow is checked on the CPU while loop above.
    missing = {r for r in REASONS if not seen[r]}
    assert missing <= {"control-flow"}, f"reasons never found in the corpus: {missing} ({seen})"


def test_a_value_many_fusions_read_is_explained_with_reports_between_its_readers(
    monkeypatch,
) -> None:
    """Each reader of a value has its fused body read (a millisecond each on
    the 48-layer train step, whose top values 250 fusions read): between two
    progress reports a few are read, not all. With no report among a value's
    readers (and 256 values between reports), stretches of a second went by
    on that train step, which a step away from the pass waited out."""
    from xlaview.analysis.boundaries import evidence

    readers = 40
    bodies = "".join(
        f"fused_{k} {{\n  p.{k} = f32[64]{{0}} parameter(0)\n"
        f"  ROOT n.{k} = f32[64]{{0}} negate(p.{k})\n}}\n\n"
        for k in range(readers)
    )
    uses = "".join(
        f"  f.{k} = f32[64]{{0}} fusion(a), kind=kLoop, calls=fused_{k}\n" for k in range(readers)
    )
    results = ", ".join(f"f.{k}" for k in range(readers))
    shape = "(" + ", ".join(["f32[64]{0}"] * readers) + ")"
    module = parse_module(
        f"HloModule many_readers\n\n{bodies}ENTRY e {{\n  x = f32[64]{{0}} parameter(0)\n"
        f"  a = f32[64]{{0}} exponential(x)\n{uses}  ROOT t = {shape} tuple({results})\n}}\n"
    )
    monkeypatch.setattr(evidence, "READERS_BETWEEN_CHECKS", 1, raising=False)
    since_report = [0]
    stretches: list[int] = []
    read = evidence.ReasonFinder.facts_of

    def reading(self, name):
        since_report[0] += 1
        stretches.append(since_report[0])
        return read(self, name)

    def report(_fraction: float) -> None:
        since_report[0] = 0

    monkeypatch.setattr(evidence.ReasonFinder, "facts_of", reading)
    result = module_boundaries(module, progress=report)
    assert any(len(b.consumers) == readers for b in result.boundaries)
    assert max(stretches) <= 2, f"{max(stretches)} ops read without a report between"


def test_what_found_the_reasons_is_freed_a_piece_at_a_time(
    programs: dict[str, Module], monkeypatch
) -> None:
    """The finders (a flow of each computation, the reads found) and the op
    index are a few hundred thousand objects on a big module: left to go with
    the call, they were freed in one C call holding the interpreter (40-110 ms
    on the mixture of experts' module, a stall of the window beside it)."""
    import weakref

    from xlaview import turns
    from xlaview.analysis.boundaries import explain

    made: list[weakref.ref[object]] = []
    freed = [0]

    class Watched(explain.ReasonFinder):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(weakref.ref(self))

    free = turns.Apart.free

    def freeing(self, count: int) -> bool:
        freed[0] += 1
        return free(self, count)

    monkeypatch.setattr(explain, "ReasonFinder", Watched)
    monkeypatch.setattr(turns.Apart, "free", freeing)
    module_boundaries(programs["jit_shared_read"])
    assert made and all(ref() is None for ref in made)
    assert freed[0] > len(made), freed
