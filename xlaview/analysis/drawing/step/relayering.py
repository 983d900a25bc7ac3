"""Layers after a pass step: kept nodes stay in theirs, new nodes go between
their operands and users.

Kept nodes far from a change are fixed. Changed nodes and kept nodes near a
change may move, but only to open the layers new nodes need. The movable
nodes fall into groups connected through movable edges; fixed nodes separate
them, so each group is settled on its own: first by pushing nodes down
(each no higher than its own layer, below its operands) or by pulling them
up, whichever moves fewer kept nodes without moving a fixed one; if neither
fits, the group stays as it was. New nodes then slide down to just above their first user,
as in a fresh layout, never above the lowest layer their operands allow.
Where no room could be made, a new node keeps to its users' side and the
edges from its operands are left pointing up (drawn as stubs).
"""

from __future__ import annotations

from collections.abc import Mapping

from xlaview.analysis.drawing.step.matching import KEPT, NEW, Adjacency, StepMatch

UNBOUNDED = 1 << 30


def relayer(
    match: StepMatch,
    old_layers: Mapping[str, int],
    former: Mapping[str, tuple[int, float]],
) -> tuple[list[int], bytearray]:
    """The layer of every node of the new graph, and which nodes the step
    may move (see the module doc). ``former`` holds (layer, x) places nodes
    had before recent steps moved or removed them: a new or changed node
    returns to its former layer when it can (a kept one stays put)."""
    n = len(match.keys)
    status, keys = match.status, match.keys
    preds, succs = match.preds, match.succs
    layer = [0] * n
    movable = bytearray(n)
    base = [0] * n  # where each movable node would like to be
    for v, key in enumerate(match.old_key):
        if key is not None:
            layer[v] = old_layers[key]
        if status[v] != KEPT or match.near[v]:
            movable[v] = 1
            place = former.get(keys[v]) if status[v] != KEPT else None
            base[v] = place[0] if place is not None else layer[v]
    position = {v: i for i, v in enumerate(match.order) if movable[v]}
    for group in _groups(position, preds, succs):
        group.sort(key=position.__getitem__)
        if not _wanted(group, status, layer, base, preds):
            continue
        down = _push_down(group, status, layer, base, movable, preds, succs)
        up = _pull_up(group, status, layer, base, movable, preds, succs)
        settled = (
            down
            if up is None
            or (
                down is not None
                and _cost(group, status, layer, down) <= _cost(group, status, layer, up)
            )
            else up
        )
        if settled is not None:
            for v, level in zip(group, settled, strict=False):
                if status[v] != NEW:
                    layer[v] = level
    _place_new(match.order, status, layer, former, keys, preds, succs)
    for v in position:
        users = succs[v]
        if status[v] != NEW and users and not len(preds[v]):
            # A movable source (a copy standing in for another) can always
            # go above its users.
            layer[v] = min(layer[v], max(0, min(layer[u] for u in users) - 1))
    return layer, movable


def _groups(position: dict[int, int], preds: Adjacency, succs: Adjacency) -> list[list[int]]:
    """The movable nodes in groups connected through edges between them."""
    groups: list[list[int]] = []
    seen: set[int] = set()
    for start in position:
        if start in seen:
            continue
        seen.add(start)
        group, stack = [], [start]
        while stack:
            v = stack.pop()
            group.append(v)
            for w in (*preds[v], *succs[v]):
                if w in position and w not in seen:
                    seen.add(w)
                    stack.append(w)
        groups.append(group)
    return groups


def _wanted(
    group: list[int], status: list[int], layer: list[int], base: list[int], preds: Adjacency
) -> bool:
    """Whether anything in the group asks to move: a new node, a node away
    from where it would like to be, or an edge into it that points up."""
    for v in group:
        if status[v] == NEW or base[v] != layer[v]:
            return True
        if any(layer[p] >= layer[v] and status[p] != NEW for p in preds[v]):
            return True
    return False


def _cost(group: list[int], status: list[int], layer: list[int], settled: list[int]) -> int:
    """How much settling the group this way moves: a kept node counts twice
    a changed one, new nodes nothing."""
    return sum(
        2 if status[v] == KEPT else 1
        for v, level in zip(group, settled, strict=False)
        if status[v] != NEW and level != layer[v]
    )


def _push_down(
    group: list[int],
    status: list[int],
    layer: list[int],
    base: list[int],
    movable: bytearray,
    preds: Adjacency,
    succs: Adjacency,
) -> list[int] | None:
    """Layers for ``group`` (in topological order) with every node as high
    as its base allows but below its operands, new nodes as high as they
    can be; None when that would reach down to a fixed node."""
    at: dict[int, int] = {}
    for v in group:
        level = 0 if status[v] == NEW else base[v]
        for p in preds[v]:
            level = max(level, at.get(p, layer[p]) + 1)
        at[v] = level
    for v in group:
        for u in succs[v]:
            if not movable[u] and layer[u] <= at[v]:
                return None
    return [at[v] for v in group]


def _pull_up(
    group: list[int],
    status: list[int],
    layer: list[int],
    base: list[int],
    movable: bytearray,
    preds: Adjacency,
    succs: Adjacency,
) -> list[int] | None:
    """Layers for ``group`` with every node as low as its base allows but
    above its users, new nodes as low as they can be; None when that would
    reach up to a fixed node or above the top layer."""
    at: dict[int, int] = {}
    for v in reversed(group):
        level = UNBOUNDED if status[v] == NEW else base[v]
        for u in succs[v]:
            level = min(level, at.get(u, layer[u]) - 1)
        if level < 0:
            return None
        at[v] = level
    for v in group:
        for p in preds[v]:
            if not movable[p] and layer[p] >= at[v]:
                return None
    return [at[v] for v in group]


def _place_new(
    order: list[int],
    status: list[int],
    layer: list[int],
    former: Mapping[str, tuple[int, float]],
    keys: list[str],
    preds: Adjacency,
    succs: Adjacency,
) -> None:
    """Each new node just above its first user (or just below its operands
    when it has no user), bottom up, or back in its former layer."""
    n = len(layer)
    reach = [0] * n  # the lowest layer the operands allow, through new nodes
    for v in order:
        if status[v] == NEW:
            reach[v] = max(
                ((reach[p] if status[p] == NEW else layer[p]) + 1 for p in preds[v]), default=0
            )
    for v in reversed(order):
        if status[v] != NEW:
            continue
        users = succs[v]
        ceiling = min(layer[u] for u in users) - 1 if users else UNBOUNDED
        place = former.get(keys[v])
        if place is not None:
            target = place[0]
        elif ceiling < UNBOUNDED:
            target = ceiling
        else:
            target = reach[v]
        if reach[v] <= ceiling:
            layer[v] = min(max(target, reach[v]), ceiling)
        elif ceiling >= 0:
            layer[v] = ceiling  # no room: the edges from its operands point up
        else:
            layer[v] = reach[v]  # its users are in the top layer: edges to them point up
