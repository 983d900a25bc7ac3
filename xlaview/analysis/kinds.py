"""What kind of work an instruction does, for colours, legends and counts."""

from __future__ import annotations

import re
from enum import Enum

from xlaview.hlo import Instruction, Module
from xlaview.hlo.attributes import unquote


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
_REDUCE = frozenset(
    ("reduce", "reduce-window", "sort", "select-and-scatter", "topk", "scan", "map")
)
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
    return opcode_kind(op, instr.fusion_kind if op == "fusion" else None)


def opcode_kind(op: str, fusion_kind: str | None = None) -> Kind:
    """`kind_of` an instruction of opcode ``op`` (a fusion: of ``fusion_kind``,
    its ``kind`` attribute)."""
    if op == "fusion":
        return _FUSION_KINDS.get(fusion_kind or "", Kind.FUSION_OTHER)
    found = _OPCODE_KINDS.get(op)
    if found is None:
        found = _OPCODE_KINDS[op] = _kind_of_opcode(op)
    return found


# Opcode -> its kind, as found: a graph asks it of every one of 60,000 ops.
_OPCODE_KINDS: dict[str, Kind] = {}


def _kind_of_opcode(op: str) -> Kind:
    if op == "parameter":
        return Kind.PARAMETER
    if op == "constant":
        return Kind.CONSTANT
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
        Kind.FUSION_LOOP,
        Kind.FUSION_INPUT,
        Kind.FUSION_OUTPUT,
        Kind.FUSION_CUSTOM,
        Kind.FUSION_OTHER,
    )


# -- names shown for a kind of op ---------------------------------------------------


_KIND = re.compile(r"(?<![\w.\-])kind=(k[A-Za-z]+)")


def fusion_kind(instr: Instruction) -> str | None:
    """``instr.fusion_kind`` read with one regular expression (``kLoop``...):
    tables ask it of every fusion, and splitting all attributes of each costs
    more than the rest of their row."""
    if instr.opcode != "fusion" or not instr.attribute_text:
        return None
    match = _KIND.search(instr.attribute_text)
    return match.group(1) if match else instr.fusion_kind


def custom_call_target(instr: Instruction) -> str | None:
    """The library or runtime routine a ``custom-call`` runs (``__cublas$lt$matmul``)."""
    if instr.opcode not in ("custom-call", "custom-call-start"):
        return None
    value = instr.attribute("custom_call_target")
    return unquote(value) if value is not None else None


_FUSION_KIND_IN_TEXT = re.compile(r'\bkind\\?"?\s*:\s*\\?"([^"\\]+)')


def custom_fusion_kind(instr: Instruction) -> str | None:
    """What a ``kCustom`` fusion is, from its backend config: ``__ynn_fusion``
    (XLA:CPU's YNNPACK), ``__triton_gemm``, ``__triton_nested_gemm_fusion``...

    Read from the config's text (JSON, or the quoted protobuf text of older GPU
    dumps) with one regular expression rather than by decoding the JSON:
    tables ask it of thousands of fusions."""
    if instr.opcode != "fusion" or fusion_kind(instr) != "kCustom":
        return None
    return _custom_fusion_name(instr.attribute_text)


def _custom_fusion_name(text: str) -> str | None:
    start = text.find("backend_config=")
    match = _FUSION_KIND_IN_TEXT.search(text, start) if start >= 0 else None
    return match.group(1) if match else None


_CUSTOM_CALLS = ("custom-call", "custom-call-start")


def kind_name(instr: Instruction, module: Module | None = None) -> str:
    """The short kind a table shows for an op: the fusion kind (``kLoop``), a
    kCustom fusion's name (``__ynn_fusion``), a custom call's target
    (``__cublas$lt$matmul``), the op an ``async-start`` runs
    (``all-gather-start``), else the opcode."""
    op = instr.opcode
    if op == "fusion":
        return custom_fusion_kind(instr) or fusion_kind(instr) or "fusion"
    if op in _CUSTOM_CALLS:
        return custom_call_target(instr) or op
    if op == "async-start" and module is not None:
        wrapped = wrapped_root(instr, module)
        if wrapped is not None:
            if wrapped.opcode == "custom-call":
                return custom_call_target(wrapped) or "custom-call-start"
            return f"{wrapped.opcode}-start"
    return op


def op_label(
    instr: Instruction, module: Module | None = None, attributes: dict[str, str] | None = None
) -> str:
    """Opcode and kind together, for a graph node or an inspector title:
    ``custom-call __cublas$lt$matmul``, ``fusion kCustom __ynn_fusion``,
    ``fusion kLoop``, ``dot``. ``attributes``: the instruction's, split
    already (a graph splits those of 60,000 ops: not searched again here)."""
    op = instr.opcode
    if op == "fusion":
        kind = attributes.get("kind") if attributes is not None else fusion_kind(instr)
        if kind == "kCustom":
            name = _custom_fusion_name(instr.attribute_text)
            return f"fusion kCustom {name}" if name else "fusion kCustom"
        return f"fusion {kind}" if kind else "fusion"
    if attributes is not None and op != "async-start" and op not in _CUSTOM_CALLS:
        return op  # its kind is its opcode
    kind = kind_name(instr, module)
    return op if kind == op else f"{op} {kind}"


def wrapped_root(instr: Instruction, module: Module) -> Instruction | None:
    """The op an ``async-start`` runs (the root of the computation it calls)."""
    called = instr.called_computations
    if not called or not module.has_computation(called[0]):
        return None
    return module.computation(called[0]).root


# -- the precision a product asks for ----------------------------------------------------

_LEVELS = ("default", "high", "highest")
_OPERAND_PRECISION = re.compile(r"operand_precision=\{([^}]*)\}")
_CONFIG_PRECISION = re.compile(r'"operand_precision"\s*:\s*\[([^\]]*)\]')
# ``algorithm=dot_bf16_bf16_f32_x3`` in HLO text, "ALG_DOT_BF16_BF16_F32_X3" in
# a GEMM's backend config (JAX's DotAlgorithmPreset names, lower-cased).
_ALGORITHM = re.compile(r"(?:algorithm=dot_|ALG_DOT_)(\w+)", re.IGNORECASE)


def precision_level(attribute_text: str) -> str:
    """The precision an instruction's attributes ask of its product: ``highest``,
    ``high`` or ``default``.

    A dot algorithm decides first: ``f32_f32_f32`` and six or nine bf16 passes
    (``bf16_bf16_f32_x6``, ``_x9``) are ``highest``, three passes (``_x3``)
    ``high``, any other (``bf16_bf16_f32``, ``tf32_tf32_f32``...) ``default``.
    Else the highest of the operands' levels in ``operand_precision={...}`` or
    in a backend config's ``"operand_precision":["HIGHEST",...]``.
    """
    algorithm = _ALGORITHM.search(attribute_text)
    if algorithm:
        name = algorithm.group(1).lower()
        if name.startswith("f32_f32_f32") or name.endswith(("_x6", "_x9")):
            return "highest"
        return "high" if name.endswith("_x3") else "default"
    if "F32_F32_F32" in attribute_text or '"HIGHEST"' in attribute_text:  # elsewhere in a config
        return "highest"
    levels = [
        word.strip().strip('"').lower()
        for match in (_OPERAND_PRECISION, _CONFIG_PRECISION)
        for found in match.finditer(attribute_text)
        for word in found.group(1).split(",")
    ]
    return max((w for w in levels if w in _LEVELS), key=_LEVELS.index, default="default")
