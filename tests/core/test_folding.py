"""Folding a drawn graph into groups (xlaview.analysis.folding): op_name
scopes, repeated blocks, the boxes and bundled edges of a set of open groups,
a group's summary of its members' values; on hand-written HLO (no metadata,
hostile depths and sizes) and on a real JAX train step with named scopes."""

from __future__ import annotations

import operator
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from xlaview.analysis.drawing import build_graph
from xlaview.analysis.folding import (
    TOGETHER,
    Folding,
    GroupKind,
    aggregate,
    default_open,
    fold_graph,
    folded_view,
    scope_path,
)
from xlaview.dump.modules import load_module
from xlaview.hlo import Module, parse_module

PROGRAMS = Path(__file__).parent.parent / "programs"


@pytest.mark.parametrize(
    ("op_name", "phases", "path"),
    [
        ("jit(f)/transpose(jvp(block_3))/mlp/dot_general", "apart",
         ("jit(f)", "transpose(jvp(block_3))", "mlp")),
        ("jit(f)/transpose(jvp(block_3))/mlp/dot_general", "together",
         ("jit(f)", "block_3", "mlp")),
        ("jit(f)/jvp(block_3)/mlp/dot_general", "together", ("jit(f)", "block_3", "mlp")),
        ("jit(f)/transpose(jvp())/mul", "together", ("jit(f)",)),
        ("jit(f)/transpose(jvp())/mul", "apart", ("jit(f)", "transpose(jvp())")),
        ("jit(apply)/mlp/~/linear_0/dot_general", "apart", ("jit(apply)", "mlp", "linear_0")),
        ("model/dense/MatMul", "apart", ("model", "dense")),  # TensorFlow
        ("params['blocks'][0]['down']", "apart", ()),  # a JAX parameter: no scope
        ("a/b/add;a/b/c/mul;a/d/neg", "apart", ("a",)),  # a fusion's ops: their common scopes
        ("", "apart", ()),
        (None, "apart", ()),
    ],
)  # fmt: skip
def test_scope_paths(op_name, phases, path) -> None:
    assert scope_path(op_name, phases) == path


def _hlo(body: list[str]) -> Module:
    return parse_module("HloModule m\n\nENTRY main {\n" + "\n".join(body) + "\n}\n")


def _blocks(count: int, metadata: bool = False) -> Module:
    """A chain of ``count`` identical blocks (dot, add, tanh, multiply) and no
    op_name at all, unless ``metadata``."""
    body = ["  x = f32[8,8]{1,0} parameter(0)", "  w = f32[8,8]{1,0} parameter(1)"]
    prev = "x"
    for i in range(count):
        meta = f', metadata={{op_name="jit(f)/a/b/layer_{i}/op"}}' if metadata else ""
        body += [
            f"  d{i} = f32[8,8]{{1,0}} dot({prev}, w), lhs_contracting_dims={{1}}, "
            f"rhs_contracting_dims={{0}}{meta}",
            f"  a{i} = f32[8,8]{{1,0}} add(d{i}, {prev}){meta}",
            f"  t{i} = f32[8,8]{{1,0}} tanh(a{i}){meta}",
            f"  m{i} = f32[8,8]{{1,0}} multiply(t{i}, a{i}){meta}",
        ]
        prev = f"m{i}"
    body.append(f"  ROOT out = f32[8,8]{{1,0}} negate({prev})")
    return _hlo(body)


def _chain(length: int, op: Callable[[int, str], str]) -> list[str]:
    """The body of a chain of ``length`` ops from parameter ``p``: op ``i``
    is ``op(i, the one before)``, the last the root."""
    lines = ["  p = f32[4]{0} parameter(0)"]
    prev = "p"
    for i in range(length):
        lines.append(f"  a{i} = f32[4]{{0}} {op(i, prev)}")
        prev = f"a{i}"
    lines[-1] = lines[-1].replace("  a", "  ROOT a", 1)
    return lines


def _fold(module: Module, grouping: str = "scope", phases: str = "apart") -> Folding:
    comp = module.entry
    assert comp is not None
    return fold_graph(build_graph(module, comp), comp, grouping, phases)  # type: ignore[arg-type]


