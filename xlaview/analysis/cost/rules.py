"""The rule XLA's ``HloCostAnalysis`` applies to each kind of instruction.

One function per ``Handle*`` method of `xla/service/hlo_cost_analysis.cc`
(FLOPs, transcendentals, bytes accessed, bytes read per operand and written),
called by `xlaview.analysis.cost.model.CostModel` for the opcodes in `RULES`.
Every rule starts from XLA's default (``Preprocess``: each operand read whole,
the result written whole) and changes what XLA's handler changes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from xlaview.analysis.cost.flop_counts import FMA_FLOPS, convolution_flops, dot_flops
from xlaview.analysis.cost.fusion_bytes import fusion_bytes
from xlaview.analysis.kinds import fusion_kind
from xlaview.hlo import Computation, Instruction, Shape
from xlaview.hlo.interpreted import braced_ints, parse_dim_labels, parse_window

if TYPE_CHECKING:
    from collections.abc import Callable

    from xlaview.analysis.cost.model import CostModel


class OpProperties(NamedTuple):
    """One instruction's cost, as XLA's properties for it.

    ``operand_bytes[i]`` is what XLA says operand ``i`` reads, ``output_bytes``
    what it writes (its ``out{}`` key); ``element_output_bytes`` splits that
    over the elements of a tuple-shaped result where XLA does (fusions), else
    is None. A container's bytes are its callees' and its operand and output
    bytes are left at zero.
    """

    flops: float
    transcendentals: float
    bytes_accessed: float
    operand_bytes: tuple[float, ...]
    output_bytes: float
    element_output_bytes: tuple[float, ...] | None = None
    known: bool = True  # False for a custom call nobody can price


Totals = tuple[float, float, float]  # flops, transcendentals, bytes accessed
ZERO: Totals = (0.0, 0.0, 0.0)


def scaled(base: OpProperties, totals: Totals, count: float) -> OpProperties:
    """``base`` with a sub-computation's FLOPs and transcendentals, ``count`` times."""
    return base._replace(flops=totals[0] * count, transcendentals=totals[1] * count)


