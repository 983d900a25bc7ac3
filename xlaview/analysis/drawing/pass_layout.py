"""Laying out a computation's graph as the user steps through passes.

The graph view calls :func:`step_layout` with the layout it shows and the
graph of the pass stepped to: what the pass did not touch stays in place
(``layout.relayout``). Node keys are those of ``graph.build_graph``: the
instruction name, or ``name@user`` for the private copy of a parameter,
constant or iota that has several users. When a value gains or loses its
second user it switches between the two forms; its old node is matched to
the new one so that it keeps its place. A ``ModuleDiff`` of the two passes
adds the instructions the pass renamed.
"""

from __future__ import annotations

from collections.abc import Mapping

from xlaview.analysis.drawing.graph import ComputationGraph, layout_inputs
from xlaview.analysis.drawing.records import GraphLayout, LayoutStep, Point, ProgressFn
from xlaview.analysis.drawing.step.incremental import relayout
from xlaview.analysis.passes.diff import ModuleDiff

__all__ = ["LayoutStep", "instruction_positions", "step_layout"]


def step_layout(
    previous: GraphLayout | None,
    graph: ComputationGraph,
    *,
    diff: ModuleDiff | None = None,
    keep_order: Mapping[str, float] | None = None,
    progress: ProgressFn | None = None,
) -> LayoutStep:
    """The layout of ``graph`` starting from ``previous``, the layout shown
    for the same computation at another pass (earlier or later); ``None``
    for a fresh layout. ``diff`` (old pass to new) is optional: it lets
    renamed instructions keep their place. ``keep_order``: the order a fresh
    layout keeps in each layer (``relayout``'s). ``progress`` reports and
    cancels as for ``layered_layout``. See ``layout.relayout`` for the result."""
    nodes, edges = layout_inputs(graph)
    renamed: dict[str, str] = {}
    stand_ins: set[str] = set()
    if previous is not None:
        renamed, stand_ins = _old_keys(previous, graph, diff)
    return relayout(
        previous,
        nodes,
        edges,
        renamed=renamed,
        changed=stand_ins,
        unit_of=_instruction_changed,
        keep_order=keep_order,
        progress=progress,
    )


def _instruction_changed(key: str) -> str:
    """The instruction a change to node ``key`` stands for: a private copy
    changes with its user (``name@user``), any other node is its own."""
    _, at, user = key.partition("@")
    return user if at else key


def instruction_positions(graph: ComputationGraph, layout: GraphLayout) -> dict[str, Point]:
    """``{instruction name: (x, y)}``, the scene coordinates of node centres
    as the graph view draws ``layout``. A value drawn as several private
    copies is given the place of one of them, the same whatever the order of
    the instructions (a scheduling pass reorders them all): the copy whose
    user's name sorts first."""
    positions = layout.positions
    return {name: positions[min(keys)] for name, keys in graph.nodes_of.items() if keys}


def _old_keys(
    previous: GraphLayout, graph: ComputationGraph, diff: ModuleDiff | None
) -> tuple[dict[str, str], set[str]]:
    """New node key -> the key ``previous`` knows the same node by, for keys
    it does not know as they are, and the new keys that only stand in for an
    old node (counted as changed).

    A node is the same under another key when the diff says the pass renamed
    its instruction (or its copy's user). Otherwise a value's node that lost
    its key (it gained or lost a second user, or its user was replaced)
    stands in for a new node of the same value: the copy of a replaced user
    takes the old copy's place when the new user allows it.
    """
    known = previous.positions
    old_name = {
        change.name: change.old_name
        for change in (diff.changed if diff is not None else ())
        if change.computation == graph.computation and change.old_name
    }
    unknown = [node for node in graph.nodes if node.key not in known or node.key in old_name]
    if not unknown:
        return {}, set()
    keys = {node.key for node in graph.nodes}
    lost: dict[str, list[str]] = {}  # instruction -> its old keys the new graph lacks
    for key in [key for key in known if key not in keys]:
        lost.setdefault(key.partition("@")[0], []).append(key)
    if not lost:
        return {}, set()
    lost_keys = {key for keys in lost.values() for key in keys}
    old_users: dict[str, set[str]] = {}
    for route in [route for route in previous.edges if route.source in lost_keys]:
        old_users.setdefault(route.source, set()).add(route.target)
    asking = {node.key for node in unknown}
    users: dict[str, list[str]] = {}
    for edge in [edge for edge in graph.edges if edge.source in asking]:
        users.setdefault(edge.source, []).append(edge.target)
    renamed: dict[str, str] = {}
    stand_ins: set[str] = set()
    unmatched = []
    for node in unknown:
        # The same node under its old names, or the node of the same value
        # that fed the same user.
        instruction = old_name.get(node.instruction, node.instruction)
        spare = lost.get(instruction, [])
        if node.is_copy:
            user = node.key[len(node.instruction) + 1 :]
            old_user = old_name.get(user, user)
            candidates = [f"{instruction}@{old_user}"]
            if old_user in old_users.get(instruction, ()):
                candidates.append(instruction)
        else:
            candidates = [instruction] + [
                f"{instruction}@{old_name.get(user, user)}" for user in users.get(node.key, ())
            ]
        old = next((key for key in candidates if key in spare), None)
        if old is None:
            unmatched.append((node, spare))
            continue
        spare.remove(old)
        renamed[node.key] = old
        if old != candidates[0]:
            stand_ins.add(node.key)
    for node, spare in unmatched:
        if spare:
            # Any other node of the same value; the one instruction_positions
            # reported for it first, so that the value stays put if it can.
            old = min(spare)
            spare.remove(old)
            renamed[node.key] = old
            stand_ins.add(node.key)
    return {new: old for new, old in renamed.items() if new != old}, stand_ins
