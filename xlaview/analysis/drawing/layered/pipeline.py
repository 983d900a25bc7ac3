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

from collections.abc import Mapping, Sequence

from xlaview.analysis.drawing.layered.layered_graph import LayeredGraph
from xlaview.analysis.drawing.layered.layering import assign_layers, break_cycles
from xlaview.analysis.drawing.layered.ordering import order_layers, previous_ranks
from xlaview.analysis.drawing.layered.placement import place_x
from xlaview.analysis.drawing.layered.routing import layer_bands, route_edges
from xlaview.analysis.drawing.records import (
    GraphLayout,
    LayoutNode,
    ProgressFn,
    ignore_progress,
    scaled,
)

__all__ = ["layered_layout"]


def layered_layout(
    nodes: Sequence[LayoutNode],
    edges: Sequence[tuple[str, str]],
    *,
    long_edge_layers: int = 8,
    previous: Mapping[str, float] | None = None,
    keep_order: Mapping[str, float] | None = None,
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
    user steps through passes. ``keep_order`` (without ``previous``) only
    orders: nodes keep its left-to-right order within each layer, with no
    pull on x (a folded graph keeps an open group's members side by side).
    ``progress`` is called with a fraction from 0 to 1 now and then; an
    exception it raises propagates, which is how a caller cancels. The same
    input gives the same layout.
    """
    report = progress or ignore_progress
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
    order, feedback = break_cycles(n, unique)
    dag = [p for p in unique if p not in feedback] if feedback else unique
    layer = assign_layers(n, order, dag)
    report(0.05)

    graph = LayeredGraph.build(nodes, layer, dag, long_edge_layers)
    report(0.1)
    ranked = previous or keep_order
    shared = previous_ranks(nodes, ranked) if ranked else None
    crossings = order_layers(graph, shared, scaled(report, 0.1, 0.7))
    anchors = {v: previous[nodes[v].key] for v in shared} if previous and shared else None
    xs = place_x(graph, node_gap, anchors, scaled(report, 0.7, 0.95))
    layer_top, layer_height = layer_bands(nodes, graph, layer_gap)

    min_left = min(x - graph.half_width[v] for v, x in enumerate(xs))
    max_right = max(x + graph.half_width[v] for v, x in enumerate(xs))
    xs = [x - min_left for x in xs]
    ys = [layer_top[layer[v]] + layer_height[layer[v]] / 2 for v in range(n)]
    layer_y = [top + height / 2 for top, height in zip(layer_top, layer_height, strict=False)]

    routes = route_edges(nodes, pairs, graph, feedback, xs, ys, layer_y, layer_gap / 2)
    report(1.0)
    return GraphLayout(
        positions={node.key: (xs[v], ys[v]) for v, node in enumerate(nodes)},
        layers={node.key: layer[v] for v, node in enumerate(nodes)},
        edges=routes,
        width=max_right - min_left,
        height=layer_top[-1] + layer_height[-1],
        crossings=crossings,
        dummy_count=graph.size - n,
        layer_y=tuple(layer_y),
        sizes={node.key: (node.width, node.height) for node in nodes},
    )
