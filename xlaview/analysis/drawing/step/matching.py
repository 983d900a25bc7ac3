"""What a pass step changed in a graph, as the layout sees it.

A node of the new graph is *kept* when the previous layout had its key (or
the key ``renamed`` maps it to) with the same size and the same operands
(their order does not change a layout): nothing about it that the layout
depends on changed, so it should not move. It is *changed* when the key is known but its size or
operands differ, and *new* otherwise. Nodes up to ``RADIUS`` edges from a
change (in the old or the new graph, either direction) are *near* it: a
step may move them when the change leaves no other way (an inserted node
needs a layer between two adjacent ones); nodes farther away never move.

Everything here is one or two passes over the nodes and edges: on a 15k-node
graph a step must cost a fraction of a fresh layout. Per-node lists are kept
flat (``Adjacency``), not as a list per node: in a process holding parsed
modules, every container that outlives a function costs a garbage
collector's visit, which took a third of a step's time.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from xlaview.analysis.drawing.layered.layering import break_cycles
from xlaview.analysis.drawing.records import EdgeRoute, GraphLayout, LayoutNode

KEPT, CHANGED, NEW = 0, 1, 2
RADIUS = 2


class Adjacency:
    """The neighbours of every node, in edge order, in two flat lists."""

    __slots__ = ("_items", "_start")

    def __init__(self, n: int, heads: list[int], tails: list[int]) -> None:
        """``tails[i]`` becomes a neighbour of ``heads[i]``."""
        start = [0] * (n + 1)
        for head in heads:
            start[head + 1] += 1
        start = list(accumulate(start))
        items = [0] * len(heads)
        fill = start[:-1]
        for head, tail in zip(heads, tails, strict=False):
            items[fill[head]] = tail
            fill[head] += 1
        self._start = start
        self._items = items

    def __getitem__(self, v: int) -> list[int]:
        return self._items[self._start[v] : self._start[v + 1]]


@dataclass(slots=True)
class StepMatch:
    """The new graph by node id (input order), its structure, and how each
    node and edge relates to the previous layout."""

    keys: list[str]
    named: list[str]  # keys, renamed to the previous layout's (keys itself if none is)
    sources: list[int]  # input edge i runs from node sources[i] to targets[i]
    targets: list[int]
    order: list[int]  # a topological order
    feedback: set[tuple[int, int]]  # edges set aside to break cycles
    preds: Adjacency  # operands, without feedback edges
    succs: Adjacency  # users, without feedback edges
    old_key: list[str | None]  # the key the previous layout knows the node by
    old_route: list[EdgeRoute | None]  # per input edge: the previous route of that edge
    lost_routes: list[EdgeRoute]  # previous routes of edges the new graph lacks
    status: list[int]  # KEPT, CHANGED or NEW
    near: bytearray  # 1: within RADIUS edges of a change
    removed: list[str]  # keys of the previous layout the new graph lacks

    @property
    def kept(self) -> int:
        return self.status.count(KEPT)


def index_graph(
    nodes: Sequence[LayoutNode], edges: Sequence[tuple[str, str]]
) -> tuple[list[int], list[int]]:
    """The sources and targets of the edges as node ids; an unknown key or
    a duplicate node key is a ``ValueError``, as for a fresh layout."""
    index = {node.key: i for i, node in enumerate(nodes)}
    if len(index) != len(nodes):
        seen: set[str] = set()
        for node in nodes:
            if node.key in seen:
                raise ValueError(f"duplicate node key {node.key!r}")
            seen.add(node.key)
    try:
        sources = [index[source] for source, _ in edges]
        targets = [index[target] for _, target in edges]
    except KeyError:
        for source, target in edges:
            if source not in index or target not in index:
                raise ValueError(f"edge ({source!r}, {target!r}) names an unknown node") from None
        raise
    return sources, targets


def match_step(
    previous: GraphLayout,
    nodes: Sequence[LayoutNode],
    edges: Sequence[tuple[str, str]],
    renamed: Mapping[str, str],
    changed: Collection[str],
) -> StepMatch:
    """Match the new graph against the previous layout (see the module doc)."""
    sources, targets = index_graph(nodes, edges)
    n = len(nodes)
    keys = [node.key for node in nodes]
    old_positions = previous.positions
    named = [renamed.get(key, key) for key in keys] if renamed else keys
    old_key: list[str | None] = [key if key in old_positions else None for key in named]

    # Edges compared as sets of (operand, user) keys, with C-speed set
    # operations: the order of operands does not change a layout.
    old_edges = previous.edges
    old_pairs: dict[tuple[str | None, str | None], EdgeRoute] = {
        (route.source, route.target): route for route in old_edges
    }
    pairs = list(zip([old_key[s] for s in sources], [old_key[t] for t in targets], strict=False))
    old_route: list[EdgeRoute | None] = [old_pairs.get(pair) for pair in pairs]
    new_pairs = set(pairs)
    touched = {target for _, target in old_pairs.keys() ^ new_pairs}
    lost_routes = [old_pairs[pair] for pair in old_pairs.keys() - new_pairs]

    sizes = previous.sizes
    status = [NEW] * n
    for v, node in enumerate(nodes):
        known = old_key[v]
        if known is None:
            continue
        size = sizes.get(known)
        if (
            known not in touched
            and (size is None or size == (node.width, node.height))
            and node.key not in changed
        ):
            status[v] = KEPT
        else:
            status[v] = CHANGED
    present = set(old_key)
    removed = [key for key in old_positions if key not in present]

    order, feedback, preds, succs = _structure(n, sources, targets)
    near = _near_changes(n, preds, succs, old_key, old_edges, status, removed)
    return StepMatch(
        keys,
        named,
        sources,
        targets,
        order,
        feedback,
        preds,
        succs,
        old_key,
        old_route,
        lost_routes,
        status,
        near,
        removed,
    )


def _structure(
    n: int, sources: list[int], targets: list[int]
) -> tuple[list[int], set[tuple[int, int]], Adjacency, Adjacency]:
    """A topological order, the edges set aside to make one, and the
    operands and users of each node (duplicates kept: harmless)."""
    feedback: set[tuple[int, int]] = set()
    if all(map(int.__lt__, sources, targets)):
        # Graphs list operands before users (HLO text does): the input
        # order is already topological, no need to search for one.
        order = list(range(n))
    else:
        order, feedback = break_cycles(n, list(dict.fromkeys(zip(sources, targets, strict=False))))
        kept = [
            i for i, pair in enumerate(zip(sources, targets, strict=False)) if pair not in feedback
        ]
        sources = [sources[i] for i in kept]
        targets = [targets[i] for i in kept]
    return order, feedback, Adjacency(n, targets, sources), Adjacency(n, sources, targets)


def _near_changes(
    n: int,
    preds: Adjacency,
    succs: Adjacency,
    old_key: list[str | None],
    old_edges: Sequence[EdgeRoute],
    status: list[int],
    removed: list[str],
) -> bytearray:
    """Breadth first from the changed and new nodes and the neighbours of
    removed ones, over the edges of both graphs, RADIUS steps deep.

    The old graph adds only the edges the new one lost: into a changed node
    (its operands changed) and into a removed one (from its operands); the
    edges out of a removed node end at nodes whose operands changed, which
    are changes already.
    """
    new_of_old = {key: v for v, key in enumerate(old_key) if key is not None}
    gone = set(removed)
    changed_old = {old_key[v] for v in range(n) if status[v] == CHANGED}
    old_operands: dict[str, list[int]] = {}
    for route in old_edges:
        if route.target in changed_old or route.target in gone:
            u = new_of_old.get(route.source)
            if u is not None:
                old_operands.setdefault(route.target, []).append(u)

    extra: dict[int, list[int]] = {}
    for v in range(n):
        key = old_key[v]
        if status[v] == CHANGED and key is not None:
            for u in old_operands.get(key, ()):
                extra.setdefault(v, []).append(u)
                extra.setdefault(u, []).append(v)
    removed_neighbours = [u for key in removed for u in old_operands.get(key, ())]
    # Levels of a breadth-first walk: changes at 0, removed nodes' neighbours
    # at 1 (the removed node itself would be at 0). A changed or new source
    # (a parameter's copy that stands in for another, say) moves with its
    # user and does not make room around it.
    changes = [v for v in range(n) if status[v] != KEPT and (len(preds[v]) or v in extra)]
    levels: list[list[int]] = [changes, removed_neighbours]
    levels += [[] for _ in range(RADIUS)]
    near = bytearray(n)
    for level in range(RADIUS + 1):
        for v in levels[level]:
            if near[v]:
                continue
            near[v] = 1
            if level < RADIUS:
                follow = levels[level + 1]
                follow.extend(w for w in preds[v] if not near[w])
                follow.extend(w for w in succs[v] if not near[w])
                follow.extend(w for w in extra.get(v, ()) if not near[w])
    return near
