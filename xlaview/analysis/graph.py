"""The dataflow graph of one computation, as the graph view draws it.

Values that are cheap and used everywhere (parameters, constants, iotas)
get a private copy per user, as XLA's own graph dumper does for constants:
otherwise a handful of them tie the whole picture together with long edges.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xlaview.analysis.kinds import Kind, kind_of
from xlaview.hlo import Computation, Module

SHARED_OPCODES = frozenset(("parameter", "constant", "iota"))


def _is_cheap(instr, by_name) -> bool:
    """Shared values worth a private copy per user: parameters, constants, iotas,
    and broadcasts of those (the copy of a broadcast is drawn without its input)."""
    if instr.opcode in SHARED_OPCODES:
        return True
    if instr.opcode == "broadcast" and instr.operand_names:
        operand = by_name.get(instr.operand_names[0])
        return operand is not None and operand.opcode in SHARED_OPCODES
    return False


@dataclass(frozen=True, slots=True)
class GraphNode:
    key: str  # unique in the graph; the instruction name, or name@user for a copy
    instruction: str
    opcode: str
    shape: str
    kind: Kind
    is_root: bool = False
    is_copy: bool = False
    called: tuple[str, ...] = ()  # computations a double-click can open


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str  # node keys
    target: str
    operand_index: int
    shape: str


@dataclass(frozen=True, slots=True)
class ComputationGraph:
    computation: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    nodes_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # instruction -> keys

    def operands_of(self, instruction: str) -> set[str]:
        keys = set(self.nodes_of.get(instruction, ()))
        by_key = {n.key: n for n in self.nodes}
        return {by_key[e.source].instruction for e in self.edges if e.target in keys}

    def users_of(self, instruction: str) -> set[str]:
        keys = set(self.nodes_of.get(instruction, ()))
        by_key = {n.key: n for n in self.nodes}
        return {by_key[e.target].instruction for e in self.edges if e.source in keys}


def build_graph(module: Module, computation: Computation | str) -> ComputationGraph:
    comp = module.computation(computation) if isinstance(computation, str) else computation
    users: dict[str, list[str]] = {}
    for instr in comp.instructions:
        for operand in dict.fromkeys(instr.operand_names):
            users.setdefault(operand, []).append(instr.name)
    nodes: list[GraphNode] = []
    keys_of: dict[str, list[str]] = {}
    shared: set[str] = set()
    by_name = {i.name: i for i in comp.instructions}
    for instr in comp.instructions:
        kind = kind_of(instr)
        called = instr.called_computations if instr.attribute_text else ()
        copies = len(users.get(instr.name, ())) > 1 and _is_cheap(instr, by_name)
        if copies:
            shared.add(instr.name)
            for user in users[instr.name]:
                key = f"{instr.name}@{user}"
                nodes.append(
                    GraphNode(key, instr.name, instr.opcode, str(instr.shape), kind,
                              instr.is_root, True, called)
                )
                keys_of.setdefault(instr.name, []).append(key)
        else:
            nodes.append(
                GraphNode(instr.name, instr.name, instr.opcode, str(instr.shape), kind,
                          instr.is_root, False, called)
            )
            keys_of.setdefault(instr.name, []).append(instr.name)
    shapes = {i.name: str(i.shape) for i in comp.instructions}
    edges: list[GraphEdge] = []
    for instr in comp.instructions:
        if instr.name in shared:
            continue  # a copied broadcast is drawn without its input
        for index, operand in enumerate(instr.operand_names):
            if operand not in shapes:
                continue  # an undefined operand (tolerant parse): nothing to draw
            source = f"{operand}@{instr.name}" if operand in shared else operand
            edges.append(GraphEdge(source, instr.name, index, shapes[operand]))
    return ComputationGraph(
        comp.name, tuple(nodes), tuple(edges), {k: tuple(v) for k, v in keys_of.items()}
    )


__all__ = ["ComputationGraph", "GraphEdge", "GraphNode", "Kind", "build_graph"]
