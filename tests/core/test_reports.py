"""Memory report readers: the seed dump, the zoo, every corpus report, and broken input."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlaview.dump.readers import (
    BufferAssignment,
    LiveRange,
    MemoryUsageReport,
    ReportError,
    read_buffer_assignment,
    read_live_range,
    read_memory_usage,
)
from xlaview.dump.reports import memory_of
from xlaview.hlo import parse_module

# Real texts kept inline, so the 2024-10..2026-03 formats are tested without the corpus.
# carlesoctav/fme xla_dump/module_0011.jit_sqrt.cpu_after_optimizations-buffer-assignment.txt
# (allocations, Used values and the appended HloLiveRange in one file):
OLD_ASSIGNMENT = """\
BufferAssignment:
allocation 0: size 4, output shape is |f32[]|, maybe-live-out:
 value: <1 sqrt.2 @0> (size=4,offset=0): f32[]
allocation 1: size 4, parameter 0, shape |f32[]| at ShapeIndex {}:
 value: <0 x.1 @0> (size=4,offset=0): f32[]

Total bytes used: 8 (8B)

Used values:
<0 x.1 @0>
 positions:
  x.1
 uses:
  sqrt.2, operand 0
 from instruction: %x.1 = f32[] parameter(0), metadata={op_name="x"}
<1 sqrt.2 @0>
 positions:
  sqrt.2
 uses:
 from instruction: %sqrt.2 = f32[] sqrt(%x.1), metadata={op_name="jit(sqrt)/sqrt" \
source_file="/home/carlesoctav/personal/modernizing-indo-nlp/src/nn/_linear.py" \
source_line=55 source_end_line=55 source_column=12 source_end_column=88}


HloLiveRange (max 2):
  InstructionSequence:
    0:x.1
    1:sqrt.2
  BufferLiveRange:
    x.1{}:0-2
    sqrt.2{}:1-2
  Live ranges at 1 (peak):
    sqrt.2{}: 4 bytes (cumulative: 4 bytes)
    x.1{}: 4 bytes (cumulative: 8 bytes)
  Stack trace breakdown for peak usage: 8 bytes
    main.3 (100.0%, total: 8 bytes, current: 0 bytes, remaining: 8 bytes)
      ├── jit(sqrt)/sqrt (50.0%, total: 4 bytes, current: 4 bytes, remaining: 4 bytes)
      └── x (50.0%, total: 4 bytes, current: 4 bytes, remaining: 0 bytes)
"""
# carlesoctav/fme
# xla_dump/module_0005.jit__threefry_split.cpu_after_optimizations-memory-usage-report.txt:
OLD_MEMORY = """\
Total bytes used: 1032 (1.0KiB)

Allocations sorted by size:

cumulative_size; total_size - cumulative_size; allocation
------------------------------------------------------------------------------
      964B( 93%);        68B; allocation 7: size 964B, preallocated-temp:
      980B( 95%);        52B; allocation 1: size 16B, output shape is |u32[2,2]|, maybe-live-out:
      996B( 97%);        36B; allocation 2: size 16B, constant:
     1012B( 98%);        20B; allocation 3: size 16B, constant:
     1020B( 99%);        12B; allocation 4: size 8B, parameter 0, shape |u32[2]| at ShapeIndex {}:
    1.0KiB( 99%);         8B; allocation 0: size 4B, constant:
    1.0KiB(100%);         4B; allocation 5: size 4B, constant:
    1.0KiB(100%);         0B; allocation 6: size 4B, constant:


Allocations sorted by size with their values:
allocation 7: size 964B, preallocated-temp:

\tcumulative_size;       size;       offset; used_by_n_values; shapes_list
\t------------------------------------------------------------
\t      64B( 36%);        64B;            0;                5; 5×(s32[], u32[2], u32[2], u32[], \
u32[], /*index=5*/u32[], u32[4], u32[4])
\t      80B( 45%);        16B;           64;                2; u32[4], pred[]
\t      96B( 55%);        16B;          192;                5; 5×u32[4]
\t     112B( 64%);        16B;          128;                1; u32[4]
\t     120B( 68%);         8B;          256;                1; u32[2]
\t     128B( 73%);         8B;          384;                5; 5×u32[2]
\t     136B( 77%);         8B;          448;                5; 5×u32[2]
\t     144B( 82%);         8B;          320;                1; u32[2]
\t     148B( 84%);         4B;          512;                1; u32[]
\t     152B( 86%);         4B;          960;                5; 5×u32[]
\t     156B( 89%);         4B;          768;                5; 5×s32[]
\t     160B( 91%);         4B;          576;                1; s32[]
\t     164B( 93%);         4B;          832;                5; 5×u32[]
\t     168B( 95%);         4B;          896;                5; 5×u32[]
\t     172B( 98%);         4B;          704;                1; u32[]
\t     176B(100%);         4B;          640;                1; u32[]

