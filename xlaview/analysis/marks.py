"""What the views mark for a pass's changes and its memory traffic: lines of
the text, instructions of the graph, widths of its edges.

Pure decisions from core results, kept out of the views so they are tested
without Qt.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from xlaview.analysis.drawing.graph import ComputationGraph
from xlaview.analysis.passes.diff import ModuleDiff
from xlaview.analysis.traffic import Traffic
from xlaview.hlo import Module

LineRanges = tuple[tuple[int, int], ...]  # 1-based, inclusive
MARKS_BETWEEN_CHECKS = 1024  # instructions of a diff marked between two checks


@dataclass(frozen=True, slots=True)
class DiffMarks:
    """A diff as the views show it, against the module after the pass."""

    added_lines: LineRanges = ()  # sorted, overlapping and touching ranges joined
    changed_lines: LineRanges = ()
    status: dict[str, str] = field(default_factory=dict)  # instruction -> "added" / "changed"
    removed: dict[str, tuple[str, ...]] = field(default_factory=dict)  # computation -> names


NO_MARKS = DiffMarks()


def merged_ranges(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Line ranges sorted, the overlapping and touching ones joined (a fusion
    pass changes thousands of consecutive lines: one highlight, not thousands)."""
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
        else:
            merged.append((first, last))
    return merged


def diff_marks(
    diff: ModuleDiff | None, module: Module, check: Callable[[], None] | None = None
) -> DiffMarks:
    """Lines and instructions to colour for ``diff`` in ``module`` (the newer
    side); ``check()``, if given, is called now and then (it may raise to stop:
    a U-Net's fusion pass adds 10,000 fusions, 70 ms here)."""
    if diff is None:
        return NO_MARKS
    added: list[tuple[int, int]] = []
    changed: list[tuple[int, int]] = []
    status: dict[str, str] = {}
    marked = 0
    for items, out, kind in ((diff.added, added, "added"), (diff.changed, changed, "changed")):
        for item in items:
            marked += 1
            if check is not None and not marked % MARKS_BETWEEN_CHECKS:
                check()
            if module.has_computation(item.computation) and item.name in module.computation(
                item.computation
            ):
                span = module.computation(item.computation).instruction(item.name).span
                out.append((span.line, module.last_line(span)))
                status[item.name] = kind
    for name in diff.computations_added:
        if module.has_computation(name):
            comp = module.computation(name)
            added.append((comp.span.line, module.last_line(comp.span)))
    removed: dict[str, list[str]] = {}
    for r in diff.removed:
        removed.setdefault(r.computation, []).append(r.name)
    # Merged here, on the worker: the view merges what it is given again, and
    # a pass that fused 50,000 ops had it sort them on the GUI thread.
    return DiffMarks(
        tuple(merged_ranges(added)),
        tuple(merged_ranges(changed)),
        status,
        {c: tuple(names) for c, names in removed.items()},
    )


MIN_EDGE_WIDTH, MAX_EDGE_WIDTH = 2.0, 16.0


def traffic_edge_widths(
    traffic: Traffic | None,
    graph: ComputationGraph,
    bundles: Mapping[tuple[str, str], int] | None = None,
) -> dict[tuple[str, str], float]:
    """Pen widths by edge (node keys) for the bytes each intermediate moves:
    by the log of the bytes, so that 1 MiB and 1 GiB both show. ``bundles``:
    the bytes of a folded graph's bundled edges (`xlaview.analysis.folding`),
    widths on the same scale."""
    if traffic is None:
        return {}
    by_pair: dict[tuple[str, str], int] = {}
    for i in traffic.intermediates:
        producer = i.producer_instruction
        for consumer in i.consumers:
            by_pair[(producer, consumer)] = max(by_pair.get((producer, consumer), 0), i.bytes)
    if not by_pair:
        return {}
    largest = max(max(by_pair.values()), max((bundles or {}).values(), default=0))
    instruction = {n.key: n.instruction for n in graph.nodes}
    widths: dict[tuple[str, str], float] = {}
    for edge in graph.edges:
        size = by_pair.get((instruction[edge.source], instruction[edge.target]))
        if size:
            widths[(edge.source, edge.target)] = MIN_EDGE_WIDTH + (
                MAX_EDGE_WIDTH - MIN_EDGE_WIDTH
            ) * math.log2(1 + size) / math.log2(1 + largest)
    for pair, size in (bundles or {}).items():
        if size:
            widths[pair] = MIN_EDGE_WIDTH + (MAX_EDGE_WIDTH - MIN_EDGE_WIDTH) * math.log2(
                1 + size
            ) / math.log2(1 + largest)
    return widths


@dataclass(frozen=True, slots=True)
class SelectionLines:
    """The text lines of a selected instruction and of what it touches."""

    selection: LineRanges
    blocks: LineRanges  # computations it calls (a fusion's body)
    operands: LineRanges
    users: LineRanges


def selection_lines(module: Module, computation: str, name: str) -> SelectionLines:
    """Lines to mark in the text for instruction ``name`` of ``computation``."""
    comp = module.computation(computation)
    instr = comp.instruction(name)
    blocks = []
    for called in instr.called_computations:
        if module.has_computation(called):
            span = module.computation(called).span
            blocks.append((span.line, module.last_line(span)))
    operands = {o for o in instr.operand_names if o in comp}
    users = {i.name for i in comp.instructions if name in i.operand_names}

    def lines(names: set[str]) -> LineRanges:
        return tuple((comp.instruction(n).span.line,) * 2 for n in sorted(names))

    return SelectionLines(
        ((instr.span.line, module.last_line(instr.span)),),
        tuple(blocks),
        lines(operands),
        lines(users),
    )
