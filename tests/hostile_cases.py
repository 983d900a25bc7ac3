"""Issue 24's classes of hostile input, as dump texts: each with an
instruction to inspect, the text that marks its bad line (None: the text is
valid, only hard), and what the located warning says. Shared by the command
line's tests and the window's."""

from __future__ import annotations

from hostile import AFTER

NAME = "module_0000.jit_f.cpu_after_optimizations.txt"
TEXT = AFTER.decode()


def replace_once(old: str, new: str) -> bytes:
    assert old in TEXT, old
    return TEXT.replace(old, new, 1).encode()


def line_of(text: bytes, marker: bytes) -> int:
    return text[: text.index(marker)].count(b"\n") + 1


NEGATIVE_TRIP = """HloModule loop, entry_computation_layout={(f32[8]{0})->f32[8]{0}}

%cond (p.0: (s32[], f32[8])) -> pred[] {
  %p.0 = (s32[], f32[8]{0}) parameter(0)
  %i.0 = s32[] get-tuple-element(%p.0), index=0
  %n = s32[] constant(5)
  ROOT %lt = pred[] compare(%i.0, %n), direction=LT
}

%body (p.1: (s32[], f32[8])) -> (s32[], f32[8]) {
  %p.1 = (s32[], f32[8]{0}) parameter(0)
  %i.1 = s32[] get-tuple-element(%p.1), index=0
  %x.1 = f32[8]{0} get-tuple-element(%p.1), index=1
  %one = s32[] constant(1)
  %i.2 = s32[] add(%i.1, %one)
  %e = f32[8]{0} exponential(%x.1)
  ROOT %t = (s32[], f32[8]{0}) tuple(%i.2, %e)
}

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[8]{0}) tuple(%zero, %x)
  %loop = (s32[], f32[8]{0}) while(%init), condition=%cond, body=%body, \
backend_config={"known_trip_count":{"n":"TRIPS"}}
  ROOT %out = f32[8]{0} get-tuple-element(%loop), index=1
}
"""
RECURSIVE_WHILE = NEGATIVE_TRIP.replace("TRIPS", "5").replace(
    "  %e = f32[8]{0} exponential(%x.1)",
    "  %inner = (s32[], f32[8]{0}) while(%p.1), condition=%cond, body=%body\n"
    "  %e = f32[8]{0} exponential(%x.1)",
)
# A valid 1-D convolution XLA's own cost analysis counts position by position
# (kernel x outputs: 2.5e9 steps): 2 x 50,000 x 50,001 FLOPs.
CONVOLUTION = """HloModule conv, entry_computation_layout={(f32[1,1,150000]{2,1,0}, \
f32[1,1,50000]{2,1,0})->f32[1,1,50001]{2,1,0}}

ENTRY %main (x: f32[1,1,150000], k: f32[1,1,50000]) -> f32[1,1,50001] {
  %x = f32[1,1,150000]{2,1,0} parameter(0)
  %k = f32[1,1,50000]{2,1,0} parameter(1)
  ROOT %conv = f32[1,1,50001]{2,1,0} convolution(%x, %k), window={size=50000 stride=2}, \
dim_labels=bf0_oi0->bf0
}
"""


def nested_calls(depth: int) -> bytes:
    parts = [
        "HloModule deep, entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n",
        f"%c{depth} (p: f32[8]) -> f32[8] {{\n  %p = f32[8]{{0}} parameter(0)\n"
        "  ROOT %e = f32[8]{0} exponential(%p)\n}\n",
    ]
    for i in range(depth - 1, 0, -1):
        parts.append(
            f"%c{i} (p.{i}: f32[8]) -> f32[8] {{\n  %p.{i} = f32[8]{{0}} parameter(0)\n"
            f"  ROOT %call.{i} = f32[8]{{0}} call(%p.{i}), to_apply=%c{i + 1}\n}}\n"
        )
    parts.append(
        "ENTRY %main (x: f32[8]) -> f32[8] {\n  %x = f32[8]{0} parameter(0)\n"
        "  ROOT %call.0 = f32[8]{0} call(%x), to_apply=%c1\n}\n"
    )
    return "\n".join(parts).encode()


