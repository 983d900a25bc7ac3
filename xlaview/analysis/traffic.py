"""Where the memory traffic goes: bytes each top-level op reads and writes, and
the intermediates materialized in memory between them.

An op is *top-level* when it runs as its own step: it sits in the entry
computation, or in a computation the entry runs (while bodies and conditions,
conditional branches, called computations), not inside a fusion. A value one
top-level op writes and other top-level ops read goes through memory: its
traffic is ``bytes x (1 write + reads)``, times the known trip count of the
loops around it (``executions``). That is the cost of a fusion boundary, and
the number to look at first in a dump.

What an op reads and writes is XLA's cost model's figure (`xlaview.analysis.cost.totals`):
a slice, or a fusion reading through one, is charged what it reads, not its
whole operand; an in-place ``dynamic-update-slice`` writes only the update.
Only main memory counts: values XLA placed on chip (TPU VMEM ``S(1)``...) or
on the host are left out. One buffer is one intermediate: the ``-done`` half
of an asynchronous pair hands on the buffer its ``-start`` wrote, and an op
that updates an operand in place (per the buffer assignment when given, else
per XLA's in-place ops: ``dynamic-update-slice``, ``scatter``, fusions rooted
in one, ``output_to_operand_aliasing``) writes into that operand's buffer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xlaview.analysis.cost.model import CHECK_EVERY, called_names
from xlaview.analysis.cost.totals import ModuleCost, module_cost
from xlaview.analysis.kinds import fusion_kind, kind_name
from xlaview.analysis.memory_spaces import memory_space, shape_memory_space
from xlaview.dump.readers import BufferAssignment
from xlaview.dump.reports import ModuleReports
from xlaview.hlo import Computation, Instruction, Module, Shape
from xlaview.hlo.interpreted import braced_ints

# Ops that move no data: they name (part of) a buffer another op wrote.
ALIASING = frozenset(
    (
        "get-tuple-element",
        "tuple",
        "bitcast",
        "parameter",
        "constant",
        "after-all",
        "add-dependency",
        "opt-barrier",
        "partition-id",
        "replica-id",
    )
)
# Computations a top-level op runs as top-level code (not fused, not an
# element-wise reducer): bodies of loops, branches, calls.
RUNS_AS_STEPS = {
    "while": ("body", "condition"),
    "conditional": ("branch_computations", "true_computation", "false_computation"),
    "call": ("to_apply",),
    "async-start": ("calls",),
}
FUSION_KINDS = ("kLoop", "kInput", "kOutput", "kCustom")
# The ``-done`` of a pair: which element of its ``-start``'s result it hands on
# (None: the start's result is the buffer itself).
_DONE_ELEMENT = {
    "async-done": 1,
    "all-gather-done": 1,
    "collective-permute-done": 1,
    "copy-done": 0,
    "all-reduce-done": None,
    "send-done": None,
    "recv-done": 0,
}
# Containers: their cost is their computations', priced there.
_CONTAINERS = frozenset(("while", "conditional", "call"))


@dataclass(frozen=True, slots=True)
class OpTraffic:
    name: str
    computation: str
    kind: str  # the fusion kind (kCustom: its name), a custom call's target, or the opcode
    bytes_read: int  # main-memory bytes, one execution
    bytes_written: int
    executions: int = 1  # known trip counts of the loops around it multiplied


@dataclass(frozen=True, slots=True)
class Intermediate:
    producer: str  # the instruction, or ``name#index`` for an element of a tuple it returns
    producer_kind: str
    computation: str
    shape: str
    bytes: int
    consumers: tuple[str, ...]
    executions: int = 1
    # Ops that hand the same buffer on (an async -done, an in-place update).
    aliases: tuple[str, ...] = ()
    # What the consumers read of it, one execution (a slice reads its slice);
    # None: each reads it whole.
    read_bytes: int | None = None

    @property
    def traffic_bytes(self) -> int:
        """One write and the consumers' reads, times the loop trip counts."""
        reads = self.bytes * len(self.consumers) if self.read_bytes is None else self.read_bytes
        return (self.bytes + reads) * self.executions

    @property
    def producer_instruction(self) -> str:
        return self.producer.split("#")[0]


