"""x centres after a pass step: nodes that stay in their layer keep their x,
the others take the free spot nearest to where they belong.

A node that stays in its layer keeps its x when nothing is in the way (a
changed node that grew may no longer fit). A node that changed layer keeps
its x if it can (it moves straight up or down), and a node coming back to
where a recent step took it from returns there. A new node goes under or
over its neighbours: the median x of those already placed, in a top-down
pass, then again with all of them placed in a bottom-up one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xlaview.analysis.drawing.records import LayoutNode, Point
from xlaview.analysis.drawing.step.bands import Bands
from xlaview.analysis.drawing.step.matching import KEPT, Adjacency, StepMatch


def place_nodes(
    match: StepMatch,
    nodes: Sequence[LayoutNode],
    layer: list[int],
    movable: bytearray,
    old_layers: Mapping[str, int],
    old_positions: Mapping[str, Point],
    former: Mapping[str, tuple[int, float]],
    order: list[int],
    preds: Adjacency,
    succs: Adjacency,
    node_gap: float,
    long_edge_layers: int,
) -> tuple[list[float], Bands]:
    """The x of every node and the bands they occupy (see the module doc)."""
    n = len(nodes)
    half = [node.width / 2 + node_gap / 2 for node in nodes]
    xs = [0.0] * n
    placed = bytearray(n)
    staying: dict[int, list[int]] = {}  # layer -> nodes that keep their x
    wanted: list[tuple[int, float]] = []  # changed or moved nodes: (id, x they keep if they can)
    fresh: list[int] = []  # new nodes with no place to return to
    for v in order:
        key = match.old_key[v]
        place = former.get(match.keys[v]) if match.status[v] != KEPT else None
        if place is not None and place[0] == layer[v]:
            wanted.append((v, place[1]))
        elif key is None:
            fresh.append(v)
        elif not movable[v] or (match.status[v] == KEPT and layer[v] == old_layers[key]):
            xs[v] = old_positions[key][0]
            placed[v] = 1
            staying.setdefault(layer[v], []).append(v)
        else:
            wanted.append((v, old_positions[key][0]))
    bands = Bands()
    for level, ids in staying.items():
        ids.sort(key=xs.__getitem__)
        bands.fill(level, [xs[v] - half[v] for v in ids], [xs[v] + half[v] for v in ids])

    def put(v: int, x: float) -> None:
        xs[v] = x
        placed[v] = 1
        bands.add(layer[v], x - half[v], x + half[v])

    # Nodes in their old layer first: they are the likeliest to fit where
    # they were.
    wanted.sort(key=lambda item: layer[item[0]] != old_layers.get(match.old_key[item[0]] or "", -1))
    for v, x in wanted:
        put(v, bands.nearest_free(layer[v], x, half[v], nodes[v].width / 2))

    right_end = max((x + h for x, h in zip(xs, half, strict=False)), default=0.0)
    sequence = _outwards(fresh, preds, succs, placed)
    for v in sequence:
        want = _median_x(v, preds, succs, xs, placed, layer, long_edge_layers, right_end)
        put(v, bands.nearest_free(layer[v], want, half[v], nodes[v].width / 2))
    # Again the other way round, now that every neighbour has its place.
    for v in reversed(sequence):
        bands.remove(layer[v], xs[v] - half[v], xs[v] + half[v])
        want = _median_x(v, preds, succs, xs, placed, layer, long_edge_layers, xs[v])
        put(v, bands.nearest_free(layer[v], want, half[v], nodes[v].width / 2))
    return xs, bands


def _outwards(fresh: list[int], preds: Adjacency, succs: Adjacency, placed: bytearray) -> list[int]:
    """``fresh`` ordered breadth first from the placed nodes, so that each has
    a placed neighbour to go by when it can; nodes no placed node reaches
    come last, in their given order."""
    pending = set(fresh)
    level = [v for v in fresh if any(placed[w] for w in (*preds[v], *succs[v]))]
    out: list[int] = []
    while level:
        pending.difference_update(level)
        out += level
        reached: dict[int, None] = {}
        for v in level:
            for w in (*preds[v], *succs[v]):
                if w in pending:
                    reached[w] = None
        level = list(reached)
    out += [v for v in fresh if v in pending]
    return out


def _median_x(
    v: int,
    preds: Adjacency,
    succs: Adjacency,
    xs: list[float],
    placed: bytearray,
    layer: list[int],
    long_edge_layers: int,
    default: float,
) -> float:
    """The median x of the placed neighbours of ``v`` (``default`` if none):
    an odd count puts the node straight under or over one of them."""
    near = [w for w in (*preds[v], *succs[v]) if placed[w]]
    # Stubs are not drawn whole: only routed edges pull, as in a fresh layout.
    routed = [w for w in near if abs(layer[w] - layer[v]) <= long_edge_layers]
    around = sorted(xs[w] for w in (routed or near))
    if not around:
        return default
    middle = len(around) // 2
    return around[middle] if len(around) % 2 else (around[middle - 1] + around[middle]) / 2
