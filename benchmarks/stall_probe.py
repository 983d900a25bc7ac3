"""Where the window's GUI stalls go: ``python stall_probe.py DIR``.

Runs `gui_probe.py scale` on DIR (open, scrub, held key, step away under
analyses) and says, for every stretch of over 90 ms without a heartbeat tick,
which top-level events ran in it (``QApplication.notify`` timed: wall and the
GUI thread's CPU time, so that a wait for the GIL or for a core shows as the
difference), the child widgets' paints inside them with the Python calls each
made, and for every event over 60 ms the Python stacks of the GUI thread and
of the other threads not waiting, sampled every 2 ms by another thread. A
sample needs the GIL: a long call in C shows as the Python frame that made it.
The cyclic collector's runs over 10 ms inside a stretch are named too, and
the other threads' stacks when the sampler got the GIL back after its longest
waits in the stretch (where the thread that held it was then).
Counting the Python calls of each paint (``sys.setprofile``) makes a paint of
4,000 calls 20-40 ms longer than it is without the probe.

py-spy (``--native``) fell seconds behind on 2 cores and slowed the drive eightfold.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import io
import json
import os
import sys
import threading
import time
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import gui_probe
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

GAP_S = 0.09  # heartbeat gaps reported
EVENT_S = 0.015  # top-level events kept
PAINT_S = 0.004  # nested paints kept
SAMPLED_S = 0.06  # events whose stack samples are printed
MAIN = threading.get_ident()


def _name(obj: QObject) -> str:
    try:
        parent = obj.parent()
    except RuntimeError:  # an event it took as it was deleted (a document let go)
        return type(obj).__name__
    inside = f"<{type(parent).__name__}:{parent.objectName()}" if parent is not None else ""
    return f"{type(obj).__name__}:{obj.objectName()}{inside}"


class TimedApp(QApplication):
    """Every top-level event timed; paints of child widgets inside them, with
    the Python calls each made; the GUI thread's stack sampled during long ones."""

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv)
        self.depth = 0
        self.events: list[tuple[float, float, float, str, str]] = []  # start, wall, cpu, type, to
        self.paints: list[tuple[float, float, float, str, int]] = []  # start, wall, cpu, to, calls
        self.sampled: list[tuple[float, list[str], list[str]]] = []
        self._since: float | None = None
        self._samples: list[str] = []
        self._others: list[str] = []  # the other threads' stacks, sampled alike
        self._calls = 0
        # Every 2 ms, the other threads' stacks: (when, how long the sample
        # waited for the GIL, the stacks); for the stretches with no event.
        self.timeline: collections.deque[tuple[float, float, str]] = collections.deque(
            maxlen=100_000
        )
        threading.Thread(target=self._sample, daemon=True).start()

    def notify(self, receiver: QObject, event: QEvent) -> bool:
        if self.depth:
            return self._nested(receiver, event)
        self.depth = 1
        start, cpu = time.perf_counter(), time.thread_time()
        self._since, self._samples, self._others = start, [], []
        try:
            return super().notify(receiver, event)
        finally:
            self.depth, self._since = 0, None
            wall = time.perf_counter() - start
            if wall > EVENT_S:
                kind = event.type().name
                self.events.append((start, wall, time.thread_time() - cpu, kind, _name(receiver)))
            if wall > SAMPLED_S and self._samples:
                self.sampled.append((wall, self._samples, self._others))

    def _nested(self, receiver: QObject, event: QEvent) -> bool:
        painting = event.type() == QEvent.Type.Paint
        if painting:
            self._calls = 0
            sys.setprofile(self._count)
        self.depth += 1
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            return super().notify(receiver, event)
        finally:
            self.depth -= 1
            if painting:
                sys.setprofile(None)
                wall = time.perf_counter() - start
                if wall > PAINT_S:
                    spent = time.thread_time() - cpu
                    self.paints.append((start, wall, spent, _name(receiver), self._calls))

    def _count(self, _frame: Any, what: str, _arg: Any) -> None:
        if what in ("call", "c_call"):
            self._calls += 1

    def _sample(self) -> None:
        while True:
            asked = time.perf_counter()
            time.sleep(0.002)
            stacks = _stacks()  # (with the GIL: a long wait for it shows who held it)
            now = time.perf_counter()
            main = stacks.pop(MAIN, "")
            busy = " | ".join(s for s in stacks.values() if "wait" not in s and "_receive" not in s)
            self.timeline.append((now, now - asked - 0.002, busy or "(all waiting)"))
            since = self._since
            if since is None or now - since < 0.01:
                continue
            self._samples.append(main)
            self._others.append(busy or "(all waiting)")