@pytest.mark.parametrize("grouping", ["scope", "repeats"])
def test_blocks_without_metadata_fold_as_repeats(grouping) -> None:
    folding = _fold(_blocks(10), grouping)
    repeats = [g for g in folding.groups if g.kind is GroupKind.REPEAT]
    assert len(repeats) == 1, [g.name for g in folding.groups]
    (repeat,) = repeats
    assert repeat.repeats >= 9, "the chain of 10 identical blocks is one run"
    instances = [folding.groups[c] for c in repeat.children]
    assert all(g.kind is GroupKind.INSTANCE for g in instances)
    sizes = [len(g.nodes) for g in instances]
    assert len(set(sizes[1:-1])) == 1, (
        f"instances alike (the ends take the input, the root): {sizes}"
    )
    members = [k for g in instances for k in g.nodes]
    assert len(members) == len(set(members)), "instances are disjoint"
    assert folding.top_level <= 4


@pytest.mark.parametrize(
    "body",
    [
        ["  ROOT p = f32[] parameter(0)"],
        ["  p = f32[4]{0} parameter(0)", "  ROOT n = f32[4]{0} negate(p)"],
        ["  p = f32[4]{0} parameter(0)", "  a = f32[4]{0} add(p, p)", "  b = f32[4]{0} add(a, p)",
         "  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, b)"],
    ],
)  # fmt: skip
@pytest.mark.parametrize("grouping", ["scope", "repeats", "none"])
def test_small_graphs_without_metadata_stay_flat(body, grouping) -> None:
    folding = _fold(_hlo(body), grouping)
    assert folding.groups == ()
    assert folding.top_level == len(folding.graph.nodes)
    view = folded_view(folding, default_open(folding))
    assert len(view.boxes) == len(folding.graph.nodes)


def test_grouping_none_makes_no_group_even_with_scopes() -> None:
    folding = _fold(_blocks(4, metadata=True), "none")
    assert folding.groups == () and folding.top_level == len(folding.graph.nodes)


def test_scopes_name_the_groups_and_a_chain_of_lone_scopes_is_one_box() -> None:
    folding = _fold(_blocks(4, metadata=True))
    names = [g.name for g in folding.groups]
    assert names == ["jit(f)/a/b"] + [f"layer_{i}" for i in range(4)], names
    assert folding.top == (0, "out"), "the parameters are drawn with their users"


def test_a_scope_path_10000_deep_does_not_recurse() -> None:
    deep = "/".join(f"s{i}" for i in range(10_000))
    body = ["  p = f32[4]{0} parameter(0)"]
    prev = "p"
    for i in range(50):
        body.append(f'  n{i} = f32[4]{{0}} negate({prev}), metadata={{op_name="{deep}/neg"}}')
        prev = f"n{i}"
    body.append(f'  ROOT r = f32[4]{{0}} negate({prev}), metadata={{op_name="{deep}/s/neg"}}')
    folding = _fold(_hlo(body))
    deepest = max(g.depth for g in folding.groups)
    assert deepest < 100, "the depth is capped"
    assert folding.chain("r")[-1] == folding.group_of("r")
    assert folded_view(folding, set(range(len(folding.groups)))).boxes


@pytest.mark.slow
def test_a_chain_of_100000_nodes_does_not_recurse() -> None:
    lines = _chain(100_000, lambda i, prev: f"{'add' if i % 2 else 'multiply'}({prev}, {prev})")
    folding = _fold(_hlo(lines))
    assert folding.top_level <= 3
    (repeat,) = [g for g in folding.groups if g.kind is GroupKind.REPEAT and g.parent is None]
    assert repeat.repeats >= 49_000
    shown = folded_view(folding, default_open(folding))
    assert len(shown.boxes) <= 200
    for g in folding.groups:  # nested in ranges: any one group opens to 100 boxes at most
        assert len(g.children) + len(g.nodes) <= 100, g.name
    ranges = [folding.groups[c] for c in repeat.children]
    assert sum(r.repeats for r in ranges) == repeat.repeats
    assert ranges[0].name.startswith("block 1-") and ranges[0].name.endswith(f"of {repeat.repeats}")


@pytest.fixture(scope="module")
def scoped(tmp_path_factory: pytest.TempPathFactory) -> Module:
    """The after-optimizations module of tests/programs/scoped.py (8 blocks)."""
    pytest.importorskip("jax")
    out = tmp_path_factory.mktemp("scoped")
    subprocess.run([sys.executable, str(PROGRAMS / "scoped.py"), str(out)], check=True)
    (final,) = out.glob("*jit_train_step*after_optimizations.txt")
    return load_module(final).module


