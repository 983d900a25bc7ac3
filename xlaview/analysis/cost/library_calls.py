"""FLOPs and bytes of the library calls XLA's CPU cost model cannot see.

After optimization, GPU dots and convolutions are ``custom-call``s into
cuBLAS/cuBLASLt (hipBLASLt on ROCm keeps the same targets) and cuDNN (MIOpen on
ROCm), and XLA:CPU may call oneDNN. XLA's base cost model prices every custom
call as unknown (-1); its GPU model prices GEMMs and convolutions from their
configuration. This module does the same, by hand:

* GEMM (``__cublas$gemm``, ``__cublas$lt$matmul[$f8]``): ``2 x elements of
  result {0} x contracted size``, the contracting dimensions read from the
  ``dot_dimension_numbers`` of the backend config (new style, under
  ``gemm_backend_config``, or old style at its top level).
* Convolution (``__cudnn$conv...``): XLA's convolution FLOPs on the forward
  convolution the call computes a part of. The call keeps the forward
  convolution's ``window`` and ``dim_labels``; a backward-input call takes
  (output gradient, filter) and returns the input gradient, a backward-filter
  call takes (input, output gradient) and returns the filter gradient, so the
  forward shapes are put back in place before counting (XLA's GPU model counts
  the operands as if they were the forward ones, which undercounts a strided
  backward-input convolution).
* oneDNN matmul (``__onednn$matmul``): contracted size from the last (or, with
  ``transpose_a``, second to last) dimension of the left operand.

Bytes: every operand read whole, every result element written whole except the
scratch buffer a library call returns last (``u8``/``s8``): its contents are the
library's business, not the program's (XLA's GPU model excludes it too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xlaview.analysis.cost.flop_counts import convolution_flops, dot_flops
from xlaview.analysis.cost.rules import OpProperties
from xlaview.analysis.kinds import custom_call_target
from xlaview.hlo import Computation, Instruction, Shape
from xlaview.hlo.interpreted import parse_dim_labels, parse_window

if TYPE_CHECKING:
    from xlaview.analysis.cost.model import CostModel

GEMM_TARGETS = frozenset(
    ("__cublas$gemm", "__cublas$lt$matmul", "__cublas$lt$matmul$f8", "__cublas$lt$matmul$mx")
)
CONVOLUTION_TARGETS = frozenset((
    "__cudnn$convForward", "__cudnn$convBackwardInput", "__cudnn$convBackwardFilter",
    "__cudnn$convBiasActivationForward", "__cudnn$convForwardGraph", "__onednn$convolution",
))  # fmt: skip
ONEDNN_MATMUL = "__onednn$matmul"
_SCRATCH_TYPES = ("u8", "s8")


def is_library_call(instr: Instruction) -> bool:
    """A GEMM or convolution whose cost xlaview reads from its configuration."""
    target = custom_call_target(instr)
    return target in GEMM_TARGETS or target in CONVOLUTION_TARGETS or target == ONEDNN_MATMUL


def library_call_cost(
    model: CostModel, instr: Instruction, comp: Computation
) -> OpProperties | None:
    """The cost of a GEMM or convolution custom call, or None for any other call."""
    target = custom_call_target(instr)
    if target in GEMM_TARGETS:
        flops = _gemm_flops(model, instr, comp)
    elif target in CONVOLUTION_TARGETS:
        flops = _convolution_flops(model, instr, comp, target or "")
    elif target == ONEDNN_MATMUL:
        flops = _onednn_matmul_flops(model, instr, comp)
    else:
        return None
    if flops is None:
        return None

    reads = tuple(
        float(_data_bytes(model, comp.instruction(o).shape)) if o in comp else 0.0
        for o in instr.operand_names
    )
    kept = result_elements(instr)
    elements = [float(_data_bytes(model, s)) for s in kept]
    written = sum(elements)
    per_element = None
    if instr.shape.is_tuple:
        per_element = tuple(elements + [0.0] * (len(instr.shape.elements) - len(kept)))
    return OpProperties(float(flops), 0.0, written + sum(reads), reads, written, per_element)


def result_elements(instr: Instruction) -> list[Shape]:
    """The results a library call produces for the program (its scratch left out)."""
    shape = instr.shape
    if not shape.is_tuple:
        return [shape]
    elements = list(shape.elements)
    if len(elements) > 1 and elements[-1].element_type in _SCRATCH_TYPES and elements[-1].rank == 1:
        elements.pop()
    return elements


def _gemm_flops(model: CostModel, instr: Instruction, comp: Computation) -> int | None:
    lhs = model.operand_shape(instr, comp, 0)
    config = _dict(instr.backend_config)
    gemm = _dict(config.get("gemm_backend_config")) or config
    numbers = _dict(gemm.get("dot_dimension_numbers"))
    contracting = numbers.get("lhs_contracting_dimensions")
    if lhs is None or not isinstance(contracting, list):
        return None
    try:
        dims = tuple(int(d) for d in contracting)
    except (TypeError, ValueError):
        return None
    return dot_flops(lhs, result_elements(instr)[0], dims)


def _convolution_flops(
    model: CostModel, instr: Instruction, comp: Computation, target: str
) -> int | None:
    labels = parse_dim_labels(instr.attribute("dim_labels"))
    first, second = model.operand_shape(instr, comp, 0), model.operand_shape(instr, comp, 1)
    result = result_elements(instr)[0]
    if labels is None or first is None or second is None:
        return None
    if target.endswith("BackwardInput"):
        lhs, rhs, out = result, second, first
    elif target.endswith("BackwardFilter"):
        lhs, rhs, out = first, result, second
    else:
        lhs, rhs, out = first, second, result
    return convolution_flops(
        lhs,
        rhs,
        out,
        parse_window(instr.attribute("window")),
        labels,
        int(instr.attribute("feature_group_count") or 1),
        int(instr.attribute("batch_group_count") or 1),
    )


def _onednn_matmul_flops(model: CostModel, instr: Instruction, comp: Computation) -> int | None:
    lhs = model.operand_shape(instr, comp, 0)
    if lhs is None or lhs.rank < 1:
        return None
    config = _dict(_dict(instr.backend_config).get("onednn_matmul_config"))
    transpose = bool(config.get("transpose_a")) and lhs.rank >= 2
    contracting = (lhs.rank - 2,) if transpose else (lhs.rank - 1,)
    return dot_flops(lhs, result_elements(instr)[0], contracting)


def _data_bytes(model: CostModel, shape: Shape) -> int:
    """Bytes of the data itself (a tuple: its elements), without tile padding."""
    return sum(model.size(leaf) for leaf in shape.leaves())


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
