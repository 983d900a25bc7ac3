"""What each op costs: FLOPs, transcendentals and bytes, per instruction and per module.

`module_cost` prices every instruction the way XLA's ``HloCostAnalysis``
does (`xlaview.analysis.cost_model`), so that the module totals equal what
``hlo_module_cost_analysis`` returns on XLA:CPU: fused instructions fold into
their fusion, a fusion reads only what its computation touches of each operand,
a ``while`` body counts once. Beyond that model, it prices GEMM and convolution
library calls (`xlaview.analysis.custom_calls`), lets the ``-done`` half of an
asynchronous pair cost nothing, and gives an *executed* total in which each loop
body counts as many times as its ``known_trip_count`` says.

``ModuleCost.ops`` are the ops that run as their own step (top level: in the
entry, a loop body or condition, a branch, a called computation; not inside a
fusion) and cost something; `ModuleCost.op` finds any instruction, fused ones
included. Times and the roofline are in `xlaview.analysis.devices`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from xlaview.analysis.cost_model import (
    CONTAINERS,
    MATRIX_OPCODES,
    CostModel,
    Props,
    called_names,
)
from xlaview.analysis.custom_calls import is_library_call
from xlaview.analysis.kinds import kind_name
from xlaview.analysis.memory_spaces import memory_platform, memory_space, shape_memory_space
from xlaview.hlo import Computation, Instruction, Module, Shape

# Computations a top-level op runs as top-level code (not fused, not applied per element).
_STEP_ATTRIBUTES = {
    "while": ("body", "condition"),
    "conditional": ("branch_computations", "true_computation", "false_computation"),
    "call": ("to_apply",),
}


@dataclass(frozen=True, slots=True)
class CostTotals:
    """FLOPs, transcendentals and bytes accessed of a module (or a part)."""

    flops: int
    transcendentals: int
    bytes_accessed: int

    def to_json(self) -> dict[str, int]:
        return {"flops": self.flops, "transcendentals": self.transcendentals,
                "bytes_accessed": self.bytes_accessed}


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
    ``highest_precision`` whether it asked for full f32 precision. ``known`` is
    False for a custom call whose cost nobody knows (its figures are then 0).
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
    highest_precision: bool = False
    known: bool = True

    @property
    def total_bytes_read(self) -> int:
        return sum(self.bytes_read)

    @property
    def intensity(self) -> float | None:
        """FLOPs per byte of main memory (None when it touches none)."""
        return (self.flops + self.transcendentals) / self.memory_bytes if self.memory_bytes else None


@dataclass(frozen=True, slots=True)
class LoopCount:
    """A ``while`` loop and how often its body runs (None: not known)."""

    name: str
    computation: str
    trip_count: int | None


class ModuleCost:
    """Costs of one module: totals, executed totals, the top-level ops, lookups."""

    __slots__ = ("_by_name", "_executions", "_model", "_module", "executed", "loops", "module",
                 "ops", "platform", "totals")

    def __init__(self, module: Module, model: CostModel, ops: tuple[OpCost, ...],
                 totals: CostTotals, executed: CostTotals, loops: tuple[LoopCount, ...],
                 executions: dict[str, int], platform: str | None) -> None:
        self.module = module.name
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

    def op(self, name: str) -> OpCost | None:
        """Any instruction's cost, fused ones included (None if XLA's model never
        reaches it: a computation nothing calls)."""
        name = name.lstrip("%")
        found = self._by_name.get(name)
        if found is not None:
            return found
        props = self._model.props.get(name)
        owner = self._model.owner.get(name)
        if props is None or owner is None or not self._module.has_computation(owner):
            return None
        comp = self._module.computation(owner)
        instr = comp.instruction(name)
        top = owner in self._executions
        record = _op_cost(self._model, instr, comp, props, self._executions_of(owner), top,
                          self.platform)
        self._by_name[name] = record
        return record

    def fold(self, values: Mapping[str, float], executed: bool = False) -> float:
        """Add up a per-op figure (a time) over the module the way its totals
        add up: a loop body and condition once each (XLA's single iteration) or,
        with ``executed``, as often as their known trip counts say; a
        conditional's most expensive branch; a call's callee. Ops missing from
        ``values`` count 0."""
        memo: dict[str, float] = {}
        entry = self._module.entry
        return _fold(self._module, entry.name, values, executed, memo) if entry else 0.0

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
        return {"module": self.module, **self.totals.to_json(),
                "executed": {"flops": self.executed.flops,
                             "bytes_accessed": self.executed.bytes_accessed}}


def module_cost(module: Module, *, xla_compatible: bool = False,
                platform: str | None = None) -> ModuleCost:
    """Price every instruction of ``module`` (linear in its size).

    ``xla_compatible=True`` reproduces XLA:CPU's ``HloCostAnalysis`` exactly
    (custom calls unknown, ``-1``; asynchronous ``-done`` ops priced like any
    op); the default adds what that model cannot see (see the module docstring).
    ``platform`` (``tpu``, ``gpu``, ``cpu``) names the memory spaces; by default
    it is read from the module.
    """
    with _no_gc():
        return _module_cost(module, xla_compatible, platform)


@contextmanager
def _no_gc() -> Iterator[None]:
    # The pass allocates many small records and frees none: a cyclic
    # collection would rescan the whole module for nothing.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _module_cost(module: Module, xla_compatible: bool, platform: str | None) -> ModuleCost:
    model = CostModel(module, xla_compatible=xla_compatible)
    platform = platform or memory_platform(module)
    # Only a module whose layouts name memory spaces needs them looked up per operand.
    spaces = ")S(" in module.text or ":S(" in module.text
    entry = module.entry
    if entry is None:
        empty = CostTotals(0, 0, 0)
        return ModuleCost(module, model, (), empty, empty, (), {}, platform)
    flops, transcendentals, accessed = model.sum_of(entry.name)
    totals = CostTotals(round(flops), round(transcendentals), round(accessed))
    executions, loops = _step_executions(module, model, entry)
    ops: list[OpCost] = []
    for comp_name, count in executions.items():
        comp = module.computation(comp_name)
        for instr in comp.instructions:
            if instr.opcode in CONTAINERS and instr.opcode != "async-start":
                continue
            props = model.price(instr, comp)
            if not props.known or props.flops or props.transcendentals or props.bytes_accessed:
                ops.append(_op_cost(model, instr, comp, props, count, True, platform, spaces))
    executed = _executed_totals(module, model, entry.name, {})
    return ModuleCost(module, model, tuple(ops), totals,
                      CostTotals(round(executed[0]), round(executed[1]), round(executed[2])),
                      tuple(loops), executions, platform)


def _fold(module: Module, name: str, values: Mapping[str, float], executed: bool,
          memo: dict[str, float]) -> float:
    if name in memo:
        return memo[name]
    memo[name] = 0.0
    total = 0.0
    for instr in module.computation(name).instructions:
        op = instr.opcode
        if op not in _STEP_ATTRIBUTES:
            total += values.get(instr.name, 0.0)
            continue
        if op == "while":
            n = trip_count(instr) if executed else None
            for attribute, times in (("body", n or 1), ("condition", n + 1 if n else 1)):
                for callee in called_names(instr, attribute):
                    if module.has_computation(callee):
                        total += times * _fold(module, callee, values, executed, memo)
            continue
        parts = [_fold(module, c, values, executed, memo)
                 for a in _STEP_ATTRIBUTES[op] for c in called_names(instr, a)
                 if module.has_computation(c)]
        if parts:
            total += max(parts) if op == "conditional" else sum(parts)
    memo[name] = total
    return total


def trip_count(instr: Instruction) -> int | None:
    """A ``while``'s ``known_trip_count`` from its backend config (None if absent)."""
    config = instr.backend_config
    if not isinstance(config, dict):
        return None
    known = config.get("known_trip_count")
    value = known.get("n") if isinstance(known, dict) else known
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _step_executions(
    module: Module, model: CostModel, entry: Computation
) -> tuple[dict[str, int], list[LoopCount]]:
    """Each computation that runs as top-level steps, with how often one run of
    the module executes it; and every loop with its trip count."""
    executions = {entry.name: 1}
    loops: list[LoopCount] = []
    order = [entry.name]
    i = 0
    while i < len(order):
        comp = module.computation(order[i])
        count = executions[order[i]]
        i += 1
        for instr in comp.instructions:
            attributes = _STEP_ATTRIBUTES.get(instr.opcode)
            if attributes is None:
                continue
            trips = trip_count(instr) if instr.opcode == "while" else None
            if instr.opcode == "while":
                loops.append(LoopCount(instr.name, comp.name, trips))
            for attribute in attributes:
                for name in called_names(instr, attribute):
                    if not module.has_computation(name):
                        continue
                    times = count
                    if instr.opcode == "while":
                        times = count * ((trips or 1) + (attribute == "condition" and trips is not None))
                    if name not in executions:
                        order.append(name)
                    executions[name] = executions.get(name, 0) + times
    return executions, loops


def _executed_totals(module: Module, model: CostModel, name: str,
                     memo: dict[str, tuple[float, float, float]]) -> tuple[float, float, float]:
    """A computation's totals with loop bodies scaled by their trip counts."""
    if name in memo:
        return memo[name]
    memo[name] = (0.0, 0.0, 0.0)
    comp = module.computation(name)
    total = [0.0, 0.0, 0.0]
    for instr in comp.instructions:
        op = instr.opcode
        if op in _STEP_ATTRIBUTES:
            if op == "while":
                n = trip_count(instr)
                body = _callee(instr, "body")
                cond = _callee(instr, "condition")
                parts = [(body, n or 1), (cond, (n + 1) if n is not None else 1)]
                for callee, times in parts:
                    if callee and module.has_computation(callee):
                        sub = _executed_totals(module, model, callee, memo)
                        for k in range(3):
                            total[k] += sub[k] * times
                continue
            callees = [c for a in _STEP_ATTRIBUTES[op] for c in called_names(instr, a)
                       if module.has_computation(c)]
            subs = [_executed_totals(module, model, c, memo) for c in callees]
            if subs:
                combine = max if op == "conditional" else sum
                for k in range(3):
                    total[k] += combine(s[k] for s in subs)
            continue
        props = model.price(instr, comp)
        total[0] += props.flops
        total[1] += props.transcendentals
        total[2] += props.bytes_accessed
    result = (total[0], total[1], total[2])
    memo[name] = result
    return result


def _callee(instr: Instruction, attribute: str) -> str | None:
    names = called_names(instr, attribute)
    return names[0] if names else None


def _op_cost(model: CostModel, instr: Instruction, comp: Computation, props: Props,
             executions: int, top_level: bool, platform: str | None,
             spaces: bool = True) -> OpCost:
    matrix, element_type, highest = _arithmetic(model, instr, comp)
    accessed = round(props.bytes_accessed)
    off_chip = _off_main_memory(model, instr, comp, props, platform) if spaces else 0
    return OpCost(
        instr.name, comp.name, instr.opcode, kind_name(instr, model.module),
        round(props.flops), round(props.transcendentals),
        tuple(round(b) for b in props.operand_bytes), round(props.output_bytes), accessed,
        max(0, accessed - off_chip), executions, top_level, matrix, element_type, highest,
        props.known,
    )


def _off_main_memory(model: CostModel, instr: Instruction, comp: Computation, props: Props,
                     platform: str | None) -> int:
    """Bytes of an op's reads and writes that stay out of main memory."""
    off = 0.0
    for name, read in zip(instr.operand_names, props.operand_bytes):
        if read > 0 and name in comp:
            off += read * _off_share(comp.instruction(name).shape, platform)
    shape = instr.shape
    if props.element_output_bytes is not None and shape.is_tuple:
        for element, written in zip(shape.elements, props.element_output_bytes):
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
    total = sum(s.byte_size() for s in leaves)
    if not total:
        return 0.0
    off = sum(s.byte_size() for s in leaves
              if not memory_space(shape_memory_space(s), platform).main_memory)
    return off / total


def _arithmetic(model: CostModel, instr: Instruction, comp: Computation) -> tuple[bool, str, bool]:
    """(runs on matrix units, the element type it computes in, full f32 precision asked)."""
    if instr.opcode in MATRIX_OPCODES or (instr.opcode == "custom-call" and is_library_call(instr)):
        return True, _operand_type(model, instr, comp), _highest(instr)
    if instr.opcode == "fusion":
        called = called_names(instr, "calls")
        inner = model.matrix.get(called[0]) if called else None
        if inner is not None:
            fused = model.module.computation(called[0])
            return True, _operand_type(model, inner, fused), _highest(inner)
    leaves = [s for s in instr.shape.leaves() if s.is_array]
    return False, leaves[0].element_type if leaves else instr.shape.element_type, False


def _operand_type(model: CostModel, instr: Instruction, comp: Computation) -> str:
    shape = model.operand_shape(instr, comp, 0)
    return shape.element_type if shape is not None else instr.shape.element_type


def _highest(instr: Instruction) -> bool:
    text = instr.attribute_text or ""
    return "operand_precision={highest" in text or '"HIGHEST"' in text or "F32_F32_F32" in text
