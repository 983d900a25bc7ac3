"""A pass step's graph and folding made from those of the pass shown
(`build_graph(..., previous)`, `patched`): the same graph as one built afresh,
on every pass of a real GPT train step and on hand-written edge cases; a
folding that keeps its groups, places new nodes among their neighbours,
drops what emptied, and folds afresh once patches add up."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlaview.analysis.drawing import ComputationGraph, build_graph
from xlaview.analysis.folding import Folding, fold_graph, group_paths, patched
from xlaview.analysis.folding.patch import PATCH_LEAST
from xlaview.dump import ModuleCache, index_dump
from xlaview.hlo import Module, parse_module, parse_module_tolerant


def _same_graph(a: ComputationGraph, b: ComputationGraph) -> None:
    assert a.nodes == b.nodes
    assert a.edges == b.edges
    assert a.nodes_of == b.nodes_of
    assert a.op_names == b.op_names


def _passes(gpt_dump: Path) -> list[Module]:
    index = index_dump(gpt_dump)
    module = max(index.modules, key=lambda m: len(m.passes))
    cache = ModuleCache()
    return [cache.load(p.file).module for p in module.passes]


def test_every_pass_step_builds_the_graph_a_fresh_build_does(gpt_dump) -> None:
    modules = _passes(gpt_dump)
    assert len(modules) > 20
    shown: dict[str, ComputationGraph] = {}
    reused = 0
    for module in modules:
        for comp in module.computations:
            before = shown.get(comp.name)
            graph = build_graph(module, comp, before)
            _same_graph(graph, build_graph(module, comp))
            if before is not None:
                reused += sum(a is b for a, b in zip(graph.edges, before.edges, strict=False))
            shown[comp.name] = graph
    assert reused > 1000  # the steps took what they could from the graph before


def _entry(body: list[str]) -> Module:
    """The module of one computation ``body``, parsed as the window does (tolerantly)."""
    text = "HloModule m\n\nENTRY main {\n" + "\n".join(body) + "\n}\n"
    return parse_module_tolerant(text).module


BEFORE = [
    "  p = f32[8]{0} parameter(0)",
    "  q = f32[8]{0} parameter(1)",
    "  a = f32[8]{0} add(p, q)",
    "  b = f32[8]{0} multiply(a, q)",
    "  ROOT c = f32[8]{0} negate(b)",
]


@pytest.mark.parametrize(
    "after",
    [
        # p now has two users: drawn as two private copies, the edges to them too.
        [BEFORE[0], BEFORE[1], BEFORE[2], "  b = f32[8]{0} multiply(a, p)", BEFORE[4]],
        # q back to one user: one node again.
        [BEFORE[0], BEFORE[1], BEFORE[2], "  b = f32[8]{0} multiply(a, a)", BEFORE[4]],
        # a changes shape: the edge a -> b says it.
        [BEFORE[0], BEFORE[1], "  a = f32[8]{0:T(8)} add(p, q)", BEFORE[3], BEFORE[4]],
        # a renamed, its user rewired; the root moves.
        [BEFORE[0], BEFORE[1], "  a2 = f32[8]{0} add(p, q)", "  ROOT b = f32[8]{0} "
         "multiply(a2, q)", "  c = f32[8]{0} negate(b)"],
        # a removed, b reads an operand no longer defined (a tolerant parse draws no edge).
        [BEFORE[0], BEFORE[1], "  b = f32[8]{0} multiply(a, q)", BEFORE[4]],
        # the same ops in another order.
        [BEFORE[1], BEFORE[0], BEFORE[2], BEFORE[3], BEFORE[4]],
        # an op's attributes change (its op_name): its node says so.
        [BEFORE[0], BEFORE[1], '  a = f32[8]{0} add(p, q), metadata={op_name="jit(f)/x/add"}',
         BEFORE[3], BEFORE[4]],
    ],
)  # fmt: skip
def test_a_step_that_changes_what_an_op_draws_draws_it_again(after) -> None:
    before = _entry(BEFORE)
    module = _entry(after)
    previous = build_graph(before, before.entry)
    _same_graph(build_graph(module, module.entry, previous), build_graph(module, module.entry))


# A computation before the entry: the entry's ops sit elsewhere in the text.
_BEFORE_ENTRY = "f {\n  x = f32[8]{0} parameter(0)\n  ROOT y = f32[8]{0} negate(x)\n}\n\n"


@pytest.mark.parametrize(
    ("text", "same"),
    [
        pytest.param(lambda: _entry(BEFORE).text, True, id="printed again"),
        pytest.param(
            lambda: _entry(BEFORE).text.replace("ENTRY", _BEFORE_ENTRY + "ENTRY"),
            True,
            id="printed elsewhere in the text",
        ),
        pytest.param(
            lambda: _entry([*BEFORE[:3], BEFORE[2], *BEFORE[3:]]).text,
            False,
            id="an op printed twice (a tolerant parse keeps both)",
        ),
        pytest.param(
            lambda: _entry([BEFORE[1], BEFORE[0], *BEFORE[2:]]).text,
            False,
            id="the same ops in another order",
        ),
    ],
)
def test_a_step_that_draws_nothing_new_gives_back_the_graph_shown(text, same) -> None:
    """The graph and its folding are the ones shown,
    the same objects, where a pass printed the computation again without
    changing what it draws; else a graph as a fresh build makes it."""
    shown = _entry(BEFORE)
    module = parse_module_tolerant(text()).module
    previous = build_graph(shown, shown.entry)
    graph = build_graph(module, module.entry, previous)
    _same_graph(graph, build_graph(module, module.entry))
    assert (graph is previous) == same, "the graph shown given back"
    if same:
        folding = fold_graph(previous, shown.entry)
        assert patched(folding, graph) is folding, "the folding shown kept"


def test_a_step_from_a_graph_with_a_repeated_name_builds_it_afresh() -> None:
    """Drawn from a text that printed an op twice (both drawn), the same ops
    printed once draw once: nothing is given back from the graph before."""
    twice = _entry([*BEFORE[:3], BEFORE[2], *BEFORE[3:]])
    once = _entry(BEFORE)
    previous = build_graph(twice, twice.entry)
    graph = build_graph(once, once.entry, previous)
    assert graph is not previous
    _same_graph(graph, build_graph(once, once.entry))


def _layers(count: int, extra: int | None = None) -> Module:
    """``count`` layers of four ops, each its own scope; ``extra``: that layer
    holds one more op (with no op_name) between its add and its tanh."""
    body = ["  x = f32[8,8]{1,0} parameter(0)", "  w = f32[8,8]{1,0} parameter(1)"]
    prev = "x"
    for i in range(count):
        meta = f', metadata={{op_name="jit(f)/layer_{i}/op"}}'
        tanh_of = f"a{i}"
        body += [
            f"  d{i} = f32[8,8]{{1,0}} dot({prev}, w), lhs_contracting_dims={{1}}, "
            f"rhs_contracting_dims={{0}}{meta}",
            f"  a{i} = f32[8,8]{{1,0}} add(d{i}, {prev}){meta}",
        ]
        if extra == i:
            body.append(f"  e{i} = f32[8,8]{{1,0}} negate(a{i})")
            tanh_of = f"e{i}"
        body += [
            f"  t{i} = f32[8,8]{{1,0}} tanh({tanh_of}){meta}",
            f"  m{i} = f32[8,8]{{1,0}} multiply(t{i}, a{i}){meta}",
        ]
        prev = f"m{i}"
    body.append(f"  ROOT out = f32[8,8]{{1,0}} negate({prev})")
    return _entry(body)


def _fold(module: Module, before: Folding | None = None) -> Folding:
    graph = build_graph(module, module.entry)
    if before is not None:
        folding = patched(before, graph)
        assert folding is not None
        return folding
    return fold_graph(graph, module.entry)


def _check(folding: Folding) -> None:
    """What every folding holds: each node in a group that exists, no group
    empty, each group's size the nodes inside it."""
    inside = [0] * len(folding.groups)
    for g in folding.group_index:
        while g is not None and g >= 0:
            inside[g] += 1
            g = folding.groups[g].parent
    assert inside == [g.size for g in folding.groups]
    assert all(inside)


