"""Scrubbing passes: how still the picture holds, at what cost and quality.
``python benchmarks/layout_step_bench.py [--layers 10] [--fused 2] [--repeat 3]``
(also ``python benchmarks/run.py layout_step``).

The input is the GPT train-step dump of ``benchmarks/run.py``: every pass
of its main module, stepped one at a time as the graph view does (each
layout starts from the one shown before, ``step_layout``), for the entry
computation and the largest fused computations that passes change. For each
step it prints:

- the instructions the pass changed in the computation (``diff_modules``);
- the instructions in both passes whose node moved more than 1 px, of all
  of them, and the median and largest move: the step's (``step``), and
  today's reference, a fresh layout pulled towards the previous x
  (``pull``, what the view did before issue 18);
- whether the step was laid out afresh, and why;
- the CPU time of the step against a fresh layout in the same run (least
  of ``--repeat``; both from the graph, ``layout_inputs`` included; a large
  step also lays out afresh to compare), and the quality of the layout shown (edge crossings, total
  edge length, width, edges left pointing up) against that fresh layout.

A summary per computation follows. Graphs are built as the view builds
them.
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).parent))
from run import gpt_dump
from timing import main_module

from xlaview.analysis.drawing import GraphLayout, layered_layout, layout_quality
from xlaview.analysis.drawing.graph import ComputationGraph, build_graph, layout_inputs
from xlaview.analysis.drawing.pass_layout import instruction_positions, step_layout
from xlaview.analysis.passes.diff import diff_modules
from xlaview.dump.index import index_dump
from xlaview.dump.records import DumpModule
from xlaview.hlo import Module, parse_module

T = TypeVar("T")
STILL = 1.0  # px


def best(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    """The least CPU time of ``fn`` over ``repeat`` runs, and its result.
    CPU time, not wall time: on a machine shared with other work (these
    benchmarks run on two cores shared by several), wall times of a few tens
    of milliseconds mostly measure the neighbours."""
    times = []
    result: T | None = None
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    assert result is not None
    return min(times), result


def passes(
    module: DumpModule, computation: str | None
) -> Iterator[tuple[str, Module, ComputationGraph]]:
    """Each pass where the computation (the entry when None) exists and its
    graph changed, parsed one at a time."""
    last: ComputationGraph | None = None
    for label, dump_file in module.timeline():
        parsed = parse_module(dump_file.path.read_text())
        if computation is None:
            comp = parsed.entry
        elif parsed.has_computation(computation):
            comp = parsed.computation(computation)
        else:
            continue
        if comp is None:
            continue
        graph = build_graph(parsed, comp)
        if graph != last:
            yield label, parsed, graph
            last = graph


def fused_computations(module: DumpModule, count: int) -> list[str]:
    """The largest non-entry computations that at least two passes change."""
    versions: dict[str, set[int]] = {}
    sizes: dict[str, int] = {}
    for _, dump_file in module.timeline():
        parsed = parse_module(dump_file.path.read_text())
        for comp in parsed.computations:
            if comp is parsed.entry or len(comp.instructions) < 5:
                continue
            shape = hash(tuple((i.name, i.opcode, i.operand_names) for i in comp.instructions))
            versions.setdefault(comp.name, set()).add(shape)
            sizes[comp.name] = max(sizes.get(comp.name, 0), len(comp.instructions))
    changing = [name for name, seen in versions.items() if len(seen) >= 2]
    return sorted(changing, key=lambda name: (-sizes[name], name))[:count]


def moves(
    before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]]
) -> tuple[int, int, float, float]:
    """(moved, common, median move, largest move) over instructions in both."""
    distances = [math.dist(before[k], after[k]) for k in before if k in after]
    if not distances:
        return 0, 0, 0.0, 0.0
    moved = sum(1 for d in distances if d > STILL)
    return moved, len(distances), statistics.median(distances), max(distances)


def scrub(module: DumpModule, computation: str | None, repeat: int) -> None:
    name = computation or "entry computation"
    print(f"\n{name}")
    print(
        f"{'step':>11} {'nodes':>6} {'chg':>4}  {'step: moved / common':>20} {'median':>6} "
        f"{'max':>7}  {'pull: moved':>11} {'median':>6}  {'step ms':>7} {'fresh ms':>8} "
        f"{'ratio':>5}  {'crossings':>11} {'length':>6} {'width':>6} {'up':>3}  fresh?"
    )
    shown: GraphLayout | None = None
    last: tuple[str, Module, ComputationGraph] | None = None
    rows = []
    for label, parsed, graph in passes(module, computation):
        nodes, edges = layout_inputs(graph)
        if shown is None or last is None:
            shown = step_layout(None, graph).layout
            last = (label, parsed, graph)
            continue
        old_label, old_module, old_graph = last
        diff = diff_modules(old_module, parsed)
        comp_name = graph.computation
        changes = (
            sum(1 for a in diff.added if a.computation == comp_name)
            + sum(1 for r in diff.removed if r.computation == comp_name)
            + sum(1 for c in diff.changed if c.computation == comp_name)
        )
        previous = shown
        step_s, step = best(lambda p=previous, g=graph, d=diff: step_layout(p, g, diff=d), repeat)
        fresh_s, fresh = best(lambda g=graph: layered_layout(*layout_inputs(g)), repeat)
        old_x = {key: x for key, (x, _) in previous.positions.items()}
        pull = layered_layout(nodes, edges, previous=old_x)
        before = instruction_positions(old_graph, previous)
        moved, common, median, largest = moves(before, instruction_positions(graph, step.layout))
        pull_moved, _, pull_median, _ = moves(before, instruction_positions(graph, pull))
        ours, theirs = layout_quality(step.layout), layout_quality(fresh)
        length = ours.edge_length / theirs.edge_length if theirs.edge_length else 1.0
        width = ours.width / theirs.width if theirs.width else 1.0
        print(
            f"{old_label:>5}->{label:<5} {len(nodes):>6} {changes:>4}  {moved:>9,} / {common:<8,} "
            f"{median:>6.0f} {largest:>7.0f}  {pull_moved:>11,} {pull_median:>6.0f}  "
            f"{step_s * 1000:>7.1f} {fresh_s * 1000:>8.1f} {step_s / fresh_s:>5.2f}  "
            f"{ours.crossings:>5}/{theirs.crossings:<5} {length:>6.2f} {width:>6.2f} "
            f"{ours.upward:>3}  {step.reason if step.fresh else ''}",
            flush=True,
        )
        rows.append(
            (
                changes,
                moved,
                common,
                median,
                pull_moved,
                step_s,
                fresh_s,
                step.fresh,
                ours.crossings,
                theirs.crossings,
                length,
                width,
                len(nodes),
            )
        )
        shown = step.layout
        last = (label, parsed, graph)
    summarize(rows)


def summarize(rows: list[tuple]) -> None:
    if not rows:
        print("no step changed this computation")
        return
    kept = [r for r in rows if not r[7]]
    few = [r for r in kept if r[0] <= 5]
    print(f"steps: {len(rows)}, laid out afresh: {len(rows) - len(kept)}")
    if few:
        share = [1 - r[1] / r[2] for r in few if r[2]]
        print(
            f"steps changing <= 5 instructions: {len(few)}; unchanged share (nodes still / "
            f"common) min {min(share):.1%}, median {statistics.median(share):.1%}; "
            f"median move {max(r[3] for r in few):.0f} px at most; today's pull moved a median "
            f"of {statistics.median(r[4] for r in few):.0f} nodes per step"
        )
    if kept:
        # Small steps are always incremental; larger ones are also laid out
        # afresh to compare (the core counts changes by its own units; the
        # instructions the diff reports are close to them).
        small = [r[5] / r[6] for r in kept if r[0] <= max(25, 0.02 * r[12])]
        large = [r[5] / r[6] for r in kept if r[0] > max(25, 0.02 * r[12])]
        for name, ratios in (("small", small), ("larger", large)):
            if ratios:
                print(
                    f"incremental {name} steps: {len(ratios)}, time / fresh median "
                    f"{statistics.median(ratios):.2f}, worst {max(ratios):.2f}"
                )
        print(
            f"incremental steps: crossings step/fresh summed {sum(r[8] for r in kept):,} / "
            f"{sum(r[9] for r in kept):,}; edge length ratio median "
            f"{statistics.median(r[10] for r in kept):.2f}, worst {max(r[10] for r in kept):.2f}; "
            f"width ratio median {statistics.median(r[11] for r in kept):.2f}, worst "
            f"{max(r[11] for r in kept):.2f}"
        )


def run(folder: Path, fused: int = 3, repeat: int = 5) -> None:
    module = main_module(index_dump(folder))
    print(
        f"input: {folder} ({module.key}, {len(module.passes)} passes); CPU times, least of "
        f"{repeat}; quality as step/fresh"
    )
    scrub(module, None, repeat)
    for computation in fused_computations(module, fused):
        scrub(module, computation, repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--layers", type=int, default=10, help="GPT depth of the real dump")
    ap.add_argument("--fused", type=int, default=3, help="fused computations to scrub too")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per layout (best kept)")
    args = ap.parse_args()
    run(gpt_dump(args.layers), args.fused, args.repeat)


if __name__ == "__main__":
    main()