def fusion(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    called = model.callee(instr, "calls")
    if called is None or not model.module.has_computation(called):
        return model.default(instr, comp)
    fused = model.module.computation(called)
    if fusion_kind(instr) == "kCustom":
        # XLA prices a custom fusion holding a gather or scatter as that op.
        for inner in fused.instructions:
            if inner.opcode == "gather":
                return gather(model, inner, fused, outer=model.default(instr, comp))
            if inner.opcode == "scatter":
                return scatter(model, inner, fused, outer=model.default(instr, comp))
    flops, transcendentals, _ = model.flops_of(called)
    reads, written, elements, constants = fusion_bytes(model, instr, fused)
    accessed = written + constants + sum(reads)
    return OpProperties(flops, transcendentals, accessed, reads, written, elements)


def dot(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    lhs = model.operand_shape(instr, comp, 0)
    base = model.default(instr, comp)
    if lhs is None:
        return base
    contracting = braced_ints(instr.attribute("lhs_contracting_dims") or "{}")
    return base._replace(flops=float(dot_flops(lhs, instr.shape, contracting)))


def ragged_dot(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    lhs = model.operand_shape(instr, comp, 0)
    base = model.default(instr, comp)
    if lhs is None:
        return base
    result = instr.shape
    # XLA deletes dimension i (not the group dimension itself) for each group dimension.
    for i in range(len(braced_ints(instr.attribute("rhs_group_dims") or "{}"))):
        if i < result.rank:
            result = Shape(result.element_type, result.dims[:i] + result.dims[i + 1 :])
    contracting = braced_ints(instr.attribute("lhs_contracting_dims") or "{}")
    return base._replace(flops=float(dot_flops(lhs, result, contracting)))


def convolution(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    lhs, rhs = model.operand_shape(instr, comp, 0), model.operand_shape(instr, comp, 1)
    labels = parse_dim_labels(instr.attribute("dim_labels"))
    if lhs is None or rhs is None or labels is None:
        return base
    flops = convolution_flops(
        lhs,
        rhs,
        instr.shape,
        parse_window(instr.attribute("window")),
        labels,
        int(instr.attribute("feature_group_count") or 1),
        int(instr.attribute("batch_group_count") or 1),
    )
    if flops is None:  # too many positions to count: unknown, not a guess
        return base._replace(known=False)
    return base._replace(flops=float(flops))


def reduce(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    arg = model.operand_shape(instr, comp, 0)
    shape = instr.shape
    output = shape.elements[0] if shape.is_tuple and shape.elements else shape
    count = (model.elements(arg) if arg is not None else 0) - model.elements(output)
    return scaled(base, model.applied(instr), count)


def scan(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    # XLA:CPU (jax 0.10.2) counts the scanned computation once, as checked
    # against hlo_module_cost_analysis.
    return scaled(model.default(instr, comp), model.applied(instr), 1)


def map_op(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    return scaled(model.default(instr, comp), model.applied(instr), model.elements(instr.shape))


def reduce_window(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    window = parse_window(instr.attribute("window"))
    window_elements = math.prod(d.size for d in window)
    shape = instr.shape
    output = shape.elements[0] if shape.is_tuple and shape.elements else shape
    output_elements = model.elements(output)
    count = (window_elements - 1) * output_elements
    # A reduce followed by a broadcast back along one dimension.
    reducing = [d for d in window if d.size != 1]
    padded = [d for d in window if d.padding_low or d.padding_high]
    if len(reducing) == 1 and len(padded) == 1 and not shape.is_tuple:
        for k, d in enumerate(window):
            if (
                d.size != 1
                and d.padding_low
                and d.padding_high
                and d.padding_low == d.padding_high
                and d.size == 2 * d.padding_low + 1
            ):
                if k < shape.rank and d.padding_low == shape.dims[k] - 1:
                    span = shape.dims[k]
                    count = output_elements // span + span - 1 if span else 0
                break
    return scaled(base, model.applied(instr), count)


def select_and_scatter(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    source = model.operand_shape(instr, comp, 1)
    sources = model.elements(source) if source is not None else 0
    window = math.prod(d.size for d in parse_window(instr.attribute("window")))
    select, scatter = model.applied(instr, "select"), model.applied(instr, "scatter")
    selects = sources * (window - 1)
    return base._replace(
        flops=select[0] * selects + scatter[0] * sources,
        transcendentals=select[1] * selects + scatter[1] * sources,
    )


def scatter(
    model: CostModel, instr: Instruction, comp: Computation, outer: OpProperties | None = None
) -> OpProperties:
    base = outer or model.default(instr, comp)
    shapes = [model.operand_shape(instr, comp, i) for i in range(len(instr.operand_names))]
    n = (len(shapes) - 1) // 2
    updates = [s for s in shapes[n + 1 : 2 * n + 1] if s is not None]
    update_bytes = [float(model.size(s)) for s in updates]
    index_shape = shapes[n] if 0 <= n < len(shapes) else None
    indices = float(model.size(index_shape)) if index_shape is not None else 0.0
    reads = list(base.operand_bytes) + [0.0] * max(0, 2 * n + 1 - len(base.operand_bytes))
    for i, size in enumerate(update_bytes):
        reads[i] = size
        if n + 1 + i < len(reads):
            reads[n + 1 + i] = size
    if n < len(reads):
        reads[n] = indices
    total = sum(update_bytes)
    applied = model.applied(instr)
    count = model.elements(updates[0]) if updates else 0
    return OpProperties(
        applied[0] * count, applied[1] * count, 3 * total + indices, tuple(reads), total
    )


def gather(
    model: CostModel, instr: Instruction, comp: Computation, outer: OpProperties | None = None
) -> OpProperties:
    base = outer or model.default(instr, comp)
    output = float(model.size(instr.shape))
    indices_shape = model.operand_shape(instr, comp, 1)
    indices = float(model.size(indices_shape)) if indices_shape is not None else 0.0
    reads = list(base.operand_bytes) + [0.0] * max(0, 2 - len(base.operand_bytes))
    reads[0], reads[1] = output, indices
    return base._replace(
        bytes_accessed=2 * output + indices, operand_bytes=tuple(reads), output_bytes=output
    )


def slice_op(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    output = float(model.size(instr.shape))
    return base._replace(
        bytes_accessed=2 * output,
        output_bytes=output,
        operand_bytes=(output, *base.operand_bytes[1:]),
    )


def dynamic_slice(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    output = float(model.size(instr.shape))
    reads = list(base.operand_bytes)
    start = reads[1] if len(reads) > 1 else 0.0
    if reads:
        reads[0] = output
    return base._replace(
        bytes_accessed=2 * output + start, output_bytes=output, operand_bytes=tuple(reads)
    )


def dynamic_update_slice(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    reads = list(base.operand_bytes)
    update = reads[1] if len(reads) > 1 else 0.0
    start = reads[2] if len(reads) > 2 else 0.0
    if reads:
        reads[0] = 0.0  # operand 0 is updated in place
    return base._replace(
        bytes_accessed=2 * update + start, output_bytes=update, operand_bytes=tuple(reads)
    )


def tuple_op(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    table = float(model.size(instr.shape))
    return OpProperties(0.0, 0.0, table, (0.0,) * len(instr.operand_names), table)


def transpose(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    operand = model.operand_shape(instr, comp, 0)
    if operand is not None and transpose_is_bitcast(
        operand, instr.shape, braced_ints(instr.attribute("dimensions") or "{}")
    ):
        return OpProperties(0.0, 0.0, 0.0, (0.0,), 0.0)
    return model.default(instr, comp)


def sort(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    shape = model.operand_shape(instr, comp, 0)
    n = model.elements(shape) if shape is not None else 0
    log2 = (n - 1).bit_length() if n > 1 else 0
    return model.default(instr, comp)._replace(flops=float(n * log2))


def all_reduce(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    arrays = [s for s in subshapes(instr.shape) if s.is_array]
    written = float(sum(model.size(s) for s in arrays))
    flops = float(sum(model.elements(s) for s in arrays))
    return base._replace(
        flops=flops, output_bytes=written, bytes_accessed=written + sum(base.operand_bytes)
    )


def rng(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    return model.default(instr, comp)._replace(transcendentals=float(model.elements(instr.shape)))


def rng_bit_generator(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    count = sum(model.elements(s) for s in instr.shape.leaves() if s.is_array)
    return model.default(instr, comp)._replace(transcendentals=float(count))


def fft(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    shape = model.operand_shape(instr, comp, 0)
    if shape is None:
        return model.default(instr, comp)
    real = shape.elements[0] if shape.is_tuple and shape.elements else shape
    log_factors = 1
    for length in braced_ints(instr.attribute("fft_length") or "{}"):
        log_factors *= max(length, 1).bit_length() - 1
    flops = FMA_FLOPS * 4 * log_factors * model.elements(real)
    return model.default(instr, comp)._replace(flops=float(flops))


def triangular_solve(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    a, b = model.operand_shape(instr, comp, 0), model.operand_shape(instr, comp, 1)
    if a is None or b is None or not a.rank:
        return base
    accessed = model.size(instr.shape) + model.size(a) / 2 + model.size(b)
    flops = FMA_FLOPS * a.dims[-1] * model.elements(b)
    return base._replace(bytes_accessed=float(accessed), flops=float(flops))


def cholesky(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    a = model.operand_shape(instr, comp, 0)
    if a is None or not a.rank:
        return base
    half = model.size(a) / 2
    flops = a.dims[-1] * model.elements(a) // 3
    return base._replace(bytes_accessed=2 * half, output_bytes=half, flops=float(flops))


def infeed(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    size = float(sum(model.size(s) for s in instr.shape.leaves()))
    return OpProperties(0.0, 0.0, size, (0.0,) * len(instr.operand_names), size)


def outfeed(model: CostModel, instr: Instruction, comp: Computation) -> OpProperties:
    base = model.default(instr, comp)
    reads = tuple(
        float(sum(model.size(s) for s in o.shape.leaves())) if o is not None else 0.0
        for o in model.operands(instr, comp)
    )
    return base._replace(bytes_accessed=sum(reads), operand_bytes=reads)


def subshapes(shape: Shape) -> list[Shape]:
    if not shape.is_tuple:
        return [shape]
    out = []
    for element in shape.elements:
        out += subshapes(element)
    return out


def transpose_is_bitcast(operand: Shape, result: Shape, dimensions: tuple[int, ...]) -> bool:
    """XLA's ``ShapeUtil::TransposeIsBitcast``: the permutation only renames
    dimensions, the bytes in memory stay in the same order."""
    if operand.element_type != result.element_type:
        return False
    in_m2m = _minor_to_major(operand)
    out_m2m = _minor_to_major(result)
    if len(in_m2m) != len(out_m2m) or len(dimensions) != len(out_m2m):
        return False
    try:
        return all(dimensions[out_m2m[i]] == in_m2m[i] for i in range(len(in_m2m)))
    except IndexError:
        return False


def _minor_to_major(shape: Shape) -> tuple[int, ...]:
    if shape.layout is not None:
        return shape.layout.minor_to_major
    return tuple(range(shape.rank - 1, -1, -1))


RULES: dict[str, Callable[[CostModel, Instruction, Computation], OpProperties]] = {
    "fusion": fusion,
    "dot": dot,
    "convolution": convolution,
    "ragged-dot": ragged_dot,
    "reduce": reduce,
    "map": map_op,
    "reduce-window": reduce_window,
    "select-and-scatter": select_and_scatter,
    "scatter": scatter,
    "gather": gather,
    "slice": slice_op,
    "dynamic-slice": dynamic_slice,
    "dynamic-update-slice": dynamic_update_slice,
    "tuple": tuple_op,
    "transpose": transpose,
    "sort": sort,
    "all-reduce": all_reduce,
    "all-reduce-start": all_reduce,
    "rng": rng,
    "rng-bit-generator": rng_bit_generator,
    "fft": fft,
    "triangular-solve": triangular_solve,
    "cholesky": cholesky,
    "infeed": infeed,
    "outfeed": outfeed,
    "scan": scan,
}