allocation 1: size 16B, output shape is |u32[2,2]|, maybe-live-out:

\tcumulative_size;       size;       offset; used_by_n_values; shapes_list
\t------------------------------------------------------------
\t      16B(100%);        16B;            0;                6; 5×u32[4], u32[2,2]

allocation 2: size 16B, constant:
allocation 3: size 16B, constant:
allocation 4: size 8B, parameter 0, shape |u32[2]| at ShapeIndex {}:
allocation 0: size 4B, constant:
allocation 5: size 4B, constant:
allocation 6: size 4B, constant:
"""

REPORT_SUFFIXES = {
    "hlo": ".txt",
    "assignment": "-buffer-assignment.txt",
    "values": "-buffer-assignment-values.txt",
    "live_range": "-live-range.txt",
    "memory": "-memory-usage-report.txt",
}

# The seed scenario: attention at seq 8192 in bf16 on CPU, compiled (not run).
SEED_PROGRAM = """
import jax, jax.numpy as jnp
def attn(x, wq, wk):
    s = (x @ wq) @ (x @ wk).T
    return jax.nn.softmax(s, axis=-1) @ x
S, D = 8192, 64
spec = jax.ShapeDtypeStruct
x, w = spec((S, D), jnp.bfloat16), spec((D, D), jnp.bfloat16)
jax.jit(attn).lower(x, w, w).compile()
"""


def module_texts(folder: Path, stem: str) -> dict[str, str]:
    """The final HLO and the reports XLA wrote beside it, those that exist."""
    texts = {}
    for key, suffix in REPORT_SUFFIXES.items():
        path = folder / f"{stem}{suffix}"
        if path.is_file():
            texts[key] = path.read_text()
    return texts


def stem_of(name: str) -> str:
    """The module's dump name: a report's file name without its report suffix."""
    suffixes = sorted((s for s in REPORT_SUFFIXES.values() if s != ".txt"), key=len, reverse=True)
    return next((name.removesuffix(s) for s in suffixes if name.endswith(s)), name)


def final_stems(folder: Path) -> list[str]:
    return sorted(stem_of(p.name) for p in folder.glob("*-buffer-assignment.txt"))


def read_all(texts: dict[str, str]) -> tuple[BufferAssignment, LiveRange, MemoryUsageReport | None]:
    assignment = read_buffer_assignment(texts["assignment"], "assignment", texts.get("values"))
    # Up to 2026-04 the live range was appended to the buffer assignment.
    live_range = read_live_range(texts.get("live_range", texts["assignment"]), "live-range")
    memory = read_memory_usage(texts["memory"], "memory") if "memory" in texts else None
    return assignment, live_range, memory


def consistency_problems(texts: dict[str, str]) -> list[str]:
    """What disagrees within and across one module's reports (empty when all is well)."""
    assignment, live_range, memory = read_all(texts)
    problems = [str(d) for d in assignment.diagnostics + live_range.diagnostics]
    problems += [str(d) for d in memory.diagnostics] if memory else []
    for a in assignment.allocations:
        problems += [
            f"allocation {a.index}: value {v.id} ends at {v.offset + v.size} > size {a.size}"
            for v in a.values
            if v.offset + v.size > a.size
        ]
    allocated = sum(a.size for a in assignment.allocations)
    if assignment.total_bytes not in (None, allocated):
        problems.append(f"total {assignment.total_bytes} is not the sum of the allocations")
    if live_range.peak_bytes != sum(b for _, b in live_range.peak_buffers):
        problems.append(f"peak {live_range.peak_bytes} is not the sum of the peak buffers")
    for key, _ in live_range.peak_buffers:
        live = live_range.ranges.get(key)
        if live is not None and not live[0] <= (live_range.peak_time or 0) <= live[1]:
            problems.append(f"{key} listed at the peak but live {live}")
    if len(live_range.sequence) != live_range.max_time:
        problems.append(f"{len(live_range.sequence)} scheduled, max time {live_range.max_time}")
    if memory is not None:
        problems += memory_table_problems(assignment, memory)
    return problems


