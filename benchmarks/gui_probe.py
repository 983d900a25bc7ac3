"""Measure the window in a fresh process (offscreen): ``python gui_probe.py TASK DIR``.

Prints one JSON object. A 5 ms heartbeat timer records the longest stretch the
GUI thread spent without serving events while the task ran.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

START = time.perf_counter()
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QTimer  # noqa: E402


class Heartbeat:
    """The longest gap between 5 ms ticks: how long the GUI thread was blocked."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.clock = QElapsedTimer()
        self.last = 0
        self.longest = 0

    def start(self) -> None:
        self.clock.start()
        self.last = 0
        self.longest = 0
        self.timer.start()

    def _tick(self) -> None:
        now = self.clock.elapsed()
        self.longest = max(self.longest, now - self.last)
        self.last = now

    def stop(self) -> int:
        self.timer.stop()
        return max(self.longest, self.clock.elapsed() - self.last)


def wait_until(predicate, timeout: float = 60.0) -> None:
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError
        QCoreApplication.processEvents()
        time.sleep(0.001)


def shown(window, what: str):
    """The pass whose text (``what="text_pass"``) or graph is on screen now."""
    return window.view_state()[what]


def shows(window, asked: str) -> bool:
    """Whether both the text and the graph of pass ``asked`` are on screen."""
    want = int(asked) if asked.isdigit() else asked
    return shown(window, "text_pass") == want and shown(window, "graph_pass") == want


def step_to(window, asked: str) -> float:
    """Select pass ``asked``: the time until its text and graph show."""
    start = time.perf_counter()
    window.select_pass(asked)
    wait_until(lambda: shows(window, asked), 600)
    return time.perf_counter() - start


def spin(seconds: float) -> None:
    """Serve the window's events for ``seconds`` (a user between keys)."""
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        QCoreApplication.processEvents()
        time.sleep(0.001)


def tree_rss_mb(pid: int, parts: dict[int, float] | None = None) -> float:
    """Resident memory of a process and its children (the helper processes);
    ``parts`` gets each one's, when given."""
    total = 0
    pids = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        pids.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    for p in pids:
        try:
            with open(f"/proc/{p}/statm") as f:
                rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            continue
        total += rss
        if parts is not None:
            parts[p] = max(parts.get(p, 0), rss / 1e6)
    return total / 1e6


def scrub(window, folder: str, beat: Heartbeat, back: int = 8) -> dict:
    """Open the dump, then visit every pass from the first and back through
    the middle, a step done when the text and the graph of the asked pass
    show; the longest GUI stalls and the memory of the window and its helpers."""
    parts: dict[int, float] = {}
    peak = [tree_rss_mb(os.getpid(), parts)]
    # Sampled on a thread of its own: read on the GUI thread, /proc's 65 files
    # took 20 ms a sample (80 ms at worst) while the worker and a helper held
    # both cores, and the heartbeat counted that as the window's stall.
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.wait(0.1):
            peak.append(tree_rss_mb(os.getpid(), parts))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    beat.start()
    t0 = time.perf_counter()
    window.open_dump(folder)
    wait_until(lambda: shown(window, "text_pass") is not None, 600)
    text = time.perf_counter() - t0
    wait_until(lambda: shown(window, "graph_pass") is not None, 600)
    graph = time.perf_counter() - t0
    wait_until(lambda: not window.busy, 600)
    open_stall = beat.stop()
    opened = window.model.loaded.module.instruction_count  # the module as compiled
    keys = [p.key for p in window.model.points]
    order = list(range(len(keys))) + list(range(len(keys) - 2, len(keys) - 2 - back, -1))
    steps = []
    beat.start()
    for i in order:
        steps.append(step_to(window, keys[i]))
    wait_until(lambda: not window.busy, 600)
    scrub_stall = beat.stop()
    held = hold_key(window, keys, beat)
    away = step_away(window, keys, beat)
    sampling.set()
    sampler.join()
    peak.append(tree_rss_mb(os.getpid()))
    return {
        "text_s": text,
        "text_and_graph_s": graph,
        "open_stall_ms": open_stall,
        "steps_s": steps,
        "scrub_stall_ms": scrub_stall,
        **held,
        **away,
        "peak_mb": max(peak),
        "peak_mb_by_process": {
            ("window" if p == os.getpid() else f"helper {p}"): round(v) for p, v in parts.items()
        },
        "instructions": opened,
    }


def hold_key(window, keys: list[str], beat: Heartbeat, presses: int = 30) -> dict:
    """A held-down arrow key: a step asked every 33 ms (a keyboard's repeat)
    from the first pass on, without waiting for any to show; then the time
    until the last one asked shows, and the longest GUI stall meanwhile."""
    window.select_pass(keys[0])
    wait_until(lambda: not window.busy, 600)
    beat.start()
    asked = keys[0]
    for asked in keys[1 : presses + 1]:
        window.select_pass(asked)
        spin(0.033)
    released = time.perf_counter()
    wait_until(lambda: shows(window, asked), 600)
    settled = time.perf_counter() - released
    wait_until(lambda: not window.busy, 600)
    return {"held_stall_ms": beat.stop(), "held_settle_s": settled}