@dataclass(frozen=True, slots=True)
class Traffic:
    module: str
    ops: tuple[OpTraffic, ...]
    intermediates: tuple[Intermediate, ...]  # largest traffic first
    fusion_counts: dict[str, int] = field(default_factory=dict)
    # Every main-memory byte the top-level ops read and write, loops counted;
    # and the intermediates' share. Summed once, where the traffic is made (a
    # training step's, summed by the window's GUI thread, took 60 ms).
    total_traffic_bytes: int = field(init=False, compare=False, repr=False)
    intermediate_traffic_bytes: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        total = sum((o.bytes_read + o.bytes_written) * o.executions for o in self.ops)
        object.__setattr__(self, "total_traffic_bytes", total)
        intermediate = sum(i.traffic_bytes for i in self.intermediates)
        object.__setattr__(self, "intermediate_traffic_bytes", intermediate)

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "total_traffic_bytes": self.total_traffic_bytes,
            "intermediate_traffic_bytes": self.intermediate_traffic_bytes,
            "fusion_counts": self.fusion_counts,
            "intermediates": [
                {
                    "producer": i.producer,
                    "producer_kind": i.producer_kind,
                    "computation": i.computation,
                    "shape": i.shape,
                    "bytes": i.bytes,
                    "consumers": list(i.consumers),
                    "traffic_bytes": i.traffic_bytes,
                    "executions": i.executions,
                    "aliases": list(i.aliases),
                    "read_bytes": i.read_bytes,
                }
                for i in self.intermediates
            ],
            "fusions": [
                {
                    "name": o.name,
                    "computation": o.computation,
                    "kind": o.kind,
                    "bytes_read": o.bytes_read,
                    "bytes_written": o.bytes_written,
                    "executions": o.executions,
                }
                for o in self.ops
            ],
        }


def kind_label(instr: Instruction) -> str:
    """The kind shown for an op (see `xlaview.analysis.kinds.kind_name`)."""
    return kind_name(instr)


def step_computations(module: Module) -> list[Computation]:
    """The entry and every computation it runs as steps, callers first."""
    entry = module.entry
    if entry is None:
        return []
    order = [entry]
    seen = {entry.name}
    i = 0
    while i < len(order):
        for instr in order[i].instructions:
            for attribute in RUNS_AS_STEPS.get(instr.opcode, ()):
                for name in called_names(instr, attribute):
                    if name not in seen and module.has_computation(name):
                        seen.add(name)
                        order.append(module.computation(name))
        i += 1
    return order


def _element_shape(instr: Instruction, index: int | None) -> Shape:
    shape = instr.shape
    if index is not None and shape.is_tuple and index < len(shape.elements):
        return shape.elements[index]
    return shape


