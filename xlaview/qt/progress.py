"""The status bar's progress: a fraction done, or how long work has gone on.

Work whose end is not known shows the seconds it has taken (a paint a
second), not Qt's busy bar: that one is animated by the style at 60 frames a
second, and each frame is a paint of the window's status bar, taken with the
GUI thread's right of way (`xlaview.turns`) from the worker doing that work.
Stepping the first 19 passes of the mixture-of-experts benchmark in the
window (2-core machine, one run after the other), the four steps that fold
their graph afresh took 2.4-3.3 s with the busy bar and 1.8-2.6 s with the
seconds; the window painted 2,306 times against 174.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QTimer
from PySide6.QtGui import QHideEvent
from PySide6.QtWidgets import QProgressBar, QWidget

# How often the seconds of work with no known end are said again.
TICK_MS = 500


class ProgressBar(QProgressBar):
    """A progress bar that paints with the window's next paint, not at once:
    `QProgressBar.setValue` repaints on the spot, and in a status bar that
    paints every part of the window waiting to be painted (the graph, the
    text), a hundred milliseconds per progress report. With no fraction
    known, an empty bar says "working" and for how long."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setRange(0, 100)
        self.setValue(0)
        self._busy_since = QElapsedTimer()
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._say_busy)

    def set_fraction(self, fraction: float | None) -> None:
        """Show ``fraction`` done, or that work goes on (None)."""
        if fraction is None:
            if not self._tick.isActive():
                self._busy_since.start()
                self._tick.start()
                self._set(0, "working …")
            return
        self._tick.stop()
        self._set(int(fraction * 100), "")

    def busy_text(self) -> str:
        """What the bar says: "working …" and the seconds, or nothing while it shows a fraction."""
        return self.format() if self.isTextVisible() else ""

    def hideEvent(self, event: QHideEvent) -> None:
        self._tick.stop()
        super().hideEvent(event)

    def _say_busy(self) -> None:
        seconds = self._busy_since.elapsed() // 1000
        self._set(0, f"working … {seconds} s" if seconds else "working …")

    def _set(self, value: int, text: str) -> None:
        if (value, text) == (self.value(), self.busy_text()):
            return
        self.setUpdatesEnabled(False)  # setValue's repaint does nothing ...
        self.setTextVisible(bool(text))
        self.setFormat(text)
        self.setValue(value)
        self.setUpdatesEnabled(True)  # ... and this asks for a paint later