DEEP = 100_000
# name -> (the final dump's text, an instruction to inspect, the text marking the
# bad line (None: the text is valid), what the warning says)
CASES: dict[str, tuple[bytes, str, bytes | None, str]] = {
    "tile T(8,x)": (
        replace_once("f32[8192,8192]{1,0} convert", "f32[8192,8192]{1,0:T(8,x)} convert"),
        "convert_exponential_fusion", b"T(8,x)", "expects a tile size",
    ),
    "window size 1xa": (
        replace_once("window={size=1x32 stride=1x32}", "window={size=1xa stride=1x32}"),
        "convert_exponential_fusion", b"size=1xa", "does not read",
    ),
    "window stride shorter than size": (
        replace_once("window={size=1x32 stride=1x32}", "window={size=1x32 stride=1}"),
        "convert_exponential_fusion", b"stride=1}", "of different lengths",
    ),
    "feature_group_count=abc": (
        replace_once("metadata={op_name=\"jit(attention)/div\"",
                     "feature_group_count=abc, metadata={op_name=\"jit(attention)/div\""),
        "convert_exponential_fusion", b"feature_group_count=abc", "expects a count",
    ),
    "minor_to_major past the rank": (
        replace_once("%param_0.3 = f32[8192]{0}", "%param_0.3 = f32[8192]{3}"),
        "convert_exponential_fusion", b"f32[8192]{3}", "is not an order of the 1 dimensions",
    ),
    "a dimension of 5,000 digits": (
        replace_once("%param_0.3 = f32[8192]{0}", "%param_0.3 = f32[" + "9" * 5000 + "]{0}"),
        "convert_exponential_fusion", b"9999999999", "expects a dimension size",
    ),
    "element size E(-8)": (
        replace_once("f32[8192,8192]{1,0} convert", "f32[8192,8192]{1,0:E(-8)} convert"),
        "convert_exponential_fusion", b"E(-8)", "element size E(-8)",
    ),
    "a StackFrames line of 5,000 digits": (
        replace_once("\n6 {file_location_id=6 parent_frame_id=2}",
                     "\n" + "6" * 5000 + " {file_location_id=6 parent_frame_id=2}"),
        "convert_exponential_fusion", b"66666666666", "",
    ),
    "a literal of 100,000 nested braces": (
        replace_once("%constant.6 = f32[] constant(1)",
                     "%constant.6 = f32[] constant(" + "{" * DEEP + "1" + "}" * DEEP + ")"),
        "convert_exponential_fusion", None, "",
    ),
    "a backend_config 5,000 deep": (
        replace_once('"outer_dimension_partitions"',
                     '"deep":' + '{"a":' * 5000 + "1" + "}" * 5000
                     + ', "outer_dimension_partitions"'),
        "convert_exponential_fusion", None, "",
    ),
    "a quoted module name": (
        replace_once("HloModule jit_attention,", 'HloModule "jit my, module",'),
        "convert_exponential_fusion", None, "",
    ),
    "a negative trip count": (
        NEGATIVE_TRIP.replace("TRIPS", "-5").encode(), "e", b"%loop = ", "is negative",
    ),
    "an absurd trip count": (
        NEGATIVE_TRIP.replace("TRIPS", "9" * 5000).encode(), "e", b"%loop = ", "is not a trip",
    ),
    "while bodies that run themselves": (
        RECURSIVE_WHILE.encode(), "e", b"%body (p.1", "runs itself again",
    ),
    "a negative parameter number": (
        replace_once("%param_1.3 = f32[8192,8192]{1,0} parameter(1)",
                     "%param_1.3 = f32[8192,8192]{1,0} parameter(-1)"),
        "convert_exponential_fusion", b"parameter(-1)", "expects a parameter number",
    ),
    "a parameter number past the signature": (
        replace_once("%param_1.3 = f32[8192,8192]{1,0} parameter(1)",
                     "%param_1.3 = f32[8192,8192]{1,0} parameter(999999999)"),
        "convert_exponential_fusion", b"parameter(999999999)", "is out of range",
    ),
    "a string left open": (
        replace_once('metadata={op_name="reduce_sum"}', 'metadata={op_name="reduce_sum}'),
        "convert_exponential_fusion", b'"reduce_sum}', "a quote left open",
    ),
    "10,000 nested calls": (nested_calls(10_000), "e", None, ""),
    "a convolution with a 50,000-wide kernel": (CONVOLUTION.encode(), "conv", None, ""),
}  # fmt: skip
