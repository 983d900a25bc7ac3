"""What each op costs: FLOPs, transcendentals and bytes, per instruction and per module.

`module_cost` prices every instruction the way XLA's ``HloCostAnalysis``
does (`xlaview.analysis.cost.model`), so that the module totals equal what
``hlo_module_cost_analysis`` returns on XLA:CPU: fused instructions fold into
their fusion, a fusion reads only what its computation touches of each operand,
a ``while`` body counts once. Beyond that model, it prices GEMM and convolution
library calls (`xlaview.analysis.cost.library_calls`), lets the ``-done`` half of an
asynchronous pair cost nothing, and gives an *executed* total in which each loop
body counts as many times as its ``known_trip_count`` says.

``ModuleCost.ops`` are the ops that run as their own step (top level: in the
entry, a loop body or condition, a branch, a called computation; not inside a
fusion) and cost something; `ModuleCost.op` finds any instruction, fused ones
included. Times and the roofline are in `xlaview.analysis.cost.devices`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple, Protocol

from xlaview.analysis.cost.collectives import Collective, collective_kind, group_size, wire_bytes
from xlaview.analysis.cost.interior import interior_bytes, is_opaque
from xlaview.analysis.cost.library_calls import is_library_call
from xlaview.analysis.cost.loops import (
    LoopCount,
    Step,
    callees_first,
    executed_totals,
    fold,
    step_executions,
    steps_of,
    trip_count,
    trip_count_problem,
)
from xlaview.analysis.cost.model import (
    CHECK_EVERY,
    CONTAINERS,
    MATRIX_OPCODES,
    CostModel,
    _cpu_shape_size,
    called_names,
)
from xlaview.analysis.cost.rules import OpProperties
from xlaview.analysis.kinds import kind_name, precision_level
from xlaview.analysis.memory_spaces import (
    memory_platform,
    memory_space,
    shape_memory_space,
)
from xlaview.collector import gc_paused
from xlaview.errors import Problem
from xlaview.hlo import Computation, Instruction, Module, Shape

__all__ = [
    "CostTotals",
    "LoopCount",
    "ModuleCost",
    "OpCost",
    "Share",
    "SharePrices",
    "module_cost",
    "price_share",
    "trip_count",
]


@dataclass(frozen=True, slots=True)
class CostTotals:
    """FLOPs, transcendentals and bytes accessed of a module (or a part)."""

    flops: int
    transcendentals: int
    bytes_accessed: int

    def to_json(self) -> dict[str, int]:
        return {
            "flops": self.flops,
            "transcendentals": self.transcendentals,
            "bytes_accessed": self.bytes_accessed,
        }


@dataclass(frozen=True, slots=True)
class OpCost:
    """The cost of one instruction, one execution of it.

    ``bytes_read[i]`` is what operand ``i`` costs to read, ``bytes_written`` what
    the result costs to write, ``bytes_accessed`` XLA's total for the op (it may
    differ from their sum: large fused constants, index operands). ``memory_bytes``
    is the part of ``bytes_accessed`` in main memory (HBM): values placed in
    on-chip spaces (TPU VMEM ``S(1)``...) or on the host do not count.
    ``executions`` is how often one run of the module executes it (the product of
    the known trip counts of the loops around it; 1 when unknown). ``matrix``
    says it runs on matrix units (a dot, a convolution, a GEMM call, a fusion
    holding one); ``element_type`` is the type its arithmetic is done in, and
    ``precision`` the precision its operands asked for (``default``, ``high``,
    ``highest``). ``known`` is False for a custom call whose cost nobody knows
    (its figures are then 0, and it is left out of shares: `ModuleCost.unknown_ops`).

    ``opaque`` marks a library kernel whose interior the dump cannot show (a
    ``kCustom`` fusion, a custom call); ``interior_bytes`` is what the values
    between the stages of its body would move if it kept none of them on chip
    (`xlaview.analysis.cost.interior`; 0 without a body). ``padding_bytes`` is
    the part of ``bytes_accessed`` that is tile padding. ``collective`` says
    what a collective sends over the interconnect (None for other ops).
    """

    name: str
    computation: str
    opcode: str
    kind: str
    flops: int
    transcendentals: int
    bytes_read: tuple[int, ...]
    bytes_written: int
    bytes_accessed: int
    memory_bytes: int
    executions: int
    top_level: bool
    matrix: bool
    element_type: str
    precision: str = "default"
    known: bool = True
    opaque: bool = False
    interior_bytes: int = 0
    padding_bytes: int = 0
    collective: Collective | None = None

    @property
    def total_bytes_read(self) -> int:
        return sum(self.bytes_read)

    @property
    def intensity(self) -> float | None:
        """FLOPs per byte of main memory (None when it touches none)."""
        if not self.memory_bytes:
            return None
        return (self.flops + self.transcendentals) / self.memory_bytes


class ModuleCost:
    """Costs of one module: totals, executed totals, the top-level ops, lookups."""

    __slots__ = (
        "_by_name",
        "_executions",
        "_model",
        "_module",
        "executed",
        "loops",
        "module",
        "ops",
        "platform",
        "problems",
        "totals",
    )

    def __init__(
        self,
        module: Module,
        model: CostModel,
        ops: tuple[OpCost, ...],
        totals: CostTotals,
        executed: CostTotals,
        loops: tuple[LoopCount, ...],
        executions: dict[str, int],
        platform: str | None,
        problems: tuple[Problem, ...] = (),
    ) -> None:
        self.module = module.name
        # What the pricing would not believe (a negative trip count, a
        # computation that runs itself): each located at its line, the file's
        # path left to the caller (""), left out of the totals.
        self.problems = problems
        self.totals = totals
        self.executed = executed
        self.ops = ops
        self.loops = loops
        self.platform = platform
        self._module = module
        self._model = model
        self._by_name = {op.name: op for op in ops}
        self._executions = executions

    @property
    def flops(self) -> int:
        return self.totals.flops

    @property
    def transcendentals(self) -> int:
        return self.totals.transcendentals

    @property
    def bytes_accessed(self) -> int:
        return self.totals.bytes_accessed

    @property
    def unknown_ops(self) -> tuple[OpCost, ...]:
        """The top-level ops nobody can price (custom calls with no known
        formula and no body): left out of totals and shares, and said so."""
        return tuple(op for op in self.ops if not op.known)

    def op(self, name: str) -> OpCost | None:
        """Any instruction's cost, fused ones included (priced on first request:
        XLA prices a fused instruction as if it ran alone, and its bytes count
        only inside the fusion); None for an instruction the module lacks."""
        name = name.lstrip("%")
        found = self._by_name.get(name)
        if found is not None:
            return found
        try:
            comp, instr = self._module.find(name)
        except KeyError:
            return None
        with gc_paused():
            props = self._model.price(instr, comp)
            top = comp.name in self._executions
            record = _op_cost(
                self._model, instr, comp, props, self._executions_of(comp.name), top, self.platform
            )
        self._by_name[name] = record
        return record

    def top_level(self, name: str) -> OpCost | None:
        """The op ``name`` if it is one of `ops` (no pricing on request)."""
        return self._by_name.get(name.lstrip("%")) if name else None

    def executions(self, computation: str) -> int:
        """How often one run of the module runs ``computation`` (1 when unknown)."""
        return self._executions_of(computation)

    def fold(self, values: Mapping[str, float], executed: bool = False) -> float:
        """Add up a per-op figure (a time) over the module the way its totals
        add up: a loop body and condition once each (XLA's single iteration) or,
        with ``executed``, as often as their known trip counts say; a
        conditional's most expensive branch; a call's callee. Ops missing from
        ``values`` count 0."""
        entry = self._module.entry
        return fold(self._module, entry.name, values, executed) if entry else 0.0

    def run_totals(self, name: str) -> CostTotals | None:
        """What one run of a ``while``, ``call`` or ``conditional`` executes:
        its callees' totals with loop bodies counted by their trip counts (a
        conditional's most expensive branch). None for any other op."""
        steps = self._steps(name)
        if steps is None:
            return None
        instr, found = steps
        combine = max if instr.opcode == "conditional" else sum
        parts = [
            [step.times * v for v in executed_totals(self._module, self._model, step.callee)]
            for step in found
        ]
        flops, transcendentals, accessed = (combine(p[k] for p in parts) for k in range(3))
        return CostTotals(round(flops), round(transcendentals), round(accessed))

    def run_fold(self, name: str, values: Mapping[str, float]) -> float | None:
        """A per-op figure (a time) added up over one run of a ``while``,
        ``call`` or ``conditional`` as `run_totals` adds up its work."""
        steps = self._steps(name)
        if steps is None:
            return None
        instr, found = steps
        combine = max if instr.opcode == "conditional" else sum
        return combine(step.times * fold(self._module, step.callee, values, True) for step in found)

    def _steps(self, name: str) -> tuple[Instruction, list[Step]] | None:
        try:
            _, instr = self._module.find(name.lstrip("%"))
        except KeyError:
            return None
        steps = steps_of(self._module, instr, executed=True)
        return (instr, steps) if steps else None

    def _executions_of(self, computation: str) -> int:
        seen = 0
        while computation not in self._executions and seen < 64:
            caller = self._model.callers.get(computation)
            if caller is None:
                return 1
            computation = caller
            seen += 1
        return self._executions.get(computation, 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            **self.totals.to_json(),
            "executed": {
                "flops": self.executed.flops,
                "bytes_accessed": self.executed.bytes_accessed,
            },
        }


def module_cost(
    module: Module,
    *,
    xla_compatible: bool = False,
    platform: str | None = None,
    progress: Callable[[float], None] | None = None,
    share: Share | None = None,
) -> ModuleCost:
    """Price every instruction of ``module`` (linear in its size).

    ``xla_compatible=True`` reproduces XLA:CPU's ``HloCostAnalysis`` exactly
    (custom calls unknown, ``-1``; asynchronous ``-done`` ops priced like any
    op); the default adds what that model cannot see (see the module docstring).
    ``platform`` (``tpu``, ``gpu``, ``cpu``) names the memory spaces; by default
    it is read from the module. ``progress`` hears the share done now and
    then (raising there stops the work). With a ``share``, another process
    prices the entry's instructions it names (see `Share`).
    """
    with gc_paused():
        return _module_cost(module, xla_compatible, platform, progress, share)


class SharePrices(NamedTuple):
    """What a process that priced some of the entry's instructions hands back:
    their properties and their `OpCost` (None: an op costing nothing), and
    the caller of each computation it walked (`CostModel.callers`)."""

    props: dict[str, OpProperties]
    records: dict[str, OpCost | None]
    callers: dict[str, str]

    def packed(self) -> tuple[Any, ...]:
        """Its contents as plain tuples, for a pipe: unpickled, the U-Net
        benchmark's 23,000 `OpCost` and `OpProperties` took 0.9 s to rebuild
        through their pickling hooks, their fields 0.1 s (`unpacked`)."""
        return (
            list(self.props),
            list(map(tuple, self.props.values())),
            list(self.records),
            [None if r is None else _OP_COST_FIELDS(r) for r in self.records.values()],
            self.callers,
        )

    @classmethod
    def unpacked(cls, packed: tuple[Any, ...]) -> SharePrices:
        """The `SharePrices` that `packed` gave (TypeError or ValueError if it is not one)."""
        names, props, record_names, records, callers = packed
        if not isinstance(callers, dict):
            raise TypeError("callers: not a dictionary")
        return cls(
            dict(zip(names, map(OpProperties._make, props), strict=True)),
            dict(
                zip(
                    record_names,
                    [None if r is None else OpCost(*r) for r in records],
                    strict=True,
                )
            ),
            callers,
        )


_OP_COST_FIELDS = attrgetter(*OpCost.__slots__)


class Share(Protocol):
    """The entry's instructions another process prices (the default model only)."""

    def mine(self, entry: Computation) -> Iterator[Sequence[Instruction]]:
        """The entry's instructions this process prices, a few at a time as
        it takes them (the other process takes the rest)."""
        ...

    def prices(self) -> SharePrices | None:
        """The other's prices, once this process's are done (None: price the rest here)."""
        ...


def price_share(
    module: Module, mine: Callable[[Computation], Iterable[Sequence[Instruction]]]
) -> SharePrices:
    """The `SharePrices` of the entry's instructions that ``mine(entry)``
    gives, a few at a time, priced as `module_cost` prices them (for another
    process's `Share`)."""
    with gc_paused():
        model = CostModel(module)
        entry = module.entry
        if entry is None:
            return SharePrices({}, {}, {})
        count = step_executions(module, entry)[0][entry.name]
        props: dict[str, OpProperties] = {}
        records = _priced(model, entry, mine(entry), count, memory_platform(module), props)
        return SharePrices(props, records, model.callers)


def _priced(
    model: CostModel,
    entry: Computation,
    chunks: Iterable[Sequence[Instruction]],
    count: int,
    platform: str | None,
    props: dict[str, OpProperties] | None = None,
) -> dict[str, OpCost | None]:
    """Price each chunk of the entry's instructions and make their `OpCost`
    (`_entry_records`) before the next chunk is taken; their properties
    into ``props`` if given."""
    records: dict[str, OpCost | None] = {}
    for chunk in chunks:
        model.price_some(entry, chunk)
        if props is not None:
            props.update((i.name, model.price(i, entry)) for i in chunk)
        records.update(_entry_records(model, entry, chunk, count, platform))
    return records


def _module_cost(
    module: Module,
    xla_compatible: bool,
    platform: str | None,
    progress: Callable[[float], None] | None,
    share: Share | None,
) -> ModuleCost:
    model = CostModel(module, xla_compatible=xla_compatible)
    model.progress = progress
    platform = platform or memory_platform(module)
    # Only a module whose layouts name memory spaces needs them looked up per operand.
    spaces = module.names_memory_spaces
    entry = module.entry
    if entry is None:
        empty = CostTotals(0, 0, 0)
        return ModuleCost(module, model, (), empty, empty, (), {}, platform)
    model.check()
    executions, loops = step_executions(module, entry)
    model.check()  # (each a step away may stop: 40 ms apart on the moe's 40,000-op entry)
    records: dict[str, OpCost | None] = {}
    if share is not None and not xla_compatible and platform == memory_platform(module):
        # This process's part first, while the other prices its own.
        records = _priced(model, entry, share.mine(entry), executions[entry.name], platform)
        prices = share.prices()
        if prices is not None:
            model.adopt(entry, prices.props, prices.callers)
            records.update(prices.records)
    flops, transcendentals, accessed = model.sum_of(entry.name)
    totals = CostTotals(round(flops), round(transcendentals), round(accessed))
    ops: list[OpCost] = []
    for comp_name, count in executions.items():
        comp = module.computation(comp_name)
        for seen, instr in enumerate(comp.instructions):
            if seen % CHECK_EVERY == 0:
                model.check()  # (0.7 s of the moe's 40,000-op entry: a step away stops it)
            if instr.opcode in CONTAINERS and instr.opcode != "async-start":
                continue
            if comp is entry and instr.name in records:
                record = records[instr.name]
            else:
                record = _top_op(model, instr, comp, count, platform, spaces)
            if record is not None:
                ops.append(record)
    executed = executed_totals(module, model, entry.name)
    model.check()
    return ModuleCost(
        module,
        model,
        tuple(ops),
        totals,
        CostTotals(round(executed[0]), round(executed[1]), round(executed[2])),
        tuple(loops),
        executions,
        platform,
        _pricing_problems(module, model, entry, loops),
    )


def _pricing_problems(
    module: Module, model: CostModel, entry: Computation, loops: list[LoopCount]
) -> tuple[Problem, ...]:
    problems = []
    for loop in loops:
        instr = module.computation(loop.computation).instruction(loop.name)
        message = trip_count_problem(instr)
        if message is not None:
            problems.append(Problem("", f"{loop.name}: {message}", instr.span.line))
    for name in dict.fromkeys([*callees_first(module, entry.name)[1], *model.cycles]):
        problems.append(
            Problem(
                "",
                f"computation {name} runs itself again through what it calls (XLA refuses "
                "recursion): counted once round the cycle",
                module.computation(name).span.line,
            )
        )
    return tuple(problems)


def _entry_records(
    model: CostModel,
    entry: Computation,
    instructions: Iterable[Instruction],
    count: int,
    platform: str | None,
) -> dict[str, OpCost | None]:
    """`_top_op` of ``instructions`` of the entry, containers left out as `module_cost` does."""
    spaces = model.module.names_memory_spaces
    return {
        i.name: _top_op(model, i, entry, count, platform, spaces)
        for i in instructions
        if i.opcode not in CONTAINERS or i.opcode == "async-start"
    }


def _top_op(
    model: CostModel,
    instr: Instruction,
    comp: Computation,
    count: int,
    platform: str | None,
    spaces: bool,
) -> OpCost | None:
    """The `OpCost` of a top-level op, or None if it costs nothing."""
    props = model.price(instr, comp)
    if not props.known or props.flops or props.transcendentals or props.bytes_accessed:
        return _op_cost(model, instr, comp, props, count, True, platform, spaces)
    return None


def _op_cost(
    model: CostModel,
    instr: Instruction,
    comp: Computation,
    props: OpProperties,
    executions: int,
    top_level: bool,
    platform: str | None,
    spaces: bool = True,
) -> OpCost:
    matrix, element_type, precision = _arithmetic(model, instr, comp)
    accessed = round(props.bytes_accessed)
    off_chip = _off_main_memory(model, instr, comp, props, platform) if spaces else 0
    opaque = top_level and is_opaque(instr)
    return OpCost(
        instr.name,
        comp.name,
        instr.opcode,
        kind_name(instr, model.module),
        round(props.flops),
        round(props.transcendentals),
        tuple(round(b) for b in props.operand_bytes),
        round(props.output_bytes),
        accessed,
        max(0, accessed - off_chip),
        executions,
        top_level,
        matrix,
        element_type,
        precision,
        props.known,
        opaque,
        interior_bytes(model.module, instr, model.interiors) if opaque else 0,
        _padding(model, instr, comp, props) if model.module.names_tiles else 0,
        _collective(model, instr, comp),
    )


def _padding(model: CostModel, instr: Instruction, comp: Computation, props: OpProperties) -> int:
    """The tile padding in what an op reads and writes (a share of each
    operand's and the result's bytes, as much as their shapes are padding)."""
    pad = 0.0
    for name, read in zip(instr.operand_names, props.operand_bytes, strict=False):
        if read > 0 and name in comp:
            pad += read * _padding_share(comp.instruction(name).shape)
    if props.output_bytes > 0:
        pad += props.output_bytes * _padding_share(instr.shape)
    return round(pad)


def _padding_share(shape: Shape) -> float:
    leaves = [s for s in shape.leaves() if s.is_array]
    stored = sum(s.byte_size() for s in leaves)
    return (stored - sum(s.unpadded_byte_size() for s in leaves)) / stored if stored else 0.0


def _collective(model: CostModel, instr: Instruction, comp: Computation) -> Collective | None:
    found = collective_kind(instr, model.module)
    if found is None:
        return None
    kind, holder = found
    n = group_size(holder, model.module)
    operands = (
        sum(model.size(comp.instruction(o).shape) for o in instr.operand_names[:1] if o in comp)
        if kind in ("collective-permute", "send")
        else sum(model.size(comp.instruction(o).shape) for o in instr.operand_names if o in comp)
    )
    payload = operands * n if kind == "all-gather" else operands
    return Collective(kind, n, payload, wire_bytes(kind, n, payload))


def _off_main_memory(
    model: CostModel,
    instr: Instruction,
    comp: Computation,
    props: OpProperties,
    platform: str | None,
) -> int:
    """Bytes of an op's reads and writes that stay out of main memory."""
    off = 0.0
    for name, read in zip(instr.operand_names, props.operand_bytes, strict=False):
        if read > 0 and name in comp:
            off += read * _off_share(comp.instruction(name).shape, platform)
    shape = instr.shape
    if props.element_output_bytes is not None and shape.is_tuple:
        for element, written in zip(shape.elements, props.element_output_bytes, strict=False):
            off += written * _off_share(element, platform)
    elif props.output_bytes > 0:
        off += props.output_bytes * _off_share(shape, platform)
    return round(off)


def _off_share(shape: Shape, platform: str | None) -> float:
    """The share of a value's bytes held outside main memory."""
    if not shape.is_tuple:
        space = shape.layout.memory_space if shape.layout else None
        if not space:
            return 0.0
        return 0.0 if memory_space(space, platform).main_memory else 1.0
    leaves = [s for s in shape.leaves() if s.is_array]
    total = sum(_cpu_shape_size(s) for s in leaves)
    if not total:
        return 0.0
    off = sum(
        _cpu_shape_size(s)
        for s in leaves
        if not memory_space(shape_memory_space(s), platform).main_memory
    )
    return off / total


def _arithmetic(model: CostModel, instr: Instruction, comp: Computation) -> tuple[bool, str, str]:
    """(runs on matrix units, the element type it computes in, the precision asked)."""
    if instr.opcode in MATRIX_OPCODES or (instr.opcode == "custom-call" and is_library_call(instr)):
        return True, _operand_type(model, instr, comp), _precision(instr)
    if instr.opcode == "fusion":
        called = called_names(instr, "calls")
        inner = model.matrix.get(called[0]) if called else None
        if inner is not None:
            fused = model.module.computation(called[0])
            return True, _operand_type(model, inner, fused), _precision(inner)
    leaves = [s for s in instr.shape.leaves() if s.is_array]
    return False, leaves[0].element_type if leaves else instr.shape.element_type, "default"


def _operand_type(model: CostModel, instr: Instruction, comp: Computation) -> str:
    shape = model.operand_shape(instr, comp, 0)
    return shape.element_type if shape is not None else instr.shape.element_type


def _precision(instr: Instruction) -> str:
    return precision_level(instr.attribute_text or "")
