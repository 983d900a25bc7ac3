"""Layered layout on real HLO graphs and synthetic HLO-shaped DAGs:
``python benchmarks/layout_bench.py [--layers 10] [--sizes 2000 10000 50000]``.

For each input it prints nodes, edges, stubs, dummy nodes, crossings and the
best wall time of ``layered_layout``, and as a machine-independent figure the
ratio to a reference measured in the same run: building a networkx DiGraph of
the same edges plus ``networkx.topological_generations`` (a plain layering,
no ordering or coordinates). Then the ``previous`` stability on consecutive
pass files, and the peak Python memory of the largest synthetic layout.

Real inputs come from the GPT train-step dump of ``benchmarks/run.py``
(compiled on first use); graphs are built as the view builds them, with a
private copy of every parameter, constant and iota per user.
"""

from __future__ import annotations

import argparse
import bisect
import gc
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import networkx as nx

sys.path.insert(0, str(Path(__file__).parent))
from run import gpt_dump

from xlaview.analysis.drawing import GraphLayout, LayoutNode, layered_layout
from xlaview.analysis.drawing.graph import build_graph, layout_inputs
from xlaview.hlo import Computation, parse_module

Graph = tuple[list[LayoutNode], list[tuple[str, str]]]
T = TypeVar("T")
# Consecutive passes whose entry computation changes (algsimp, CSE, ...).
PASS_PAIRS = [("0014", "0015"), ("0017", "0018"), ("0033", "0034"), ("0047", "0048")]


def computation_graph(computation: Computation) -> Graph:
    """Boxes and edges exactly as the graph view builds them."""
    return layout_inputs(build_graph(None, computation))


def entry_graph(path: Path) -> Graph:
    entry = parse_module(path.read_text()).entry
    if entry is None:
        raise SystemExit(f"{path.name}: no entry computation")
    return computation_graph(entry)


def hlo_like_dag(size: int, seed: int = 0) -> Graph:
    """A train-step-shaped DAG: each op mostly continues the previous one,
    takes side inputs from recent ops, private parameter copies, or (a
    quarter of the time) any earlier op, which makes the long edges; 2 % are
    wide fan-ins like fusions and tuples."""
    rng = random.Random(seed)
    nodes: list[LayoutNode] = []
    edges: list[tuple[str, str]] = []
    computed: list[str] = []
    while len(nodes) < size:
        key = f"op{len(nodes)}"
        roll = rng.random()
        count = 1 if roll < 0.4 else 2 if roll < 0.9 else 3 if roll < 0.98 else rng.randint(9, 80)
        operands = []
        for j in range(count):
            if not computed or (j and rng.random() < 0.35):
                operand = f"param{len(nodes)}.{j}"
                nodes.append(LayoutNode(operand, rng.randint(80, 300), 44.0))
            elif j == 0 and rng.random() < 0.8:
                operand = computed[-1]
            elif rng.random() < 0.5:
                operand = computed[max(0, len(computed) - 1 - int(rng.expovariate(1 / 8)))]
            else:
                operand = computed[rng.randrange(len(computed))]
            operands.append(operand)
        nodes.append(LayoutNode(key, rng.randint(80, 300), 44.0))
        edges += [(operand, key) for operand in dict.fromkeys(operands)]
        computed.append(key)
    return nodes, edges


def networkx_layering(graph: Graph) -> None:
    nodes, edges = graph
    digraph = nx.DiGraph()
    digraph.add_nodes_from(node.key for node in nodes)
    digraph.add_edges_from(edges)
    list(nx.topological_generations(digraph))


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    """Seconds ``fn`` took, after a collection so that neither side pays for
    the other's garbage, and its result."""
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def measure(name: str, graph: Graph, repeat: int) -> None:
    nodes, edges = graph
    ours, reference = [], []
    layout: GraphLayout | None = None
    for _ in range(repeat):  # interleaved, so that machine noise hits both alike
        seconds, layout = timed(lambda: layered_layout(nodes, edges))
        ours.append(seconds)
        reference.append(timed(lambda: networkx_layering(graph))[0])
    assert layout is not None
    stubs = sum(route.stub for route in layout.edges)
    print(
        f"{name:<44} {len(nodes):>6} {len(edges):>6} {stubs:>6} {layout.dummy_count:>7} "
        f"{layout.crossings:>9} {min(ours):>8.3f} {statistics.median(ours):>8.3f} "
        f"{min(reference):>8.3f} {min(ours) / min(reference):>6.1f}",
        flush=True,
    )


