"""XLA's ``HloCostAnalysis``, rule for rule, over the xlaview model.

What `xla/service/hlo_cost_analysis.cc` computes for every instruction:
FLOPs, transcendentals, "bytes accessed", the bytes read of each operand and
the bytes written. XLA's CPU client (the cost model behind jax's
``hlo_module_cost_analysis``) uses the base class with the CPU shape size: a
tuple costs its pointer table (8 bytes per element), a dynamic array 4 bytes per
dimension more, tile padding nothing.

Each computation is visited once and its instructions once (a reducer applied
by many reduces is priced once and scaled per caller), so the whole pass is
linear in the module. `CostModel.props` holds every visited instruction;
`CostModel.sum_of` a computation's total, the way XLA folds callees into their
caller: a fusion keeps its fused FLOPs but replaces their bytes by what it
reads and writes, a ``while`` counts body and condition once, a
``conditional`` its most expensive branch.

``xla_compatible=False`` departs from the CPU model where it cannot see:
library calls (GEMMs, convolutions) get FLOPs and bytes from their
configuration (`xlaview.analysis.custom_calls`), and the ``-done`` half of an
asynchronous pair costs nothing (its ``-start`` already counted the work).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import NamedTuple

from xlaview.analysis.custom_calls import library_call_cost
from xlaview.analysis.flop_counts import (
    FMA_FLOPS,
    convolution_flops,
    dot_flops,
    parse_dim_labels,
    parse_window,
)
from xlaview.analysis.fusion_bytes import FusedBody, fusion_bytes, parameter_users
from xlaview.hlo import Computation, Instruction, Module, Shape
from xlaview.hlo.attributes import computation_names, parse_braced_ints
from xlaview.hlo.shape import ELEMENT_BITS

POINTER_BYTES = 8

TRANSCENDENTAL = frozenset((
    "erf", "exponential", "log", "logistic", "power", "sqrt", "cbrt", "rsqrt", "tanh", "sine",
    "cosine", "exponential-minus-one", "log-plus-one", "atan2", "tan",
    # Opcodes newer XLA added for what used to be expanded (priced as XLA:CPU in jax 0.10.2 does).
    "acos", "acosh", "asin", "asinh", "atanh", "cosh", "sinh",
))  # fmt: skip
ELEMENTWISE = TRANSCENDENTAL | frozenset((
    "abs", "add", "and", "bitcast-convert", "ceil", "clamp", "compare", "complex", "convert",
    "count-leading-zeros", "divide", "floor", "imag", "is-finite", "maximum", "minimum",
    "multiply", "negate", "not", "or", "popcnt", "real", "reduce-precision", "remainder",
    "round-nearest-afz", "round-nearest-even", "select", "shift-left", "shift-right-arithmetic",
    "shift-right-logical", "sign", "stochastic-convert", "subtract", "xor",
))  # fmt: skip
# Ops that move no data and compute nothing (XLA zeroes all their properties).
FREE = frozenset(("parameter", "constant", "get-tuple-element", "bitcast", "domain", "after-all",
                  "add-dependency"))
# The second half of an asynchronous pair, whose first half did the work.
ASYNC_DONE = frozenset(("async-done", "async-update", "all-reduce-done", "all-gather-done",
                        "collective-permute-done", "send-done", "recv-done"))
# ``add-start``/``add-update``/``add-done``: XLA's shorthand for an async-start
# wrapping ``add`` (and its update and done).
ASYNC_SUFFIXES = ("-start", "-update", "-done")
NATIVE_ASYNC = frozenset((
    "async-start", "async-update", "async-done", "all-reduce-start", "all-reduce-done",
    "all-gather-start", "all-gather-done", "collective-permute-start", "collective-permute-done",
    "copy-start", "copy-done", "send-done", "recv-done",
))  # fmt: skip
MATRIX_OPCODES = frozenset(("dot", "convolution", "ragged-dot", "scaled-dot"))
# Handled ops that never compute (priced only for their bytes).
NO_FLOPS = frozenset(("gather", "slice", "dynamic-slice", "dynamic-update-slice", "tuple",
                      "transpose", "infeed", "outfeed"))
# Instructions whose cost is that of the computations they run.
CONTAINERS = frozenset(("while", "conditional", "call", "async-start"))


class Props(NamedTuple):
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


class CostModel:
    """Prices a module's instructions with XLA's rules (see the module docstring)."""

    def __init__(self, module: Module, *, xla_compatible: bool = False) -> None:
        self.module = module
        self.xla_compatible = xla_compatible
        self.props: dict[str, Props] = {}
        self.owner: dict[str, str] = {}  # instruction -> the computation it was priced in
        self._sums: dict[str, Totals] = {}
        self._flops: dict[str, Totals] = {}
        # fused computation -> its first dot or convolution (what sets the peak)
        self.matrix: dict[str, Instruction] = {}
        self._sizes: dict[int, int] = {}
        self._elements: dict[int, int] = {}
        self._users: dict[str, FusedBody] = {}
        # computation -> the computation whose instruction first called it
        self.callers: dict[str, str] = {}
        self._visiting: list[str] = []
        self._handlers: dict[str, Callable[[Instruction, Computation], Props]] = {
            "fusion": self._fusion, "dot": self._dot, "convolution": self._convolution,
            "ragged-dot": self._ragged_dot, "reduce": self._reduce, "map": self._map,
            "reduce-window": self._reduce_window, "select-and-scatter": self._select_and_scatter,
            "scatter": self._scatter, "gather": self._gather, "slice": self._slice,
            "dynamic-slice": self._dynamic_slice, "dynamic-update-slice": self._dus,
            "tuple": self._tuple, "transpose": self._transpose, "sort": self._sort,
            "all-reduce": self._all_reduce, "all-reduce-start": self._all_reduce,
            "rng": self._rng, "rng-bit-generator": self._rng_bit_generator, "fft": self._fft,
            "triangular-solve": self._triangular_solve, "cholesky": self._cholesky,
            "infeed": self._infeed, "outfeed": self._outfeed, "custom-call": self._custom_call,
            "while": self._while, "conditional": self._conditional, "call": self._call,
            "async-start": self._async_start, "scan": self._scan,
        }

    def parameter_users(self, comp: Computation) -> FusedBody:
        """`fusion_bytes.parameter_users` of ``comp``, built once."""
        found = self._users.get(comp.name)
        if found is None:
            found = self._users[comp.name] = parameter_users(comp)
        return found

    # -- sizes ---------------------------------------------------------------
    def size(self, shape: Shape) -> int:
        """XLA:CPU's ``ShapeSizeBytes``: the bytes XLA's cost model charges for a shape."""
        key = id(shape)
        size = self._sizes.get(key)
        if size is None:
            size = self._sizes[key] = _cpu_shape_size(shape)
        return size

    def output_size(self, shape: Shape) -> int:
        """What XLA charges for writing a result: a tuple-shaped result writes
        its elements (an operand tuple costs only its pointer table)."""
        if not shape.is_tuple:
            return self.size(shape)
        return sum(self.size(leaf) for leaf in shape.leaves())

    def elements(self, shape: Shape) -> int:
        key = id(shape)
        count = self._elements.get(key)
        if count is None:
            count = self._elements[key] = (
                0 if shape.is_tuple else math.prod(max(d, 0) for d in shape.dims)
            )
        return count

    # -- computations ----------------------------------------------------------
    def sum_of(self, name: str) -> Totals:
        """The total of a computation run as steps (a loop body, a branch, a
        called computation): every instruction priced in full and kept."""
        totals = self._sums.get(name)
        if totals is not None:
            return totals
        if not self.module.has_computation(name):
            return ZERO
        self._sums[name] = ZERO  # a (malformed) cycle ends here
        self._enter(name)
        comp = self.module.computation(name)
        flops = transcendentals = accessed = 0.0
        for instr in comp.instructions:
            props = self.price(instr, comp)
            flops += props.flops
            transcendentals += props.transcendentals
            accessed += props.bytes_accessed
        self._visiting.pop()
        totals = self._sums[name] = (flops, transcendentals, accessed)
        return totals

    def flops_of(self, name: str) -> Totals:
        """FLOPs and transcendentals of a fused or applied computation (bytes 0).

        XLA throws the bytes of such a computation away (a fusion replaces them
        by its own, a reducer's are never copied), so this pass prices only the
        instructions that compute: the bulk of a big module is fused element-wise
        code, and this keeps it to a shape lookup per instruction. The fused
        instructions' full properties are priced on demand (`price`).
        """
        totals = self._sums.get(name) or self._flops.get(name)
        if totals is not None:
            return totals
        if not self.module.has_computation(name):
            return ZERO
        self._flops[name] = ZERO
        self._enter(name)
        comp = self.module.computation(name)
        flops = transcendentals = 0.0
        elements = self.elements
        handlers = self._handlers
        for instr in comp.instructions:
            op = instr.opcode
            if op in ELEMENTWISE:
                if op in TRANSCENDENTAL:
                    transcendentals += elements(instr.shape)
                else:
                    flops += elements(instr.shape)
            elif op in handlers and op not in NO_FLOPS:
                if op in MATRIX_OPCODES:
                    self.matrix.setdefault(name, instr)
                props = self._price(instr, comp)
                flops += props.flops
                transcendentals += props.transcendentals
        self._visiting.pop()
        totals = self._flops[name] = (flops, transcendentals, 0.0)
        return totals

    def _enter(self, name: str) -> None:
        if self._visiting:
            self.callers.setdefault(name, self._visiting[-1])
        self._visiting.append(name)

    def price(self, instr: Instruction, comp: Computation) -> Props:
        """The instruction's properties (computed once per name, then looked up)."""
        props = self.props.get(instr.name)
        if props is not None and self.owner.get(instr.name) == comp.name:
            return props
        props = self._price(instr, comp)
        if instr.name not in self.props:
            self.props[instr.name] = props
            self.owner[instr.name] = comp.name
        return props

    def _price(self, instr: Instruction, comp: Computation) -> Props:
        op = instr.opcode
        if op in FREE:
            return Props(0.0, 0.0, 0.0, (0.0,) * len(instr.operand_names), 0.0)
        if op in ELEMENTWISE:
            base = self._default(instr, comp)
            count = float(self.elements(instr.shape))
            if op in TRANSCENDENTAL:
                return base._replace(transcendentals=count)
            return base._replace(flops=count)
        if op in ASYNC_DONE and not self.xla_compatible:
            return Props(0.0, 0.0, 0.0, (0.0,) * len(instr.operand_names), 0.0)
        handler = self._handlers.get(op)
        if handler is None and op.endswith(ASYNC_SUFFIXES) and op not in NATIVE_ASYNC:
            return self._async_sugar(instr, comp)
        if handler is None:
            return self._default(instr, comp)
        return handler(instr, comp)

    # -- helpers --------------------------------------------------------------
    def operands(self, instr: Instruction, comp: Computation) -> list[Instruction | None]:
        return [comp.instruction(o) if o in comp else None for o in instr.operand_names]

    def operand_shape(self, instr: Instruction, comp: Computation, index: int) -> Shape | None:
        if index >= len(instr.operand_names) or instr.operand_names[index] not in comp:
            return None
        return comp.instruction(instr.operand_names[index]).shape

    def _default(self, instr: Instruction, comp: Computation) -> Props:
        """``Preprocess``: every operand read whole, the result written whole."""
        reads = tuple(
            float(self.size(o.shape)) if o is not None else 0.0 for o in self.operands(instr, comp)
        )
        written = float(self.output_size(instr.shape))
        return Props(0.0, 0.0, written + sum(reads), reads, written)

    def _callee(self, instr: Instruction, attribute: str) -> str | None:
        names = called_names(instr, attribute)
        return names[0] if names else None

    def _applied(self, instr: Instruction, attribute: str = "to_apply") -> Totals:
        name = self._callee(instr, attribute)
        return self.flops_of(name) if name else ZERO

    def _steps(self, instr: Instruction, attribute: str) -> Totals:
        name = self._callee(instr, attribute)
        return self.sum_of(name) if name else ZERO

    def _scaled(self, base: Props, totals: Totals, count: float) -> Props:
        return base._replace(flops=totals[0] * count, transcendentals=totals[1] * count)

    # -- rules ---------------------------------------------------------------
    def _fusion(self, instr: Instruction, comp: Computation) -> Props:
        called = self._callee(instr, "calls")
        if called is None or not self.module.has_computation(called):
            return self._default(instr, comp)
        fused = self.module.computation(called)
        if instr.fusion_kind == "kCustom":
            # XLA prices a custom fusion holding a gather or scatter as that op.
            for inner in fused.instructions:
                if inner.opcode == "gather":
                    return self._gather(inner, fused, outer=self._default(instr, comp))
                if inner.opcode == "scatter":
                    return self._scatter(inner, fused, outer=self._default(instr, comp))
        flops, transcendentals, _ = self.flops_of(called)
        reads, written, elements, constants = fusion_bytes(self, instr, fused)
        accessed = written + constants + sum(reads)
        return Props(flops, transcendentals, accessed, reads, written, elements)

    def _dot(self, instr: Instruction, comp: Computation) -> Props:
        lhs = self.operand_shape(instr, comp, 0)
        base = self._default(instr, comp)
        if lhs is None:
            return base
        contracting = parse_braced_ints(instr.attribute("lhs_contracting_dims") or "{}")
        return base._replace(flops=float(dot_flops(lhs, instr.shape, contracting)))

    def _ragged_dot(self, instr: Instruction, comp: Computation) -> Props:
        lhs = self.operand_shape(instr, comp, 0)
        base = self._default(instr, comp)
        if lhs is None:
            return base
        result = instr.shape
        # XLA deletes dimension i (not the group dimension itself) for each group dimension.
        for i in range(len(parse_braced_ints(instr.attribute("rhs_group_dims") or "{}"))):
            if i < result.rank:
                result = Shape(result.element_type, result.dims[:i] + result.dims[i + 1 :])
        contracting = parse_braced_ints(instr.attribute("lhs_contracting_dims") or "{}")
        return base._replace(flops=float(dot_flops(lhs, result, contracting)))

    def _convolution(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        lhs, rhs = self.operand_shape(instr, comp, 0), self.operand_shape(instr, comp, 1)
        labels = parse_dim_labels(instr.attribute("dim_labels"))
        if lhs is None or rhs is None or labels is None:
            return base
        flops = convolution_flops(
            lhs, rhs, instr.shape, parse_window(instr.attribute("window")), labels,
            int(instr.attribute("feature_group_count") or 1),
            int(instr.attribute("batch_group_count") or 1),
        )
        return base._replace(flops=float(flops))

    def _reduce(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        arg = self.operand_shape(instr, comp, 0)
        output = instr.shape.elements[0] if instr.shape.is_tuple and instr.shape.elements else instr.shape
        count = (self.elements(arg) if arg is not None else 0) - self.elements(output)
        return self._scaled(base, self._applied(instr), count)

    def _scan(self, instr: Instruction, comp: Computation) -> Props:
        # XLA:CPU (jax 0.10.2) counts the scanned computation once, as checked
        # against hlo_module_cost_analysis.
        return self._scaled(self._default(instr, comp), self._applied(instr), 1)

    def _map(self, instr: Instruction, comp: Computation) -> Props:
        return self._scaled(self._default(instr, comp), self._applied(instr), self.elements(instr.shape))

    def _reduce_window(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        window = parse_window(instr.attribute("window"))
        window_elements = math.prod(d.size for d in window)
        shape = instr.shape
        output = shape.elements[0] if shape.is_tuple and shape.elements else shape
        output_elements = self.elements(output)
        count = (window_elements - 1) * output_elements
        # A reduce followed by a broadcast back along one dimension.
        reducing = [d for d in window if d.size != 1]
        padded = [d for d in window if d.padding_low or d.padding_high]
        if len(reducing) == 1 and len(padded) == 1 and not shape.is_tuple:
            for k, d in enumerate(window):
                if (d.size != 1 and d.padding_low and d.padding_high
                        and d.padding_low == d.padding_high and d.size == 2 * d.padding_low + 1):
                    if k < shape.rank and d.padding_low == shape.dims[k] - 1:
                        span = shape.dims[k]
                        count = output_elements // span + span - 1 if span else 0
                    break
        return self._scaled(base, self._applied(instr), count)

    def _select_and_scatter(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        source = self.operand_shape(instr, comp, 1)
        sources = self.elements(source) if source is not None else 0
        window = math.prod(d.size for d in parse_window(instr.attribute("window")))
        select, scatter = self._applied(instr, "select"), self._applied(instr, "scatter")
        selects = sources * (window - 1)
        return base._replace(
            flops=select[0] * selects + scatter[0] * sources,
            transcendentals=select[1] * selects + scatter[1] * sources,
        )

    def _scatter(self, instr: Instruction, comp: Computation, outer: Props | None = None) -> Props:
        base = outer or self._default(instr, comp)
        shapes = [self.operand_shape(instr, comp, i) for i in range(len(instr.operand_names))]
        n = (len(shapes) - 1) // 2
        updates = [s for s in shapes[n + 1 : 2 * n + 1] if s is not None]
        update_bytes = [float(self.size(s)) for s in updates]
        index_shape = shapes[n] if 0 <= n < len(shapes) else None
        indices = float(self.size(index_shape)) if index_shape is not None else 0.0
        reads = list(base.operand_bytes) + [0.0] * max(0, 2 * n + 1 - len(base.operand_bytes))
        for i, size in enumerate(update_bytes):
            reads[i] = size
            if n + 1 + i < len(reads):
                reads[n + 1 + i] = size
        if n < len(reads):
            reads[n] = indices
        total = sum(update_bytes)
        applied = self._applied(instr)
        count = self.elements(updates[0]) if updates else 0
        return Props(applied[0] * count, applied[1] * count, 3 * total + indices, tuple(reads), total)

    def _gather(self, instr: Instruction, comp: Computation, outer: Props | None = None) -> Props:
        base = outer or self._default(instr, comp)
        output = float(self.size(instr.shape))
        indices_shape = self.operand_shape(instr, comp, 1)
        indices = float(self.size(indices_shape)) if indices_shape is not None else 0.0
        reads = list(base.operand_bytes) + [0.0] * max(0, 2 - len(base.operand_bytes))
        reads[0], reads[1] = output, indices
        return base._replace(bytes_accessed=2 * output + indices, operand_bytes=tuple(reads),
                             output_bytes=output)

    def _slice(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        output = float(self.size(instr.shape))
        return base._replace(bytes_accessed=2 * output, output_bytes=output,
                             operand_bytes=(output, *base.operand_bytes[1:]))

    def _dynamic_slice(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        output = float(self.size(instr.shape))
        reads = list(base.operand_bytes)
        start = reads[1] if len(reads) > 1 else 0.0
        if reads:
            reads[0] = output
        return base._replace(bytes_accessed=2 * output + start, output_bytes=output,
                             operand_bytes=tuple(reads))

    def _dus(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        reads = list(base.operand_bytes)
        update = reads[1] if len(reads) > 1 else 0.0
        start = reads[2] if len(reads) > 2 else 0.0
        if reads:
            reads[0] = 0.0  # operand 0 is updated in place
        return base._replace(bytes_accessed=2 * update + start, output_bytes=update,
                             operand_bytes=tuple(reads))

    def _tuple(self, instr: Instruction, comp: Computation) -> Props:
        table = float(self.size(instr.shape))
        return Props(0.0, 0.0, table, (0.0,) * len(instr.operand_names), table)

    def _transpose(self, instr: Instruction, comp: Computation) -> Props:
        operand = self.operand_shape(instr, comp, 0)
        if operand is not None and _transpose_is_bitcast(
            operand, instr.shape, parse_braced_ints(instr.attribute("dimensions") or "{}")
        ):
            return Props(0.0, 0.0, 0.0, (0.0,), 0.0)
        return self._default(instr, comp)

    def _sort(self, instr: Instruction, comp: Computation) -> Props:
        shape = self.operand_shape(instr, comp, 0)
        n = self.elements(shape) if shape is not None else 0
        log2 = (n - 1).bit_length() if n > 1 else 0
        return self._default(instr, comp)._replace(flops=float(n * log2))

    def _all_reduce(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        arrays = [s for s in _subshapes(instr.shape) if s.is_array]
        written = float(sum(self.size(s) for s in arrays))
        flops = float(sum(self.elements(s) for s in arrays))
        return base._replace(flops=flops, output_bytes=written,
                             bytes_accessed=written + sum(base.operand_bytes))

    def _rng(self, instr: Instruction, comp: Computation) -> Props:
        return self._default(instr, comp)._replace(transcendentals=float(self.elements(instr.shape)))

    def _rng_bit_generator(self, instr: Instruction, comp: Computation) -> Props:
        count = sum(self.elements(s) for s in instr.shape.leaves() if s.is_array)
        return self._default(instr, comp)._replace(transcendentals=float(count))

    def _fft(self, instr: Instruction, comp: Computation) -> Props:
        shape = self.operand_shape(instr, comp, 0)
        if shape is None:
            return self._default(instr, comp)
        real = shape.elements[0] if shape.is_tuple and shape.elements else shape
        log_factors = 1
        for length in parse_braced_ints(instr.attribute("fft_length") or "{}"):
            log_factors *= max(length, 1).bit_length() - 1
        flops = FMA_FLOPS * 4 * log_factors * self.elements(real)
        return self._default(instr, comp)._replace(flops=float(flops))

    def _triangular_solve(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        a, b = self.operand_shape(instr, comp, 0), self.operand_shape(instr, comp, 1)
        if a is None or b is None or not a.rank:
            return base
        accessed = self.size(instr.shape) + self.size(a) / 2 + self.size(b)
        flops = FMA_FLOPS * a.dims[-1] * self.elements(b)
        return base._replace(bytes_accessed=float(accessed), flops=float(flops))

    def _cholesky(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        a = self.operand_shape(instr, comp, 0)
        if a is None or not a.rank:
            return base
        half = self.size(a) / 2
        flops = a.dims[-1] * self.elements(a) // 3
        return base._replace(bytes_accessed=2 * half, output_bytes=half, flops=float(flops))

    def _infeed(self, instr: Instruction, comp: Computation) -> Props:
        size = float(sum(self.size(s) for s in instr.shape.leaves()))
        return Props(0.0, 0.0, size, (0.0,) * len(instr.operand_names), size)

    def _outfeed(self, instr: Instruction, comp: Computation) -> Props:
        base = self._default(instr, comp)
        reads = tuple(
            float(sum(self.size(s) for s in o.shape.leaves())) if o is not None else 0.0
            for o in self.operands(instr, comp)
        )
        return base._replace(bytes_accessed=sum(reads), operand_bytes=reads)

    def _custom_call(self, instr: Instruction, comp: Computation) -> Props:
        if not self.xla_compatible:
            priced = library_call_cost(self, instr, comp)
            if priced is not None:
                return priced
        # XLA marks what it cannot know with -1; xlaview keeps that as "unknown".
        n = len(instr.operand_names)
        if self.xla_compatible:
            return Props(-1.0, 0.0, -1.0, (-1.0,) * n, -1.0, known=False)
        return Props(0.0, 0.0, 0.0, (0.0,) * n, 0.0, known=False)

    def _while(self, instr: Instruction, comp: Computation) -> Props:
        body, condition = self._steps(instr, "body"), self._steps(instr, "condition")
        return _container(instr, tuple(a + b for a, b in zip(body, condition)))  # type: ignore[arg-type]

    def _conditional(self, instr: Instruction, comp: Computation) -> Props:
        names = called_names(instr, "branch_computations") or (
            called_names(instr, "true_computation") + called_names(instr, "false_computation"))
        branches = [self.sum_of(name) for name in names]
        if not branches:
            return _container(instr, ZERO)
        return _container(instr, tuple(max(b[k] for b in branches) for k in range(3)))  # type: ignore[arg-type]

    def _call(self, instr: Instruction, comp: Computation) -> Props:
        return _container(instr, self._steps(instr, "to_apply"))

    def _async_sugar(self, instr: Instruction, comp: Computation) -> Props:
        """``X-start``: the work of ``X`` on its operands; ``X-update``/``X-done``:
        the ``async-update``/``async-done`` around it."""
        if not instr.opcode.endswith("-start"):
            if not self.xla_compatible:
                return Props(0.0, 0.0, 0.0, (0.0,) * len(instr.operand_names), 0.0)
            return self._default(instr, comp)
        shape = instr.shape
        result = shape.elements[1] if shape.is_tuple and len(shape.elements) > 1 else shape
        wrapped = instr._replace(opcode=instr.opcode[: -len("-start")], shape=result)
        return _container(instr, self._price(wrapped, comp)[:3])  # type: ignore[arg-type]

    def _async_start(self, instr: Instruction, comp: Computation) -> Props:
        called = called_names(instr, "calls") or instr.called_computations
        if not called:
            return self._default(instr, comp)
        return _container(instr, self.sum_of(called[0]))


_CALLED = {
    name: re.compile(rf"(?<![\w.\-]){name}=\s*(%?[A-Za-z_][\w.\-]*|\{{[^{{}}]*\}})")
    for name in ("calls", "to_apply", "body", "condition", "select", "scatter",
                 "branch_computations", "true_computation", "false_computation")
}


def called_names(instr: Instruction, attribute: str) -> tuple[str, ...]:
    """The computations named by one attribute (``calls=%f``, ``branch_computations={...}``).

    Reads the attribute text up to ``metadata=`` (XLA prints the called
    computations before it) with one regular expression, instead of splitting
    every attribute: this runs for every fusion of a module.
    """
    text = instr.attribute_text
    if not text or attribute not in text:
        return ()
    cut = text.find(", metadata=")
    match = _CALLED[attribute].search(text, 0, cut if cut >= 0 else len(text))
    if match is None:
        match = _CALLED[attribute].search(text)  # printed after metadata after all
    return computation_names(match.group(1)) if match else ()


def _container(instr: Instruction, totals: Totals) -> Props:
    return Props(totals[0], totals[1], totals[2], (0.0,) * len(instr.operand_names), 0.0)


def _subshapes(shape: Shape) -> list[Shape]:
    if not shape.is_tuple:
        return [shape]
    out = []
    for element in shape.elements:
        out += _subshapes(element)
    return out


def _cpu_shape_size(shape: Shape) -> int:
    if shape.is_tuple:
        return POINTER_BYTES * len(shape.elements)
    element_type = shape.element_type
    if element_type == "opaque":
        return POINTER_BYTES
    if element_type in ("token", "unknown"):
        return 0
    count = math.prod(max(d, 0) for d in shape.dims)
    bits = shape.layout.element_size_bits if shape.layout else None
    size = -(-count * bits // 8) if bits else count * (ELEMENT_BITS.get(element_type, 0) // 8)
    if any(shape.dynamic):
        size += 4 * shape.rank  # each dynamic dimension's size, as an s32
    return size


def _transpose_is_bitcast(operand: Shape, result: Shape, dimensions: tuple[int, ...]) -> bool:
    """XLA's ``ShapeUtil::TransposeIsBitcast``: the permutation only renames
    dimensions, the bytes in memory stay in the same order."""
    if operand.element_type != result.element_type:
        return False
    in_m2m = operand.layout.minor_to_major if operand.layout else tuple(range(operand.rank - 1, -1, -1))
    out_m2m = result.layout.minor_to_major if result.layout else tuple(range(result.rank - 1, -1, -1))
    if len(in_m2m) != len(out_m2m) or len(dimensions) != len(out_m2m):
        return False
    try:
        return all(dimensions[out_m2m[i]] == in_m2m[i] for i in range(len(in_m2m)))
    except IndexError:
        return False