def step_away(window, keys: list[str], beat: Heartbeat, stay_s: float = 3.0) -> dict:
    """With the Traffic tab's analyses wanted (its boundaries, as when the tab
    is shown), stay on a pass while they run, then step to the next one: the
    longest time until that pass's text and graph show, over three places in
    the timeline, and the longest GUI stall meanwhile."""
    window.model.boundaries.set_wanted(True)
    beat.start()
    worst = 0.0
    for at in (len(keys) // 4, len(keys) // 2, 3 * len(keys) // 4):
        window.select_pass(keys[at])
        spin(stay_s)
        worst = max(worst, step_to(window, keys[min(at + 1, len(keys) - 1)]))
        wait_until(lambda: not window.busy, 600)
    window.model.boundaries.set_wanted(False)
    return {"away_stall_ms": beat.stop(), "away_step_s": worst}


def main() -> None:
    task, folder = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None
    if task == "reference-window":  # Qt alone: an empty main window shown
        from PySide6.QtWidgets import QApplication, QMainWindow

        app = QApplication([])
        w = QMainWindow()
        w.resize(1600, 1000)
        w.show()
        app.processEvents()
        print(json.dumps({"visible_s": time.perf_counter() - START}))
        return

    from xlaview.qt.app import application
    from xlaview.qt.main_window import MainWindow

    application()
    window = MainWindow(persist=False)
    window.resize(1600, 1000)
    if task == "window":
        from xlaview.resources import sample_dump

        window.show()
        QCoreApplication.processEvents()
        visible = time.perf_counter() - START
        window.open_dump(sample_dump())
        window.wait_idle()
        print(json.dumps({"visible_s": visible, "sample_ready_s": time.perf_counter() - START}))
        return
    window.show()
    QCoreApplication.processEvents()
    beat = Heartbeat()
    if task == "open":
        beat.start()
        t0 = time.perf_counter()
        window.open_dump(folder)
        listed = time.perf_counter() - t0
        wait_until(lambda: shown(window, "text_pass") is not None)
        text = time.perf_counter() - t0
        wait_until(lambda: shown(window, "graph_pass") is not None)
        graph = time.perf_counter() - t0
        wait_until(lambda: not window.busy)  # serving events all along
        idle = time.perf_counter() - t0
        blocked = beat.stop()
        print(
            json.dumps(
                {
                    "modules_listed_s": listed,
                    "text_s": text,
                    "text_and_graph_s": graph,
                    "all_done_s": idle,
                    "gui_blocked_max_ms": blocked,
                    "instructions": window.model.loaded.module.instruction_count,
                    "graph_nodes": len(window.graph_pane.main.graph.nodes),
                }
            )
        )
        return
    if task == "step":
        window.open_dump(folder)
        window.wait_idle()
        # The last dozen passes: the module is at its final size there.
        keys = [p.key for p in window.timeline.points]
        window.select_pass(keys[max(0, len(keys) - 13)])
        window.wait_idle()
        steps = []
        beat.start()
        for _ in range(min(12, len(keys) - 1)):
            t0 = time.perf_counter()
            window.timeline.step(+1)
            asked = window.view_state()["pass"]
            wait_until(
                lambda asked=asked: (
                    shown(window, "text_pass") == asked and shown(window, "graph_pass") == asked
                )
            )
            steps.append(time.perf_counter() - t0)
            wait_until(lambda: not window.busy)
        blocked = beat.stop()
        print(
            json.dumps(
                {
                    "steps_s": steps,
                    "gui_blocked_max_ms": blocked,
                    "instructions": window.model.loaded.module.instruction_count,
                }
            )
        )
        return
    if task == "scale":  # the 1 GB dump: open, then scrub every pass (issue 12)
        print(json.dumps(scrub(window, folder, beat)))
        return
    if task == "kernel":  # folder: a dump whose convert_exponential_fusion IR is huge
        window.open_dump(folder)
        window.wait_idle()
        beat.start()
        t0 = time.perf_counter()
        window.select_instruction("convert_exponential_fusion")
        window.code_tabs.show_kernel()
        kernel = window.code_tabs.kernel.view
        wait_until(lambda: kernel.document().blockCount() > 1000)
        text_shown = time.perf_counter() - t0
        wait_until(lambda: kernel.spans is not None)
        coloured = time.perf_counter() - t0
        wait_until(lambda: not window.busy)
        print(
            json.dumps(
                {
                    "text_shown_s": text_shown,
                    "coloured_s": coloured,
                    "gui_blocked_max_ms": beat.stop(),
                    "lines": kernel.document().blockCount(),
                }
            )
        )
        return
    if task == "cost":  # the Cost tab on the shown (after-optimizations) module
        window.open_dump(folder)
        window.wait_idle()
        panel, costing = window.cost_panel, window.model.costing
        beat.start()
        t0 = time.perf_counter()
        window.bottom_tabs.setCurrentWidget(panel)
        wait_until(lambda: panel.shown is not None and bool(panel.rows_model.rows), timeout=300)
        filled = time.perf_counter() - t0
        wait_until(lambda: not window.busy)
        t0 = time.perf_counter()
        costing.set_device("mi300x")
        wait_until(lambda: panel.shown is not None and panel.shown.device.name == "mi300x")
        device = time.perf_counter() - t0
        wait_until(lambda: not window.busy)
        print(
            json.dumps(
                {
                    "cost_table_s": filled,
                    "device_switch_s": device,
                    "gui_blocked_max_ms": beat.stop(),
                    "ops": len(panel.rows_model.rows),
                    "instructions": window.model.loaded.module.instruction_count,
                }
            )
        )
        return
    raise SystemExit(f"unknown task {task}")


if __name__ == "__main__":
    main()