def memory_table_problems(assignment: BufferAssignment, memory: MemoryUsageReport) -> list[str]:
    """Each slot row is one offset of an allocation and counts the values there."""
    problems = []
    if memory.total_bytes != sum(a.size for a in assignment.allocations):
        problems.append(f"memory report total {memory.total_bytes} differs from the allocations'")
    by_index = {a.index: a for a in assignment.allocations}
    # Since 2026-03 tables are unlabelled, one per allocation, largest first.
    by_size = sorted(assignment.allocations, key=lambda a: (-a.size, a.index))
    for space in memory.spaces:
        for row in space.rows:
            if row.kind != "slot":
                continue
            index = row.allocation if row.allocation is not None else by_size[row.table or 0].index
            counts = Counter(v.offset for v in by_index[index].values)
            if counts.get(row.offset) != row.value_count:
                problems.append(
                    f"line {row.line}: {row.value_count} values at offset {row.offset} "
                    f"but allocation {index} has {counts.get(row.offset)}"
                )
    return problems


# --------------------------------------------------------------------------- the seed dump


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    pytest.importorskip("jax")
    out = tmp_path_factory.mktemp("seed")
    flags = f"--xla_dump_to={out} --xla_cpu_experimental_ynn_fusion_type="
    env = {**os.environ, "XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu"}
    subprocess.run([sys.executable, "-c", SEED_PROGRAM], env=env, check=True)
    (stem,) = final_stems(out)
    texts = module_texts(out, stem)
    assert texts.keys() == REPORT_SUFFIXES.keys(), f"missing reports: {texts.keys()}"
    return texts


def test_seed_reports_are_consistent(seed: dict[str, str]) -> None:
    assert consistency_problems(seed) == []


def test_seed_parameter_allocations_follow_the_hlo(seed: dict[str, str]) -> None:
    entry = parse_module(seed["hlo"]).entry
    assert entry is not None
    numbers = {p.name: p.parameter_number for p in entry.parameters}
    assignment = read_buffer_assignment(seed["assignment"])
    parameters = [a for a in assignment.allocations if a.kind == "parameter"]
    assert sorted(a.parameter_number for a in parameters) == sorted(numbers.values()) == [0, 1, 2]
    for a in parameters:
        holders = {v.instruction for v in a.values}
        assert {numbers.get(name) for name in holders} == {a.parameter_number}, (
            f"allocation {a.index} is 'parameter {a.parameter_number}' but holds {holders}"
        )


def raw_slices(assignment_text: str) -> dict[str, tuple[int, int, int]]:
    """name -> (allocation, offset, size), read from the text with plain splits."""
    slices = {}
    allocation = -1
    for line in assignment_text.splitlines():
        if line.startswith("allocation "):
            allocation = int(line.split()[1].rstrip(":"))
        elif line.startswith(" value: <"):
            name = line.split()[2]
            size, offset = line.split("(size=")[1].split(")")[0].split(",offset=")
            slices[name] = (allocation, int(offset), int(size))
    return slices


def test_seed_memory_of_each_fusion(seed: dict[str, str]) -> None:
    entry = parse_module(seed["hlo"]).entry
    assert entry is not None
    fusions = [i.name for i in entry if i.opcode == "fusion"]
    assert len(fusions) >= 5
    assignment = read_buffer_assignment(seed["assignment"])
    live_range = read_live_range(seed["live_range"])
    expected = raw_slices(seed["assignment"])
    for name in fusions:
        found = memory_of(name, assignment, live_range)
        assert found is not None, f"no memory for {name}"
        got = (found.allocation.index, found.value.offset, found.value.size)
        assert got == expected[name], f"{name}: got {got}, the text says {expected[name]}"
        assert found.live_range == live_range.ranges[f"{name}{{}}"], name


def test_seed_peak_is_the_score_matrix(seed: dict[str, str]) -> None:
    """At seq 8192 the f32[8192,8192] scores dominate the peak, in the temp allocation."""
    assignment = read_buffer_assignment(seed["assignment"])
    live_range = read_live_range(seed["live_range"])
    key, size = max(live_range.peak_buffers, key=lambda kv: kv[1])
    found = memory_of(key.removesuffix("{}"), assignment, live_range)
    assert found is not None, key
    assert (found.value.size, found.value.shape) == (8192 * 8192 * 4, "f32[8192,8192]{1,0}")
    assert found.allocation.kind == "preallocated-temp"
    assert found.allocation_size == found.allocation.size >= found.value.size
    assert found.peak_share == pytest.approx(size / live_range.peak_bytes)
    assert found.peak_share > 0.9