def test_a_new_op_goes_to_the_group_of_its_neighbours() -> None:
    before = _fold(_layers(30))
    after = _fold(_layers(30, extra=7), before)
    _check(after)
    assert after.placed == 1
    e7 = after.group_index[after.position["e7"]]
    assert e7 == after.group_index[after.position["a7"]] >= 0
    assert group_paths(after) == group_paths(before)


def test_a_step_keeps_the_groups_of_the_nodes_it_kept_and_drops_what_emptied() -> None:
    with_extra = _layers(30, extra=7)
    before = _fold(with_extra)
    # Layer 7's ops lose their op_names: folded afresh they would leave its
    # scope; a step keeps them where they were drawn.
    text = with_extra.text.replace(', metadata={op_name="jit(f)/layer_7/op"}', "")
    stripped = parse_module(text)
    after = _fold(stripped, before)
    _check(after)
    for key, i in after.position.items():
        old = before.group_index[before.position[key]]
        new = after.group_index[i]
        assert (old < 0) == (new < 0)
        if old >= 0:
            assert group_paths(before)[old] == group_paths(after)[new]
    # Now without layer 7's negate: the graph as it was, the patch dropped too.
    again = _fold(_layers(30), after)
    _check(again)
    assert again.placed == 1
    layer_7 = again.groups[again.group_index[again.position["t7"]]]
    assert layer_7.nodes == ("w@d7", "d7", "a7", "t7", "m7")


def test_patches_that_add_up_fold_afresh() -> None:
    folding = _fold(_layers(30))
    steps = 0
    while True:
        module = _layers(30, extra=None if steps % 2 else 7)
        step = patched(folding, build_graph(module, module.entry))
        if step is None:
            break
        folding, steps = step, steps + 1
    assert steps == PATCH_LEAST  # one node placed or dropped at each step


def test_a_step_whose_new_nodes_crowd_the_picture_folds_afresh() -> None:
    """The MoE step that decomposes top-k: its 96 new ops, placed in the open
    group they neighbour, drew 139 boxes where the picture shown had 43 and a
    fresh fold has 43."""
    from xlaview.analysis.folding import crowded

    assert crowded(43, 139)
    assert not crowded(43, 51)  # within the least (8)
    assert not crowded(800, 870)  # within the share (10%)
    assert crowded(800, 890)
