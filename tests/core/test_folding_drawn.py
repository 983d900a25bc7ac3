"""A folded graph as the view draws it (xlaview.analysis.folding.drawn): a
closed group is one node, edges into it bundled; frames hug what an open
group shows; members of an open group stay side by side; marks are lifted
to the groups holding them. On a hand-written chain of identical blocks."""

from __future__ import annotations

import operator

from xlaview.analysis.drawing import build_graph, layered_layout, layout_inputs
from xlaview.analysis.folding import (
    GROUP_KEY,
    GroupKind,
    box_order,
    bundle_bytes,
    find_group,
    first_open,
    fold_graph,
    folded_graph,
    group_marks,
    group_paths,
    open_frames,
    shown_groups,
)
from xlaview.hlo import parse_module


def _chain(count: int):
    body = ["  x = f32[8,8]{1,0} parameter(0)", "  w = f32[8,8]{1,0} parameter(1)"]
    prev = "x"
    for i in range(count):
        body += [
            f"  d{i} = f32[8,8]{{1,0}} dot({prev}, w), lhs_contracting_dims={{1}}, "
            "rhs_contracting_dims={0}",
            f"  a{i} = f32[8,8]{{1,0}} add(d{i}, {prev})",
            f"  t{i} = f32[8,8]{{1,0}} tanh(a{i})",
            f"  m{i} = f32[8,8]{{1,0}} multiply(t{i}, a{i})",
        ]
        prev = f"m{i}"
    body.append(f"  ROOT out = f32[8,8]{{1,0}} negate({prev})")
    module = parse_module("HloModule m\n\nENTRY main {\n" + "\n".join(body) + "\n}\n")
    comp = module.entry
    assert comp is not None
    folding = fold_graph(build_graph(module, comp), comp, "repeats")
    return folding, group_paths(folding)


def test_a_closed_group_is_one_node_and_its_edges_are_bundled() -> None:
    folding, paths = _chain(10)
    (repeat,) = [g for g in folding.groups if g.kind is GroupKind.REPEAT]
    closed, _ = folded_graph(folding, set(), paths)
    (node,) = closed.nodes  # the chain, its parameters and its root are one run of blocks
    assert node.key == GROUP_KEY + paths[repeat.id]
    assert node.members == repeat.size and node.repeats == repeat.repeats == 10
    graph, view = folded_graph(folding, {repeat.id}, paths)
    assert len(graph.nodes) == len(view.boxes) == 10, "one box per block"
    keys = {n.key for n in graph.nodes}
    assert all(e.source in keys and e.target in keys for e in graph.edges)
    assert graph.edges and all("edge" in e.shape for e in graph.edges), "bundled"
    third = GROUP_KEY + paths[repeat.id] + "/block 3 of 10"
    assert graph.nodes_of[third] == (third,), "a group box is found by its key"
    assert "d3" not in graph.nodes_of, "an instruction inside it is not drawn"
    sizes = bundle_bytes(view, paths).values()
    assert sizes and all(n > 0 and n % 256 == 0 for n in sizes), "f32[8,8]s: 256 bytes each"


def test_opening_shows_the_members_and_frames_hug_them() -> None:
    folding, paths = _chain(10)
    (repeat,) = [g for g in folding.groups if g.kind is GroupKind.REPEAT]
    third = find_group(folding, paths, "block 3 of 10")
    assert third is not None and paths[third].endswith("/block 3 of 10")
    opened = {repeat.id, third}
    graph, view = folded_graph(folding, opened, paths)
    assert "d2" in graph.nodes_of or "d3" in graph.nodes_of, "block 3's ops are drawn"
    nodes, edges = layout_inputs(graph)
    first = layered_layout(nodes, edges)
    order = box_order(folding, view, paths, first.positions)
    layout = layered_layout(nodes, edges, keep_order=order)
    frames = open_frames(
        folding, view, opened, paths, layout.positions, layout.sizes, layout.layers
    )
    assert [f.group for f in frames] == [repeat.id, third], "outermost first"
    inner = frames[1]
    members = [k for k in folding.groups[third].nodes]
    for key in members:
        x, y = layout.positions[key]
        assert any(lo <= x <= r and t <= y <= b for lo, t, r, b in inner.parts), key
    others = [n.key for n in graph.nodes if n.key not in members]
    for key in others:
        x, y = layout.positions[key]
        assert not any(lo < x < r and t < y < b for lo, t, r, b in inner.parts), (
            f"{key} is not in block 3 but inside its frame"
        )
    left, top, right, bottom = inner.header
    assert inner.in_header((left + right) / 2, (top + bottom) / 2)
    state = {g["name"]: g["open"] for g in shown_groups(folding, opened, paths)}
    assert state[paths[third]] is True and state[paths[repeat.id]] is True


def test_first_open_shows_more_than_one_box() -> None:
    folding, paths = _chain(10)
    opened = first_open(folding, small=0, budget=3)
    graph, _ = folded_graph(folding, opened, paths)
    assert len(graph.nodes) >= 5, "a lone group around everything opens"


def test_marks_are_lifted_to_the_groups_holding_them() -> None:
    folding, paths = _chain(10)
    (repeat,) = [g for g in folding.groups if g.kind is GroupKind.REPEAT]
    marks = group_marks(folding, paths, {"d3": 2, "t5": 4}, max)
    assert marks[GROUP_KEY + paths[repeat.id]] == 4, "the worst of its members"
    sums = group_marks(folding, paths, {"d3": 2, "t5": 4}, operator.add)
    assert sums[GROUP_KEY + paths[repeat.id]] == 6


def test_first_open_keeps_a_group_folded_that_would_show_too_many(monkeypatch) -> None:
    """The gpt48 step's jit(train_step) holds 581 nodes of its own: opened at
    first, the picture had 591 boxes; it stays folded past MOST_BOXES."""
    from xlaview.analysis.folding import drawn

    folding, paths = _chain(10)
    monkeypatch.setattr(drawn, "MOST_BOXES", 3)
    opened = first_open(folding, small=0, budget=3)
    graph, _ = folded_graph(folding, opened, paths)
    assert len(graph.nodes) <= 3
