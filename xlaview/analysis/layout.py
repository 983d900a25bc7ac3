"""Layered (Sugiyama-style) top-to-bottom layout of HLO dataflow graphs.

Pure Python, no Qt: the graph view runs it in a worker. The pipeline is the
classic one, each step a function over integer node ids:

1. cycle breaking: a deterministic topological order; an edge that would close
   a cycle (HLO has none, but a broken dump might) is set aside;
2. layering: longest path from the sources, then every node slides down towards
   its users when that shortens its edges (with the operands that slide along);
3. long edges: an edge spanning more than ``long_edge_layers`` layers becomes a
   pair of stubs and gets no dummy nodes; the rest get one dummy per crossed
   layer. HLO's long edges (parameters, activations read by the backward pass)
   are what make layered layout slow, so this is the main speed lever;
4. ordering: a DFS initial order, down/up median sweeps keeping the order
   with the fewest crossings, then adjacent swaps;
5. x coordinates: down/up sweeps place each layer, in its order and with
   its widths and gaps, closest (weighted least squares, solved exactly by
   pool-adjacent-violators) to its neighbours; a last pass minimising the
   sum of |dx| instead snaps nodes under their neighbours so that most
   edges end up vertical;
6. y coordinates from layer heights, and edge routes through the dummies.

Duplicate edges (an instruction using one operand twice) are merged for the
layout, but every input edge gets its own route, in input order, so that
``result.edges[i]`` belongs to ``edges[i]``.
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

__all__ = ["EdgeRoute", "GraphLayout", "LayoutNode", "layered_layout"]

Point = tuple[float, float]
ProgressFn = Callable[[float], None]

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
# x placement sweeps: down, up, then two looking both ways.
_X_SWEEPS = 4
# Edge weights for x placement (as in Gansner et al.'s dot): the more dummies a
# segment touches, the straighter it should be, so long edges run vertically.
_OMEGA_REAL = 1.0
_OMEGA_MIXED = 2.0
_OMEGA_DUMMY = 8.0
# Weight of a node's previous x against its edges, when stepping passes.
_OMEGA_PREVIOUS = 1.0
# A node with no neighbour on the side being swept keeps its place, barely.
_WEIGHT_ALONE = 0.01
# Dummies are thin edges, not boxes: they need less room than node_gap.
_DUMMY_GAP_FRACTION = 0.125


@dataclass(frozen=True, slots=True)
class LayoutNode:
    """A box to place: its key and size in scene units."""

    key: str
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class EdgeRoute:
    """How to draw one input edge.

    ``points`` runs from the bottom centre of ``source`` to the top centre of
    ``target`` through one waypoint per crossed layer. When ``stub`` is true the
    edge is too long to route (or closes a cycle): ``points`` is then only the
    start of the straight line from source to target and ``target_stub`` its
    end; the view draws the whole edge on hover or selection.
    """

    source: str
    target: str
    points: tuple[Point, ...]
    stub: bool
    target_stub: tuple[Point, ...] = ()


@dataclass(frozen=True, slots=True)
class GraphLayout:
    """Node centres, layers (0 = top), edge routes (``edges[i]`` for input
    edge i) and the bounding size, whose top left corner is (0, 0). Also the
    edge crossings left between adjacent layers (stubs not counted) and the
    number of dummy nodes routed edges needed, for benchmarks and tests."""

    positions: dict[str, Point]
    layers: dict[str, int]
    edges: tuple[EdgeRoute, ...]
    width: float
    height: float
    crossings: int = 0
    dummy_count: int = 0


def layered_layout(
    nodes: Sequence[LayoutNode],
    edges: Sequence[tuple[str, str]],
    *,
    long_edge_layers: int = 8,
    previous: Mapping[str, float] | None = None,
    layer_gap: float = 60.0,
    node_gap: float = 24.0,
    progress: ProgressFn | None = None,
) -> GraphLayout:
    """Lay out a dataflow graph top to bottom, operands above their users.

    ``edges`` are ``(operand, user)`` pairs naming keys of ``nodes``; an
    unknown key or a duplicate node key raises ``ValueError``. Every edge goes
    at least one layer down; sources sit just above their first user rather
    than all in layer 0. An edge spanning more than ``long_edge_layers``
    layers, or closing a cycle, becomes a stub pair. Duplicate edges get one
    (identical) route each.

    ``previous`` maps keys to x centres of an earlier layout of a similar
    graph: nodes in both keep their left-to-right order within each layer and
    are drawn towards their old x, so the picture does not jump while the
    user steps through passes. ``progress`` is called with a fraction from 0
    to 1 now and then; an exception it raises propagates, which is how a
    caller cancels. The same input gives the same layout.
    """
    report = progress or _ignore_progress
    report(0.0)
    index: dict[str, int] = {}
    for i, node in enumerate(nodes):
        if node.key in index:
            raise ValueError(f"duplicate node key {node.key!r}")
        index[node.key] = i
    pairs: list[tuple[int, int]] = []
    for source, target in edges:
        s, t = index.get(source), index.get(target)
        if s is None or t is None:
            raise ValueError(f"edge ({source!r}, {target!r}) names an unknown node")
        pairs.append((s, t))
    n = len(nodes)
    if n == 0:
        report(1.0)
        return GraphLayout({}, {}, (), 0.0, 0.0)

    unique = list(dict.fromkeys(pairs))
    order, feedback = _break_cycles(n, unique)
    dag = [p for p in unique if p not in feedback] if feedback else unique
    layer = _assign_layers(n, order, dag)
    report(0.05)

    graph = _LayeredGraph.build(nodes, layer, dag, long_edge_layers)
    report(0.1)
    shared = _previous_ranks(nodes, previous) if previous else None
    crossings = _order_layers(graph, shared, _scaled(report, 0.1, 0.7))
    anchors = {v: previous[nodes[v].key] for v in shared} if previous and shared else None
    xs = _place_x(graph, node_gap, anchors, _scaled(report, 0.7, 0.95))
    layer_top, layer_height = _layer_bands(nodes, graph, layer_gap)

    min_left = min(x - graph.half_width[v] for v, x in enumerate(xs))
    max_right = max(x + graph.half_width[v] for v, x in enumerate(xs))
    xs = [x - min_left for x in xs]
    ys = [layer_top[layer[v]] + layer_height[layer[v]] / 2 for v in range(n)]
    layer_y = [top + height / 2 for top, height in zip(layer_top, layer_height)]

    routes = _route_edges(nodes, pairs, graph, feedback, xs, ys, layer_y, layer_gap / 2)
    report(1.0)
    return GraphLayout(
        positions={node.key: (xs[v], ys[v]) for v, node in enumerate(nodes)},
        layers={node.key: layer[v] for v, node in enumerate(nodes)},
        edges=routes,
        width=max_right - min_left,
        height=layer_top[-1] + layer_height[-1],
        crossings=crossings,
        dummy_count=graph.size - n,
    )


def _ignore_progress(_fraction: float) -> None:
    pass


def _scaled(report: ProgressFn, start: float, end: float) -> ProgressFn:
    return lambda fraction: report(start + (end - start) * fraction)


# -- 1. cycles and layers ----------------------------------------------------


def _break_cycles(
    n: int, edges: list[tuple[int, int]]
) -> tuple[list[int], set[tuple[int, int]]]:
    """A topological order (Kahn's, in input order) and the edges set aside to
    make one exist: self-loops, and when stuck, the in-edges of a node found on
    a cycle by walking up from the first unplaced node."""
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    feedback: set[tuple[int, int]] = set()
    for s, t in edges:
        if s == t:
            feedback.add((s, t))
        else:
            succ[s].append(t)
            pred[t].append(s)
    indegree = [len(p) for p in pred]
    ready = deque(v for v in range(n) if not indegree[v])
    placed = bytearray(n)
    order: list[int] = []
    first_unplaced = 0
    while len(order) < n:
        if not ready:
            while placed[first_unplaced]:
                first_unplaced += 1
            v = first_unplaced
            seen: set[int] = set()
            while v not in seen:
                seen.add(v)
                v = next(u for u in pred[v] if not placed[u] and (u, v) not in feedback)
            for u in pred[v]:
                if not placed[u]:
                    feedback.add((u, v))
            indegree[v] = 0
            ready.append(v)
        v = ready.popleft()
        placed[v] = 1
        order.append(v)
        for w in succ[v]:
            if feedback and (v, w) in feedback:
                continue
            indegree[w] -= 1
            if not indegree[w]:
                ready.append(w)
    return order, feedback


def _assign_layers(n: int, order: list[int], edges: list[tuple[int, int]]) -> list[int]:
    """Longest path from the sources, then nodes slide down to their users.

    Sliding a node down shortens each edge to its users and stretches each
    edge from its operands, except operands that slide along: those used by
    this node only and themselves free to slide (parameters, constants and the
    small trees computed from them alone). So a node slides to just above its
    first user when it has at least as many users as stretched operands. On
    real train steps this one pass reaches the minimum total edge length (what
    dot's network simplex computes) or comes within ~10 % of it, and it moves
    parameters and constants next to their users instead of to the top.
    """
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    for s, t in edges:
        succ[s].append(t)
        pred[t].append(s)
    layer = [0] * n
    stretched = [0] * n
    at = layer.__getitem__
    for v in order:
        operands = pred[v]
        if operands:
            layer[v] = max(map(at, operands)) + 1
            stretched[v] = sum(1 for u in operands if stretched[u] or len(succ[u]) > 1)
    for v in reversed(order):
        users = succ[v]
        if users and len(users) >= stretched[v]:
            layer[v] = min(map(at, users)) - 1
    # Sliding can empty a layer; dropping it keeps edges pointing down and
    # every layer index in use.
    renumber = {level: i for i, level in enumerate(sorted(set(layer)))}
    return [renumber[level] for level in layer]


# -- 2. the layered graph with dummies -----------------------------------------


@dataclass(slots=True)
class _LayeredGraph:
    """Real nodes are ids ``0..real-1``, dummies follow. ``up``/``down`` list
    neighbours in the adjacent layers; ``chains`` maps a routed edge to the id
    of its first dummy (its dummies are consecutive ids)."""

    real: int
    layer: list[int]
    layers: list[list[int]]
    up: list[list[int]]
    down: list[list[int]]
    half_width: list[float]
    chains: dict[tuple[int, int], int]
    stubs: set[tuple[int, int]]

    @property
    def size(self) -> int:
        return len(self.layer)

    @classmethod
    def build(
        cls,
        nodes: Sequence[LayoutNode],
        node_layer: list[int],
        edges: list[tuple[int, int]],
        long_edge_layers: int,
    ) -> _LayeredGraph:
        n = len(nodes)
        layer = list(node_layer)
        up: list[list[int]] = [[] for _ in range(n)]
        down: list[list[int]] = [[] for _ in range(n)]
        chains: dict[tuple[int, int], int] = {}
        stubs: set[tuple[int, int]] = set()
        for s, t in edges:
            span = layer[t] - layer[s]
            if span > long_edge_layers:
                stubs.add((s, t))
                continue
            previous = s
            if span > 1:
                first = len(layer)
                chains[(s, t)] = first
                for level in range(layer[s] + 1, layer[t]):
                    dummy = len(layer)
                    layer.append(level)
                    up.append([previous])
                    down.append([])
                    down[previous].append(dummy)
                    previous = dummy
            down[previous].append(t)
            up[t].append(previous)
        layers: list[list[int]] = [[] for _ in range(max(layer) + 1)]
        half_width = [node.width / 2 for node in nodes]
        half_width.extend([0.0] * (len(layer) - n))
        return cls(n, layer, layers, up, down, half_width, chains, stubs)


# -- 3. ordering ---------------------------------------------------------------


def _previous_ranks(nodes: Sequence[LayoutNode], previous: Mapping[str, float]) -> dict[int, int]:
    """Node id -> rank of its previous x, for nodes the previous layout had."""
    known = [(previous[node.key], v) for v, node in enumerate(nodes) if node.key in previous]
    known.sort()
    return {v: rank for rank, (_, v) in enumerate(known)}


def _order_layers(
    graph: _LayeredGraph, shared: dict[int, int] | None, report: ProgressFn
) -> int:
    """Order every layer to reduce crossings; returns the crossings left.

    ``gaps[i]`` holds the crossings between layers i and i+1 and is recounted
    only where a layer changed: deep HLO graphs have thousands of layers, most
    of them untouched by a sweep.
    """
    _initial_order(graph)
    layers, up, down = graph.layers, graph.up, graph.down
    pos = [0] * graph.size
    for nodes in layers:
        if shared:
            _keep_previous_order(nodes, shared)
        for i, v in enumerate(nodes):
            pos[v] = i
    gaps = [_layer_crossings(nodes, down, pos) for nodes in layers[:-1]]
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
                level for level in sequence if _median_sort(layers[level], neighbours, pos, shared)
            ]
            stale = sorted({gap for level in changed for gap in (level - 1, level)})
            for gap in stale:
                if 0 <= gap < len(gaps):
                    gaps[gap] = _layer_crossings(layers[gap], down, pos)
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
    gaps = [_layer_crossings(nodes, down, pos) for nodes in layers[:-1]]
    for _ in range(_TRANSPOSE_ROUNDS):
        if not _transpose(layers, up, down, pos, shared, gaps):
            break
    return sum(gaps)


def _initial_order(graph: _LayeredGraph) -> None:
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


def _keep_previous_order(nodes: list[int], shared: dict[int, int]) -> None:
    """Put the nodes the previous layout had back in its order, in the slots
    they occupy now; new nodes (and dummies) stay where they are."""
    slots = [i for i, v in enumerate(nodes) if v in shared]
    if len(slots) < 2:
        return
    kept = sorted((nodes[i] for i in slots), key=shared.__getitem__)
    for i, v in zip(slots, kept):
        nodes[i] = v


def _median_sort(
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
        _keep_previous_order(nodes, shared)
    if nodes == old:
        return False
    for i, v in enumerate(nodes):
        pos[v] = i
    return True


def _transpose(
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
                above_kept = _pair_crossings(above[i], above[i + 1])
                below_kept = _pair_crossings(below[i], below[i + 1])
                if not (above_kept or below_kept):
                    continue
                above_swapped = _pair_crossings(above[i + 1], above[i])
                below_swapped = _pair_crossings(below[i + 1], below[i])
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


def _pair_crossings(left: list[int], right: list[int]) -> int:
    """Crossings between the edges of a node (neighbour positions ``left``)
    and those of the node to its right (``right``), both sorted."""
    if not left or not right:
        return 0
    if len(right) == 1:
        # The common case (a dummy or a single-operand node): no bisect.
        last = right[0]
        return sum(1 for p in left if p > last) if len(left) > 1 else int(left[0] > last)
    return sum(bisect.bisect_left(right, p) for p in left)


def _layer_crossings(nodes: list[int], down: list[list[int]], pos: list[int]) -> int:
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


# -- 4. x coordinates ------------------------------------------------------------


def _place_x(
    graph: _LayeredGraph,
    node_gap: float,
    anchors: dict[int, float] | None,
    report: ProgressFn,
) -> list[float]:
    """Pack each layer, centred, then sweep: each layer moves as close as it can
    to its neighbours in the layer just placed, keeping its order and gaps.
    The last sweeps look both ways. ``anchors`` (previous x centres) pull the
    nodes that have one back towards where they were."""
    layers, half_width, real = graph.layers, graph.half_width, graph.real
    half_gap = [node_gap / 2] * real + [node_gap * _DUMMY_GAP_FRACTION] * (graph.size - real)
    separations: list[list[float]] = []
    xs = [0.0] * graph.size
    for nodes in layers:
        seps = [0.0]
        for a, b in pairwise(nodes):
            seps.append(half_width[a] + half_gap[a] + half_width[b] + half_gap[b])
        separations.append(seps)
        x = 0.0
        placed = []
        for sep in seps:
            x += sep
            placed.append(x)
        middle = placed[-1] / 2
        for v, x in zip(nodes, placed):
            xs[v] = x - middle
    omega = [[_OMEGA_REAL, _OMEGA_MIXED], [_OMEGA_MIXED, _OMEGA_DUMMY]]
    is_dummy = [0] * real + [1] * (graph.size - real)
    up, down = graph.up, graph.down
    for sweep in range(_X_SWEEPS):
        both = sweep >= _X_SWEEPS - 2
        downward = sweep % 2 == 0
        sequence = range(len(layers)) if downward else range(len(layers) - 1, -1, -1)
        for level in sequence:
            nodes = layers[level]
            desired: list[float] = []
            weights: list[float] = []
            for v in nodes:
                around = (up[v] + down[v]) if both else (up[v] if downward else down[v])
                anchor = anchors.get(v) if anchors else None
                if anchor is not None:
                    total, weight = _OMEGA_PREVIOUS * anchor, _OMEGA_PREVIOUS
                elif not around:
                    desired.append(xs[v])
                    weights.append(_WEIGHT_ALONE)
                    continue
                else:
                    total, weight = 0.0, 0.0
                weights_v = omega[is_dummy[v]]
                for u in around:
                    w = weights_v[is_dummy[u]]
                    total += w * xs[u]
                    weight += w
                desired.append(total / weight)
                weights.append(weight)
            for v, x in zip(nodes, _closest_packing(desired, weights, separations[level])):
                xs[v] = x
        report((sweep + 1) / (_X_SWEEPS + 1))
    _straighten(graph, xs, separations, omega, is_dummy)
    report(1.0)
    return xs


def _closest_packing(desired: list[float], weights: list[float], seps: list[float]) -> list[float]:
    """Positions minimising sum(w * (x - desired)^2) subject to
    x[i] - x[i-1] >= seps[i]: substituting x[i] = y[i] + sum(seps[:i+1]) makes
    it isotonic regression on y, which pool-adjacent-violators solves in
    linear time."""
    offsets: list[float] = []
    offset = 0.0
    for sep in seps:
        offset += sep
        offsets.append(offset)
    block_sum: list[float] = []
    block_weight: list[float] = []
    block_size: list[int] = []
    for target, weight, off in zip(desired, weights, offsets):
        total, mass, size = (target - off) * weight, weight, 1
        while block_sum and block_sum[-1] * mass >= total * block_weight[-1]:
            total += block_sum.pop()
            mass += block_weight.pop()
            size += block_size.pop()
        block_sum.append(total)
        block_weight.append(mass)
        block_size.append(size)
    placed: list[float] = []
    i = 0
    for total, mass, size in zip(block_sum, block_weight, block_size):
        y = total / mass
        for off in offsets[i : i + size]:
            placed.append(y + off)
        i += size
    return placed


def _straighten(
    graph: _LayeredGraph,
    xs: list[float],
    separations: list[list[float]],
    omega: list[list[float]],
    is_dummy: list[int],
) -> None:
    """Least squares leaves most edges slightly slanted. One down and one up
    pass of coordinate descent on the weighted sum of |dx| (an L1 objective,
    whose optimum puts a node straight under or over a neighbour) moves each
    node, within the room its layer neighbours leave, to the nearest point of
    least slant, snapping onto a neighbour's x when several points tie."""
    layers, up, down = graph.layers, graph.up, graph.down
    for downward in (True, False):
        sequence = range(len(layers)) if downward else range(len(layers) - 1, -1, -1)
        for level in sequence:
            nodes, seps = layers[level], separations[level]
            last = len(nodes) - 1
            for i, v in enumerate(nodes):
                around = up[v] + down[v]
                if not around:
                    continue
                weights_v = omega[is_dummy[v]]
                ends = sorted((xs[u], weights_v[is_dummy[u]]) for u in around)
                half = sum(w for _, w in ends) / 2
                seen = 0.0
                for k, (low, w) in enumerate(ends):
                    seen += w
                    if seen >= half:
                        break
                high = ends[k + 1][0] if seen == half and k + 1 < len(ends) else low
                target = xs[v]
                if low < target < high:
                    target = low if target - low <= high - target else high
                else:
                    target = min(max(target, low), high)
                if i:
                    target = max(target, xs[nodes[i - 1]] + seps[i])
                if i < last:
                    target = min(target, xs[nodes[i + 1]] - seps[i + 1])
                xs[v] = target


# -- 5. y coordinates and routes -------------------------------------------------


def _layer_bands(
    nodes: Sequence[LayoutNode], graph: _LayeredGraph, layer_gap: float
) -> tuple[list[float], list[float]]:
    """Top and height of each layer: its tallest node sets the height (a layer
    of dummies only has none)."""
    heights = [0.0] * len(graph.layers)
    for v, node in enumerate(nodes):
        level = graph.layer[v]
        heights[level] = max(heights[level], node.height)
    tops: list[float] = []
    top = 0.0
    for height in heights:
        tops.append(top)
        top += height + layer_gap
    return tops, heights


def _route_edges(
    nodes: Sequence[LayoutNode],
    pairs: list[tuple[int, int]],
    graph: _LayeredGraph,
    feedback: set[tuple[int, int]],
    xs: list[float],
    ys: list[float],
    layer_y: list[float],
    stub_reach: float,
) -> tuple[EdgeRoute, ...]:
    """One route per input edge; duplicates share the same point tuples."""
    layer, chains = graph.layer, graph.chains
    done: dict[tuple[int, int], EdgeRoute] = {}
    routes: list[EdgeRoute] = []
    for s, t in pairs:
        route = done.get((s, t))
        if route is None:
            start = (xs[s], ys[s] + nodes[s].height / 2)
            end = (xs[t], ys[t] - nodes[t].height / 2)
            key_s, key_t = nodes[s].key, nodes[t].key
            if (s, t) in graph.stubs or (s, t) in feedback:
                dx, dy = end[0] - start[0], end[1] - start[1]
                reach = max(abs(dx), abs(dy))
                f = min(1.0, stub_reach / reach) if reach else 1.0
                route = EdgeRoute(
                    key_s,
                    key_t,
                    (start, (start[0] + f * dx, start[1] + f * dy)),
                    True,
                    ((end[0] - f * dx, end[1] - f * dy), end),
                )
            else:
                first = chains.get((s, t))
                if first is None:
                    points: tuple[Point, ...] = (start, end)
                else:
                    dummies = range(first, first + layer[t] - layer[s] - 1)
                    points = (start, *[(xs[d], layer_y[layer[d]]) for d in dummies], end)
                route = EdgeRoute(key_s, key_t, points, False)
            done[(s, t)] = route
        routes.append(route)
    return tuple(routes)
