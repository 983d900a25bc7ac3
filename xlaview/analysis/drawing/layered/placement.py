"""x coordinates of a layered graph: weighted least squares sweeps solved
exactly per layer by pool-adjacent-violators, then an L1 pass that snaps
nodes under their neighbours so that most edges run vertically."""

from __future__ import annotations

from itertools import pairwise

from xlaview.analysis.drawing.layered.layered_graph import LayeredGraph
from xlaview.analysis.drawing.records import ProgressFn

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


def place_x(
    graph: LayeredGraph,
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
        for v, x in zip(nodes, placed, strict=False):
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
            for v, x in zip(
                nodes, closest_packing(desired, weights, separations[level]), strict=False
            ):
                xs[v] = x
        report((sweep + 1) / (_X_SWEEPS + 1))
    straighten(graph, xs, separations, omega, is_dummy)
    report(1.0)
    return xs


def closest_packing(desired: list[float], weights: list[float], seps: list[float]) -> list[float]:
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
    for target, weight, off in zip(desired, weights, offsets, strict=False):
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
    for total, mass, size in zip(block_sum, block_weight, block_size, strict=False):
        y = total / mass
        for off in offsets[i : i + size]:
            placed.append(y + off)
        i += size
    return placed


def straighten(
    graph: LayeredGraph,
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
                for k, (low, w) in enumerate(ends):  # noqa: B007 (both read after the loop)
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