def _stacks() -> dict[int, str]:
    """Each other thread's Python stack (the GUI thread's 8 frames deep, the
    rest 4), as text at once: a frame held on to keeps its locals alive, Qt
    objects' wrappers among them (holding them crashed the probe)."""
    stacks = {}
    for ident, frame in sys._current_frames().items():
        if ident == threading.get_ident():
            continue
        stack = []
        while frame is not None and len(stack) < (8 if ident == MAIN else 4):
            code = frame.f_code
            stack.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno}:{code.co_name}")
            frame = frame.f_back
        del frame
        stacks[ident] = " < ".join(stack)
    return stacks


def main() -> None:
    from xlaview.qt import theme

    sys.setswitchinterval(0.0001)  # as `xlaview.qt.app.application` sets it
    app = TimedApp(sys.argv[:1])
    theme.apply_theme(app)
    gaps: list[tuple[float, float]] = []
    tick, start = gui_probe.Heartbeat._tick, gui_probe.Heartbeat.start
    last = [time.perf_counter()]

    def timed_tick(beat: gui_probe.Heartbeat) -> None:
        now = time.perf_counter()
        if now - last[0] > GAP_S:
            gaps.append((last[0], now - last[0]))
        last[0] = now
        tick(beat)

    def timed_start(beat: gui_probe.Heartbeat) -> None:
        last[0] = time.perf_counter()
        start(beat)

    collections_seen: list[tuple[float, float, int, str]] = []  # start, wall, generation, thread
    began = [0.0]

    def collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        elif time.perf_counter() - began[0] > 0.01:
            who = threading.current_thread().name
            collections_seen.append(
                (began[0], time.perf_counter() - began[0], info["generation"], who)
            )

    gc.callbacks.append(collection)
    gui_probe.Heartbeat._tick = timed_tick  # type: ignore[method-assign]
    gui_probe.Heartbeat.start = timed_start  # type: ignore[method-assign]
    sys.argv = ["gui_probe.py", "scale", sys.argv[1]]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        gui_probe.main()
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    print({k: v for k, v in result.items() if k != "steps_s"})
    timeline = list(app.timeline)  # (the sampler goes on)
    print(f"stretches without a tick over {GAP_S * 1000:.0f} ms:")
    for at, gap in gaps:
        inside = [e for e in app.events if e[0] < at + gap and e[0] + e[1] > at]
        said = "; ".join(
            f"{e[3]} {e[4]} {e[1] * 1000:.0f} ms ({e[2] * 1000:.0f} CPU)" for e in inside
        )
        print(f"  {gap * 1000:.0f} ms: {said}")
        waits = sorted((t for t in timeline if at <= t[0] <= at + gap + 0.01), key=lambda t: -t[1])
        for _when, waited, busy in waits[:2]:
            print(f"      the sampler waited {waited * 1000:.0f} ms for the GIL; then: {busy}")
        for c in collections_seen:
            if c[0] < at + gap and c[0] + c[1] > at:
                print(f"      collection of generation {c[2]} on {c[3]}: {c[1] * 1000:.0f} ms")
        for e in inside:
            for p in app.paints:
                if e[0] <= p[0] <= e[0] + e[1]:
                    wall, cpu = p[1] * 1000, p[2] * 1000
                    print(f"      paint {p[3]}: {wall:.0f} ms ({cpu:.0f} CPU), {p[4]} calls")
    print(f"events over {SAMPLED_S * 1000:.0f} ms, the GUI thread's stacks sampled:")
    for wall, samples, others in sorted(app.sampled, key=lambda s: -s[0])[:10]:
        print(f"  {wall * 1000:.0f} ms, {len(samples)} samples:")
        for stack, n in collections.Counter(samples).most_common(4):
            print(f"    {n:3d} {stack}")
        print("    the other threads meanwhile (but those waiting):")
        for stack, n in collections.Counter(others).most_common(3):
            print(f"    {n:3d} {stack}")


if __name__ == "__main__":
    main()