def test_named_scopes_give_forward_and_backward_groups_per_block(scoped) -> None:
    folding = _fold(scoped)
    names = {g.name for g in folding.groups}
    for i in range(8):
        assert f"jvp(block_{i})" in names, sorted(names)
        assert f"transpose(jvp(block_{i}))" in names, sorted(names)
    phases = {g.name: g.phase for g in folding.groups}
    assert phases["jvp(block_3)"] == "forward"
    assert phases["transpose(jvp(block_3))"] == "backward"
    inner = {folding.groups[c].name for g in folding.groups if g.name == "jvp(block_3)"
             for c in g.children}  # fmt: skip
    assert inner == {"attention", "mlp"}
    assert folding.top_level <= 36, "a few dozen boxes at most, folded"


def test_together_puts_forward_and_backward_of_a_block_in_one_group(scoped) -> None:
    folding = _fold(scoped, phases=TOGETHER)
    names = [g.name for g in folding.groups]
    assert not any("jvp" in n or "transpose" in n for n in names), names
    block = next(g for g in folding.groups if g.name == "block_3")
    apart = _fold(scoped)
    sizes = {g.name: g.size for g in apart.groups}
    assert block.size == sizes["jvp(block_3)"] + sizes["transpose(jvp(block_3))"]


def test_view_bundles_edges_with_counts_and_bytes(scoped) -> None:
    folding = _fold(scoped)
    graph = folding.graph
    for open_groups in (set(), default_open(folding, small=0, budget=60)):
        view = folded_view(folding, open_groups)
        assert len(view.boxes) == len(set(view.boxes))
        assert set(view.box_of) == set(view.boxes)
        crossing = [
            (view.box_of[s], view.box_of[t])
            for s, t in folding.edge_ends
            if view.box_of[s] != view.box_of[t]
        ]
        assert sum(e.count for e in view.edges) == len(crossing)
        assert {(e.source, e.target) for e in view.edges} == set(crossing)
        assert all(e.bytes > 0 for e in view.edges)
    everything = folded_view(folding, range(len(folding.groups)))
    assert len(everything.boxes) == len(graph.nodes), "all open: every node drawn"
    assert sum(e.count for e in everything.edges) == len(graph.edges)
    # bytes: an f32[32,64] edge carries 8 KiB
    edge = next(e for e in graph.edges if e.shape.startswith("f32[32,64]"))
    bundle = next(e for e in everything.edges if (e.source, e.target) == (edge.source, edge.target))
    assert bundle.bytes == 32 * 64 * 4 * bundle.count


def test_chain_opens_the_way_to_an_instruction(scoped) -> None:
    folding = _fold(scoped)
    dot = next(
        n.instruction for n in folding.graph.nodes
        if not n.is_copy and folding.group_of(n.key) is not None
        and folding.groups[folding.group_of(n.key)].name == "mlp"  # type: ignore[index]
    )  # fmt: skip
    chain = folding.chain(dot)
    assert [folding.groups[g].name for g in chain][0] == "jit(train_step)"
    assert folding.groups[chain[-1]].name == "mlp"
    assert all(folding.groups[b].parent == a for a, b in zip(chain, chain[1:], strict=False))
    view = folded_view(folding, set(chain))
    assert dot in view.boxes, "its groups open, the instruction is drawn"
    assert chain[0] in folded_view(folding, ()).box_of


def test_aggregate_sums_and_keeps_the_worst(scoped) -> None:
    folding = _fold(scoped)
    names = [i.name for i in scoped.entry.instructions]
    ones = dict.fromkeys(names, 1)
    counts = aggregate(folding, ones, operator.add)
    for group in folding.groups:
        drawn = {folding.graph.nodes[i].instruction for i in range(len(folding.graph.nodes))
                 if group.id in _ancestors(folding, i)}  # fmt: skip
        assert counts.get(group.id, 0) == len(drawn), group.name
    worst = aggregate(folding, {n: k for k, n in enumerate(names)}, max)
    top = folding.chain(names[-1])[0] if folding.chain(names[-1]) else None
    if top is not None:
        assert worst[top] == len(names) - 1


def _ancestors(folding: Folding, i: int) -> set[int]:
    out: set[int] = set()
    g = folding.group_index[i]
    while g >= 0:
        out.add(g)
        parent = folding.groups[g].parent
        g = -1 if parent is None else parent
    return out


def test_default_open_keeps_within_the_budget(scoped) -> None:
    folding = _fold(scoped)
    everything = frozenset(range(len(folding.groups)))
    assert default_open(folding, small=len(folding.graph.nodes)) == everything, "a small one opens"
    assert len(folding.graph.nodes) > 300, "larger: opened within the budget"
    assert len(folded_view(folding, default_open(folding)).boxes) <= 200
    for budget in (5, 40, 120):
        opened = default_open(folding, small=0, budget=budget)
        assert len(folded_view(folding, opened).boxes) <= max(budget, folding.top_level)


