"""Run pure core functions off the GUI thread and hear back on it.

A job is a plain function. Its result (or exception) comes back through a
signal of an object that lives on the GUI thread, so callbacks always run
there. A newer job for the same slot makes older results stale: they are
dropped, which is what stepping quickly through passes needs.
"""

from __future__ import annotations

import gc
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEventLoop, QObject, QRunnable, QThreadPool, Signal, Slot


class _Relay(QObject):
    done = Signal(int, object)
    failed = Signal(int, object, str)
    progress = Signal(int, float)


class Cancelled(Exception):
    """Raised inside a job whose result nobody wants any more."""


class _Job(QRunnable):
    def __init__(self, token: int, fn: Callable[..., Any], args: tuple, relay: _Relay,
                 wants_progress: bool, is_current: Callable[[int], bool]) -> None:
        super().__init__()
        self.token, self.fn, self.args, self.relay = token, fn, args, relay
        self.wants_progress, self.is_current = wants_progress, is_current

    def report(self, fraction: float) -> None:
        if not self.is_current(self.token):
            raise Cancelled
        self.relay.progress.emit(self.token, fraction)

    def run(self) -> None:
        if not self.is_current(self.token):
            return  # superseded while it waited for a thread: nobody wants its result
        try:
            if self.wants_progress:
                result = self.fn(*self.args, progress=self.report)
            else:
                result = self.fn(*self.args)
        except Cancelled:
            return
        except BaseException as err:  # shown to the user, never swallowed
            self.relay.failed.emit(self.token, err, traceback.format_exc())
            return
        self.relay.done.emit(self.token, result)


class Worker(QObject):
    """Jobs by slot name; only the newest job of a slot reports back."""

    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool.globalInstance()
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_done)
        self._relay.failed.connect(self._on_failed)
        self._relay.progress.connect(self._on_progress)
        self._next = 0
        self._slots: dict[str, int] = {}
        self._callbacks: dict[int, tuple[Callable, Callable | None, Callable | None]] = {}

    @property
    def busy(self) -> bool:
        return bool(self._callbacks)

    def submit(
        self,
        slot: str,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None],
        on_error: Callable[[BaseException, str], None] | None = None,
        on_progress: Callable[[float], None] | None = None,
    ) -> int:
        """Run ``fn(*args)`` (``fn(*args, progress=...)`` if ``on_progress``)."""
        self._next += 1
        token = self._next
        old = self._slots.get(slot)
        if old is not None:
            self._callbacks.pop(old, None)
        self._slots[slot] = token
        was_busy = self.busy
        self._callbacks[token] = (on_done, on_error, on_progress)
        if not was_busy:
            self.busy_changed.emit(True)
        job = _Job(token, fn, args, self._relay, on_progress is not None, self._callbacks.__contains__)
        self._pool.start(job)
        return token

    def _finish(self, token: int) -> tuple[Callable, Callable | None, Callable | None] | None:
        callbacks = self._callbacks.pop(token, None)
        if callbacks is not None and not self._callbacks:
            self.busy_changed.emit(False)
        return callbacks

    @Slot(int, object)
    def _on_done(self, token: int, result: object) -> None:
        callbacks = self._finish(token)
        if callbacks:
            callbacks[0](result)
        # Results are large and long-lived (a parsed module, a file's colour
        # spans): keep them out of the cyclic collector, whose full passes over
        # them otherwise stall the GUI thread for 100 ms and more, freeing nothing.
        gc.freeze()

    @Slot(int, object, str)
    def _on_failed(self, token: int, error: object, trace: str) -> None:
        callbacks = self._finish(token)
        if callbacks is None:
            return
        if callbacks[1] is not None:
            callbacks[1](error, trace)  # type: ignore[arg-type]
        else:
            raise RuntimeError(f"background job failed:\n{trace}")

    @Slot(int, float)
    def _on_progress(self, token: int, fraction: float) -> None:
        callbacks = self._callbacks.get(token)
        if callbacks and callbacks[2]:
            callbacks[2](fraction)

    def cancel(self, slot: str) -> None:
        """Drop the result of the newest job of ``slot`` (it may still run)."""
        token = self._slots.pop(slot, None)
        if token is not None:
            self._finish(token)

    def pending(self, slot: str) -> bool:
        token = self._slots.get(slot)
        return token is not None and token in self._callbacks

    def wait_for(self, slot: str, timeout_ms: int = 60000) -> bool:
        """Process events until the newest job of ``slot`` reported back."""
        from PySide6.QtCore import QCoreApplication, QElapsedTimer

        timer = QElapsedTimer()
        timer.start()
        while self.pending(slot) and timer.elapsed() < timeout_ms:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        return not self.pending(slot)

    def wait(self, timeout_ms: int = 60000) -> bool:
        """Process events until every job reported back (headless export, tests)."""
        from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QElapsedTimer

        timer = QElapsedTimer()
        timer.start()
        for _ in range(2):  # a job's callback may have started another
            while self.busy and timer.elapsed() < timeout_ms:
                self._pool.waitForDone(QDeadlineTimer(20))
                QCoreApplication.processEvents()
            QCoreApplication.processEvents()
        return not self.busy
