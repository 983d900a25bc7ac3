"""What to draw of a folded graph: the boxes and the edges between them for
a set of open groups, which groups are open at first, and a group's summary
of its members' values (traffic, heat, change marks, search hits...).

A box is a group's id (an ``int``: the group drawn closed) or a node's key
(a ``str``: the node drawn as itself). Edges between boxes are bundled: one
per pair of boxes, with how many edges of the graph it stands for and the
bytes of the values they carry.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Generator, Mapping
from dataclasses import dataclass
from typing import TypeVar

from xlaview.analysis.folding.tree import Folding, GroupKind

Box = int | str
T = TypeVar("T")
R = TypeVar("R")

# A graph of at most this many nodes opens with every group open...
SMALL_GRAPH_NODES = 300
# ...a larger one with groups opened, outermost first, while the boxes shown
# stay within this many.
FOLDED_BOXES = 200


@dataclass(frozen=True, slots=True)
class BundledEdge:
    source: Box
    target: Box
    count: int  # edges of the graph it stands for
    bytes: int  # the bytes of the values on them, summed


@dataclass(frozen=True, slots=True)
class FoldedView:
    """The boxes to draw, in graph order, and the bundled edges between them.
    ``box_of[i]`` is the box that shows ``graph.nodes[i]``; ``direct`` are the
    edges of the graph (their indices) between two nodes drawn as themselves."""

    boxes: tuple[Box, ...]
    edges: tuple[BundledEdge, ...]
    box_of: tuple[Box, ...]
    direct: tuple[int, ...] = ()


def folded_view(folding: Folding, open_groups: Collection[int]) -> FoldedView:
    """The boxes and bundled edges shown when the groups ``open_groups`` are
    open (a group inside a closed one is hidden whether open or not). One
    pass over the groups, the nodes and the edges."""
    groups = folding.groups
    shown_as = [-1] * len(groups)  # the closed group that shows it; -1: it is open
    for group in groups:  # parents first
        parent = group.parent
        if parent is not None and shown_as[parent] >= 0:
            shown_as[group.id] = shown_as[parent]
        elif group.id not in open_groups:
            shown_as[group.id] = group.id
    nodes = folding.graph.nodes
    box_of: list[Box] = []
    first_of: dict[Box, int] = {}
    for i, g in enumerate(folding.group_index):
        box: Box = nodes[i].key if g < 0 or shown_as[g] < 0 else shown_as[g]
        box_of.append(box)
        if box not in first_of:
            first_of[box] = i
    bundled: dict[tuple[Box, Box], list[int]] = {}
    direct: list[int] = []
    sizes = folding.edge_bytes
    for k, (s, t) in enumerate(folding.edge_ends):
        source, target = box_of[s], box_of[t]
        if source == target:
            continue
        if source.__class__ is str and target.__class__ is str:
            direct.append(k)
        found = bundled.get((source, target))
        if found is None:
            bundled[(source, target)] = [1, sizes[k]]
        else:
            found[0] += 1
            found[1] += sizes[k]
    edges = tuple(BundledEdge(s, t, c, b) for (s, t), (c, b) in bundled.items())
    return FoldedView(tuple(first_of), edges, tuple(box_of), tuple(direct))


def default_open(
    folding: Folding, small: int = SMALL_GRAPH_NODES, budget: int = FOLDED_BOXES
) -> frozenset[int]:
    """The groups open when the graph is first shown: all of them in a graph
    of at most ``small`` nodes; else a level at a time, outermost first, the
    groups of a level all opened when the boxes shown stay within ``budget``
    (a picture of one depth: not one block open and the next folded), and
    repeats never: "block x 48" is what folding is for, opened when asked."""
    groups = folding.groups
    if len(folding.graph.nodes) <= small:
        return frozenset(range(len(groups)))
    shown = folding.top_level
    opened: list[int] = []
    level = [box for box in folding.top if isinstance(box, int)]
    while level:
        level = [g for g in level if groups[g].kind is not GroupKind.REPEAT]
        more = sum(len(groups[g].children) + len(groups[g].nodes) - 1 for g in level)
        if not level or shown + more > budget:
            break
        shown += more
        opened += level
        level = [child for g in level for child in groups[g].children]
    return frozenset(opened)


# Values summed between two pauses of `aggregating` (1-3 ms of a GUI thread).
AGGREGATE_CHUNK = 2048


def aggregate(
    folding: Folding, values: Mapping[str, T], combine: Callable[[T, T], T]
) -> dict[int, T]:
    """Each group's summary of ``values`` (instruction name -> value: its
    traffic, heat, change mark, search hit...): the values of the
    instructions drawn inside it, folded with ``combine`` (``operator.add``
    sums them, ``max`` keeps the worst). An instruction drawn several times
    (the private copies of a parameter) counts once in each group."""
    return finished(aggregating(folding, values, combine))


def aggregating(
    folding: Folding, values: Mapping[str, T], combine: Callable[[T, T], T]
) -> Generator[None, None, dict[int, T]]:
    """`aggregate` that pauses (yields) after each `AGGREGATE_CHUNK` values
    and returns the summary: a GUI thread sums a pass's change marks in
    slices between its events (50,000 marks of a fusion pass held it 50-100 ms)."""
    nodes_of = folding.graph.nodes_of
    position = folding.position
    group_index = folding.group_index
    groups = folding.groups
    # Each value into the innermost group drawing it, then each group's sum
    # into its parent once (children come after their parents): the
    # instructions times the groups' depth was 40 ms on an unfused pass.
    # An instruction drawn more than once walks up itself, once per group.
    acc: dict[int, T] = {}
    spread: list[tuple[str, T]] = []
    for k, (name, value) in enumerate(values.items(), 1):
        keys = nodes_of.get(name, ())
        if len(keys) == 1:
            g = group_index[position[keys[0]]]
            if g >= 0:
                acc[g] = combine(acc[g], value) if g in acc else value
        elif keys:
            spread.append((name, value))
        if not k % AGGREGATE_CHUNK:
            yield
    for g in range(len(groups) - 1, -1, -1):
        parent = groups[g].parent
        if parent is not None and g in acc:
            acc[parent] = combine(acc[parent], acc[g]) if parent in acc else acc[g]
    for k, (name, value) in enumerate(spread, 1):
        seen: set[int] = set()
        for key in nodes_of[name]:
            h: int | None = group_index[position[key]]
            while h is not None and h >= 0 and h not in seen:
                seen.add(h)
                acc[h] = combine(acc[h], value) if h in acc else value
                h = groups[h].parent
        if not k % AGGREGATE_CHUNK:
            yield
    return acc


def finished(steps: Generator[None, None, R]) -> R:
    """What a pausing generator (`aggregating`) returns, run to its end at once."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
