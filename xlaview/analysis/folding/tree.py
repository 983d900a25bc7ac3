"""The groups of one computation's drawn graph: nested boxes by ``op_name``
scope, and runs of repeated blocks (`repeats`) where scopes leave many
nodes side by side.

Cheap shared values (parameters, constants, iotas and their private copies,
see `xlaview.analysis.drawing.graph`) carry no scope worth a box: each goes
to the innermost group holding all its users, so a block's weights fold with
the block. Every walk here is a loop over lists: a scope path thousands deep
or a chain of 100,000 nodes needs no recursion.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from enum import Enum
from operator import attrgetter

from xlaview.analysis.drawing import ComputationGraph
from xlaview.analysis.folding.repeats import find_repeats
from xlaview.analysis.folding.scopes import APART, Phases, phase_of, scope_path
from xlaview.analysis.groupings import Grouping
from xlaview.hlo import Computation, ShapeSyntaxError, parse_shape
from xlaview.turns import dict_of, listed, turn

# The opcodes of cheap values, with `GraphNode.is_copy`: placed by their users.
CHEAP_OPCODES = frozenset(("parameter", "constant", "iota"))
# Repeats are looked for among a group's own nodes when it has this many.
REPEAT_SEARCH_NODES = 24
# Pieces side by side alike make a repeat when there are this many.
SIDE_BY_SIDE = 4
# A repeat of more instances nests them in ranges of at most this many.
MOST_CHILDREN = 100
# The shared values one op alone reads make a box of their own when there are this many.
FAN_IN = 8
_NUMBER_SUFFIX = re.compile(r"[._]?\d+$")
_SOURCE, _TARGET, _SHAPE = attrgetter("source"), attrgetter("target"), attrgetter("shape")
KEY = attrgetter("key")  # a node's


class GroupKind(Enum):
    SCOPE = "scope"  # the ops of one op_name scope
    REPEAT = "repeat"  # a run of identical blocks: its children are the instances
    INSTANCE = "instance"  # one block of a repeat

    @property
    def json_kind(self) -> str:
        """The kind ``xlaview graph --json`` prints: an instance is a ``repeat`` of one."""
        return "scope" if self is GroupKind.SCOPE else "repeat"


@dataclass(frozen=True, slots=True)
class Group:
    """One box of the folded graph. ``id`` is its index in `Folding.groups`
    (parents come before their children); ``nodes`` are the node keys
    directly inside it, not in a child group, in graph order; ``size`` counts
    every node inside, children's included; ``repeats`` is the number of
    instances of a repeat group, 1 for the others. ``phase`` is ``forward``
    or ``backward`` for a scope inside JAX's ``jvp(...)`` or
    ``transpose(...)``, else None."""

    id: int
    name: str
    kind: GroupKind
    parent: int | None
    depth: int
    children: tuple[int, ...]
    nodes: tuple[str, ...]
    size: int
    repeats: int
    phase: str | None
    first: int  # the graph position of its first node: boxes are ordered by it


@dataclass(frozen=True, slots=True)
class Folding:
    """The group tree of a `ComputationGraph`. ``group_index[i]`` is the
    innermost group of ``graph.nodes[i]`` (-1: top level); ``top`` are the
    boxes shown with everything folded, in graph order (a group's id, or a
    node's key). ``edge_ends`` and ``edge_bytes`` are ``graph.edges`` as node
    positions and the bytes of the value each carries."""

    graph: ComputationGraph
    grouping: Grouping
    groups: tuple[Group, ...]
    group_index: tuple[int, ...]
    top: tuple[int | str, ...]
    edge_ends: tuple[tuple[int, int], ...]
    edge_bytes: tuple[int, ...]
    position: dict[str, int]  # node key -> its index in graph.nodes
    # The nodes pass steps placed in (or dropped from) these groups since the
    # graph was last folded afresh (`xlaview.analysis.folding.patch`).
    placed: int = 0

    @property
    def top_level(self) -> int:
        """How many boxes are shown with every group folded."""
        return len(self.top)

    def group_of(self, key: str) -> int | None:
        """The innermost group of node ``key`` (None: top level)."""
        g = self.group_index[self.position[key]]
        return g if g >= 0 else None

    def chain(self, name: str) -> tuple[int, ...]:
        """The groups containing node ``name`` (a node key, or an instruction
        name: its first node), outermost first: open them to show it."""
        key = name if name in self.position else self.graph.nodes_of[name][0]
        out: list[int] = []
        g = self.group_index[self.position[key]]
        while g >= 0:
            out.append(g)
            parent = self.groups[g].parent
            g = -1 if parent is None else parent
        out.reverse()
        return tuple(out)


class Builder:
    """Groups as the tree is made: parent, name, kind; nodes are assigned after."""

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.name: list[str] = []
        self.kind: list[GroupKind] = []
        self.phase: list[str | None] = []
        self.depth: list[int] = []
        # A repeat of lone nodes (no instance groups): their count.
        self.repeats: dict[int, int] = {}
        self._names: dict[int, set[str]] = {}  # parent -> the names of its groups

    def keep(self, kept: list[int], parent_of: dict[int, int]) -> None:
        """Only the groups ``kept`` (in order), their parents renumbered by ``parent_of``."""
        self.parent = [parent_of.get(self.parent[g], -1) for g in kept]
        self.name = [self.name[g] for g in kept]
        self.kind = [self.kind[g] for g in kept]
        self.phase = [self.phase[g] for g in kept]
        self.repeats = {parent_of[g]: n for g, n in self.repeats.items() if g in parent_of}
        self._names = {}
        for p, name in zip(self.parent, self.name, strict=True):
            self._names.setdefault(p, set()).add(name)
        self.depth = []
        for p in self.parent:
            self.depth.append(0 if p < 0 else self.depth[p] + 1)

    def unique(self, parent: int, name: str) -> str:
        """``name``, or ``name (2)``... if ``parent`` already holds a group so named."""
        taken = self._names.get(parent, set())
        out, count = name, 2
        while out in taken:
            out = f"{name} ({count})"
            count += 1
        return out

    def add(self, parent: int, name: str, kind: GroupKind, phase: str | None = None) -> int:
        self._names.setdefault(parent, set()).add(name)
        self.parent.append(parent)
        self.name.append(name)
        self.kind.append(kind)
        self.phase.append(phase)
        self.depth.append(0 if parent < 0 else self.depth[parent] + 1)
        return len(self.name) - 1


def fold_graph(
    graph: ComputationGraph,
    computation: Computation,
    grouping: Grouping = "scope",
    phases: Phases = APART,
) -> Folding:
    """The groups of ``graph`` (drawn from ``computation``): ``scope`` nests
    boxes by op_name scope and folds repeated blocks among the nodes a scope
    (or the top level) holds side by side; ``repeats`` folds repeated blocks
    only; ``none`` makes no group. ``phases``: forward and backward of a JAX
    scope apart or together (`xlaview.analysis.folding.scopes`)."""
    nodes = graph.nodes
    position = dict_of(zip(map(KEY, nodes), range(len(nodes)), strict=True))
    edge_ends, edge_bytes = edge_positions(graph, position)
    successors: list[list[int]] = [[] for _ in nodes]
    for s, t in edge_ends:
        successors[s].append(t)
    cheap = [n.is_copy or n.opcode in CHEAP_OPCODES for n in nodes]
    builder = Builder()
    group = [-1] * len(nodes)
    if grouping != "none":
        # A turn between the steps, each a loop in Python over every node
        # (20-350 ms on a 60,000-node entry): work nobody wants stops there.
        op_names = _op_names(graph, computation, cheap)
        if grouping == "scope":
            _scope_groups(graph, op_names, cheap, phases, builder, group)
            turn()
            _join_threaded(successors, cheap, builder, group)
            _merge_chains(builder, group)
            turn()
        labels = _labels(graph, op_names, cheap)
        turn()
        _repeat_groups(labels, cheap, successors, builder, group)
        _place_cheap(cheap, successors, builder, group)
        _fan_in(graph, cheap, successors, builder, group)
        turn()
        _side_by_side(graph, labels, successors, builder, group)
    return finish_folding(graph, grouping, builder, group, edge_ends, edge_bytes, position)


def _op_names(
    graph: ComputationGraph, computation: Computation, cheap: list[bool]
) -> dict[str, str]:
    """The op_name of each instruction drawn as a node that is not cheap
    (those are placed by their users), "" for none: as the graph read them
    when it was built (every instruction's), else from ``computation``."""
    if graph.op_names:
        return graph.op_names
    wanted = {n.instruction for n, c in zip(graph.nodes, cheap, strict=True) if not c}
    return {i.name: i.op_name or "" for i in computation.instructions if i.name in wanted}


def edge_positions(
    graph: ComputationGraph, position: dict[str, int]
) -> tuple[list[tuple[int, int]], list[int]]:
    """``graph.edges`` as (source, target) node positions, and the bytes of
    the value each carries."""
    # Mapped in C: a Python step per edge was half of a pass step's patch.
    edges = graph.edges
    at = position.__getitem__
    edge_ends = listed(zip(map(at, map(_SOURCE, edges)), map(at, map(_TARGET, edges)), strict=True))
    shapes = listed(map(_SHAPE, edges))
    sizes = {shape: _shape_bytes(shape) for shape in set(shapes)}
    return edge_ends, listed(map(sizes.__getitem__, shapes))


def _shape_bytes(text: str) -> int:
    try:
        return parse_shape(text).byte_size()
    except ShapeSyntaxError:
        return 0


def _scope_groups(
    graph: ComputationGraph,
    op_names: dict[str, str],
    cheap: list[bool],
    phases: Phases,
    builder: Builder,
    group: list[int],
) -> None:
    """A scope group per scope path prefix."""
    made: dict[tuple[int, str], int] = {}
    # op_name -> its innermost group: thousands of ops share an op_name, and
    # the groups of its path are made where it first comes.
    innermost: dict[str | None, int] = {}
    for i, node in enumerate(graph.nodes):
        if cheap[i]:
            continue
        op_name = op_names.get(node.instruction)
        g = innermost.get(op_name, -2)
        if g == -2:
            g = -1
            for part in scope_path(op_name, phases):
                found = made.get((g, part))
                if found is None:
                    found = made[(g, part)] = builder.add(g, part, GroupKind.SCOPE, phase_of(part))
                g = found
            innermost[op_name] = g
        group[i] = g


def _merge_chains(builder: Builder, group: list[int]) -> None:
    """A scope group with no node of its own and one child group is one box
    with the child (``jit(f)/block_3``)."""
    count = len(builder.name)
    own = [0] * count
    for g in group:
        if g >= 0:
            own[g] += 1
    children: list[list[int]] = [[] for _ in range(count)]
    for g in range(count):
        if builder.parent[g] >= 0:
            children[builder.parent[g]].append(g)
    merged_into = list(range(count))
    for g in range(count):  # parents first: a chain merges into its top
        top = merged_into[g]
        if top != g or own[g] or len(children[g]) != 1:
            continue
        while not own[g] and len(children[g]) == 1:
            child = children[g][0]
            builder.name[top] += "/" + builder.name[child]
            builder.phase[top] = builder.phase[child] or builder.phase[top]
            merged_into[child] = top
            children[g] = children[child]
            own[g], g = own[child], child
        for c in children[g]:
            builder.parent[c] = top
    if any(merged_into[g] != g for g in range(count)):
        renumber(builder, group, merged_into)


def renumber(builder: Builder, group: list[int], merged_into: list[int]) -> None:
    """Drop the groups merged into others, keeping parents before children."""
    kept = [g for g in range(len(builder.name)) if merged_into[g] == g]
    new_id = {g: k for k, g in enumerate(kept)}
    builder.keep(kept, new_id)
    for i, g in enumerate(group):
        if g >= 0:
            group[i] = new_id[merged_into[g]]


def _join_threaded(
    successors: list[list[int]], cheap: list[bool], builder: Builder, group: list[int]
) -> None:
    """A scope with no scope inside whose ops are, for the most part, steps
    of a path through one larger sibling scope (an operand and a user in it)
    joins that sibling. JAX names the first scope inside a transformation after
    the transformation: a model without named scopes that calls `jnp.where`
    in each layer under `grad` has ``jvp()`` for its forward pass and, beside
    it, ``jvp(jit(_where))`` for 48 selects each between two of that pass's
    ops; kept apart, the forward pass is cut into 48 pieces and no repeat of
    its layers can be found."""
    count = len(builder.name)
    if count < 2:
        return
    parent = builder.parent
    has_child = [False] * count
    for g in range(count):
        if parent[g] >= 0:
            has_child[parent[g]] = True
    predecessors: list[list[int]] = []  # made when first needed

    def sibling(g: int, level: int) -> int:
        """The group holding ``g`` (itself or an ancestor) whose parent is ``level``; -2: none."""
        while g >= 0 and parent[g] != level:
            g = parent[g]
        return g if g >= 0 else -2

    members: dict[int, list[int]] = {}
    size = [0] * count  # ops inside, inner scopes' included
    for i, g in enumerate(group):
        if g >= 0 and not cheap[i]:
            if not has_child[g]:
                members.setdefault(g, []).append(i)
            size[g] += 1
    for g in range(count - 1, 0, -1):  # children come after their parents
        if parent[g] >= 0:
            size[parent[g]] += size[g]
    merged_into = list(range(count))
    joined: set[int] = set()
    for g, nodes in sorted(members.items(), key=lambda kv: (len(kv[1]), kv[0])):  # smallest first
        if g in joined:
            continue
        level = parent[g]
        through: Counter[int] = Counter()
        # Steps through another group need a user in it: once too few of the
        # nodes left could make half of them steps, the group joins nothing.
        could = len(nodes)
        for i in nodes:
            # The operands are looked at only for a user in another group
            # (most ops' users are in their own).
            after = {
                sibling(group[j], level) for j in successors[i] if group[j] != g and not cheap[j]
            }
            after.discard(-2)
            if not after:
                could -= 1
                if 2 * could < len(nodes):
                    through.clear()
                    break
                continue
            if not predecessors:
                predecessors = [[] for _ in group]
                for k, users in enumerate(successors):
                    for j in users:
                        predecessors[j].append(k)
            before = {sibling(group[p], level) for p in predecessors[i] if not cheap[p]}
            for other in before & after:
                if other >= 0 and other != g and size[other] > size[g]:
                    through[other] += 1
        if through:
            other, steps = min(through.items(), key=lambda kv: (-kv[1], kv[0]))
            if 2 * steps >= len(nodes) and merged_into[other] == other:
                merged_into[g] = other
                joined.add(other)
    if any(merged_into[g] != g for g in range(count)):
        renumber(builder, group, merged_into)


def _repeat_groups(
    labels: list[int],
    cheap: list[bool],
    successors: list[list[int]],
    builder: Builder,
    group: list[int],
) -> None:
    """Runs of repeated blocks among the nodes each group (and the top
    level) holds directly, when it holds `REPEAT_SEARCH_NODES` or more."""
    own: dict[int, list[int]] = {}
    for i, g in enumerate(group):
        if not cheap[i]:
            own.setdefault(g, []).append(i)
    for parent, members in own.items():
        if len(members) < REPEAT_SEARCH_NODES:
            continue
        turn()
        for run in find_repeats(members, successors, labels):
            _add_run(builder, group, parent, f"block x {len(run)}", "block", run, True)
        _absorb(members, successors, cheap, parent, group)


def _absorb(
    members: list[int],
    successors: list[list[int]],
    cheap: list[bool],
    parent: int,
    group: list[int],
) -> None:
    """A member no block took whose operands (cheap ones aside) all come
    from one instance joins that instance: the update of a layer's weights
    goes with the backward block whose gradients it reads. In ``members``
    order, so what it joins may draw in its own users."""
    # Only a member left in ``parent`` may join (the loop below moves each
    # member once, when it comes to it): the operands of those only.
    left = {i for i in members if group[i] == parent}
    operands: dict[int, list[int]] = {}
    for i in members:
        for j in successors[i]:
            if j in left:
                known = operands.get(j)
                if known is None:
                    operands[j] = [i]
                else:
                    known.append(i)
    for i in members:
        if i not in operands:
            continue
        found = {group[p] for p in operands[i] if not cheap[p]}
        if len(found) == 1:
            (g,) = found
            if g != parent:
                group[i] = g


def _labels(graph: ComputationGraph, op_names: dict[str, str], cheap: list[bool]) -> list[int]:
    """Each node's structural label, as a number: opcode, shape, the op its
    op_name ends in and the scope around it, numbers dropped (``block_``), or
    without an op_name, a fusion's name without its number
    (``multiply_add_fusion``: what it fused). XLA names the fusions of one
    layer apart from the next (``broadcast_select_fusion`` in the first,
    ``multiply_select_fusion`` in the others): the code an op came from says
    what it is better.
    Cheap nodes, never in a block's search, are all -1."""
    numbers: dict[tuple[str, str, str, str], int] = {}
    wheres: dict[str, str] = {}  # op_name -> its op and scope, numbers dropped
    out: list[int] = []
    for node, is_cheap in zip(graph.nodes, cheap, strict=True):
        if is_cheap:
            out.append(-1)
            continue
        op_name = op_names.get(node.instruction, "")
        where = wheres.get(op_name)
        if where is None:
            parts = op_name.split(";", 1)[0].rsplit("/", 2)
            where = wheres[op_name] = "/".join(_NUMBER_SUFFIX.sub("", p) for p in parts[-2:])
        fused = node.opcode == "fusion" and not op_name
        stem = _NUMBER_SUFFIX.sub("", node.instruction) if fused else ""
        label = (node.opcode, node.shape, stem, where)
        out.append(numbers.setdefault(label, len(numbers)))
    return out


def _fan_in(
    graph: ComputationGraph,
    cheap: list[bool],
    successors: list[list[int]],
    builder: Builder,
    group: list[int],
) -> None:
    """The shared values one op alone reads, `FAN_IN` or more of one opcode
    in its group, make one repeat beside it: the 96 layer-norm weights one
    fusion of a train step's backward pass reads are one box, not 96."""
    fans: dict[tuple[int, str], list[int]] = {}
    for i, users in enumerate(successors):
        if cheap[i] and len(users) == 1 and group[users[0]] == group[i]:
            fans.setdefault((users[0], graph.nodes[i].opcode), []).append(i)
    for (_, opcode), values in sorted(fans.items(), key=lambda kv: kv[1][0]):
        if len(values) >= FAN_IN:
            user = graph.nodes[successors[values[0]][0]].instruction
            name = f"{opcode} x {len(values)} of {user}"
            _add_run(builder, group, group[values[0]], name, opcode, [[i] for i in values], False)


def _side_by_side(
    graph: ComputationGraph,
    labels: list[int],
    successors: list[list[int]],
    builder: Builder,
    group: list[int],
) -> None:
    """Identical pieces side by side among the nodes a group (or the top
    level) holds directly, when it holds `REPEAT_SEARCH_NODES` or more: the
    pieces are its nodes' connected parts (by the edges among them), alike
    when their labels and the labels of their edges' ends are; `SIDE_BY_SIDE`
    or more alike make a repeat. A train step's weight updates, one per
    weight, read each its own gradient and write each its own output: 288
    boxes of 5 kinds become 5. Pieces of several ops are its instances; a
    piece of one op (and the shared values it alone reads) is no group."""
    own: dict[int, list[int]] = {}
    for i, g in enumerate(group):
        own.setdefault(g, []).append(i)
    searched = {
        parent
        for parent, members in own.items()
        if sum(labels[i] >= 0 for i in members) >= REPEAT_SEARCH_NODES
    }
    root = _piece_roots(group, successors, searched)
    for parent, members in sorted(own.items()):
        if parent not in searched:
            continue
        turn()
        alike: dict[tuple[tuple[int, ...], tuple[tuple[int, int], ...]], list[list[int]]] = {}
        for piece in _pieces(members, root):
            if all(labels[i] < 0 for i in piece):
                continue  # shared values alone: no piece of work
            edges = sorted(
                (labels[i], labels[j]) for i in piece for j in successors[i] if group[j] == parent
            )
            key = (tuple(sorted(labels[i] for i in piece)), tuple(edges))
            alike.setdefault(key, []).append(piece)
        runs = [pieces for pieces in alike.values() if len(pieces) >= SIDE_BY_SIDE]
        runs.sort(key=lambda pieces: pieces[0][0])
        leads = [graph.nodes[next(i for i in pieces[0] if labels[i] >= 0)] for pieces in runs]
        stems = [_NUMBER_SUFFIX.sub("", lead.instruction) or lead.opcode for lead in leads]
        taken = Counter(stems)
        for pieces, lead, stem in zip(runs, leads, stems, strict=True):
            name = f"{stem} x {len(pieces)}"
            if taken[stem] > 1:  # the weight updates of 5 shapes: named by their shapes
                name += " " + lead.shape.split("{", 1)[0]
            several = sum(labels[i] >= 0 for i in pieces[0]) > 1
            _add_run(builder, group, parent, name, stem, pieces, several)


def _add_run(
    builder: Builder,
    group: list[int],
    parent: int,
    name: str,
    stem: str,
    pieces: list[list[int]],
    instances: bool,
) -> None:
    """A repeat ``name`` in ``parent`` of ``pieces`` (lists of nodes): each
    piece an instance group (``block 3 of 48``) when ``instances``, else its
    nodes the repeat's own. A run of more than `MOST_CHILDREN` goes in nested
    ranges of at most that many (``block 1-100 of 50000``): no group opens to
    more boxes than a picture can hold."""
    n = len(pieces)
    repeat = builder.add(parent, builder.unique(parent, name), GroupKind.REPEAT)
    builder.repeats[repeat] = n
    span = 1  # pieces in each child of the repeat
    while span * MOST_CHILDREN < n:
        span *= MOST_CHILDREN
    todo = [(repeat, 0, n, span)]
    while todo:
        g, lo, hi, span = todo.pop()
        if span > 1:
            for a in range(lo, hi, span):
                b = min(a + span, hi)
                child = builder.add(g, f"{stem} {a + 1}-{b} of {n}", GroupKind.REPEAT)
                builder.repeats[child] = b - a
                todo.append((child, a, b, span // MOST_CHILDREN))
            continue
        for k in range(lo, hi):
            target = g
            if instances:
                target = builder.add(g, f"{stem} {k + 1} of {n}", GroupKind.INSTANCE)
            for i in pieces[k]:
                group[i] = target


def _piece_roots(group: list[int], successors: list[list[int]], searched: set[int]) -> list[int]:
    """Union-find over the nodes of the groups ``searched``, joined by the
    edges between two nodes of one group: the connected parts of every group
    found at once (a list rather than a dict per group, no recursion).
    Each node's root, path-compressed, for `_pieces`."""
    root = list(range(len(group)))
    for i, users in enumerate(successors):
        g = group[i]
        if g not in searched:
            continue
        for j in users:
            if group[j] != g:
                continue
            a, b = i, j
            while root[a] != a:
                root[a] = a = root[root[a]]
            while root[b] != b:
                root[b] = b = root[root[b]]
            if a != b:
                root[max(a, b)] = min(a, b)
    return root


def _pieces(members: list[int], root: list[int]) -> list[list[int]]:
    """The connected parts of ``members`` (one group's nodes, in graph order)
    by the edges among them, each in graph order, ordered by their first
    node: its first member comes first, so a part is made in that order."""
    parts: dict[int, list[int]] = {}
    for i in members:
        r = i
        while root[r] != r:
            r = root[r]
        found = parts.get(r)
        if found is None:
            parts[r] = [i]
        else:
            found.append(i)
    return list(parts.values())


def _place_cheap(
    cheap: list[bool], successors: list[list[int]], builder: Builder, group: list[int]
) -> None:
    """Each cheap node into the innermost group holding all its users (users
    after it in graph order, so from the last node back)."""
    for i in range(len(cheap) - 1, -1, -1):
        if cheap[i] and successors[i]:
            group[i] = innermost(builder, [group[j] for j in successors[i]])


def innermost(builder: Builder, groups: list[int]) -> int:
    """The innermost group holding all of ``groups`` (-1: the top level, or
    none given): their lowest common ancestor, by depth."""
    if not groups:
        return -1
    parent, depth = builder.parent, builder.depth
    common = groups[0]
    for other in groups[1:]:
        while common != other:
            if common < 0 or other < 0:
                return -1
            if depth[common] >= depth[other]:
                common = parent[common]
            else:
                other = parent[other]
    return common


def finish_folding(
    graph: ComputationGraph,
    grouping: Grouping,
    builder: Builder,
    group: list[int],
    edge_ends: list[tuple[int, int]],
    edge_bytes: list[int],
    position: dict[str, int],
) -> Folding:
    count = len(builder.name)
    # Node positions by group (-1: the top level, last), in graph order: the
    # one loop over the nodes; keys, sizes and first nodes are read in C.
    at: list[list[int]] = [[] for _ in range(count + 1)]
    for i, g in enumerate(group):
        at[g].append(i)
    key_at = listed(map(KEY, graph.nodes)).__getitem__
    own = [tuple(map(key_at, nodes)) for nodes in at[:count]]
    size = list(map(len, own))
    first = [nodes[0] if nodes else len(graph.nodes) for nodes in at[:count]]
    top: list[tuple[int, int | str]] = list(zip(at[-1], map(key_at, at[-1]), strict=True))
    children: list[list[int]] = [[] for _ in range(count)]
    for g in range(count - 1, -1, -1):  # children first: sizes and first nodes go up
        p = builder.parent[g]
        if p >= 0:
            size[p] += size[g]
            first[p] = min(first[p], first[g])
            children[p].append(g)
    groups: list[Group] = []
    for g in range(count):
        kids = tuple(sorted(children[g], key=lambda c: (first[c], c)))
        p = builder.parent[g]
        kind = builder.kind[g]
        groups.append(
            Group(
                g,
                builder.name[g],
                kind,
                p if p >= 0 else None,
                builder.depth[g],
                kids,
                own[g],
                size[g],
                builder.repeats.get(g, len(kids)) if kind is GroupKind.REPEAT else 1,
                builder.phase[g],
                first[g],
            )
        )
        if p < 0:
            top.append((first[g], g))
    top.sort(key=lambda item: (item[0], isinstance(item[1], str)))
    return Folding(
        graph,
        grouping,
        tuple(groups),
        tuple(group),
        tuple(box for _, box in top),
        tuple(edge_ends),
        tuple(edge_bytes),
        position,
    )
