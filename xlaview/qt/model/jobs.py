"""Jobs for what the window shows, and the one place their late results are
dropped.

Every request of the user bumps the *generation* of what it changes: the
folder, the module, the pass, the graph, the selection... A job carries the
generations it was started for (its scope's and those of the scopes it lives
inside: a new module makes every job for the old module's passes stale); its
result is dropped when any of them moved on since.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from xlaview.errors import XlaviewError
from xlaview.qt.model.paint_gate import PaintGate
from xlaview.qt.model.workers import Worker

# Each scope of what the user asks for, with the scopes it lives inside: a new
# module makes every job for the old module's passes, graphs and selections stale.
SCOPES: dict[str, tuple[str, ...]] = {
    "folder": (),
    "module": ("folder",),
    "pass": ("folder", "module"),
    "graph": ("folder", "module", "pass"),
    "selection": ("folder", "module", "pass"),
    "kernel": ("folder", "module", "pass", "selection"),
    "history": ("folder", "module"),
    "prefetch": ("folder", "module"),
    "search": ("folder", "module", "pass"),
    "compare": ("folder",),
}


class Jobs(QObject):
    """The worker, the paint gate, and the generations of what is shown."""

    def __init__(self, parent: QObject, on_failure: Callable[[BaseException], None]) -> None:
        super().__init__(parent)
        self.worker = Worker(self)
        self.gate = PaintGate(self)
        self._on_failure = on_failure
        self._generation = dict.fromkeys(SCOPES, 0)

    def bump(self, scope: str) -> None:
        """What ``scope`` shows changes: its jobs in flight are now stale."""
        self._generation[scope] += 1

    def stamp(self, scope: str) -> tuple[int, ...]:
        return tuple(self._generation[s] for s in (*SCOPES[scope], scope))

    def submit(
        self,
        scope: str,
        slot: str,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None],
        on_progress: Callable[[float], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        process: str | None = None,
        urgency: int = 0,
    ) -> None:
        """Run ``fn(*args)`` off the GUI thread (on the worker thread, or in the
        helper process of lane ``process``) for what ``scope`` shows now; its
        result reaches ``on_done`` (a failure ``on_error``, by default a listed
        problem) unless the user moved on meanwhile. ``urgency``: what a step
        shows, `workers.URGENT` and above (see `hold`)."""
        stamp = self.stamp(scope)
        self.worker.submit(
            slot,
            fn,
            *args,
            on_done=lambda result: self.deliver(scope, stamp, on_done, result),
            on_error=lambda err, _trace: self.deliver(
                scope, stamp, on_error or self._on_failure, err
            ),
            on_progress=on_progress,
            process=process,
            wanted=lambda: stamp == self.stamp(scope),
            urgency=urgency,
        )

    def hold(self) -> None:
        """A step is on its way to the screen: until `release`, only urgent
        jobs start on the worker (the others wait their turn)."""
        self.worker.hold()

    def release(self) -> None:
        self.worker.release()

    def release_after_stay(self) -> None:
        """`release` once the user stayed a moment on what a step showed."""
        self.worker.release_after_stay()

    def after_paint(self, scope: str, key: str, work: Callable[[], None]) -> None:
        """Run ``work`` once the window has painted (the newest of each ``key``),
        unless the user moved on from what ``scope`` shows by then."""
        stamp = self.stamp(scope)
        self.gate.after_paint(key, lambda: self.deliver(scope, stamp, lambda _: work(), None))

    def after_stay(self, scope: str, key: str, work: Callable[[], None]) -> None:
        """`after_paint`, once the user has stayed on what ``scope`` shows a
        moment (`paint_gate.STAY_MS`)."""
        stamp = self.stamp(scope)
        self.gate.after_stay(key, lambda: self.deliver(scope, stamp, lambda _: work(), None))

    def after_pause(self, scope: str, key: str, work: Callable[[], None]) -> None:
        """Run ``work`` once such requests pause (`paint_gate.PAUSE_MS`),
        unless the user moved on from what ``scope`` shows by then."""
        stamp = self.stamp(scope)
        self.gate.after_pause(key, lambda: self.deliver(scope, stamp, lambda _: work(), None))

    def deliver(
        self, scope: str, stamp: tuple[int, ...], handler: Callable[[Any], None], value: Any
    ) -> None:
        """Hand ``value`` to ``handler`` if ``stamp`` is still what ``scope`` shows."""
        if stamp != self.stamp(scope):
            return  # the user moved on: not what is asked for now
        try:
            handler(value)
        except XlaviewError as err:  # the input, not a bug (anything else is one)
            self._on_failure(err)

    def cancel(self, slot: str) -> None:
        """Drop the result of the newest job of ``slot`` (it may still run)."""
        self.worker.cancel(slot)

    @property
    def busy(self) -> bool:
        return self.worker.busy or self.gate.pending

    def wait_idle(self, timeout_ms: int, before: Callable[[], None]) -> bool:
        """Process events until every job is done, work deferred until the
        window has painted included (``before`` runs what timers would)."""
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            self.gate.flush()
            before()
            self.worker.wait(max(1, int((deadline - time.monotonic()) * 1000)))
            # A result may have started more work (a prefetched pass shown, its graph).
            if not self.busy:
                return True
            if time.monotonic() > deadline:
                return False

    def shutdown(self) -> None:
        """Drop everything pending (the window closes)."""
        for scope in SCOPES:
            self.bump(scope)
        self.gate.clear()
        self.worker.shutdown()
