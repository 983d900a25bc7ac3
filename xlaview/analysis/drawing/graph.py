"""The dataflow graph of one computation, as the graph view draws it.

Values that are cheap and used everywhere (parameters, constants, iotas)
get a private copy per user, as XLA's own graph dumper does for constants:
otherwise a handful of them tie the whole picture together with long edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain, compress, filterfalse, repeat
from operator import and_, eq, is_, itemgetter, not_
from typing import ClassVar, NamedTuple

from xlaview.analysis.drawing.records import LayoutNode
from xlaview.analysis.kinds import Kind, op_label, opcode_kind
from xlaview.hlo import Computation, Instruction, Module, Span
from xlaview.hlo.attributes import fusion_head, split_attributes
from xlaview.hlo.model import called_in, op_name_in
from xlaview.turns import dict_of, every, listed, stepped

SHARED_OPCODES = frozenset(("parameter", "constant", "iota"))
_MAY_BE_CHEAP = SHARED_OPCODES | {"broadcast"}


def _is_cheap(instr: Instruction, by_name: Mapping[str, Instruction]) -> bool:
    """Shared values worth a private copy per user: parameters, constants, iotas,
    and broadcasts of those (the copy of a broadcast is drawn without its input)."""
    if instr.opcode in SHARED_OPCODES:
        return True
    if instr.opcode == "broadcast" and instr.operand_names:
        operand = by_name.get(instr.operand_names[0])
        return operand is not None and operand.opcode in SHARED_OPCODES
    return False


# Records of a graph are NamedTuples: built 60,000 at a time for a big entry,
# where a frozen dataclass's __init__ (a setattr per field) cost 2 µs a node.
class GraphNode(NamedTuple):
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


class GraphEdge(NamedTuple):
    source: str  # node keys
    target: str
    shape: str


@dataclass(frozen=True, slots=True)
class ComputationGraph:
    # Let go a part at a time (`xlaview.turns.Apart`): its nodes, its edges,
    # each mapping; a 27,000-node graph dropped whole took 13-65 ms in one call.
    apart_levels: ClassVar[int] = 1

    computation: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    nodes_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # instruction -> keys
    # Instruction -> its op_name ("" for none), read as the graph is built: its
    # attributes are split then anyway, and split again later for 16,000 ops
    # would be as many misses of the parse's attribute cache (xlaview.hlo.attributes).
    op_names: dict[str, str] = field(default_factory=dict)
    # Instruction -> what it drew, for the graph of the next pass (`build_graph`).
    made: Mapping[str, _Made] = field(default_factory=dict, compare=False, repr=False)


def build_graph(
    module: Module | None,
    computation: Computation | str,
    previous: ComputationGraph | None = None,
) -> ComputationGraph:
    """The graph of ``computation`` (a name needs its ``module``).

    ``previous``: the graph of the same computation at another pass. What an
    instruction drew there is taken again where the pass left the
    instruction and its operands as they were, so that a step that changed a
    few ops of a 50,000-op entry reads and draws only those again."""
    if isinstance(computation, str):
        assert module is not None, "a computation named needs its module"
        comp = module.computation(computation)
    else:
        comp = computation
    # What every instruction is asked goes through map() and zip() in C: a
    # step keeps all but a few of 50,000 ops, and a loop in Python over
    # them all took longer than drawing those few.
    instructions = comp.instructions
    names = listed(map(_NAME, instructions))
    if previous is not None and _unchanged(previous, comp.name, names, instructions):
        # The graph given is this one, which the folding and the picture
        # made of it know by identity too.
        return previous
    by_name = dict_of(zip(names, instructions, strict=True))
    # (The few that may be, picked in C: a 40,000-op entry has a few hundred.)
    maybe = compress(instructions, map(_MAY_BE_CHEAP.__contains__, map(_OPCODE, instructions)))
    cheap = {i.name for i in maybe if _is_cheap(i, by_name)}
    operands = listed(map(_OPERANDS, instructions))
    users: dict[str, list[str]] = {}
    if cheap:
        reading = map(not_, map(cheap.isdisjoint, operands))
        for instr in compress(instructions, reading):
            for operand in instr.operand_names:
                if operand in cheap:
                    found = users.get(operand)
                    if found is None:
                        users[operand] = [instr.name]
                    elif found[-1] != instr.name:
                        found.append(instr.name)
    shared = {name for name, of in users.items() if len(of) > 1}
    unique = len(by_name) == len(instructions)
    old = _reusable(previous, comp.name, unique)
    # What draws otherwise than before: an edge from it is drawn again.
    redrawn: set[str] = set()
    made: list[_Made]  # in text order (a tolerant parse may repeat a name)
    if old:
        made = listed(map(old.get, names, repeat(_NOT_MADE)))
        if len(old) > len(names) - sum(listed(map(is_, made, repeat(_NOT_MADE)))):
            redrawn = set(listed(filterfalse(by_name.__contains__, old)))  # some are gone
        before = listed(map(_INSTR, made))
        # `_same`, for all at once: then by hand where it says more (a copy's
        # users, an async-start) than these fields.
        kept = listed(
            map(
                and_,
                map(eq, map(_DRAWN, before), map(_DRAWN, instructions)),
                map(is_, map(_SHAPE_OF, before), map(_SHAPE_OF, instructions)),
            )
        )
        copied = getattr(old, "copied", None)
        if copied is None:  # a graph made otherwise
            copied = {name for name, one in old.items() if one.drawn_for}
        mind = shared | (copied & by_name.keys())
        for k in listed(compress(range(len(names)), map(mind.__contains__, names))):
            name = names[k]
            kept[k] = made[k].drawn_for == _drawn_for(name, users, shared) and _same(
                before[k], instructions[k]
            )
        for k in listed(
            compress(range(len(names)), map(eq, map(_OPCODE, instructions), repeat(ASYNC)))
        ):
            kept[k] = False
        for k in stepped(listed(compress(range(len(names)), map(not_, kept)))):
            instr = instructions[k]
            name = names[k]
            made[k] = _made(instr, module, _drawn_for(name, users, shared), by_name, shared)
            redrawn.add(name)
        if (
            not redrawn
            and previous is not None
            and getattr(old, "unique", False)
            and made == list(old.values())
        ):
            return previous  # every op drawn as before, in the same order
        if redrawn:
            # An op kept whose operand draws otherwise: its edges are drawn again.
            touched = map(and_, kept, map(not_, map(redrawn.isdisjoint, operands)))
            for k in compress(range(len(names)), touched):
                instr = instructions[k]
                if names[k] not in shared:
                    one = made[k]
                    made[k] = _Made(
                        one.instr,
                        one.nodes,
                        one.keys,
                        _edges(instr, by_name, shared),
                        one.drawn_for,
                        one.op_name,
                    )
    else:
        made = [
            _made(instr, module, _drawn_for(name, users, shared), by_name, shared)
            for instr, name in stepped(zip(instructions, names, strict=True))
        ]
    nodes = tuple(listed(chain.from_iterable(map(_NODES, made))))
    # A copied broadcast draws no edge: it is drawn without its input.
    edges = tuple(listed(chain.from_iterable(map(_EDGES, made))))
    op_names = dict_of(zip(names, map(_OP_NAME, made), strict=True))
    if unique:
        keys_of = dict_of(zip(names, map(_KEYS, made), strict=True))
    else:
        keys_of = {}
        for name, one in zip(names, made, strict=True):
            keys_of[name] = keys_of[name] + one.keys if name in keys_of else one.keys
    drawn = _Drawings(zip(names, made, strict=True), shared, unique)
    return ComputationGraph(comp.name, nodes, edges, keys_of, op_names, drawn)


def _unchanged(
    previous: ComputationGraph,
    name: str,
    names: list[str],
    instructions: tuple[Instruction, ...],
) -> bool:
    """Whether ``previous`` is the graph of ``instructions`` (named ``names``)
    of computation ``name``: the same names in the same order, each as
    `_same` as the one it drew there (in C; no async-start), so that every
    value, each op's users included, is as it was. Most passes print the
    entry again without changing what it draws."""
    drawings = previous.made
    if (
        previous.computation != name
        or not getattr(drawings, "unique", False)  # one node list per name drawn there
        or len(drawings) != len(names)
    ):
        return False
    made = listed(map(drawings.get, names, repeat(_NOT_MADE)))
    # (Each comparison a chunk at a time: over a 40,000-op entry, one call
    # in C held the GIL for 15-80 ms of the GUI thread's wait.)
    if not every(map(is_, made, drawings.values())):  # the drawings compare by identity
        return False
    before = listed(map(_INSTR, made))
    return (
        every(map(is_, map(_SHAPE_OF, before), map(_SHAPE_OF, instructions)))
        and every(map(eq, map(_DRAWN, before), map(_DRAWN, instructions)))
        and ASYNC not in listed(map(_OPCODE, instructions))
    )


def _drawn_for(name: str, users: dict[str, list[str]], shared: set[str]) -> tuple[str, ...]:
    """The users ``name`` draws a private copy for (none: it is drawn once)."""
    return tuple(users[name]) if name in shared else ()


class _Made(NamedTuple):
    """What one instruction drew: its node (or its copies, one per user in
    ``drawn_for``), their keys, and the edges from its operands."""

    instr: Instruction
    nodes: tuple[GraphNode, ...]
    keys: tuple[str, ...]
    edges: tuple[GraphEdge, ...]
    drawn_for: tuple[str, ...]
    op_name: str


ASYNC = "async-start"
# Instruction fields: name, opcode, shape, operands; and those `_same` compares with ==.
_NAME, _OPCODE, _SHAPE_OF, _OPERANDS = (itemgetter(k) for k in range(4))
_DRAWN = itemgetter(1, 3, 4, 7, 8)
_INSTR, _NODES, _KEYS, _EDGES, _DRAWN_FOR, _OP_NAME = (itemgetter(k) for k in range(6))
# What an instruction new to the step "drew before": no shape is this one's.
_NOT_MADE = _Made(
    Instruction("", "", object(), (), False, "", Span(0, 0, 0, 0)),  # type: ignore[arg-type]
    (), (), (), (), "",
)  # fmt: skip


class _Drawings(dict[str, _Made]):
    """Instruction -> what it drew (`ComputationGraph.made`), the
    instructions ``copied`` (drawn as a private copy per user), and whether
    the names were ``unique`` (a tolerant parse may repeat one)."""

    __slots__ = ("copied", "unique")

    def __init__(self, made: Iterable[tuple[str, _Made]], copied: set[str], unique: bool) -> None:
        super().__init__(dict_of(made))
        self.copied = copied
        self.unique = unique


def _reusable(previous: ComputationGraph | None, name: str, unique: bool) -> Mapping[str, _Made]:
    """What ``previous`` drew, where it can be taken again: a graph of the same
    computation, and one name per instruction (a tolerant parse may hold two)."""
    if previous is None or previous.computation != name or not unique:
        return {}
    return previous.made


def _same(a: Instruction, b: Instruction) -> bool:
    """Whether ``b`` draws as ``a`` did: all but where it is printed alike
    (shapes are interned by the parser). An ``async-start`` is labelled by the
    computation it calls, which may have changed under it."""
    return (
        a.opcode == b.opcode
        and a.shape is b.shape
        and a.is_root == b.is_root
        and a.operand_names == b.operand_names
        and a.attribute_text == b.attribute_text
        and a.payload == b.payload
        and a.opcode != "async-start"
    )


def _edges(
    instr: Instruction, by_name: Mapping[str, Instruction], shared: set[str]
) -> tuple[GraphEdge, ...]:
    """The edges into ``instr`` from its operands (from an operand's private
    copy where it has one). Made with tuple.__new__ and the shapes' texts:
    a graph makes 35,000 at a time (the named tuple's __new__ and str() of
    each shape were half of their cost). An edge names its source by the
    operand's own name object, the key of its node: the folding looks each
    edge's ends up by key, and a key found by identity needs no compare of
    its text (a mixture of experts' 64,000 edges: 28-30 ms, against 30-35)."""
    name = instr.name
    new = tuple.__new__
    get = by_name.get
    edges = []
    for operand in instr.operand_names:
        found = get(operand)
        if found is None:
            continue  # an undefined operand (tolerant parse): nothing to draw
        shape = found.shape
        source = f"{operand}@{name}" if operand in shared else found.name
        edges.append(new(GraphEdge, (source, name, shape.text or str(shape))))
    return tuple(edges)


def _made(
    instr: Instruction,
    module: Module | None,
    drawn_for: tuple[str, ...],
    by_name: Mapping[str, Instruction],
    shared: set[str],
) -> _Made:
    """The node of ``instr``, or its copies, one per user in ``drawn_for``
    (drawn without the edges from its operands), and those edges."""
    # Its attributes split once for what the node says: the kind, what it
    # calls and its op_name are read from them, and not each through
    # properties that look the split up again (half of a 16,000-op graph).
    text = instr.attribute_text
    op = instr.opcode
    head = fusion_head(text) if op == "fusion" else None
    if head is not None:  # most of an optimized entry: read without a split
        fusion, callee, op_name = head
        kind = opcode_kind(op, fusion)
        called: tuple[str, ...] = (callee,)
        label = op_label(instr, module, {"kind": fusion})
    else:
        attributes = split_attributes(text) if text else {}
        kind = opcode_kind(op, attributes.get("kind") if op == "fusion" else None)
        called = called_in(attributes) if "=" in text else ()
        label = op_label(instr, module, attributes)
        op_name = op_name_in(attributes.get("metadata")) or ""
    shape = str(instr.shape)
    name = instr.name
    is_root = instr.is_root
    # (Made with tuple.__new__: a named tuple's own __new__ is a Python call,
    # a tenth of a node's time on a 40,000-op entry.)
    new = tuple.__new__
    if drawn_for:
        nodes = tuple(
            new(
                GraphNode,
                (f"{name}@{user}", name, op, shape, kind, is_root, True, called, label, 0, 1),
            )
            for user in drawn_for
        )
        keys = tuple(n.key for n in nodes)
        edges: tuple[GraphEdge, ...] = ()
    else:
        nodes = (
            new(GraphNode, (name, name, op, shape, kind, is_root, False, called, label, 0, 1)),
        )
        keys = (name,)
        edges = _edges(instr, by_name, shared)
    return new(_Made, (instr, nodes, keys, edges, drawn_for, op_name))


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
