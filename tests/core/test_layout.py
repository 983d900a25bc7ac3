"""Layered layout: its invariants on real computations and synthetic DAGs,
stability across passes, cycles and degenerate inputs, progress and cancel."""

from __future__ import annotations

import bisect
import random
import subprocess
import sys
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
from layout_checks import check_layer_boxes

from xlaview.analysis.drawing import GraphLayout, LayoutNode, layered_layout
from xlaview.analysis.drawing.graph import build_graph, layout_inputs
from xlaview.hlo import Computation, parse_module

Graph = tuple[list[LayoutNode], list[tuple[str, str]]]


def computation_graph(computation: Computation) -> Graph:
    """Boxes and edges exactly as the graph view builds them."""
    return layout_inputs(build_graph(None, computation))


def entry_graph(path: Path) -> Graph:
    entry = parse_module(path.read_text()).entry
    assert entry is not None, f"{path.name}: no entry computation"
    return computation_graph(entry)


def hlo_like_dag(size: int, seed: int) -> Graph:
    """A train-step-shaped DAG: a long dependency chain with side inputs,
    private parameter copies, a few wide fan-ins and many long edges."""
    rng = random.Random(seed)
    nodes: list[LayoutNode] = []
    edges: list[tuple[str, str]] = []
    computed: list[str] = []
    while len(nodes) < size:
        key = f"op{len(nodes)}"
        roll = rng.random()
        operand_count = 1 if roll < 0.4 else 2 if roll < 0.9 else 3 if roll < 0.98 else 20
        for j in range(operand_count):
            if not computed or (j and rng.random() < 0.35):
                operand = f"param{len(nodes)}.{j}"
                nodes.append(LayoutNode(operand, rng.randint(60, 300), 44.0))
            elif j == 0 and rng.random() < 0.8:
                operand = computed[-1]
            elif rng.random() < 0.5:
                operand = computed[max(0, len(computed) - 1 - int(rng.expovariate(1 / 8)))]
            else:
                operand = computed[rng.randrange(len(computed))]
            edges.append((operand, key))
        nodes.append(LayoutNode(key, rng.randint(60, 300), rng.choice((30.0, 44.0, 60.0))))
        computed.append(key)
    return nodes, edges


def boxes(*keys: str) -> list[LayoutNode]:
    return [LayoutNode(key, 100.0, 40.0) for key in keys]


SYNTHETIC: dict[str, Callable[[], Graph]] = {
    "chain": lambda: (boxes("a", "b", "c"), [("a", "b"), ("b", "c")]),
    "diamond": lambda: (
        boxes("a", "b", "c", "d"),
        [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")],
    ),
    "edge past a chain": lambda: (
        boxes(*"abcdef"),
        [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "f"), ("a", "f")],
    ),
    "wide fan-in": lambda: (
        boxes(*[f"in{i}" for i in range(40)], "tuple"),
        [(f"in{i}", "tuple") for i in range(40)],
    ),
    "operand used twice": lambda: (boxes("x", "mul"), [("x", "mul"), ("x", "mul")]),
    "disconnected": lambda: (boxes("a", "b", "lonely"), [("a", "b")]),
    "keys with odd characters": lambda: (
        boxes("", "a b", "ü#1", "%x.2"),
        [("", "a b"), ("a b", "ü#1"), ("", "%x.2"), ("%x.2", "ü#1")],
    ),
    "hlo-like 300": lambda: hlo_like_dag(300, seed=1),
    "hlo-like 2000": lambda: hlo_like_dag(2000, seed=2),
}

# (program, stage file suffix): every computation of the module is laid out.
REAL = [
    ("mlp_grad", "before_optimizations"),
    ("mlp_grad", "cpu_after_optimizations"),
    ("attention", "cpu_after_optimizations"),
    ("scan", "cpu_after_optimizations"),
    ("conv", "before_optimizations"),
]


def real_graphs(zoo: dict[str, Path], program: str, stage: str) -> dict[str, Graph]:
    (path,) = zoo[program].glob(f"*.{stage}.txt")
    module = parse_module(path.read_text())
    return {c.name: computation_graph(c) for c in module.computations}


