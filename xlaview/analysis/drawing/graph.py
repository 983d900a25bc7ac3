"""The dataflow graph of one computation, as the graph view draws it.

Values that are cheap and used everywhere (parameters, constants, iotas)
get a private copy per user, as XLA's own graph dumper does for constants:
otherwise a handful of them tie the whole picture together with long edges.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from xlaview.analysis.drawing.records import LayoutNode
from xlaview.analysis.kinds import Kind, kind_of, op_label
from xlaview.hlo import Computation, Instruction, Module

SHARED_OPCODES = frozenset(("parameter", "constant", "iota"))


def _is_cheap(instr: Instruction, by_name: Mapping[str, Instruction]) -> bool:
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
    # What the node says it does: ``fusion kLoop``, ``custom-call __cublas$lt$matmul``
    # (`xlaview.analysis.kinds.op_label`); "" for a node built without it. A
    # folded group's node (`xlaview.analysis.folding.drawn`): the group's name.
    label: str = ""
    members: int = 0  # a folded group's node: the nodes inside it; 0: an instruction
    repeats: int = 1  # a folded repeat's node: its instances


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str  # node keys
    target: str
    shape: str


@dataclass(frozen=True, slots=True)
class ComputationGraph:
    computation: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    nodes_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # instruction -> keys
    # Instruction -> its op_name ("" for none), read as the graph is built: its
    # attributes are split then anyway, and split again later for 16,000 ops
    # would be as many misses of the parse's attribute cache (xlaview.hlo.attributes).
    op_names: dict[str, str] = field(default_factory=dict)


def build_graph(module: Module | None, computation: Computation | str) -> ComputationGraph:
    """The graph of ``computation`` (a name needs its ``module``)."""
    if isinstance(computation, str):
        assert module is not None, "a computation named needs its module"
        comp = module.computation(computation)
    else:
        comp = computation
    users: dict[str, list[str]] = {}
    for instr in comp.instructions:
        for operand in dict.fromkeys(instr.operand_names):
            users.setdefault(operand, []).append(instr.name)
    nodes: list[GraphNode] = []
    keys_of: dict[str, list[str]] = {}
    shared: set[str] = set()
    by_name = {i.name: i for i in comp.instructions}
    op_names: dict[str, str] = {}
    for instr in comp.instructions:
        kind = kind_of(instr)
        op_names[instr.name] = instr.op_name or ""
        called = instr.called_computations if instr.attribute_text else ()
        label = op_label(instr, module)
        copies = len(users.get(instr.name, ())) > 1 and _is_cheap(instr, by_name)
        if copies:
            shared.add(instr.name)
            for user in users[instr.name]:
                key = f"{instr.name}@{user}"
                nodes.append(
                    GraphNode(
                        key,
                        instr.name,
                        instr.opcode,
                        str(instr.shape),
                        kind,
                        instr.is_root,
                        True,
                        called,
                        label,
                    )
                )
                keys_of.setdefault(instr.name, []).append(key)
        else:
            nodes.append(
                GraphNode(
                    instr.name,
                    instr.name,
                    instr.opcode,
                    str(instr.shape),
                    kind,
                    instr.is_root,
                    False,
                    called,
                    label,
                )
            )
            keys_of.setdefault(instr.name, []).append(instr.name)
    edges: list[GraphEdge] = []
    for instr in comp.instructions:
        if instr.name in shared:
            continue  # a copied broadcast is drawn without its input
        for operand in instr.operand_names:
            if operand not in by_name:
                continue  # an undefined operand (tolerant parse): nothing to draw
            source = f"{operand}@{instr.name}" if operand in shared else operand
            edges.append(GraphEdge(source, instr.name, str(by_name[operand].shape)))
    return ComputationGraph(
        comp.name, tuple(nodes), tuple(edges), {k: tuple(v) for k, v in keys_of.items()}, op_names
    )


NODE_HEIGHT = 46.0
GROUP_HEIGHT = 58.0  # a folded group's box: its name, kind and size, and a header strip
NAME_CHAR = 7.8  # px per character of a node's text at 100 % (DejaVu Sans 9 pt, bold)
MIN_NODE_WIDTH = 90.0
MAX_NODE_WIDTH = 320.0


def node_width(node: GraphNode) -> float:
    if node.members:
        text = max(len(node.label), len(node.shape) + 10)
        return max(MIN_NODE_WIDTH + 40, min(MAX_NODE_WIDTH, 30 + NAME_CHAR * text))
    text = max(
        len(node.instruction), len(node.opcode) + 10, len(node.label) + 2, min(len(node.shape), 36)
    )
    width = 20 + NAME_CHAR * text
    if node.is_copy:
        width *= 0.8
    return max(MIN_NODE_WIDTH, min(MAX_NODE_WIDTH, width))


def node_height(node: GraphNode) -> float:
    if node.members:
        return GROUP_HEIGHT
    return NODE_HEIGHT * (0.7 if node.is_copy else 1.0)


def same_drawing(a: ComputationGraph, b: ComputationGraph) -> bool:
    """Whether two graphs draw alike: the same nodes, and each node the same
    operand edges in the same order, whatever the order of the instructions
    (a scheduling pass reorders a computation and changes nothing else)."""
    if a is b:
        return True
    if (
        a.computation != b.computation
        or len(a.nodes) != len(b.nodes)
        or len(a.edges) != len(b.edges)
    ):
        return False
    if {n.key: n for n in a.nodes} != {n.key: n for n in b.nodes}:
        return False
    return _operands(a) == _operands(b)


def _operands(graph: ComputationGraph) -> dict[str, list[tuple[str, str]]]:
    """Each node's operand edges in order. A loop in Python, which lets the
    GUI thread in as it goes: sorting the 93,000 edges of a big entry is
    one call that keeps it out for 30 ms."""
    by_target: dict[str, list[tuple[str, str]]] = {}
    for edge in graph.edges:
        found = by_target.get(edge.target)
        if found is None:
            by_target[edge.target] = [(edge.source, edge.shape)]
        else:
            found.append((edge.source, edge.shape))
    return by_target


def layout_inputs(graph: ComputationGraph) -> tuple[list[LayoutNode], list[tuple[str, str]]]:
    """The boxes and edges the layout places, sized as the view draws them."""
    nodes = [LayoutNode(n.key, node_width(n), node_height(n)) for n in graph.nodes]
    return nodes, [(e.source, e.target) for e in graph.edges]


__all__ = [
    "ComputationGraph", "GraphEdge", "GraphNode", "Kind", "build_graph", "layout_inputs",
    "node_height", "node_width", "same_drawing",
]  # fmt: skip
