"""XLA's ``HloCostAnalysis``, rule for rule, over the xlaview model.

What `xla/service/hlo_cost_analysis.cc` computes for every instruction:
FLOPs, transcendentals, "bytes accessed", the bytes read of each operand and
the bytes written. XLA's CPU client (the cost model behind jax's
``hlo_module_cost_analysis``) uses the base class with the CPU shape size: a
tuple costs its pointer table (8 bytes per element), a dynamic array 4 bytes per
dimension more, tile padding nothing.

The rule for each opcode is in `xlaview.analysis.cost.rules`; this module
walks the computations. Each computation is visited once and its
instructions once (a reducer applied by many reduces is priced once and
scaled per caller), so the whole pass is linear in the module.
`CostModel.props` holds every instruction priced in full;
`CostModel.sum_of` a computation's total, the way XLA folds callees into their
caller: a fusion keeps its fused FLOPs but replaces their bytes by what it
reads and writes, a ``while`` counts body and condition once, a
``conditional`` its most expensive branch.

``xla_compatible=False`` departs from the CPU model where it cannot see:
library calls (GEMMs, convolutions) get FLOPs and bytes from their
configuration (`xlaview.analysis.cost.library_calls`), and a tiled layout
(TPU ``T(8,128)``) costs its padded size, as the device stores it (XLA:CPU's
shape size ignores tiles). Asynchronous pairs are priced as XLA prices them:
each half like any op, reading its operands and writing its result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence

from xlaview.analysis.cost.fusion_bytes import FusedBody, parameter_users
from xlaview.analysis.cost.library_calls import library_call_cost
from xlaview.analysis.cost.rules import RULES, ZERO, OpProperties, Totals
from xlaview.hlo import Computation, Instruction, Module, Shape
from xlaview.hlo.attributes import computation_names
from xlaview.hlo.shape import ELEMENT_BITS

# Instructions walked between two checks that the work is still wanted
# (`CostModel.check`), and computations entered between two reports: a step
# away stops the pricing within a few ms. (1,024 and 256: a train step's
# fusions, each priced with its body, went 100-145 ms between two.)
CHECK_EVERY = 128
ENTERED_BETWEEN_REPORTS = 32

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
FREE = frozenset(
    (
        "parameter",
        "constant",
        "get-tuple-element",
        "bitcast",
        "domain",
        "after-all",
        "add-dependency",
    )
)
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
NO_FLOPS = frozenset(
    (
        "gather",
        "slice",
        "dynamic-slice",
        "dynamic-update-slice",
        "tuple",
        "transpose",
        "infeed",
        "outfeed",
    )
)
# Instructions whose cost is that of the computations they run.
CONTAINERS = frozenset(("while", "conditional", "call", "async-start"))


class CostModel:
    """Prices a module's instructions with XLA's rules (see the module docstring)."""

    def __init__(self, module: Module, *, xla_compatible: bool = False) -> None:
        self.module = module
        self.xla_compatible = xla_compatible
        self.props: dict[str, OpProperties] = {}
        self.owner: dict[str, str] = {}  # instruction -> the computation it was priced in
        self._sums: dict[str, Totals] = {}
        self._flops: dict[str, Totals] = {}
        # fused computation -> its first dot or convolution (what sets the peak)
        self.matrix: dict[str, Instruction] = {}
        self._sizes: dict[int, int] = {}
        self._elements: dict[int, int] = {}
        self._users: dict[str, FusedBody] = {}
        # A library body's interior bytes, by its program (`interior.interior_bytes`).
        self.interiors: dict[str, int] = {}
        # computation -> the computation whose instruction first called it
        self.callers: dict[str, str] = {}
        self._visiting: list[str] = []
        # Computations reached again through their own callees (a malformed
        # module: XLA's verifier refuses recursion): priced once, cut there.
        self.cycles: list[str] = []
        # Called with the share of computations priced so far, now and then (a
        # caller that raises there stops a long pricing).
        self.progress: Callable[[float], None] | None = None
        self._entered = 0
        self._said = 0.0  # the share last told `progress`

    def parameter_users(self, comp: Computation) -> FusedBody:
        """`fusion_bytes.parameter_users` of ``comp``, built once."""
        found = self._users.get(comp.name)
        if found is None:
            found = self._users[comp.name] = parameter_users(comp)
        return found

    # -- sizes ---------------------------------------------------------------
    def size(self, shape: Shape) -> int:
        """The bytes charged for a shape: XLA:CPU's ``ShapeSizeBytes``, except
        that outside ``xla_compatible`` a tiled array costs its padded size."""
        key = id(shape)
        size = self._sizes.get(key)
        if size is None:
            size = self._sizes[key] = (
                _cpu_shape_size(shape) if self.xla_compatible else device_shape_size(shape)
            )
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
        self._callees_first(name, steps=True)
        return self._sum(name)

    def _sum(self, name: str) -> Totals:
        totals = self._sums.get(name)
        if totals is not None:
            return totals
        self._sums[name] = ZERO  # a (malformed) cycle ends here
        self._enter(name)
        comp = self.module.computation(name)
        flops = transcendentals = accessed = 0.0
        for seen, instr in enumerate(comp.instructions, 1):
            if not seen % CHECK_EVERY:
                self.check()  # (the moe's 40,000-op entry: 0.3 s)
            props = self.price(instr, comp)
            flops += props.flops
            transcendentals += props.transcendentals
            accessed += props.bytes_accessed
        self._visiting.pop()
        totals = self._sums[name] = (flops, transcendentals, accessed)
        return totals

    def price_some(self, comp: Computation, instructions: Sequence[Instruction]) -> None:
        """Price ``instructions`` of ``comp`` (run as steps) as `sum_of`
        would: the part of it one process does, a few at a time."""
        self._enter(comp.name)
        try:
            for instr in instructions:
                self.price(instr, comp)
        finally:
            self._visiting.pop()

    def adopt(
        self, comp: Computation, props: Mapping[str, OpProperties], callers: Mapping[str, str]
    ) -> None:
        """Take the prices of ``comp``'s instructions another process made
        (`price_some` there), and the callers of what it walked."""
        for name, found in props.items():
            self.props[name] = found
            self.owner[name] = comp.name
        for name, caller in callers.items():
            self.callers.setdefault(name, caller)

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
        self._callees_first(name, steps=False)
        return self._flops_of(name)

    def _flops_of(self, name: str) -> Totals:
        totals = self._sums.get(name) or self._flops.get(name)
        if totals is not None:
            return totals
        self._flops[name] = ZERO
        self._enter(name)
        comp = self.module.computation(name)
        flops = transcendentals = 0.0
        elements = self.elements
        handlers = _HANDLERS
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

    def _done(self, name: str, steps: bool) -> bool:
        return name in self._sums or (not steps and name in self._flops)

    def _callees_first(self, name: str, steps: bool) -> None:
        """Price every computation ``name`` reaches through calls before
        ``name`` itself, callees first, walking the call graph with a stack of
        our own: pricing then recurses one level at most, and a program of
        10,000 nested calls is priced as any other (recursing through
        `sum_of`, 250 levels overflowed Python's stack). ``steps``: ``name``
        runs as steps (`sum_of`), else only its FLOPs count (`flops_of`).
        Callers are recorded in the order the recursion would meet them; a
        computation that calls itself again (through others) is left in
        `cycles`, and priced once, as far as the cycle."""
        module = self.module
        stack: list[tuple[str, bool, str | None, bool]] = [(name, steps, None, False)]
        open_: set[str] = set()
        while stack:
            comp_name, as_steps, parent, expanded = stack.pop()
            if expanded:
                open_.discard(comp_name)
                if comp_name != name and not self._done(comp_name, as_steps):
                    (self._sum if as_steps else self._flops_of)(comp_name)
                continue
            if parent is not None:
                self.callers.setdefault(comp_name, parent)
            if self._done(comp_name, as_steps) or not module.has_computation(comp_name):
                continue
            if comp_name in open_:
                self.cycles.append(comp_name)
                continue
            open_.add(comp_name)
            stack.append((comp_name, as_steps, parent, True))
            comp = module.computation(comp_name)
            if comp.parsed is not None and comp.parsed.calls == ():
                continue  # the parser found no call in it: nothing to read
            below: list[tuple[str, bool, str | None, bool]] = []
            priced, owner = self.props, self.owner
            for seen, instr in enumerate(comp.instructions, 1):
                if not seen % CHECK_EVERY:
                    self.check()  # (the moe's 40,000-op entry: 0.2 s)
                if instr.name in priced and owner.get(instr.name) == comp_name:
                    continue  # priced already (by the other process, say): its callees too
                called = _called_by(instr)
                if called:
                    runs_steps = instr.opcode in CONTAINERS
                    below += [(c, runs_steps, comp_name, False) for c in called]
            stack += reversed(below)  # popped in instruction order, as recursion meets them

    def _enter(self, name: str) -> None:
        self._entered += 1
        if self.progress is not None and self._entered % ENTERED_BETWEEN_REPORTS == 0:
            self._said = min(1.0, self._entered / max(1, len(self.module.computations)))
            self.progress(self._said)
        if self._visiting:
            self.callers.setdefault(name, self._visiting[-1])
        self._visiting.append(name)

    def check(self) -> None:
        """Tell `progress` again the share last told (raising there stops the
        work): between the computations it tells on entering, a loop over
        tens of thousands of instructions asks here."""
        if self.progress is not None:
            self.progress(self._said)

    def price(self, instr: Instruction, comp: Computation) -> OpProperties:
        """The instruction's properties (computed once per name, then looked up)."""
        props = self.props.get(instr.name)
        if props is not None and self.owner.get(instr.name) == comp.name:
            return props
        props = self._price(instr, comp)
        if instr.name not in self.props:
            self.props[instr.name] = props
            self.owner[instr.name] = comp.name
        return props

    def _price(self, instr: Instruction, comp: Computation) -> OpProperties:
        op = instr.opcode
        if op in FREE:
            return OpProperties(0.0, 0.0, 0.0, (0.0,) * len(instr.operand_names), 0.0)
        if op in ELEMENTWISE:
            base = self.default(instr, comp)
            count = float(self.elements(instr.shape))
            if op in TRANSCENDENTAL:
                return base._replace(transcendentals=count)
            return base._replace(flops=count)
        handler = _HANDLERS.get(op)
        if handler is None and op.endswith(ASYNC_SUFFIXES) and op not in NATIVE_ASYNC:
            return self._async_sugar(instr, comp)
        if handler is None:
            return self.default(instr, comp)
        return handler(self, instr, comp)

    # -- helpers --------------------------------------------------------------
    def operands(self, instr: Instruction, comp: Computation) -> list[Instruction | None]:
        return [comp.instruction(o) if o in comp else None for o in instr.operand_names]

    def operand_shape(self, instr: Instruction, comp: Computation, index: int) -> Shape | None:
        if index >= len(instr.operand_names) or instr.operand_names[index] not in comp:
            return None
        return comp.instruction(instr.operand_names[index]).shape

    def default(self, instr: Instruction, comp: Computation) -> OpProperties:
        """``Preprocess``: every operand read whole, the result written whole."""
        reads = tuple(
            float(self.size(o.shape)) if o is not None else 0.0 for o in self.operands(instr, comp)
        )
        written = float(self.output_size(instr.shape))
        return OpProperties(0.0, 0.0, written + sum(reads), reads, written)

    def callee(self, instr: Instruction, attribute: str) -> str | None:
        names = called_names(instr, attribute)
        return names[0] if names else None

    def applied(self, instr: Instruction, attribute: str = "to_apply") -> Totals:
        name = self.callee(instr, attribute)
        return self.flops_of(name) if name else ZERO

    def _steps(self, instr: Instruction, attribute: str) -> Totals:
        name = self.callee(instr, attribute)
        return self.sum_of(name) if name else ZERO

    # -- rules ---------------------------------------------------------------
    def _custom_call(self, instr: Instruction, comp: Computation) -> OpProperties:
        if not self.xla_compatible:
            priced = library_call_cost(self, instr, comp)
            if priced is not None:
                return priced
        # XLA marks what it cannot know with -1; xlaview keeps that as "unknown".
        n = len(instr.operand_names)
        if self.xla_compatible:
            return OpProperties(-1.0, 0.0, -1.0, (-1.0,) * n, -1.0, known=False)
        return OpProperties(0.0, 0.0, 0.0, (0.0,) * n, 0.0, known=False)

    def _while(self, instr: Instruction, comp: Computation) -> OpProperties:
        body, condition = self._steps(instr, "body"), self._steps(instr, "condition")
        return _container(
            instr, (body[0] + condition[0], body[1] + condition[1], body[2] + condition[2])
        )

    def _conditional(self, instr: Instruction, comp: Computation) -> OpProperties:
        names = called_names(instr, "branch_computations") or (
            called_names(instr, "true_computation") + called_names(instr, "false_computation")
        )
        branches = [self.sum_of(name) for name in names]
        if not branches:
            return _container(instr, ZERO)
        worst = [max(b[k] for b in branches) for k in range(3)]
        return _container(instr, (worst[0], worst[1], worst[2]))

    def _call(self, instr: Instruction, comp: Computation) -> OpProperties:
        return _container(instr, self._steps(instr, "to_apply"))

    def _async_sugar(self, instr: Instruction, comp: Computation) -> OpProperties:
        """``X-start``: the work of ``X`` on its operands; ``X-update``/``X-done``:
        the ``async-update``/``async-done`` around it."""
        if not instr.opcode.endswith("-start"):
            return self.default(instr, comp)
        shape = instr.shape
        result = shape.elements[1] if shape.is_tuple and len(shape.elements) > 1 else shape
        wrapped = instr._replace(opcode=instr.opcode[: -len("-start")], shape=result)
        return _container(instr, self._price(wrapped, comp)[:3])

    def _async_start(self, instr: Instruction, comp: Computation) -> OpProperties:
        called = called_names(instr, "calls") or instr.called_computations
        if not called:
            return self.default(instr, comp)
        return _container(instr, self.sum_of(called[0]))


_CALLED = {
    name: re.compile(rf"(?<![\w.\-]){name}=\s*(%?[A-Za-z_][\w.\-]*|\{{[^{{}}]*\}})")
    for name in (
        "calls",
        "to_apply",
        "body",
        "condition",
        "select",
        "scatter",
        "branch_computations",
        "true_computation",
        "false_computation",
    )
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


def _called_by(instr: Instruction) -> tuple[str, ...]:
    """Every computation ``instr`` calls, by the attributes pricing reads
    (one search in C first: most instructions call nothing)."""
    if not instr.may_call:
        return ()
    found: tuple[str, ...] = ()
    for attribute in _CALLED:
        found += called_names(instr, attribute)
    return found


def _container(instr: Instruction, totals: Totals) -> OpProperties:
    return OpProperties(totals[0], totals[1], totals[2], (0.0,) * len(instr.operand_names), 0.0)


def device_shape_size(shape: Shape) -> int:
    """`_cpu_shape_size`, with a tiled array (TPU ``T(8,128)``) at its padded
    size: what the device stores and moves."""
    layout = shape.layout
    if layout is None or not layout.tiles or not shape.is_array:
        return _cpu_shape_size(shape)
    return shape.byte_size() + (4 * shape.rank if any(shape.dynamic) else 0)


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


# The rule of each opcode, called with the model: one table for every model
# (bound per model, the rules would tie each model in a reference cycle).
_HANDLERS: dict[str, Callable[[CostModel, Instruction, Computation], OpProperties]] = {
    **RULES,
    "custom-call": CostModel._custom_call,
    "while": CostModel._while,
    "conditional": CostModel._conditional,
    "call": CostModel._call,
    "async-start": CostModel._async_start,
}