def test_default_open_opens_a_level_whole_or_not_at_all(scoped) -> None:
    """The 8-block step at 60 boxes: jit(train_step) and every block open,
    no block's attention or mlp (they would not all fit); repeats stay folded."""
    folding = _fold(scoped)
    opened = default_open(folding, small=0, budget=60)
    depths = {folding.groups[g].depth for g in opened}
    for depth in depths:
        level = [
            g
            for g in folding.groups
            if g.depth == depth
            and g.kind is not GroupKind.REPEAT
            and (g.parent in opened or g.parent is None)
        ]
        assert all(g.id in opened for g in level), f"depth {depth} opened in part"
    assert not any(folding.groups[g].kind is GroupKind.REPEAT for g in opened)
    assert len(folded_view(folding, opened).boxes) <= 60


def test_weight_updates_side_by_side_fold_by_kind(scoped) -> None:
    """The step's 32 weight updates (4 per block, each a fusion and its
    parameter) read each its own gradient: one repeat per shape, not 64 boxes."""
    folding = _fold(scoped)
    (step,) = [g for g in folding.groups if g.name == "jit(train_step)"]
    alike = [folding.groups[c] for c in step.children if folding.groups[c].kind is GroupKind.REPEAT]
    assert sum(g.repeats for g in alike) == 32, [(g.name, g.repeats) for g in alike]
    assert all(g.name.startswith("multiply_subtract_fusion x ") for g in alike), alike
    assert all(not g.children and len(g.nodes) == 2 * g.repeats for g in alike), "update + weight"
    assert len(step.nodes) <= 4, "nothing else of its own left beside the blocks"


def test_a_helper_scope_threaded_through_a_pass_joins_it() -> None:
    """JAX names a helper called under grad beside the pass it is a step of:
    ``jvp(jit(_where))`` between ops of ``jvp()``. It joins ``jvp()``, the
    larger: the smaller of two scopes threaded through each other joins."""
    body = ["  x = f32[8]{0} parameter(0)"]
    prev = "x"
    for i in range(30):
        body += [
            f'  a{i} = f32[8]{{0}} add({prev}, {prev}), metadata={{op_name="jit(f)/jvp()/add"}}',
            f'  c{i} = f32[8]{{0}} cosine(a{i}), metadata={{op_name="jit(f)/jvp()/cos"}}',
            f'  s{i} = f32[8]{{0}} sine(c{i}), metadata={{op_name="jit(f)/jvp(jit(_where))/sin"}}',
        ]
        prev = f"s{i}"
    body.append(f'  ROOT r = f32[8]{{0}} negate({prev}), metadata={{op_name="jit(f)/jvp()/neg"}}')
    folding = _fold(_hlo(body))
    names = [g.name for g in folding.groups]
    assert not any("_where" in n for n in names), names
    (repeat,) = [g for g in folding.groups if g.kind is GroupKind.REPEAT]
    assert repeat.repeats >= 28 and folding.groups[repeat.parent].name == "jit(f)/jvp()", (
        "jit(f) holds jvp() alone now: one box"
    )


def test_a_chain_of_one_op_folds_in_blocks_of_two() -> None:
    lines = _chain(200, lambda i, prev: f"add({prev}, p)")
    folding = _fold(_hlo(lines), "repeats")
    (repeat,) = [g for g in folding.groups if g.kind is GroupKind.REPEAT]
    assert repeat.repeats >= 99
    assert folding.top_level <= 3
    short = _fold(_hlo(lines[:41] + ["  ROOT r = f32[4]{0} negate(a39)"]), "repeats")
    assert short.groups == (), "40 adds in a row is no run worth folding"


def test_aggregate_is_every_group_over_its_members(scoped) -> None:
    """Each group's summary folds exactly the values of the instructions drawn
    inside it, nested groups included, an instruction drawn twice once."""
    folding = _fold(scoped)
    nodes = folding.graph.nodes
    values = {i.name: k % 7 for k, i in enumerate(scoped.entry.instructions)}
    for combine in (operator.add, max):
        got = aggregate(folding, values, combine)
        for group in folding.groups:
            inside = {nodes[i].instruction for i in range(len(nodes))
                      if group.id in _ancestors(folding, i)}  # fmt: skip
            want = [values[n] for n in inside if n in values]
            if not want:
                assert group.id not in got
                continue
            expected = want[0]
            for v in want[1:]:
                expected = combine(expected, v)
            assert got[group.id] == expected, group.name
