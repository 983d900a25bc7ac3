"""Work that waits until the window has painted what is on screen.

Work for what is not on screen yet (the next pass, the diff, the traffic)
starts once the window has painted what is: a job running meanwhile would
take the GIL from the paint half the time.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer

from xlaview.turns import right_of_way

AT_MOST_MS = 150  # when nothing needed painting
# Work for a big pass starts once the user has stayed on it this long: a scrub
# (a held-down arrow key, steps in a row) does not start it for every pass.
STAY_MS = 300
# A step asked before the one before it showed (a held-down arrow key repeats
# every 33 ms) reads its graph and parse once the steps pause this long: each
# started meanwhile held the worker until it ended, and the last step waited.
PAUSE_MS = 60


class PaintGate(QObject):
    """Runs the newest work of each key just after the next paint."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._work: dict[str, Callable[[], None]] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.flush)
        self._staying: dict[str, Callable[[], None]] = {}
        self._stay = QTimer(self)
        self._stay.setSingleShot(True)
        self._stay.setInterval(STAY_MS)
        self._stay.timeout.connect(self._stayed)
        self._pausing: dict[str, Callable[[], None]] = {}
        self._pause = QTimer(self)
        self._pause.setSingleShot(True)
        self._pause.setInterval(PAUSE_MS)
        self._pause.timeout.connect(self._paused)

    def watch(self, window: QObject) -> None:
        """Hear ``window``'s paints (its update requests: a widget's, a window's)."""
        window.installEventFilter(self)

    @property
    def pending(self) -> bool:
        return bool(self._work or self._staying or self._pausing)

    def after_paint(self, key: str, work: Callable[[], None]) -> None:
        self._work.pop(key, None)
        self._work[key] = work
        if not self._timer.isActive():
            self._timer.start(AT_MOST_MS)

    def after_stay(self, key: str, work: Callable[[], None]) -> None:
        """Run ``work`` (the newest of each ``key``) once no work has been
        asked for `STAY_MS`, after the next paint."""
        self._staying.pop(key, None)
        self._staying[key] = work
        self._stay.start()

    def after_pause(self, key: str, work: Callable[[], None]) -> None:
        """Run ``work`` (the newest of each ``key``) once no work of any key
        has been asked this way for `PAUSE_MS`."""
        self._pausing.pop(key, None)
        self._pausing[key] = work
        self._pause.start()

    def _paused(self) -> None:
        work, self._pausing = self._pausing, {}
        for run in work.values():
            run()

    def _stayed(self) -> None:
        for key, work in self._staying.items():
            self.after_paint(key, work)
        self._staying = {}

    def flush(self) -> None:
        """Run what waits, now (what waits for a stay too)."""
        self._timer.stop()
        self._stay.stop()
        self._pause.stop()
        work, self._work = {**self._pausing, **self._work, **self._staying}, {}
        self._staying = {}
        self._pausing = {}
        for run in work.values():
            run()

    def clear(self) -> None:
        self._timer.stop()
        self._stay.stop()
        self._pause.stop()
        self._work = {}
        self._staying = {}
        self._pausing = {}

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.UpdateRequest:
            return False
        if self._work:
            self._timer.start(0)  # just after this paint
        # The paint, now, with the right of way (`xlaview.turns`): a worker
        # waits at its next turn until it ends (at most 40 ms).
        with right_of_way():
            watched.event(event)
        return True