def concordance(before: dict[str, float], after: dict[str, float]) -> float:
    """Fraction of pairs of shared keys whose left-to-right order is kept."""
    keys = sorted((k for k in before if k in after), key=lambda k: (before[k], k))
    seen: list[float] = []
    swapped = 0
    for key in keys:
        i = bisect.bisect_right(seen, after[key])
        swapped += len(seen) - i
        seen.insert(i, after[key])
    pairs = len(keys) * (len(keys) - 1) // 2
    return 1 - swapped / pairs if pairs else 1.0


def stability(folder: Path) -> None:
    print(
        "\nprevious: entry computations of consecutive passes; order kept = Kendall "
        "concordance of x over shared nodes"
    )
    print(
        f"{'pass pair':<12} {'nodes':>6} {'shared':>6} {'fresh kept':>10} {'prev kept':>9} "
        f"{'fresh cr':>8} {'prev cr':>8} {'prev s':>7}"
    )
    for first, second in PASS_PAIRS:
        paths = [next(folder.glob(f"module_*.{seq}.*.txt"), None) for seq in (first, second)]
        if paths[0] is None or paths[1] is None:
            continue
        old, new = entry_graph(paths[0]), entry_graph(paths[1])
        before = {k: x for k, (x, _) in layered_layout(*old).positions.items()}
        fresh = layered_layout(*new)
        start = time.perf_counter()
        stable = layered_layout(*new, previous=before)
        seconds = time.perf_counter() - start
        shared = sum(1 for node in new[0] if node.key in before)
        fresh_kept = concordance(before, {k: x for k, (x, _) in fresh.positions.items()})
        stable_kept = concordance(before, {k: x for k, (x, _) in stable.positions.items()})
        print(
            f"{first}->{second:<6} {len(new[0]):>6} {shared:>6} {fresh_kept:>10.3f} "
            f"{stable_kept:>9.3f} {fresh.crossings:>8} {stable.crossings:>8} {seconds:>7.3f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--layers", type=int, default=10, help="GPT depth of the real dump")
    ap.add_argument("--sizes", type=int, nargs="*", default=[2000, 10000, 50000])
    args = ap.parse_args()
    folder = gpt_dump(args.layers)

    # (label, graph, repeats): the entry computations, the largest fused
    # computation, then the synthetic DAGs.
    inputs: list[tuple[str, Graph, int]] = []
    for stage in ("cpu_after_optimizations", "before_optimizations"):
        (path,) = folder.glob(f"*.{stage}.txt")
        module = parse_module(path.read_text())
        others = [c for c in module.computations if c is not module.entry]
        picks = [module.entry, max(others, key=lambda c: len(c.instructions), default=None)]
        for computation in picks:
            if computation is not None and len(computation.instructions) >= 100:
                label = f"{stage.removeprefix('cpu_')}/{computation.name}"
                inputs.append((label, computation_graph(computation), 7))
    for size in args.sizes:
        inputs.append((f"synthetic {size}", hlo_like_dag(size), 7 if size <= 10000 else 3))

    print(f"input: {folder}")
    print(
        f"{'graph':<44} {'nodes':>6} {'edges':>6} {'stubs':>6} {'dummies':>7} {'crossings':>9} "
        f"{'min s':>8} {'median':>8} {'nx ref s':>8} {'ratio':>6}"
    )
    for name, graph, repeat in inputs:
        measure(name, graph, repeat)

    stability(folder)

    largest_size = max(args.sizes, default=0)
    if largest_size:
        graph = hlo_like_dag(largest_size)
        gc.collect()
        tracemalloc.start()
        layered_layout(*graph)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"\npeak Python memory of the synthetic {largest_size} layout: {peak / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
