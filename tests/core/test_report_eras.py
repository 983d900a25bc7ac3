"""XLA's memory reports in every era they were written in: real files of the
peer corpus for the eras it has (2024-10 on), and for the eras it lacks, lines
written by hand in the exact format XLA's source of the time printed (quoted
beside each one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlaview.dump.index import index_dump
from xlaview.dump.readers import read_buffer_assignment, read_live_range, read_memory_usage
from xlaview.dump.reports import load_reports, memory_of

# --------------------------------------------------------------------------- eras the corpus lacks

# 2019-04 (the first -buffer-assignment.txt dumps) to mid-2019, LogicalBuffers.
# tensorflow/compiler/xla/service/buffer_assignment.cc, BufferAllocation::ToString:
#   Appendf(&output, "allocation %lld: %p, size %lld", index_, this, size());
#   StrAppend(&output, ", parameter ", parameter_number(), " at ShapeIndex ",
#             param_shape_index().ToString());
#   ... ", constant" ", thread-local" ", maybe-live-out" ", preallocated-temp" ":\n"
#   Printf("  %s [%lld,%lld]: %s\n", buffer->ToString().c_str(),
#          offset_size.offset, offset_size.size,
#          ShapeUtil::HumanStringWithLayout(buffer->shape()).c_str())
# logical_buffer.cc, LogicalBuffer::ToString:
#   StrCat(instruction_->name(), "[", StrJoin(index_, ","), "](#", id(), color_string, ")")
#   (color_string: " @" and the color)
LOGICAL_BUFFERS = """\
BufferAssignment:
allocation 0: 0x55d0c8a0f2b0, size 16, parameter 0 at ShapeIndex {}:
  p0.1[](#0 @0) [0,16]: f32[4]{0}
allocation 1: 0x55d0c8a0f3c8, size 16, maybe-live-out:
  tuple.4[](#3 @0) [0,16]: (f32[4]{0}, s32[])
allocation 2: 0x55d0c8a0f4e0, size 20, preallocated-temp:
  exp.2[](#1 @0) [0,16]: f32[4]{0}
  while.5[1](#5 @0) [16,4]: s32[]
allocation 3: 0x55d0c8a0f5f8, size 4, parameter 1 at ShapeIndex {0,1}, thread-local:
  p1.2[0,1](#2 @0) [0,4]: s32[]
"""

# Mid-2019, for a few weeks after buffer assignment moved to HloValues: the
# value printed whole. buffer_assignment.cc:
#   StrAppendFormat(&output, "allocation %d: %p, size %d", index_, this, size());
#   StrAppend(&output, absl::StrFormat("  %s [%d,%d]: %s\n", buffer->ToString(),
#             offset_size.offset, offset_size.size,
#             ShapeUtil::HumanStringWithLayout(buffer->shape())));
# hlo_value.cc, HloValue::ToShortString and ToString(indent = 0):
#   StrCat(id(), " ", is_phi_ ? "PHI " : "", defining_instruction()->name(),
#          index_str, " @", (has_color() ? color().value() : -1));
#   StrCat(indentation, ToShortString(), ", positions:\n");
#   StrAppend(&out, indentation, "  ", position.ToString(), "\n");   (each position)
#   StrAppend(&out, indentation, " uses:\n");
#   StrAppend(&out, indentation, "  ", use.ToString(), "\n");        (each use)
# HloPosition::ToString is the name, then " {index}" for a tuple; HloUse's is
# "name, operand N".
WHOLE_VALUES = """\
BufferAssignment:
allocation 0: 0x55d0c8a0f2b0, size 16, parameter 0 at ShapeIndex {}:
  0 p0.1 @0, positions:
  p0.1
 uses:
  exp.2, operand 0
 [0,16]: f32[4]{0}
allocation 1: 0x55d0c8a0f3c8, size 20, preallocated-temp:
  1 exp.2 @0, positions:
  exp.2
 uses:
 [0,16]: f32[4]{0}
  5 PHI while.6{1} @0, positions:
  while.6 {1}
  gte.7
 uses:
  add.8, operand 1
 [16,4]: s32[]
"""

# Late 2019 to 2022: the address still after the allocation number (an Alpa
# 2022 V100 dump: "allocation 0: 0x15c1e9f0, size 16384, ..."), values one a line.
# buffer_assignment.cc (TensorFlow 1.15 to 2.9):
#   StrAppendFormat(&output, "allocation %d: %p, size %d", index_, this, size());
#   StrAppend(&output, ", parameter ", parameter_number(), ", shape |",
#             param->shape().ToString(/*print_layout=*/false),
#             "| at ShapeIndex ", param_shape_index().ToString());
#   StrAppend(&output, ", output shape is |",
#             instr->shape().ToString(/*print_layout=*/false), "|");
#   absl::StrFormat(" value: %s (size=%d,offset=%d): %s\n", buffer->ToShortString(), ...)
# BufferAssignment::ToString:
#   absl::StrAppend(&output, "\nTotal bytes used: ", total_size, "\n");
#   absl::StrAppend(&output, "\nUsed values:\n");  then each value->ToString()
# hlo_value.cc:
#   absl::StrFormat("<%d %s%s%s%s>", id(), instruction()->name(),
#       instruction()->shape().IsTuple() ? index().ToString() : "",
#       is_phi() ? " (phi)" : "", has_color() ? StrCat(" @", color()) : "");
#   StrCat(indentation, ToShortString(), "\n", indentation, " positions:\n");
# dump.cc (2021 on) appends the live range to the same file:
#   data_producer.Append([&] { return buffer_assn->ToString(); });
#   data_producer.Append([&] { return "\n\n"; });
#   data_producer.Append([&] { return buffer_assn->hlo_live_range().ToString(); });
# hlo_live_range.cc, before the cumulative sums: "    %s: %d bytes\n" per peak value.
ADDRESSES = """\
BufferAssignment:
allocation 0: 0x15c1e9f0, size 16384, parameter 0, shape |f32[64,64]| at ShapeIndex {}:
 value: <0 p0.1 @0> (size=16384,offset=0): f32[64,64]{1,0}
allocation 1: 0x15c1eaa0, size 16384, output shape is |f32[64,64]|, maybe-live-out:
 value: <2 fusion @0> (size=16384,offset=0): f32[64,64]{1,0}
allocation 2: 0x15c1eb50, size 4, constant:
 value: <1 constant.3 @0> (size=4,offset=0): f32[]
allocation 3: 0x15c1ec00, size 24, color 1, preallocated-temp:
 value: <3 while.4{} @1> (size=16,offset=0): (f32[], s32[])
 value: <4 while.4{1} (phi) @1> (size=4,offset=16): s32[]

Total bytes used: 32796

Used values:
<0 p0.1 @0>
 positions:
  p0.1
 uses:
  fusion, operand 0
<1 constant.3 @0>
 positions:
  constant.3
 uses:
  fusion, operand 1
<2 fusion @0>
 positions:
  fusion
  bitcast.5
 uses:
<3 while.4{} @1>
 positions:
  while.4
 uses:
<4 while.4{1} (phi) @1>
 positions:
  while.4 {1}
  get-tuple-element.6
 uses:


HloLiveRange (max 5):
  InstructionSequence:
    0:p0.1
    1:constant.3
    2:while.4
    3:get-tuple-element.6
    4:fusion
  BufferLiveRange:
    p0.1{}:0-5
    constant.3{}:1-5
    while.4{}:2-3
    while.4{1}:2-3
    fusion{}:4-5
  Live ranges at 4 (peak):
    p0.1: 16384 bytes
    fusion: 16384 bytes
    constant.3: 4 bytes
"""


def test_logical_buffer_era() -> None:
    assignment = read_buffer_assignment(LOGICAL_BUFFERS)
    assert assignment.diagnostics == ()
    kinds = [(a.index, a.size, a.kind, a.parameter_number) for a in assignment.allocations]
    assert kinds == [
        (0, 16, "parameter", 0),
        (1, 16, "maybe-live-out", None),
        (2, 20, "preallocated-temp", None),
        (3, 4, "parameter", 1),
    ]
    assert assignment.allocations[3].flags == ("parameter 1 at ShapeIndex {0,1}", "thread-local")
    values = [(v.id, v.instruction, v.shape_index, v.offset, v.size) for v in
              assignment.allocations[2].values]  # fmt: skip
    assert values == [(1, "exp.2", "{}", 0, 16), (5, "while.5", "{1}", 16, 4)]
    found = memory_of("while.5", assignment, None, "{1}")
    assert found is not None and (found.allocation.index, found.value.offset) == (2, 16)


def test_whole_value_era() -> None:
    assignment = read_buffer_assignment(WHOLE_VALUES)
    assert assignment.diagnostics == ()
    temp = assignment.allocations[1]
    assert [
        (v.id, v.instruction, v.shape_index, v.offset, v.size, v.shape) for v in temp.values
    ] == [
        (1, "exp.2", "{}", 0, 16, "f32[4]{0}"),
        (5, "while.6", "{1}", 16, 4, "s32[]"),
    ]
    # Its positions come with it: what forwards the value is joined too.
    assert assignment.positions["gte.7"] == (("{}", 5),)
    found = memory_of("gte.7", assignment, None)
    assert found is not None and (found.value.instruction, found.value.offset) == ("while.6", 16)


def test_whole_value_cut_short_is_located() -> None:
    cut = WHOLE_VALUES.split(" [0,16]: f32[4]{0}\n  5 PHI", 1)[0]
    assignment = read_buffer_assignment(cut, "m-buffer-assignment.txt")
    assert [(d.line, "cut short" in d.message) for d in assignment.diagnostics] == [(9, True)]


def test_address_era() -> None:
    assignment = read_buffer_assignment(ADDRESSES, "m-buffer-assignment.txt")
    assert assignment.diagnostics == ()
    assert [(a.index, a.size, a.kind) for a in assignment.allocations] == [
        (0, 16384, "parameter"),
        (1, 16384, "output"),
        (2, 4, "constant"),
        (3, 24, "preallocated-temp"),
    ]
    assert assignment.total_bytes == 32796 == sum(a.size for a in assignment.allocations)
    assert assignment.allocations[3].flags == ("color 1", "preallocated-temp")
    live_range = read_live_range(ADDRESSES)
    assert live_range.diagnostics == ()
    assert (live_range.max_time, live_range.peak_time, live_range.peak_bytes) == (5, 4, 32772)
    # Each value joins: the inspector finds its entry, its live range and its share.
    found = memory_of("fusion", assignment, live_range)
    assert found is not None
    assert (found.allocation.index, found.live_range, found.peak_share) == (
        1,
        (4, 5),
        16384 / 32772,
    )
    forwarded = memory_of("get-tuple-element.6", assignment, live_range)
    assert forwarded is not None and forwarded.value.instruction == "while.4"
    assert forwarded.live_range == (2, 3)


@pytest.mark.parametrize(
    "address",
    ["0x15c1e9f0", "0x7f3a2c01d2a0", "0X7F3A2C01D2A0", "000000A1B2C3D4E5", "(nil)"],
)
def test_every_printed_address(address: str) -> None:
    """``%p`` as glibc and absl print it, and as other C libraries did."""
    text = f"BufferAssignment:\nallocation 7: {address}, size 8, thread-local:\n"
    text += " value: <9 x.1 @0> (size=8,offset=0): f64[]\n"
    assignment = read_buffer_assignment(text)
    assert assignment.diagnostics == ()
    assert [(a.index, a.size, a.kind) for a in assignment.allocations] == [(7, 8, "thread-local")]


# HloValue::ToString's header line, as the Used values list printed it: the
# angle brackets and " positions:" on a line of its own (above), and before
# them (hlo_value.cc, 2019): StrCat(indentation, ToShortString(), ", positions:\n")
# with ToShortString's StrCat(id(), " ", is_phi_ ? "PHI " : "", name, index_str, " @", color).
OLD_USED_VALUES = """\
BufferAssignment:
allocation 0: 0x15c1e9f0, size 8, maybe-live-out:
 value: <4 while.4{1} (phi) @0> (size=8,offset=0): s64[]

Total bytes used: 8

Used values:
4 PHI while.4{1} @0, positions:
  while.4 {1}
  get-tuple-element.6
 uses:
  add.7, operand 0
"""


def test_used_values_before_the_angle_brackets() -> None:
    assignment = read_buffer_assignment(OLD_USED_VALUES)
    assert assignment.diagnostics == ()
    assert assignment.positions == {"while.4": (("{1}", 4),), "get-tuple-element.6": (("{}", 4),)}
    assert memory_of("get-tuple-element.6", assignment, None) is not None


def test_allocation_without_size_is_still_refused() -> None:
    """The address is optional; the size is not."""
    text = "BufferAssignment:\nallocation 1: 0x15c1e9f0, 4, constant:\n"
    assignment = read_buffer_assignment(text, "m-buffer-assignment.txt")
    assert [(d.line, "allocation N" in d.message) for d in assignment.diagnostics] == [(2, True)]


def test_flag_braces_take_linear_time() -> None:
    """A header of unclosed braces is read in one pass, not one per brace."""
    import time

    text = "BufferAssignment:\nallocation 1: size 4, " + "{" * 200_000 + ":\n"
    start = time.perf_counter()
    read_buffer_assignment(text)
    assert time.perf_counter() - start < 2.0


def test_an_alpa_era_folder_joins(tmp_path: Path) -> None:
    """The whole path a 2022 GPU dump takes: indexed, read without a problem,
    and each instruction joined to its entry (the inspector's question)."""
    hlo = (
        "HloModule pjit_step, is_scheduled=true\n\nENTRY %main (p0.1: f32[64,64]) -> f32[64,64] {\n"
        "  %p0.1 = f32[64,64]{1,0} parameter(0)\n  %constant.3 = f32[] constant(1)\n"
        "  ROOT %fusion = f32[64,64]{1,0} fusion(f32[64,64]{1,0} %p0.1, f32[] %constant.3), "
        "kind=kLoop, calls=%fused\n}\n"
    )
    stem = "module_0053.pjit_step.sm_7.0_gpu_after_optimizations"
    (tmp_path / f"{stem}.txt").write_text(hlo)
    (tmp_path / f"{stem}-buffer-assignment.txt").write_text(ADDRESSES)
    index = index_dump(tmp_path)
    assert index.problems == []
    (module,) = index.modules
    reports = load_reports(module)
    assert reports.problems == ()
    assert reports.buffer_assignment is not None and reports.live_range is not None
    for name in ("p0.1", "constant.3", "fusion"):
        assert memory_of(name, reports.buffer_assignment, reports.live_range) is not None, name


# --------------------------------------------------------------------------- eras the corpus has

CORPUS_ERAS = [
    # (era, a real module of it: its dump stem under real_dumps/, what marks the era)
    ("2024-10..2026-03: allocations, Used values and HloLiveRange in one file",
     "carlesoctav__fme/xla_dump/module_0021.jit__truncated_normal.cpu_after_optimizations",
     "Used values:"),
    ("2026-04 on: the values and the live range in files of their own",
     "clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap/"
     "module_0014.jit_shardmap.gfx942_gpu_after_optimizations",
     "Memory Space:"),
]  # fmt: skip


@pytest.mark.parametrize("era,stem,marker", CORPUS_ERAS, ids=[e[0][:18] for e in CORPUS_ERAS])
def test_corpus_era(corpus: Path, era: str, stem: str, marker: str) -> None:
    base = corpus / "real_dumps" / stem
    assignment_path = Path(f"{base}-buffer-assignment.txt")
    if not assignment_path.is_file():
        pytest.skip(f"{assignment_path.name} is not in this corpus")
    text = assignment_path.read_text()
    values_path = Path(f"{base}-buffer-assignment-values.txt")
    live_path = Path(f"{base}-live-range.txt")
    memory_path = Path(f"{base}-memory-usage-report.txt")
    values = values_path.read_text() if values_path.is_file() else None
    memory_text = memory_path.read_text()
    assert marker in (values or text) + memory_text, f"{era}: not a file of that era"
    assignment = read_buffer_assignment(text, assignment_path.name, values)
    live_range = read_live_range(live_path.read_text() if live_path.is_file() else text)
    memory = read_memory_usage(memory_text)
    assert assignment.diagnostics == live_range.diagnostics == memory.diagnostics == ()
    assert not any(line.startswith("allocation ") and ": 0x" in line for line in text.split("\n"))
    # Every value joins to its allocation, and the totals agree.
    for allocation in assignment.allocations:
        for value in allocation.values:
            found = memory_of(value.instruction, assignment, live_range, value.shape_index)
            assert found is not None, f"{era}: {value.instruction}{value.shape_index}"
    assert memory.total_bytes == sum(a.size for a in assignment.allocations)