def check_invariants(
    name: str,
    nodes: list[LayoutNode],
    edges: list[tuple[str, str]],
    layout: GraphLayout,
    long_edge_layers: int,
    node_gap: float,
) -> None:
    """Everything the graph view relies on, with a message naming the culprit."""
    size = {node.key: node for node in nodes}
    assert list(layout.positions) == [n.key for n in nodes], f"{name}: positions keys"
    assert set(layout.layers) == set(size), f"{name}: layers keys"
    assert len(layout.edges) == len(edges), f"{name}: one route per input edge"

    by_layer: dict[int, list[str]] = {}
    for key, level in layout.layers.items():
        by_layer.setdefault(level, []).append(key)
    assert sorted(by_layer) == list(range(len(by_layer))), f"{name}: empty layers"
    for level, keys in by_layer.items():
        ys = {layout.positions[k][1] for k in keys}
        assert len(ys) == 1, f"{name}: layer {level} nodes at different heights {ys}"
        check_layer_boxes(name, layout, size, keys, level, node_gap)

    layer_y = {level: layout.positions[keys[0]][1] for level, keys in by_layer.items()}
    for (source, target), route in zip(edges, layout.edges, strict=True):
        label = f"{name}: edge {source!r} -> {target!r}"
        assert (route.source, route.target) == (source, target), f"{label}: routes out of order"
        span = layout.layers[target] - layout.layers[source]
        assert span >= 1, f"{label} does not go down: span {span}"
        assert route.stub == (span > long_edge_layers), f"{label}: spans {span}, stub={route.stub}"
        sx, sy = layout.positions[source]
        tx, ty = layout.positions[target]
        start = (sx, sy + size[source].height / 2)
        end = (tx, ty - size[target].height / 2)
        assert route.points[0] == pytest.approx(start), f"{label}: not from the source's bottom"
        last = route.target_stub if route.stub else route.points
        assert last[-1] == pytest.approx(end), f"{label}: does not reach the target's top"
        if route.stub:
            assert len(route.points) == 2 and len(route.target_stub) == 2, f"{label}: stub shape"
        else:
            assert route.target_stub == (), f"{label}: a routed edge with a target stub"
            assert len(route.points) == span + 1, (
                f"{label}: {len(route.points)} points, span {span}"
            )
            crossed = range(layout.layers[source] + 1, layout.layers[target])
            for (_, y), level in zip(route.points[1:-1], crossed, strict=True):
                assert y == pytest.approx(layer_y[level]), f"{label}: waypoint off layer {level}"


@pytest.mark.parametrize("case", list(SYNTHETIC))
@pytest.mark.parametrize("long_edge_layers", [8, 2])
def test_invariants_on_synthetic_graphs(case: str, long_edge_layers: int) -> None:
    nodes, edges = SYNTHETIC[case]()
    layout = layered_layout(nodes, edges, long_edge_layers=long_edge_layers)
    check_invariants(case, nodes, edges, layout, long_edge_layers, node_gap=24.0)


@pytest.mark.parametrize(("program", "stage"), REAL)
def test_invariants_on_real_computations(zoo: dict[str, Path], program: str, stage: str) -> None:
    graphs = real_graphs(zoo, program, stage)
    assert graphs, f"{program} {stage}: no computations"
    for computation, (nodes, edges) in graphs.items():
        layout = layered_layout(nodes, edges, node_gap=10.0, layer_gap=30.0)
        check_invariants(f"{program}/{computation}", nodes, edges, layout, 8, node_gap=10.0)


@pytest.mark.parametrize(
    ("case", "make"),
    [
        ("hlo-like", lambda: hlo_like_dag(1500, seed=3)),
        ("hlo-like, users before operands", lambda: shuffled(hlo_like_dag(1500, seed=3))),
    ],
)
def test_same_input_gives_the_same_layout(case: str, make: Callable[[], Graph]) -> None:
    nodes, edges = make()
    first = layered_layout(nodes, edges)
    again = layered_layout(list(nodes), list(edges))
    assert first == again, f"{case}: two runs differ"


def shuffled(graph: Graph) -> Graph:
    nodes, edges = graph
    rng = random.Random(0)
    nodes, edges = list(nodes), list(edges)
    rng.shuffle(nodes)
    rng.shuffle(edges)
    return nodes, edges


