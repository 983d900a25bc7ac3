"""Where the memory traffic goes: bytes each top-level op reads and writes, and
the intermediates materialized in memory between them.

An op is *top-level* when it runs as its own step: it sits in the entry
computation, or in a computation the entry runs (while bodies and conditions,
conditional branches, called computations), not inside a fusion. A value one
top-level op writes and other top-level ops read goes through memory: its
traffic is ``bytes x (1 write + reads)``. That is the cost of a fusion boundary,
and the number to look at first in a dump.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from xlaview.hlo import Computation, Instruction, Module

# Ops that move no data: they name (part of) a buffer another op wrote.
ALIASING = frozenset(("get-tuple-element", "tuple", "bitcast", "parameter", "constant",
                      "after-all", "add-dependency", "opt-barrier", "partition-id", "replica-id"))
# Computations a top-level op runs as top-level code (not fused, not an
# element-wise reducer): bodies of loops, branches, calls.
RUNS_AS_STEPS = {
    "while": ("body", "condition"),
    "conditional": ("branch_computations", "true_computation", "false_computation"),
    "call": ("to_apply",),
    "async-start": ("calls",),
}
FUSION_KINDS = ("kLoop", "kInput", "kOutput", "kCustom")


@dataclass(frozen=True, slots=True)
class OpTraffic:
    name: str
    computation: str
    kind: str  # the fusion kind, or the opcode
    bytes_read: int
    bytes_written: int


@dataclass(frozen=True, slots=True)
class Intermediate:
    producer: str  # the instruction, or ``name#index`` for an element of a tuple it returns
    producer_kind: str
    computation: str
    shape: str
    bytes: int
    consumers: tuple[str, ...]

    @property
    def traffic_bytes(self) -> int:
        return self.bytes * (1 + len(self.consumers))

    @property
    def producer_instruction(self) -> str:
        return self.producer.split("#")[0]


@dataclass(frozen=True, slots=True)
class Traffic:
    module: str
    ops: tuple[OpTraffic, ...]
    intermediates: tuple[Intermediate, ...]  # largest traffic first
    fusion_counts: dict[str, int] = field(default_factory=dict)

    @property
    def total_traffic_bytes(self) -> int:
        """Every byte the top-level ops read and write."""
        return sum(o.bytes_read + o.bytes_written for o in self.ops)

    @property
    def intermediate_traffic_bytes(self) -> int:
        return sum(i.traffic_bytes for i in self.intermediates)

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
                }
                for o in self.ops
            ],
        }


def kind_label(instr: Instruction) -> str:
    return (instr.fusion_kind or "fusion") if instr.opcode == "fusion" else instr.opcode


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
                value = instr.attribute(attribute)
                if not value:
                    continue
                for name in instr.called_computations:
                    if name in value and name not in seen and module.has_computation(name):
                        seen.add(name)
                        order.append(module.computation(name))
        i += 1
    return order


def _element_shape(instr: Instruction, index: int | None):
    shape = instr.shape
    if index is not None and shape.is_tuple and index < len(shape.elements):
        return shape.elements[index]
    return shape


def analyze_traffic(module: Module) -> Traffic:
    """Bytes per top-level op and the materialized intermediates of a module."""
    ops: list[OpTraffic] = []
    intermediates: list[Intermediate] = []
    for comp in step_computations(module):
        by_name = {i.name: i for i in comp.instructions}

        def source(name: str, index: int | None = None) -> tuple[Instruction, int | None] | None:
            """The op whose memory an operand reads, seen through aliasing ops."""
            seen = 0
            while name in by_name and seen < 64:
                seen += 1
                instr = by_name[name]
                if instr.opcode == "get-tuple-element":
                    idx = instr.attribute("index")
                    if not instr.operand_names or idx is None:
                        return None
                    name, index = instr.operand_names[0], int(idx)
                    continue
                if instr.opcode == "bitcast" and instr.operand_names:
                    name = instr.operand_names[0]
                    continue
                if instr.opcode == "tuple" and index is not None and index < len(instr.operand_names):
                    name, index = instr.operand_names[index], None
                    continue
                return instr, index
            return None

        readers: dict[tuple[str, int | None], list[str]] = {}
        for instr in comp.instructions:
            if instr.opcode in ALIASING:
                continue
            read = 0
            for operand in dict.fromkeys(instr.operand_names):
                found = source(operand)
                operand_instr = by_name.get(operand)
                if operand_instr is not None:
                    read += operand_instr.shape.byte_size()
                if found is not None:
                    producer, index = found
                    readers.setdefault((producer.name, index), []).append(instr.name)
            written = instr.shape.byte_size()
            ops.append(OpTraffic(instr.name, comp.name, kind_label(instr), read, written))
        for (producer_name, index), consumers in readers.items():
            producer = by_name[producer_name]
            if producer.opcode in ALIASING:
                continue  # parameters and constants come from outside
            shape = _element_shape(producer, index)
            if shape.is_tuple:
                continue  # its elements are counted where they are read
            label = producer_name if index is None else f"{producer_name}#{index}"
            intermediates.append(
                Intermediate(label, kind_label(producer), comp.name, str(shape), shape.byte_size(),
                             tuple(dict.fromkeys(consumers)))
            )
    intermediates.sort(key=lambda i: (-i.traffic_bytes, i.producer))
    counts = Counter(
        (i.fusion_kind if i.fusion_kind in FUSION_KINDS else "other")
        for i in module.instructions_with("fusion")
    )
    fusion_counts = {k: counts.get(k, 0) for k in (*FUSION_KINDS, "other")}
    return Traffic(module.name, tuple(ops), tuple(intermediates), fusion_counts)