def analyze_traffic(
    module: Module,
    reports: ModuleReports | Callable[[], ModuleReports | None] | None = None,
    cost: ModuleCost | None = None,
    progress: Callable[[float], None] | None = None,
) -> Traffic:
    """Bytes per top-level op and the materialized intermediates of a module.

    ``reports`` (the module's buffer assignment) confirms which ops update a
    buffer in place; it may be a function that reads them, called only if the
    module has an in-place candidate (reading a big dump's reports costs more
    than this analysis). ``cost`` is `module_cost` of the module when the
    caller has it already. ``progress`` hears the share done now and then
    (raising there stops the work: a pass the user stepped away from).
    """
    cost = cost or module_cost(module, progress=progress)
    steps = step_computations(module)
    tell = progress or _deaf
    candidates: dict[str, dict[str, int]] = {}
    for comp in steps:
        places = candidates[comp.name] = {}
        for seen, i in enumerate(comp.instructions, 1):
            if not seen % CHECK_EVERY:
                tell(1.0)  # (each a step away may stop: the moe's entry took 0.1 s)
            if (k := _in_place_operand(i, module)) is not None:
                places[i.name] = k
    if callable(reports):
        reports = reports() if any(candidates.values()) else None
    assignment = reports.buffer_assignment if reports else None
    platform = cost.platform
    spaces = module.names_memory_spaces
    ops: list[OpTraffic] = []
    intermediates: list[Intermediate] = []
    listed = {op.name: op for op in cost.ops}  # ops costing nothing are left out of it
    for comp in steps:
        times = cost.executions(comp.name)
        by_name = {i.name: i for i in comp.instructions}
        aliases: dict[tuple[str, int | None], list[str]] = {}
        in_place = candidates[comp.name]
        if assignment is not None:
            in_place = {
                name: k
                for name, k in in_place.items()
                if _shares_slice(assignment, name, by_name[name].operand_names[k])
            }

        readers: dict[tuple[str, int | None], list[str]] = {}
        read: dict[tuple[str, int | None], int] = {}
        # The buffer (producer, element) each operand name reads: a value read
        # by many ops is looked up once.
        keys: dict[str, tuple[str, int | None] | None] = {}
        for seen, instr in enumerate(comp.instructions):
            if seen % CHECK_EVERY == 0:
                tell(1.0)  # (the cost told the rest: a step away stops it here too)
            if instr.opcode in ALIASING or instr.opcode in _CONTAINERS:
                continue
            priced = listed.get(instr.name)
            if instr.opcode in _DONE_ELEMENT:
                # Hands its start's buffer on: no traffic of its own.
                found = _source(by_name, in_place, instr.name)
                if found is not None:
                    aliases.setdefault((found[0].name, found[1]), []).append(instr.name)
                continue
            reads = written = 0
            if priced is not None:
                reads, written = _main_memory_bytes(
                    instr, by_name, priced.bytes_read, priced.bytes_written, platform, spaces
                )
            name = instr.name
            bytes_read = priced.bytes_read if priced is not None else ()
            for k, operand in enumerate(instr.operand_names):
                priced_read = bytes_read[k] if k < len(bytes_read) else None
                if priced_read == 0:
                    continue  # not read (updated in place), or read as nothing
                if operand in keys:
                    key = keys[operand]
                else:
                    found = _source(by_name, in_place, operand)
                    key = keys[operand] = (found[0].name, found[1]) if found is not None else None
                if key is not None:
                    names = readers.get(key)
                    if names is None:
                        readers[key] = [name]
                    elif names[-1] != name:  # not an op reading it twice
                        names.append(name)
                    if priced_read is not None:
                        read[key] = read.get(key, 0) + priced_read
            if instr.name in in_place:
                found = _source(by_name, in_place, instr.name)
                if found is not None and found[0] is not instr:
                    aliases.setdefault((found[0].name, found[1]), []).append(instr.name)
            ops.append(
                OpTraffic(instr.name, comp.name, kind_name(instr, module), reads, written, times)
            )
        for seen, ((producer_name, index), consumers) in enumerate(readers.items(), 1):
            if not seen % CHECK_EVERY:
                tell(1.0)  # (the moe's entry: 40,000 values read, 0.25 s)
            producer = by_name[producer_name]
            if producer.opcode in ALIASING:
                continue  # parameters and constants come from outside
            shape = _element_shape(producer, index)
            if shape.is_tuple or not shape.is_array:
                continue  # its elements are counted where they are read
            if not memory_space(shape_memory_space(shape), platform).main_memory:
                continue  # on chip or on the host: not main-memory traffic
            label = producer_name if index is None else f"{producer_name}#{index}"
            intermediates.append(
                Intermediate(
                    label,
                    kind_name(producer, module),
                    comp.name,
                    str(shape),
                    shape.byte_size(),
                    tuple(consumers),
                    times,
                    tuple(aliases.get((producer_name, index), ())),
                    read.get((producer_name, index)),
                )
            )
    tell(1.0)  # (what follows: 0.1 s for the 40,000 ops and values of the moe's entry)
    intermediates.sort(key=lambda i: (-i.traffic_bytes, i.producer))
    kinds = Counter(fusion_kind(i) for i in module.instructions_with("fusion"))
    fusion_counts = {k: kinds.get(k, 0) for k in FUSION_KINDS}
    fusion_counts["other"] = sum(n for k, n in kinds.items() if k not in FUSION_KINDS)
    tell(1.0)
    return Traffic(module.name, tuple(ops), tuple(intermediates), fusion_counts)


def _deaf(_fraction: float) -> None:
    pass


