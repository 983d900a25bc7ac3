"""Big structures freed a piece at a time while the window is idle.

A laid-out graph of a 48-layer train step's entry is a million Python
objects (routes, their points, boxes, painter paths). Dropping the last
reference to one frees them all in one C call that holds the GIL: 20-90 ms
on the GUI thread, wherever the drop happens (a layout evicted from the view
cache, a module closed). `Releaser.release` takes such a structure instead
and takes it apart (`xlaview.turns.Apart`) over several passes of the event
loop, a few milliseconds each."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer

from xlaview.turns import Apart

DEPTH = 3  # result -> layout -> routes -> one route (dropped whole)
# A pass made ready (`xlaview.qt.model.tasks.PreparedPass`): its loaded
# module, the module, its computations, one computation, its parse, the
# instructions, one instruction (dropped whole). Left to the last reference, a
# 95,000-instruction pass of the mixture of experts took 76-100 ms to free.
PASS_DEPTH = 7
SLICE_S = 0.004  # of work per pass of the event loop
BATCH = 16  # objects freed between looks at the clock


class Releaser(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._apart = Apart(PASS_DEPTH)
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._step)

    def release(self, structure: object, depth: int = DEPTH) -> None:
        """Free ``structure`` (once nothing else holds it) bit by bit, its
        parts opened up ``depth`` levels down (at most `PASS_DEPTH`)."""
        self._apart.add(structure, depth)
        self._timer.start()

    @property
    def pending(self) -> int:
        return self._apart.pending

    def _step(self) -> None:
        deadline = time.perf_counter() + SLICE_S
        # A few at a time between looks at the clock: 512 parts of a big
        # layout took 50-80 ms to free.
        while time.perf_counter() < deadline:
            if not self._apart.free(BATCH):
                self._timer.stop()
                return
