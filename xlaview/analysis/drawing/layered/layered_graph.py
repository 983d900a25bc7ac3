"""The layered graph: real nodes, one dummy per layer a routed edge crosses,
and the stubs (edges too long to route)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xlaview.analysis.drawing.records import LayoutNode


@dataclass(slots=True)
class LayeredGraph:
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
    ) -> LayeredGraph:
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
