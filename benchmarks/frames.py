"""Frames of the graph view while panning and zooming, and folding's times:
``python benchmarks/frames.py`` (issue 27).

Inputs: the 48-layer GPT step's 15,646-node entry (``benchmarks/run.py``'s
cached dump) fully open and folded, and a synthetic chain of 100,000 adds (an
HLO text written here: no program makes one that long). Each figure is a
frame's time (a repaint of the graph view's viewport, median and worst of a
pan and of a zoom sequence), against the repaint of an empty graphics view
of the same size measured in the same run; folded open and a group's open and
close times against the same run's fully open layout. A frame is smooth under
16 ms (60 frames a second).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
FRAME_GOAL_MS = 16.0


def chain_dump(out: Path, length: int = 100_000) -> Path:
    """A dump folder whose only module is a chain of ``length`` adds."""
    lines = ["HloModule chain, entry_computation_layout={(f32[4]{0})->f32[4]{0}}", ""]
    lines.append("ENTRY %main (p: f32[4]) -> f32[4] {")
    lines.append("  %p = f32[4]{0} parameter(0)")
    previous = "p"
    for i in range(length):
        root = "ROOT " if i == length - 1 else ""
        lines.append(f"  {root}%add.{i} = f32[4]{{0}} add(%{previous}, %p)")
        previous = f"add.{i}"
    lines.append("}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "module_0000.chain.cpu_after_optimizations.txt").write_text("\n".join(lines) + "\n")
    return out


def _frames(window, app) -> dict:
    """Frame times (ms) of a pan across and a zoom in and out of the main graph."""
    view = window.graph_pane.main

    def frame() -> float:
        start = time.perf_counter()
        view.viewport().repaint()
        return (time.perf_counter() - start) * 1000

    view.show_start()
    app.processEvents()
    pan = []
    for _ in range(40):
        bar = view.horizontalScrollBar() if _ % 2 else view.verticalScrollBar()
        bar.setValue(bar.value() + 150)
        pan.append(frame())
    zoom = []
    for k in range(30):
        view.zoom(0.8 if k < 15 else 1.25)
        zoom.append(frame())
    return {
        "pan_median_ms": statistics.median(pan),
        "pan_worst_ms": max(pan),
        "zoom_median_ms": statistics.median(zoom),
        "zoom_worst_ms": max(zoom),
    }


def probe(folder: str, grouping: str) -> dict:
    """In this process: the window on ``folder``'s main graph, grouped so."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

    from xlaview.qt.app import application
    from xlaview.qt.main_window import MainWindow

    app = application()
    window = MainWindow(persist=False)
    window.resize(1600, 1000)
    window.show()
    start = time.perf_counter()
    window.open_dump(folder)
    while window.view_state()["graph_pass"] is None:
        app.processEvents()
        time.sleep(0.001)
    opened = time.perf_counter() - start  # the graph on screen, as it opens (folded if big)
    window.wait_idle()
    start = time.perf_counter()
    window.set_graph_grouping(grouping)
    window.wait_idle()
    laid_out = time.perf_counter() - start
    result = {
        "grouping": grouping,
        "opened_s": opened,
        "laid_out_s": laid_out,
        **window_boxes(window),
    }
    result.update(_frames(window, app))
    if grouping != "none":
        groups = [g for g in window.view_state()["graph_groups"] if not g["open"]]
        if groups:
            name = max(groups, key=lambda g: g["nodes"])["name"]
            start = time.perf_counter()
            window.open_group(name)
            window.wait_idle()
            result["open_group_s"] = time.perf_counter() - start
            start = time.perf_counter()
            window.close_group(name)
            window.wait_idle()
            result["close_group_s"] = time.perf_counter() - start
            result["group"] = name
    empty = QGraphicsView(QGraphicsScene())
    empty.resize(window.graph_pane.main.size())
    empty.show()
    app.processEvents()
    times = []
    for _ in range(20):
        t = time.perf_counter()
        empty.viewport().repaint()
        times.append((time.perf_counter() - t) * 1000)
    result["empty_view_frame_ms"] = statistics.median(times)
    return result


def fold_ratio(folder: Path) -> str:
    """The core's folding of the entry (graph built, then folded by scope),
    best of 3, as the window's worker runs it (no cyclic collection), against
    XLA's parse of the same text, best of 3, this run."""
    from jax._src.lib import xla_client
    from timing import after_optimizations, best_of

    from xlaview.analysis.drawing import build_graph
    from xlaview.analysis.folding import fold_graph
    from xlaview.collector import gc_paused
    from xlaview.dump.modules import load_module

    path = after_optimizations(folder)
    module = load_module(path).module
    entry = module.entry

    def fold() -> None:
        with gc_paused():
            fold_graph(build_graph(module, entry), entry)

    folded = best_of(fold, 3)[0]
    text = path.read_text()
    xla = best_of(lambda: xla_client.hlo.hlo_module_from_text(text), 3)[0]
    return f"build and fold the entry {folded:.2f} s, XLA's parse {xla:.2f} s: {folded / xla:.2f} R"


def window_boxes(window) -> dict:
    state = window.view_state()
    return {"boxes": state["graph_boxes"], "nodes": len(window.graph_pane.main.graph.nodes)}


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "probe":
        print(json.dumps(probe(sys.argv[2], sys.argv[3])))
        return
    sys.path.insert(0, str(HERE))
    from run import gpt_dump

    with tempfile.TemporaryDirectory() as tmp:
        inputs = {"gpt48 entry": gpt_dump(48), "100k chain": chain_dump(Path(tmp) / "chain")}
        for label, folder in inputs.items():
            print(f"  {label}: {fold_ratio(folder)}", flush=True)
            for grouping in ("none", "scope", "repeats"):
                out = subprocess.run(
                    [sys.executable, __file__, "probe", str(folder), grouping],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                r = json.loads(out.strip().splitlines()[-1])
                worst = max(r["pan_worst_ms"], r["zoom_worst_ms"])
                mark = "ok  " if worst < FRAME_GOAL_MS else "MISS"
                line = (
                    f"  {mark} {label}, {grouping:<7} {r['nodes']:>7,} nodes, {r['boxes']:>6,} "
                    f"boxes: frame pan {r['pan_median_ms']:.1f}/{r['pan_worst_ms']:.1f} ms, "
                    f"zoom {r['zoom_median_ms']:.1f}/{r['zoom_worst_ms']:.1f} ms (median/worst; "
                    f"goal < {FRAME_GOAL_MS:.0f} ms; an empty view {r['empty_view_frame_ms']:.1f}"
                    f" ms); graph on screen {r['opened_s']:.2f} s after open, "
                    f"regrouped in {r['laid_out_s']:.2f} s"
                )
                if "open_group_s" in r:
                    line += (
                        f"; {r['group']} opened in {r['open_group_s'] * 1000:.0f} ms, "
                        f"closed in {r['close_group_s'] * 1000:.0f} ms (goal < 200 ms)"
                    )
                print(line, flush=True)


if __name__ == "__main__":
    main()
