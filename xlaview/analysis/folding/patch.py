"""A pass step's folding, made from the folding of the pass shown.

Most passes change a few ops of a computation of tens of thousands: folding
it again from nothing reads every op's scope and looks for every repeat
again (a second for a 50,000-op entry), and may draw the same blocks as
other boxes. `patched` keeps the groups of the folding shown instead: the
nodes the step kept stay in their groups, a new one goes to the innermost
group holding its neighbours in groups (its operands and users, or a cheap
value's users only, as `tree` places those), a group the step emptied goes. What
the patches placed adds up (`Folding.placed`): past `PATCH_SHARE` of the
graph the step folds afresh, so that a walk through many passes is never
far from the folding the pass would get on its own; so does a step whose new
nodes crowd the picture (`crowded`), which only a fresh fold groups.
"""

from __future__ import annotations

from dataclasses import replace

from xlaview.analysis.drawing import ComputationGraph
from xlaview.analysis.folding.tree import (
    CHEAP_OPCODES,
    KEY,
    Builder,
    Folding,
    GroupKind,
    edge_positions,
    finish_folding,
    innermost,
    renumber,
)
from xlaview.turns import dict_of, listed

# A step placing (or dropping) more than this share of the nodes, patches of
# earlier steps included, folds afresh; and always below `PATCH_LEAST` nodes.
PATCH_SHARE = 0.05
PATCH_LEAST = 50
# A patched step that draws more boxes than the picture shown by this share
# (and by more than `CROWDED_LEAST`) folds afresh too (`crowded`).
CROWDED_SHARE = 0.1
CROWDED_LEAST = 8


def patched(before: Folding, graph: ComputationGraph) -> Folding | None:
    """``graph`` (the same computation at another pass) folded as ``before``
    was, its new nodes placed among their neighbours; None where the step
    changed too much to keep ``before``'s groups."""
    if graph is before.graph:
        return before  # a step that drew nothing new (`build_graph` gave the graph back)
    nodes = graph.nodes
    if nodes == before.graph.nodes and graph.edges == before.graph.edges:
        return replace(before, graph=graph)  # mostly the same objects: compared by identity
    known = before.position
    keys = listed(map(KEY, nodes))
    position = dict_of(zip(keys, range(len(keys)), strict=True))
    new = [i for i, key in enumerate(keys) if key not in known]
    gone = len(known) - (len(nodes) - len(new))
    placed = before.placed + len(new) + gone
    if placed > max(PATCH_LEAST, PATCH_SHARE * len(nodes)):
        return None
    old_group = before.group_index
    at = known.get
    group = [-1 if (j := at(key, -1)) < 0 else old_group[j] for key in keys]
    fresh = set(new)
    neighbours: dict[int, list[int]] = {i: [] for i in new}
    users: dict[int, list[int]] = {i: [] for i in new}
    edge_ends, edge_bytes = edge_positions(graph, position)
    for s, t in edge_ends:
        if s in fresh:
            users[s].append(t)
            neighbours[s].append(t)
        if t in fresh:
            neighbours[t].append(s)
    builder = _builder(before)
    cheap = [nodes[i].is_copy or nodes[i].opcode in CHEAP_OPCODES for i in new]
    for i, is_cheap in zip(new, cheap, strict=True):  # operands come first
        if not is_cheap:
            # Neighbours in a group place it; one at the top level (a value
            # placed there, a new copy of a parameter) says nothing of where it is.
            placed_in = [group[j] for j in neighbours[i] if j not in fresh and group[j] >= 0]
            group[i] = innermost(builder, placed_in)
            fresh.discard(i)
    for i, is_cheap in reversed(list(zip(new, cheap, strict=True))):  # users come after
        if is_cheap:
            group[i] = innermost(builder, [group[j] for j in users[i] if j not in fresh])
            fresh.discard(i)
    _drop_empty(builder, group)
    folding = finish_folding(
        graph, before.grouping, builder, group, edge_ends, edge_bytes, position
    )
    return replace(folding, placed=placed) if folding.groups else None


def _builder(folding: Folding) -> Builder:
    """The groups of ``folding`` as a tree builder holds them."""
    builder = Builder()
    for g in folding.groups:
        builder.add(-1 if g.parent is None else g.parent, g.name, g.kind, g.phase)
        if g.kind is GroupKind.REPEAT:
            builder.repeats[g.id] = g.repeats
    return builder


def _drop_empty(builder: Builder, group: list[int]) -> None:
    """Drop the groups left with no node inside; a repeat that lost instances
    counts those it still has."""
    count = len(builder.name)
    size = [0] * count
    for g in group:
        if g >= 0:
            size[g] += 1
    for g in range(count - 1, -1, -1):  # children come after their parents
        if builder.parent[g] >= 0:
            size[builder.parent[g]] += size[g]
    if all(size):
        return
    for g in range(count):
        p = builder.parent[g]
        if not size[g] and p >= 0 and p in builder.repeats:
            builder.repeats[p] -= builder.repeats.get(g, 1)
    renumber(builder, group, [g if size[g] else -1 for g in range(count)])


def crowded(shown_boxes: int, boxes: int) -> bool:
    """Whether a patched step draws too many more boxes than the ``shown_boxes``
    of the picture shown: its new nodes, placed in open groups or at the top
    level, are each a box, where a fresh fold would group them (the 96 ops of
    a top-k decomposition: 139 boxes for the 43 shown)."""
    return boxes - shown_boxes > max(CROWDED_LEAST, CROWDED_SHARE * shown_boxes)