def test_layout_does_not_depend_on_string_hashing() -> None:
    """Sets of strings iterate in a per-process order; the layout must not."""
    script = (
        "import hashlib, sys\n"
        f"sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(Path(__file__).parents[1])!r}]\n"
        "from test_layout import hlo_like_dag\n"
        "from xlaview.analysis.drawing import layered_layout\n"
        "nodes, edges = hlo_like_dag(800, seed=4)\n"
        "print(hashlib.sha256(repr(layered_layout(nodes, edges)).encode()).hexdigest())\n"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1, "layout changes with PYTHONHASHSEED"


def concordance(before: dict[str, float], after: dict[str, float]) -> float:
    """Fraction of pairs of shared keys whose left-to-right order is kept
    (Kendall's concordance, ties in ``before`` broken by key)."""
    keys = sorted((k for k in before if k in after), key=lambda k: (before[k], k))
    seen: list[float] = []
    swapped = 0
    for key in keys:
        x = after[key]
        i = bisect.bisect_right(seen, x)
        swapped += len(seen) - i
        seen.insert(i, x)
    pairs = len(keys) * (len(keys) - 1) // 2
    return 1 - swapped / pairs if pairs else 1.0


def same_layer_order_kept(before: dict[str, float], layout: GraphLayout) -> tuple[int, int]:
    """(kept, compared) over neighbouring shared nodes of each new layer."""
    by_layer: dict[int, list[str]] = {}
    for key, level in layout.layers.items():
        if key in before:
            by_layer.setdefault(level, []).append(key)
    kept = compared = 0
    for keys in by_layer.values():
        keys.sort(key=lambda k: layout.positions[k][0])
        for left, right in pairwise(keys):
            compared += 1
            kept += before[left] <= before[right]
    return kept, compared


def similarity(a: Graph, b: Graph) -> float:
    keys_a, keys_b = {n.key for n in a[0]}, {n.key for n in b[0]}
    return len(keys_a & keys_b) / len(keys_a | keys_b)


@pytest.mark.parametrize("program", ["mlp_grad", "attention"])
def test_previous_keeps_the_order_of_shared_nodes(zoo: dict[str, Path], program: str) -> None:
    """Step through the pass files of a real dump, each entry computation laid
    out with the previous one's x: within a layer shared nodes keep their
    order, and across the picture nearly all pairs of them do. Passes that
    rebuild the computation (fusion keeps a fifth of the names) are skipped:
    there is no order to keep."""
    paths = sorted(zoo[program].glob("module_*.[0-9][0-9][0-9][0-9].*.txt"))
    graphs = [entry_graph(p) for p in paths]
    steps = [
        (paths[i + 1].name, graphs[i], graphs[i + 1])
        for i in range(len(graphs) - 1)
        if graphs[i] != graphs[i + 1] and similarity(graphs[i], graphs[i + 1]) >= 0.5
    ]
    assert len(steps) >= 3, f"{program}: only {len(steps)} passes changed the entry computation"
    for name, (old_nodes, old_edges), (nodes, edges) in steps:
        old = layered_layout(old_nodes, old_edges)
        before = {key: x for key, (x, _) in old.positions.items()}
        layout = layered_layout(nodes, edges, previous=before)
        check_invariants(name, nodes, edges, layout, 8, node_gap=24.0)
        kept, compared = same_layer_order_kept(before, layout)
        assert kept == compared, f"{name}: {compared - kept} of {compared} same-layer pairs swapped"
        overall = concordance(before, {k: x for k, (x, _) in layout.positions.items()})
        assert overall >= 0.9, f"{name}: only {overall:.1%} of shared pairs keep their order"


def test_previous_with_unknown_and_missing_keys() -> None:
    nodes, edges = hlo_like_dag(200, seed=5)
    previous = {f"gone{i}": float(i) for i in range(50)}
    previous.update({n.key: -float(i) for i, n in enumerate(nodes[::3])})
    layout = layered_layout(nodes, edges, previous=previous)
    check_invariants("partial previous", nodes, edges, layout, 8, node_gap=24.0)
    kept, compared = same_layer_order_kept(previous, layout)
    assert kept == compared, f"{compared - kept} of {compared} same-layer pairs swapped"


# name -> (graph, how many edges must be set aside to break its cycles)
CYCLES: dict[str, tuple[Graph, int]] = {
    "self-loop": ((boxes("a", "b"), [("a", "a"), ("a", "b")]), 1),
    "two-cycle": ((boxes("a", "b"), [("a", "b"), ("b", "a")]), 1),
    "cycle below a chain": (
        (boxes(*"abcde"), [("a", "b"), ("b", "c"), ("c", "d"), ("d", "b"), ("d", "e")]),
        1,
    ),
    "everything in one ring": (
        (boxes(*[f"n{i}" for i in range(30)]), [(f"n{i}", f"n{(i + 1) % 30}") for i in range(30)]),
        1,
    ),
    "two rings sharing a node": (
        (boxes(*"abcde"), [("a", "b"), ("b", "a"), ("a", "c"), ("c", "d"), ("d", "a"), ("d", "e")]),
        2,
    ),
}


@pytest.mark.parametrize("case", list(CYCLES))
def test_cycles_are_broken_not_fatal(case: str) -> None:
    (nodes, edges), set_aside = CYCLES[case]
    layout = layered_layout(nodes, edges)
    assert layered_layout(nodes, edges) == layout, f"{case}: not deterministic"
    assert len(layout.edges) == len(edges), f"{case}: lost routes"
    upward = [r for r in layout.edges if layout.layers[r.target] <= layout.layers[r.source]]
    assert len(upward) == set_aside, f"{case}: {len(upward)} edges set aside, not {set_aside}"
    assert all(r.stub for r in upward), f"{case}: an edge closing a cycle is routed: {upward}"


def test_empty_graph() -> None:
    assert layered_layout([], []) == GraphLayout({}, {}, (), 0.0, 0.0)


def test_single_node() -> None:
    layout = layered_layout([LayoutNode("only", 120.0, 44.0)], [])
    assert layout.positions == {"only": (60.0, 22.0)}
    assert layout.layers == {"only": 0}
    assert (layout.width, layout.height, layout.edges) == (120.0, 44.0, ())


def test_duplicate_edges_get_identical_routes() -> None:
    nodes = boxes("x", "y", "add")
    edges = [("x", "add"), ("y", "add"), ("x", "add")]
    layout = layered_layout(nodes, edges)
    assert len(layout.edges) == 3
    assert layout.edges[0] == layout.edges[2], "one operand used twice: two identical routes"
    assert layout.crossings == 0


@pytest.mark.parametrize(
    ("nodes", "edges", "message"),
    [
        (boxes("a", "a"), [], "duplicate node key 'a'"),
        (boxes("a"), [("a", "b")], "unknown node"),
    ],
)
def test_bad_input_is_a_value_error(
    nodes: list[LayoutNode], edges: list[tuple[str, str]], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        layered_layout(nodes, edges)


def test_progress_runs_from_zero_to_one() -> None:
    nodes, edges = hlo_like_dag(1000, seed=6)
    seen: list[float] = []
    layered_layout(nodes, edges, progress=seen.append)
    assert seen[0] == 0.0 and seen[-1] == 1.0, seen
    assert seen == sorted(seen), f"progress went backwards: {seen}"
    assert len(seen) >= 5, f"too few progress reports to cancel promptly: {seen}"


class Cancelled(Exception):
    pass


@pytest.mark.parametrize("cancel_at", [0.0, 0.3, 0.9])
def test_progress_raising_cancels(cancel_at: float) -> None:
    nodes, edges = hlo_like_dag(1000, seed=7)
    calls: list[float] = []

    def progress(fraction: float) -> None:
        calls.append(fraction)
        if fraction >= cancel_at:
            raise Cancelled

    with pytest.raises(Cancelled):
        layered_layout(nodes, edges, progress=progress)
    assert calls[-1] >= cancel_at and len([c for c in calls if c >= cancel_at]) == 1


def test_long_edges_get_no_dummies() -> None:
    """Stubs are what keep HLO fast: a long edge must cost no dummy nodes."""
    chain = [f"c{i}" for i in range(50)]
    nodes = boxes(*chain, "late")
    edges = [(a, b) for a, b in pairwise(chain)] + [("c0", "late"), ("c48", "late")]
    layout = layered_layout(nodes, edges, long_edge_layers=8)
    assert layout.dummy_count == 0, "the 49-layer edge got dummies"
    assert [r.stub for r in layout.edges[-2:]] == [True, False]