@pytest.mark.parametrize("program", ["attention", "mlp_grad", "scan", "cond", "conv", "spmd"])
def test_zoo_reports_are_consistent(zoo: dict[str, Path], program: str) -> None:
    stems = [s for s in final_stems(zoo[program]) if s.endswith("cpu_after_optimizations")]
    assert stems, f"no buffer assignment dumped for {program}"
    for stem in stems:
        assert consistency_problems(module_texts(zoo[program], stem)) == [], stem


def test_forwarded_values_need_the_values_file(zoo: dict[str, Path]) -> None:
    """A while loop only forwards its operand's buffers: found through Used values."""
    (stem,) = final_stems(zoo["scan"])
    texts = module_texts(zoo["scan"], stem)
    without = read_buffer_assignment(texts["assignment"])
    with_values = read_buffer_assignment(texts["assignment"], None, texts["values"])
    assert without.positions == {} and with_values.positions
    loop = next(name for name in with_values.positions if name.startswith("while"))
    forwarded = [v for _, v in with_values.values_of(loop) if v.instruction != loop]
    assert forwarded, f"{loop} forwards nothing: {with_values.values_of(loop)}"
    assert len(with_values.values_of(loop)) > len(without.values_of(loop))


@pytest.mark.parametrize("program", ["scan", "conv", "attention"])
def test_a_lookup_before_the_index_finds_what_the_index_finds(
    zoo: dict[str, Path], program: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first lookups scan the values rather than index them all (a
    command asks about one op); every op's slices, defined or forwarded, are
    the same either way, and so for a name the report does not hold."""
    from xlaview.dump.readers import buffer_assignment

    (stem, *_) = [s for s in final_stems(zoo[program]) if s.endswith("cpu_after_optimizations")]
    texts = module_texts(zoo[program], stem)
    indexed = read_buffer_assignment(texts["assignment"], None, texts["values"])
    indexed.index()
    scanned = read_buffer_assignment(texts["assignment"], None, texts["values"])
    monkeypatch.setattr(buffer_assignment, "DIRECT_LOOKUPS", 10**9)  # every lookup a scan
    names = {v.instruction for a in indexed.allocations for v in a.values}
    names |= set(indexed.positions) | {"no_such_op"}
    assert len(names) > 5
    for name in sorted(names):
        assert scanned.values_of(name) == indexed.values_of(name), name


# --------------------------------------------------------------------------- the corpus

REPORT_KINDS = ("buffer-assignment", "memory-report", "live-range")


def corpus_reports(corpus: Path) -> list[Path]:
    rows = [line.split("\t") for line in (corpus / "MANIFEST.tsv").read_text().splitlines()]
    return [corpus / row[0] for row in rows if len(row) > 5 and row[5] in REPORT_KINDS]


def test_every_corpus_report_reads_cleanly(corpus: Path) -> None:
    reports = corpus_reports(corpus)
    assert len(reports) >= 58
    stems = {p.parent / stem_of(p.name) for p in reports}
    problems = {}
    for stem in sorted(stems):
        found = consistency_problems(module_texts(stem.parent, stem.name))
        if found:
            problems[stem.name] = found[:3]
    assert not problems, problems


FME = "carlesoctav__fme/xla_dump/module_00"
AMD = "clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap/module_00"
F05 = FME + "05.jit__threefry_split.cpu_after_optimizations"
F11 = FME + "11.jit_sqrt.cpu_after_optimizations"
F21 = FME + "21.jit__truncated_normal.cpu_after_optimizations"
A05 = AMD + "05.jit__multi_slice.gfx942_gpu_after_optimizations"
A14 = AMD + "14.jit_shardmap.gfx942_gpu_after_optimizations"


def slice_of(name: str, index: str = "{}") -> Callable[[Any], Any]:
    def read(texts: dict[str, str]) -> Any:
        assignment, live_range, _ = read_all(texts)
        found = memory_of(name, assignment, live_range, index)
        return found and (found.allocation.index, found.value.offset, found.value.size)

    return read


def assignment_fact(fact: Callable[[BufferAssignment], Any]) -> Callable[[dict[str, str]], Any]:
    return lambda texts: fact(read_all(texts)[0])


def live_fact(fact: Callable[[LiveRange], Any]) -> Callable[[dict[str, str]], Any]:
    return lambda texts: fact(read_all(texts)[1])


def memory_fact(fact: Callable[[MemoryUsageReport], Any]) -> Callable[[dict[str, str]], Any]:
    return lambda texts: fact(read_all(texts)[2])


def slots(allocation: int) -> Callable[[MemoryUsageReport], Any]:
    """(offset, values) of each slot the older format lists under ``allocation``."""
    return lambda m: [
        (r.offset, r.value_count)
        for r in m.spaces[0].rows
        if r.kind == "slot" and r.allocation == allocation
    ]


# Read from the files by hand: (module, what, fact, expected).
CORPUS_FACTS = [
    (F11, "allocations",
     assignment_fact(lambda a: [(x.index, x.kind, x.size) for x in a.allocations]),
     [(0, "output", 4), (1, "parameter", 4)]),
    (F11, "schedule", live_fact(lambda r: (r.sequence, r.max_time, r.peak_time, r.peak_bytes)),
     (("x.1", "sqrt.2"), 2, 1, 8)),
    (F21, "allocation count, total",
     assignment_fact(lambda a: (len(a.allocations), a.total_bytes)), (10, 9152)),
    (F21, "parameter numbers",
     assignment_fact(lambda a: [
         (x.index, x.parameter_number) for x in a.allocations if x.kind == "parameter"
     ]),
     [(4, 0), (5, 2), (6, 1)]),
    (F21, "temp allocation",
     assignment_fact(lambda a: (
         a.allocations[9].kind, a.allocations[9].size, len(a.allocations[9].values)
     )),
     ("preallocated-temp", 7044, 54)),
    (F21, "tuple elements via Used values",
     assignment_fact(lambda a: [v.instruction for _, v in a.values_of("tuple.14")][:3]),
     ["tuple.14", "add.57", "broadcast_add_fusion.1"]),
    (F21, "tuple element slice", slice_of("tuple.14", "{1}"), (9, 64, 2048)),
    (F21, "peak",
     live_fact(lambda r: (r.max_time, r.peak_time, r.peak_bytes, len(r.peak_buffers))),
     (52, 45, 8288, 18)),
    (F21, "while element range", live_fact(lambda r: r.range_of("while.9", "{1}")), (48, 51)),
    (F21, "stack tree",
     live_fact(lambda r: (len(r.stack_breakdown), r.stack_breakdown[0][:9])), (19, "main.336 ")),
    (F21, "memory total",
     memory_fact(lambda m: (m.total_bytes, [(s.name, s.color) for s in m.spaces])),
     (9152, [("default", None)])),
    (F21, "allocation rows",
     memory_fact(lambda m: [
         (r.allocation, r.size_text) for r in m.spaces[0].rows if r.kind == "allocation"
     ][:3]),
     [(9, "6.9KiB"), (0, "2.0KiB"), (2, "16B")]),
    (F21, "slots of allocation 0", memory_fact(slots(0)), [(0, 3)]),
    (F21, "slots of allocation 9", memory_fact(lambda m: len(slots(9)(m))), 18),
    (F05, "peak", live_fact(lambda r: (r.max_time, r.peak_time, r.peak_bytes)), (50, 18, 265)),
    (F05, "slots of allocation 7", memory_fact(lambda m: slots(7)(m)[:2]), [(0, 5), (64, 2)]),
    (A05, "allocations",
     assignment_fact(lambda a: (len(a.allocations), a.total_bytes, a.allocations[9].kind)),
     (10, 67108928, "output")),
    (A05, "peak", live_fact(lambda r: (r.max_time, r.peak_time, r.peak_bytes)), (10, 9, 67108928)),
    (A14, "kinds", assignment_fact(lambda a: [x.kind for x in a.allocations]),
     ["output", "parameter", "parameter", "thread-local", "thread-local", "thread-local",
      "preallocated-temp"]),
    (A14, "total from the values file", assignment_fact(lambda a: a.total_bytes), 216006678),
    (A14, "get-tuple-element forwards the matmul", slice_of("get-tuple-element.2"),
     (0, 0, 117440512)),
    (A14, "all-reduce-done forwards its start", slice_of("all-reduce-done"), (0, 0, 117440512)),
    (A14, "matmul workspace", slice_of("custom-call.1", "{1}"), (6, 0, 79691776)),
    (A14, "peak",
     live_fact(lambda r: (r.max_time, r.peak_time, r.peak_bytes, len(r.peak_buffers))),
     (6, 4, 253755392, 4)),
    (A14, "stack tree", live_fact(lambda r: r.stack_breakdown[0][:12]), "main.0_spmd "),
    (A14, "memory spaces",
     memory_fact(lambda m: [(s.name, s.color, s.total_bytes, len(s.rows)) for s in m.spaces]),
     [("default", 0, 216006678, 8)]),
    (A14, "tables", memory_fact(lambda m: [r.table for r in m.spaces[0].rows]),
     [0, 1, 1, 2, 3, 4, 5, 6]),
]  # fmt: skip


@pytest.mark.parametrize(
    "module,what,fact,expected",
    CORPUS_FACTS,
    ids=[f"{m.split('.')[1]}: {w}" for m, w, *_ in CORPUS_FACTS],
)
def test_corpus_facts(
    corpus: Path, module: str, what: str, fact: Callable[[dict[str, str]], Any], expected: Any
) -> None:
    path = corpus / "real_dumps" / module
    got = fact(module_texts(path.parent, path.name))
    assert got == expected, f"{module} {what}: {got!r} != {expected!r}"


def test_values_file_is_optional(corpus: Path) -> None:
    path = corpus / "real_dumps" / A14
    texts = module_texts(path.parent, path.name)
    assignment = read_buffer_assignment(texts["assignment"])
    assert assignment.total_bytes is None and assignment.diagnostics == ()
    assert memory_of("get-tuple-element.2", assignment, None) is None
    assert memory_of("custom-call.1", assignment, None, "{0}") is not None


# --------------------------------------------------------------------------- formats in detail

FLAGS = [
    # (flag text after the size, kind, parameter number)
    ("parameter 0, shape |bf16[8192,64]| at ShapeIndex {}", "parameter", 0),
    ("output shape is |(f32[8,8], f32[5])|, maybe-live-out", "output", None),
    ("maybe-live-out", "maybe-live-out", None),
    ("thread-local", "thread-local", None),
    ("constant", "constant", None),
    ("preallocated-temp", "preallocated-temp", None),
    ("color 1, parameter 3, shape |(f32[2], s32[])| at ShapeIndex {0,1}, maybe-live-out",
     "parameter", 3),
    ("constant, maybe-live-out", "constant", None),
    ("color 5, entry-computation-tuple", "temp", None),
]  # fmt: skip


@pytest.mark.parametrize("flags,kind,parameter", FLAGS, ids=[f[0][:40] for f in FLAGS])
def test_allocation_kinds_and_raw_flags(flags: str, kind: str, parameter: int | None) -> None:
    value = " value: <7 t.1 @0> (size=64,offset=0): f32[16]"
    text = f"BufferAssignment:\nallocation 3: size 64, {flags}:\n{value}\n"
    assignment = read_buffer_assignment(text)
    assert assignment.diagnostics == ()
    (allocation,) = assignment.allocations
    assert (allocation.kind, allocation.parameter_number) == (kind, parameter), flags
    assert ", ".join(allocation.flags) == flags, "every flag is kept as printed"
    assert (allocation.index, allocation.size, allocation.line) == (3, 64, 2)


def test_old_combined_file() -> None:
    assignment = read_buffer_assignment(OLD_ASSIGNMENT, "sqrt-buffer-assignment.txt")
    assert assignment.diagnostics == ()
    assert (assignment.total_bytes, assignment.positions["sqrt.2"]) == (8, (("{}", 1),))
    live_range = read_live_range(OLD_ASSIGNMENT)
    assert live_range.diagnostics == ()
    assert live_range.ranges == {"x.1{}": (0, 2), "sqrt.2{}": (1, 2)}
    assert live_range.peak_buffers == (("sqrt.2{}", 4), ("x.1{}", 4))
    assert live_range.stack_breakdown[0].startswith("main.3 (100.0%, total: 8 bytes,")
    found = memory_of("sqrt.2", assignment, live_range)
    assert found is not None
    assert (found.allocation.kind, found.live_range, found.peak_share) == ("output", (1, 2), 0.5)


def test_old_memory_report() -> None:
    memory = read_memory_usage(OLD_MEMORY)
    assert memory.diagnostics == ()
    (space,) = memory.spaces
    assert (memory.total_bytes, space.total_bytes, space.color) == (1032, 1032, None)
    kinds = Counter(r.kind for r in space.rows)
    assert kinds == {"allocation": 8, "slot": 17}, kinds
    first = space.rows[0]
    assert (first.allocation, first.size, first.size_text, first.line) == (7, 964, "964B", 7)
    slot = next(r for r in space.rows if r.kind == "slot" and r.offset == 960)
    assert (slot.allocation, slot.table, slot.value_count, slot.shapes) == (7, 0, 5, "5×u32[]")
    assert [r.allocation for r in space.rows if r.table == 1] == [1]


# The format before cumulative sums (XLA's own hlo_live_range test, 2020-2023): bare names.
PRE_CUMULATIVE = """\
HloLiveRange (max 3):
  InstructionSequence:
    0:paramA
    1:paramX
    2:multiply
  BufferLiveRange:
    paramA{}:0-3
    paramX{}:0-3
    multiply{}:2-3
  Live ranges at 2 (peak):
    paramA: 16 bytes
    paramX: 16 bytes
    multiply: 16 bytes
"""


def test_pre_cumulative_live_range() -> None:
    live_range = read_live_range(PRE_CUMULATIVE)
    assert live_range.diagnostics == ()
    assert (live_range.peak_time, live_range.peak_bytes, live_range.stack_breakdown) == (2, 48, ())
    assert live_range.is_live_at_peak("multiply") and not live_range.is_live_at_peak("other")


NEW_MEMORY = """\
Memory Space: default (color=0)
Total bytes: 2097172 (2.00MiB)
  cumulative_size;       size;       offset; used_by_n_values; shapes_list
  ------------------------------------------------------------
    2.00MiB(100%);    2.00MiB;            0;                2; f32[2,128,1024], 2×(f32[1], s32[])
  The rest 3 values are less than 5% of the total size and not shown.

Memory Space: alternate (color=1)
Total bytes: 4 (4B)
  cumulative_size;       size;       offset; used_by_n_values; shapes_list
  ------------------------------------------------------------
         4B(100%);         4B;            0;                1; f32[]
"""


def test_memory_spaces() -> None:
    memory = read_memory_usage(NEW_MEMORY)
    assert memory.diagnostics == ()
    spaces = [(s.name, s.color, s.total_bytes) for s in memory.spaces]
    assert spaces == [("default", 0, 2097172), ("alternate", 1, 4)]
    assert memory.total_bytes == 2097176
    row = memory.spaces[0].rows[0]
    assert (row.size, row.offset, row.value_count) == (2 << 20, 0, 2)
    assert row.shapes == "f32[2,128,1024], 2×(f32[1], s32[])", "shapes contain commas of their own"
    (note,) = memory.spaces[0].notes
    assert note.startswith("The rest 3 values are less than 5%")


# --------------------------------------------------------------------------- broken input

READERS: dict[str, Callable[[str, str | None], Any]] = {
    "assignment": lambda text, path: read_buffer_assignment(text, path),
    "values": lambda text, path: read_buffer_assignment("BufferAssignment:\n", path, text),
    "live_range": read_live_range,
    "memory": read_memory_usage,
}
PATH = "dump/m-buffer-assignment.txt"


def check_located(reader: str, text: str) -> Any:
    """Read without an exception; every diagnostic points at a line of the text."""
    result = READERS[reader](text, PATH)
    lines = text.count("\n") + 1
    expected_path = "dump/m-buffer-assignment-values.txt" if reader == "values" else PATH
    for d in result.diagnostics:
        assert 1 <= d.line <= lines, f"{reader}: {d} (text has {lines} lines)"
        assert str(d) == f"{expected_path}:{d.line}: {d.message}", str(d)
    return result


def truncations(text: str) -> list[str]:
    """The text cut at the end of each line and in the middle of each line."""
    cuts = []
    start = 0
    for end in [i for i, c in enumerate(text) if c == "\n"] + [len(text)]:
        cuts += [text[: (start + end) // 2], text[:end]]
        start = end + 1
    return cuts


def real_texts(seed: dict[str, str]) -> list[tuple[str, str]]:
    return [
        ("assignment", seed["assignment"]),
        ("values", seed["values"]),
        ("live_range", seed["live_range"]),
        ("memory", seed["memory"]),
        ("assignment", OLD_ASSIGNMENT),
        ("live_range", OLD_ASSIGNMENT),
        ("memory", OLD_MEMORY),
    ]


def test_truncated_at_every_line(seed: dict[str, str]) -> None:
    for reader, text in real_texts(seed):
        full = READERS[reader](text, None)
        for cut in truncations(text):
            part = check_located(reader, cut)
            if reader == "assignment":
                assert len(part.allocations) <= len(full.allocations)


def test_empty_input_is_reported_at_line_1() -> None:
    for reader in ("assignment", "live_range", "memory"):
        result = check_located(reader, "")
        assert [d.line for d in result.diagnostics] == [1], f"{reader}: {result.diagnostics}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junk=st.one_of(st.text(), st.binary().map(lambda b: b.decode("latin-1"))))
def test_junk_never_raises(junk: str) -> None:
    for reader in READERS:
        check_located(reader, junk)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_shuffled_real_lines_never_raise(data: st.DataObject) -> None:
    texts = (("assignment", OLD_ASSIGNMENT), ("memory", OLD_MEMORY), ("live_range", OLD_ASSIGNMENT))
    for reader, text in texts:
        lines = text.split("\n")
        picked = data.draw(st.lists(st.sampled_from(lines), max_size=60))
        check_located(reader, "\n".join(picked))


ERRORS = [
    # (what is wrong, reader, text, (old, new) edit, line, words in the message)
    ("value without size", "assignment", OLD_ASSIGNMENT,
     ("(size=4,offset=0): f32[]\nallocation 1", "(size=4): f32[]\nallocation 1"),
     3, "size=N,offset=N"),
    ("value past its allocation", "assignment", OLD_ASSIGNMENT,
     ("(size=4,offset=0): f32[]\nallocation 1", "(size=4,offset=2): f32[]\nallocation 1"),
     3, "past"),
    ("allocation without size", "assignment", OLD_ASSIGNMENT,
     ("allocation 1: size 4,", "allocation 1: 4,"), 4, "allocation N"),
    ("stray line", "assignment", OLD_ASSIGNMENT,
     ("\nTotal bytes used", "\nsomething else\nTotal bytes used"), 7, "expected"),
    ("bad position", "assignment", OLD_ASSIGNMENT,
     ("  x.1\n uses:", "  x.1 {oops\n uses:"), 12, "position"),
    ("bad range", "live_range", OLD_ASSIGNMENT, ("sqrt.2{}:1-2", "sqrt.2{}:1-"), 29, "start-end"),
    ("schedule gap", "live_range", OLD_ASSIGNMENT,
     ("    1:sqrt.2", "    2:sqrt.2"), 26, "position 1"),
    ("wrong cumulative", "live_range", OLD_ASSIGNMENT,
     ("(cumulative: 8 bytes)", "(cumulative: 9 bytes)"), 32, "cumulative"),
    ("unknown section", "live_range", OLD_ASSIGNMENT,
     ("  BufferLiveRange:", "  Mystery:\n    x:1\n  BufferLiveRange:"), 27, "Mystery"),
    ("bad total", "memory", OLD_MEMORY,
     ("Total bytes used: 1032", "Total bytes used: lots"), 1, "Total bytes used"),
    ("junk row", "memory", OLD_MEMORY,
     ("\t     112B( 64%)", "\tgarbage\n\t     112B( 64%)"), 25, "garbage"),
]  # fmt: skip


@pytest.mark.parametrize("what,reader,text,edit,line,words", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_are_located(
    what: str, reader: str, text: str, edit: tuple[str, str], line: int, words: str
) -> None:
    assert text.count(edit[0]) == 1, f"edit for {what!r} does not apply once"
    result = check_located(reader, text.replace(*edit))
    assert [(d.line, words in d.message) for d in result.diagnostics] == [(line, True)], (
        f"{what}: {[str(d) for d in result.diagnostics]}"
    )


def test_report_error_reads_and_pickles() -> None:
    error = ReportError("expected 'N:name'", "a/b-live-range.txt", 12)
    assert str(error) == "a/b-live-range.txt:12: expected 'N:name'"
    assert str(ReportError("x", None, 3)) == "3: x"
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.message, copy.path, copy.line) == (error.message, error.path, error.line)


def test_values_diagnostics_name_the_values_file(seed: dict[str, str]) -> None:
    broken = seed["values"].replace("Used values:\n", "Used values:\n<oops\n", 1)
    assignment = read_buffer_assignment(seed["assignment"], "d/m-buffer-assignment.txt", broken)
    assert [d.path for d in assignment.diagnostics] == ["d/m-buffer-assignment-values.txt"]


# --------------------------------------------------------------------------- speed


@pytest.mark.slow
def test_large_assignment_reads_in_linear_time(seed: dict[str, str]) -> None:
    """A 21k-instruction module's allocations file is ~630 KB; eight times that
    takes about eight times as long (the speed itself is a benchmark's)."""
    body = seed["assignment"].split("\n", 1)[1]
    small = "BufferAssignment:\n" + body * (640_000 // len(body))
    large = "BufferAssignment:\n" + body * (8 * 640_000 // len(body))
    t_small = min(timed(read_buffer_assignment, small) for _ in range(3))
    t_large = min(timed(read_buffer_assignment, large) for _ in range(3))
    assert t_large < 24 * t_small + 0.1, (  # quadratic would be 64 times
        f"{len(small) >> 10} KB in {t_small * 1000:.0f} ms, {len(large) >> 10} KB in "
        f"{t_large * 1000:.0f} ms: more than linear"
    )


def timed(read: Callable[[str], Any], text: str) -> float:
    start = time.perf_counter()
    read(text)
    return time.perf_counter() - start