def _source(
    by_name: dict[str, Instruction], in_place: dict[str, int], name: str, index: int | None = None
) -> tuple[Instruction, int | None] | None:
    """The op whose buffer an operand reads, seen through aliasing ops, async
    -done halves and in-place updates (and the tuple element, if one)."""
    seen = 0
    while name in by_name and seen < 256:
        seen += 1
        instr = by_name[name]
        op = instr.opcode
        if op == "get-tuple-element":
            idx = instr.attribute("index")
            if not instr.operand_names or idx is None:
                return None
            name, index = instr.operand_names[0], int(idx)
            continue
        if op == "bitcast" and instr.operand_names:
            name = instr.operand_names[0]
            continue
        if op == "tuple" and index is not None and index < len(instr.operand_names):
            name, index = instr.operand_names[index], None
            continue
        if op in _DONE_ELEMENT and instr.operand_names and index is None:
            name, index = instr.operand_names[0], _DONE_ELEMENT[op]
            continue
        if index is None and name in in_place:
            name = instr.operand_names[in_place[name]]
            continue
        return instr, index
    return None


def _main_memory_bytes(
    instr: Instruction,
    by_name: dict[str, Instruction],
    reads: tuple[int, ...],
    written: int,
    platform: str | None,
    spaces: bool,
) -> tuple[int, int]:
    """An op's reads and writes, leaving out operands and results held off main
    memory (``spaces`` False: the module's layouts name no memory space, all is in it)."""
    if not spaces:
        return sum(reads[: len(instr.operand_names)]), written
    total_read = 0
    for k, operand in enumerate(instr.operand_names):
        if k >= len(reads):
            break
        holder = by_name.get(operand)
        if holder is None or _in_main_memory(holder.shape, platform):
            total_read += reads[k]
    return total_read, written if _in_main_memory(instr.shape, platform) else 0


def _in_main_memory(shape: Shape, platform: str | None) -> bool:
    if not shape.is_tuple:
        space = shape.layout.memory_space if shape.layout else None
        return not space or memory_space(space, platform).main_memory
    leaves = [s for s in shape.leaves() if s.is_array] or [shape]
    return any(memory_space(shape_memory_space(s), platform).main_memory for s in leaves)


def _in_place_operand(instr: Instruction, module: Module) -> int | None:
    """The operand ``instr`` updates in place (writing only part of it), if any.

    XLA's in-place updates: ``dynamic-update-slice`` and ``scatter`` (operand 0),
    a fusion rooted in a dynamic-update-slice, ``output_to_operand_aliasing``
    (a buffer assignment, when given, must also put the result in that
    operand's slice: `_shares_slice`). An element-wise op XLA lets reuse its
    operand's buffer rewrites all of it: that is a new value, not an update,
    and keeps its own intermediate.
    """
    if not instr.operand_names or instr.shape.is_tuple or instr.opcode in ALIASING:
        return None
    op = instr.opcode
    k: int | None = None
    if op in ("dynamic-update-slice", "scatter"):
        k = 0
    elif op == "fusion":
        k = _fused_in_place(instr, module)
    elif "output_to_operand" in (instr.attribute_text or ""):
        aliasing = instr.attribute("output_to_operand_aliasing") or ""
        numbers = braced_ints(aliasing.split(":", 1)[1]) if ":" in aliasing else ()
        if numbers and numbers[0] < len(instr.operand_names):
            k = numbers[0]
    return k


def _shares_slice(assignment: BufferAssignment, name: str, operand: str) -> bool:
    mine = _slice(assignment, name)
    return mine is not None and _slice(assignment, operand) == mine


def _slice(assignment: BufferAssignment, name: str) -> tuple[int, int, int] | None:
    for allocation, value in assignment.values_of(name):
        if value.shape_index in ("{}", ""):
            return allocation.index, value.offset, value.size
    return None


_UPDATES = frozenset(("dynamic-update-slice",))


def _fused_in_place(fusion: Instruction, module: Module) -> int | None:
    """The operand a fusion rooted in a dynamic-update-slice updates in place
    (the parameter its operand 0 is, through bitcasts)."""
    called = called_names(fusion, "calls")
    if not called or not module.has_computation(called[0]):
        return None
    fused = module.computation(called[0])
    if not fused.may_hold(_UPDATES):
        return None  # a body nobody read yet stays unread
    node = fused.root
    if node is None or node.opcode != "dynamic-update-slice":
        return None
    for _ in range(64):
        if not node.operand_names or node.operand_names[0] not in fused:
            return None
        node = fused.instruction(node.operand_names[0])
        if node.opcode == "parameter":
            number = node.parameter_number
            return number if number is not None and number < len(fusion.operand_names) else None
        if node.opcode != "bitcast":
            return None
    return None
