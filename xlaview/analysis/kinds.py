"""What kind of work an instruction does, for colours, legends and counts."""

from __future__ import annotations

from enum import Enum

from xlaview.hlo import Instruction


class Kind(str, Enum):
    PARAMETER = "parameter"
    CONSTANT = "constant"
    FUSION_LOOP = "kLoop fusion"
    FUSION_INPUT = "kInput fusion"
    FUSION_OUTPUT = "kOutput fusion"
    FUSION_CUSTOM = "kCustom fusion"
    FUSION_OTHER = "fusion"
    DOT = "dot / convolution"
    COLLECTIVE = "collective"
    CONTROL = "control flow"
    CUSTOM_CALL = "custom-call"
    REDUCE = "reduce / sort"
    DATA_MOVEMENT = "data movement"
    ELEMENTWISE = "elementwise"
    OTHER = "other"


_FUSION_KINDS = {
    "kLoop": Kind.FUSION_LOOP,
    "kInput": Kind.FUSION_INPUT,
    "kOutput": Kind.FUSION_OUTPUT,
    "kCustom": Kind.FUSION_CUSTOM,
}
_COLLECTIVE_PREFIXES = (
    "all-reduce", "all-gather", "all-to-all", "reduce-scatter", "collective-permute",
    "collective-broadcast", "ragged-all-to-all", "send", "recv",
)  # fmt: skip
_CONTROL = frozenset(("while", "conditional", "call", "async-start", "async-update", "async-done"))
_DATA_MOVEMENT = frozenset(
    (
        "copy", "copy-start", "copy-done", "transpose", "reshape", "bitcast", "broadcast",
        "slice", "dynamic-slice", "dynamic-update-slice", "concatenate", "pad", "gather",
        "scatter", "get-tuple-element", "tuple", "reverse", "iota", "bitcast-convert",
        "dynamic-reshape", "opt-barrier",
    )
)  # fmt: skip
_REDUCE = frozenset(("reduce", "reduce-window", "sort", "select-and-scatter", "topk", "scan", "map"))
_ELEMENTWISE = frozenset(
    (
        "abs", "add", "and", "atan2", "cbrt", "ceil", "clamp", "compare", "complex", "convert",
        "cosine", "divide", "erf", "exponential", "exponential-minus-one", "floor", "imag",
        "is-finite", "log", "log-plus-one", "logistic", "maximum", "minimum", "multiply",
        "negate", "not", "or", "popcnt", "power", "real", "reduce-precision", "remainder",
        "round-nearest-afz", "round-nearest-even", "rsqrt", "select", "shift-left",
        "shift-right-arithmetic", "shift-right-logical", "sign", "sine", "sqrt", "subtract",
        "tan", "tanh", "xor", "count-leading-zeros", "stochastic-convert",
    )
)  # fmt: skip


def kind_of(instr: Instruction) -> Kind:
    op = instr.opcode
    if op == "parameter":
        return Kind.PARAMETER
    if op == "constant":
        return Kind.CONSTANT
    if op == "fusion":
        return _FUSION_KINDS.get(instr.fusion_kind or "", Kind.FUSION_OTHER)
    if op in ("dot", "convolution", "ragged-dot", "scaled-dot"):
        return Kind.DOT
    if op.startswith(_COLLECTIVE_PREFIXES):
        return Kind.COLLECTIVE
    if op in _CONTROL:
        return Kind.CONTROL
    if op == "custom-call":
        return Kind.CUSTOM_CALL
    if op in _REDUCE:
        return Kind.REDUCE
    if op in _DATA_MOVEMENT:
        return Kind.DATA_MOVEMENT
    if op in _ELEMENTWISE:
        return Kind.ELEMENTWISE
    return Kind.OTHER


def is_fusion_kind(kind: Kind) -> bool:
    return kind in (
        Kind.FUSION_LOOP, Kind.FUSION_INPUT, Kind.FUSION_OUTPUT, Kind.FUSION_CUSTOM, Kind.FUSION_OTHER
    )
