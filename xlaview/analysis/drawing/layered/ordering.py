"""Ordering the nodes of each layer to reduce edge crossings: a DFS start,
down/up median sweeps keeping the best order found, then adjacent swaps
(dot's "transpose"). Nodes a previous layout had keep its order."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence

from xlaview.analysis.drawing.layered.layered_graph import LayeredGraph
from xlaview.analysis.drawing.records import LayoutNode, ProgressFn

# Ordering sweeps (a down and an up sweep each): past eight pairs the crossing
# count of real HLO no longer moves. A pair can make things worse before the
# next one improves them, so sweeping stops only after _PATIENCE pairs in a
# row improved the best count by less than _MIN_SWEEP_GAIN.
_MAX_SWEEP_PAIRS = 8
_MIN_SWEEP_GAIN = 0.01
_PATIENCE = 2
# Adjacent-swap passes over all layers, and over one layer within a pass.
_TRANSPOSE_ROUNDS = 2
_TRANSPOSE_PASSES = 2


def previous_ranks(nodes: Sequence[LayoutNode], previous: Mapping[str, float]) -> dict[int, int]:
    """Node id -> rank of its previous x, for nodes the previous layout had."""
    known = [(previous[node.key], v) for v, node in enumerate(nodes) if node.key in previous]
    known.sort()
    return {v: rank for rank, (_, v) in enumerate(known)}


def order_layers(graph: LayeredGraph, shared: dict[int, int] | None, report: ProgressFn) -> int:
    """Order every layer to reduce crossings; returns the crossings left.

    ``gaps[i]`` holds the crossings between layers i and i+1 and is recounted
    only where a layer changed: deep HLO graphs have thousands of layers, most
    of them untouched by a sweep.
    """
    initial_order(graph)
    layers, up, down = graph.layers, graph.up, graph.down
    pos = [0] * graph.size
    for nodes in layers:
        if shared:
            keep_previous_order(nodes, shared)
        for i, v in enumerate(nodes):
            pos[v] = i
    gaps = [layer_crossings(nodes, down, pos) for nodes in layers[:-1]]
    best = sum(gaps)
    best_layers = [list(nodes) for nodes in layers]
    report(0.1)
    idle = 0
    for sweep_pair in range(_MAX_SWEEP_PAIRS):
        if not best or idle == _PATIENCE:
            break
        before = best
        for downward in (True, False):
            sequence = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
            neighbours = up if downward else down
            changed = [
                level for level in sequence if median_sort(layers[level], neighbours, pos, shared)
            ]
            stale = sorted({gap for level in changed for gap in (level - 1, level)})
            for gap in stale:
                if 0 <= gap < len(gaps):
                    gaps[gap] = layer_crossings(layers[gap], down, pos)
            crossings = sum(gaps)
            if crossings < best:
                best = crossings
                best_layers = [list(nodes) for nodes in layers]
        report(0.1 + 0.9 * (sweep_pair + 1) / _MAX_SWEEP_PAIRS)
        idle = idle + 1 if before - best <= _MIN_SWEEP_GAIN * before else 0
    # Adjacent swaps polish the best order only: after every sweep they cost
    # as much again and end at the same count on real HLO.
    graph.layers = layers = best_layers
    for nodes in layers:
        for i, v in enumerate(nodes):
            pos[v] = i
    gaps = [layer_crossings(nodes, down, pos) for nodes in layers[:-1]]
    for _ in range(_TRANSPOSE_ROUNDS):
        if not transpose(layers, up, down, pos, shared, gaps):
            break
    return sum(gaps)


def initial_order(graph: LayeredGraph) -> None:
    """Depth-first from each node without an upper neighbour, in input order,
    so that connected nodes start out next to each other."""
    layers, down, layer = graph.layers, graph.down, graph.layer
    visited = bytearray(graph.size)
    for root in range(graph.real):
        if visited[root] or graph.up[root]:
            continue
        stack = [root]
        visited[root] = 1
        while stack:
            v = stack.pop()
            layers[layer[v]].append(v)
            for w in reversed(down[v]):
                if not visited[w]:
                    visited[w] = 1
                    stack.append(w)


def keep_previous_order(nodes: list[int], shared: dict[int, int]) -> None:
    """Put the nodes the previous layout had back in its order, in the slots
    they occupy now; new nodes (and dummies) stay where they are."""
    slots = [i for i, v in enumerate(nodes) if v in shared]
    if len(slots) < 2:
        return
    kept = sorted((nodes[i] for i in slots), key=shared.__getitem__)
    for i, v in zip(slots, kept, strict=False):
        nodes[i] = v


def median_sort(
    nodes: list[int],
    neighbours: list[list[int]],
    pos: list[int],
    shared: dict[int, int] | None,
) -> bool:
    """Sort one layer by the median position of each node's neighbours in the
    layer just swept; nodes without such neighbours keep their index. Returns
    whether the order changed."""
    keyed: list[tuple[float, int]] = []
    fixed: list[int] = []
    for i, v in enumerate(nodes):
        around = neighbours[v]
        count = len(around)
        if count == 1:
            keyed.append((pos[around[0]], i))
        elif count == 0:
            fixed.append(i)
        elif count == 2:
            keyed.append(((pos[around[0]] + pos[around[1]]) / 2, i))
        else:
            at = sorted([pos[u] for u in around])
            half = count // 2
            keyed.append((at[half] if count % 2 else (at[half - 1] + at[half]) / 2, i))
    keyed.sort()
    old = nodes[:]
    if fixed:
        merged: list[int] = []
        next_keyed = iter(keyed)
        for i in fixed:
            while len(merged) < i:
                merged.append(old[next(next_keyed)[1]])
            merged.append(old[i])
        merged.extend(old[j] for _, j in next_keyed)
        nodes[:] = merged
    else:
        nodes[:] = [old[j] for _, j in keyed]
    if shared:
        keep_previous_order(nodes, shared)
    if nodes == old:
        return False
    for i, v in enumerate(nodes):
        pos[v] = i
    return True


def transpose(
    layers: list[list[int]],
    up: list[list[int]],
    down: list[list[int]],
    pos: list[int],
    shared: dict[int, int] | None,
    gaps: list[int],
) -> bool:
    """Swap adjacent nodes of a layer when that removes crossings with both
    neighbouring layers (dot's "transpose"), top to bottom, keeping ``gaps``
    current. A layer with no crossings on either side is skipped. Returns
    whether anything moved."""
    last = len(layers) - 1
    moved = False
    for level, nodes in enumerate(layers):
        if len(nodes) < 2:
            continue
        if not ((level and gaps[level - 1]) or (level < last and gaps[level])):
            continue
        above = [sorted([pos[u] for u in up[v]]) for v in nodes]
        below = [sorted([pos[w] for w in down[v]]) for v in nodes]
        for _ in range(_TRANSPOSE_PASSES):
            improved = False
            for i in range(len(nodes) - 1):
                a, b = nodes[i], nodes[i + 1]
                if shared and a in shared and b in shared:
                    continue
                above_kept = pair_crossings(above[i], above[i + 1])
                below_kept = pair_crossings(below[i], below[i + 1])
                if not (above_kept or below_kept):
                    continue
                above_swapped = pair_crossings(above[i + 1], above[i])
                below_swapped = pair_crossings(below[i + 1], below[i])
                if above_swapped + below_swapped < above_kept + below_kept:
                    nodes[i], nodes[i + 1] = b, a
                    above[i], above[i + 1] = above[i + 1], above[i]
                    below[i], below[i + 1] = below[i + 1], below[i]
                    pos[a], pos[b] = i + 1, i
                    if level:
                        gaps[level - 1] += above_swapped - above_kept
                    if level < last:
                        gaps[level] += below_swapped - below_kept
                    improved = moved = True
            if not improved:
                break
    return moved


def pair_crossings(left: list[int], right: list[int]) -> int:
    """Crossings between the edges of a node (neighbour positions ``left``)
    and those of the node to its right (``right``), both sorted."""
    if not left or not right:
        return 0
    if len(right) == 1:
        # The common case (a dummy or a single-operand node): no bisect.
        last = right[0]
        return sum(1 for p in left if p > last) if len(left) > 1 else int(left[0] > last)
    return sum(bisect.bisect_left(right, p) for p in left)


def layer_crossings(nodes: list[int], down: list[list[int]], pos: list[int]) -> int:
    """Crossings between a layer and the next one: inversions of the lower
    ends when edges are listed by upper end (bisect keeps it in C)."""
    ends: list[int] = []
    for v in nodes:
        below = down[v]
        if len(below) == 1:
            ends.append(pos[below[0]])
        elif below:
            ends.extend(sorted([pos[w] for w in below]))
    seen: list[int] = []
    crossings = 0
    for p in ends:
        i = bisect.bisect_right(seen, p)
        crossings += len(seen) - i
        seen.insert(i, p)
    return crossings
