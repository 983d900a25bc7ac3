"""Run pure core functions off the GUI thread and hear back on it.

A job is a plain function. Its result (or exception) comes back through a
signal of an object that lives on the GUI thread, so callbacks always run
there. A newer job for the same slot makes older results stale: they are
dropped, which is what stepping quickly through passes needs.

Jobs run on a thread, or in a helper process (`xlaview.helper`, the
``process`` argument of `Worker.submit`) when they are long, pure Python and
need nothing of the window's objects (colouring a file): a thread running
Python takes the GIL from the GUI thread half the time, a process never does.
"""

from __future__ import annotations

import contextlib
import heapq
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QRunnable, QThreadPool, QTimer, Signal, Slot

from xlaview.collector import freeze_built, gc_paused
from xlaview.helper import HelperProcess
from xlaview.turns import right_of_way, stopping, turn

# The worker's priorities of what a step shows, first to last (others: 0).
# While a step is on its way to the screen (`Worker.hold`), only its text and
# its graph start: its parse too would take the GIL from the GUI thread
# laying the text out (30 ms of it took 60), and is not on screen.
TEXT_FIRST = 3  # the pass's text, read for the view
GRAPH_FIRST = 2  # its graph (from that text alone, or from the module)
URGENT = 1  # its parse, a fusion's body: before anything else once the step shows
# A hold that nobody released (a step whose graph never came) lets go after this.
HOLD_AT_MOST_MS = 5000
# A step on screen lets the jobs held start once no other step came for this
# long (`Worker.release_after_stay`): steps in a row, each asked as the one
# before shows, stopped the parse each one started, and waited for it to
# reach a point where it could stop (15-40 ms of every step on the remat and moe).
STAY_SHOWN_MS = 50


class _Relay(QObject):
    done = Signal(int, object)
    failed = Signal(int, object, str)
    progress = Signal(int, float)
    dropped = Signal(int)  # not run: nobody wanted it by its turn


class Cancelled(Exception):
    """Raised inside a job whose result nobody wants any more."""


def settle() -> None:
    """As a job that built a pass, its graph's layout or its costs ends (a
    million objects on a 45 MB pass): what it built leaves the cyclic
    collector's sight before the collector runs again, so that no collection
    walks it on whichever thread allocates next (`xlaview.collector`)."""
    freeze_built()


class _Job(QRunnable):
    def __init__(
        self,
        token: int,
        fn: Callable[..., Any],
        args: tuple,
        relay: _Relay,
        wants_progress: bool,
        is_current: Callable[[int], bool],
    ) -> None:
        super().__init__()
        self.token, self.fn, self.args, self.relay = token, fn, args, relay
        self.wants_progress, self.is_current = wants_progress, is_current
        self.reported: float | None = None

    def report(self, fraction: float) -> None:
        turn()  # (in `run`'s `stopping`: a job nobody wants stops there)
        # Only news goes to the GUI thread: a parse asks here every slice of
        # text read (its fraction unchanged), 450 times on a U-Net pass.
        if fraction != self.reported:
            self.reported = fraction
            _emit(self.relay.progress, self.token, fraction)

    def stop_if_unwanted(self) -> None:
        if not self.is_current(self.token):
            raise Cancelled

    def run(self) -> None:
        if not self.is_current(self.token):
            return  # superseded while it waited for a thread: nobody wants its result
        try:
            # No collection while any job runs: the GUI thread would wait
            # 30-50 ms for each one the job's allocations trigger. What the job
            # built then joins the oldest generation: left young, the first
            # allocation after the pause walked it all (15-55 ms on moe's
            # passes, finding nothing).
            with gc_paused(settle=True):
                if self.wants_progress:
                    # A job that reports progress also stops at its turns.
                    with stopping(self.stop_if_unwanted):
                        result = self.fn(*self.args, progress=self.report)
                else:
                    result = self.fn(*self.args)
        except Cancelled:
            return
        except BaseException as err:  # handed to the caller, never swallowed
            _emit(self.relay.failed, self.token, err, traceback.format_exc())
            return
        _emit(self.relay.done, self.token, result)


def _emit(signal: Any, *values: Any) -> None:
    """Emit from a worker thread or a helper's thread; the window (and the
    relay with it) may have gone away meanwhile, and then nobody listens."""
    with contextlib.suppress(RuntimeError):
        signal.emit(*values)


# Helper processes shared by every window, by lane: the text in view is
# coloured while a long scan of every pass file runs in the other lane.
_helpers: dict[str, HelperProcess] = {}


def stop_processes() -> None:
    """Stop the helper processes without waiting for their jobs (at quit)."""
    while _helpers:
        _helpers.popitem()[1].close()


_pool: QThreadPool | None = None


class _Queue:
    """The jobs waiting for the worker thread, most urgent first, then in the
    order they came. Qt's own priorities are not kept when the thread is
    idle: three jobs started at priorities 3, 2, 1 then ran as 2, 1, 3. So
    the pool runs `_Next`, one per job, each taking the best job queued then."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._heap: list[tuple[int, int, _Job]] = []
        self._count = 0

    def push(self, job: _Job, urgency: int) -> None:
        with self._lock:
            self._count += 1
            heapq.heappush(self._heap, (-urgency, self._count, job))

    def pop(self) -> _Job | None:
        with self._lock:
            return heapq.heappop(self._heap)[2] if self._heap else None

    def clear(self) -> None:
        with self._lock:
            self._heap.clear()


class _Next(QRunnable):
    def __init__(self, queue: _Queue) -> None:
        super().__init__()
        self.queue = queue

    def run(self) -> None:
        job = self.queue.pop()
        if job is not None:
            job.run()


_queue = _Queue()


def _start(job: _Job, urgency: int = 0) -> None:
    _queue.push(job, urgency)
    _thread_pool().start(_Next(_queue))


def finish(timeout_ms: int) -> bool:
    """At quit: stop the helper processes, drop queued jobs, and wait at most
    ``timeout_ms`` for the job running on the worker thread (which Python
    cannot interrupt). Whether it ended."""
    stop_processes()
    if _pool is None:
        return True
    _pool.clear()
    _queue.clear()
    return _pool.waitForDone(timeout_ms)


def _thread_pool() -> QThreadPool:
    """One worker thread, shared by every window (not Qt's global pool, which
    Qt uses too). Two would only share the GIL between them, and leave the GUI
    thread a third of it instead of half."""
    global _pool
    if _pool is None:
        _pool = QThreadPool()
        _pool.setMaxThreadCount(1)
    return _pool


class Worker(QObject):
    """Jobs by slot name; only the newest job of a slot reports back."""

    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = _thread_pool()
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_done)
        self._relay.failed.connect(self._on_failed)
        self._relay.progress.connect(self._on_progress)
        self._relay.dropped.connect(self._finish)
        self._next = 0
        self._slots: dict[str, int] = {}
        self._callbacks: dict[int, tuple[Callable, Callable | None, Callable | None]] = {}
        self._arrivals: deque[tuple[int, bool, object, str]] = deque()
        self._deliver_timer = QTimer(self)
        self._deliver_timer.setSingleShot(True)
        self._deliver_timer.setInterval(0)
        self._deliver_timer.timeout.connect(self._deliver_next)
        # While a step is on its way to the screen only its text and graph
        # start: a job already running holds the one worker thread until it
        # ends, and the module's reports (0.2 s), the kernels listed (60 ms) or
        # a diff started first delayed the text and graph of a 45 MB pass by
        # that much. The others wait here, in order, until `release`.
        self._held = False
        self._waiting: list[tuple[_Job, int]] = []
        self._hold_timer = QTimer(self)
        self._hold_timer.setSingleShot(True)
        self._hold_timer.setInterval(HOLD_AT_MOST_MS)
        self._hold_timer.timeout.connect(self.release)
        self._stay_timer = QTimer(self)
        self._stay_timer.setSingleShot(True)
        self._stay_timer.setInterval(STAY_SHOWN_MS)
        self._stay_timer.timeout.connect(self.release)

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
        process: str | None = None,
        wanted: Callable[[], bool] = lambda: True,
        urgency: int = 0,
    ) -> int:
        """Run ``fn(*args)`` (``fn(*args, progress=...)`` if ``on_progress``) on
        the worker thread, or in the helper process of lane ``process``: "view"
        (what is on screen) or "background" (scans of a whole folder). A process
        job's ``fn``, arguments and result must pickle. A job that is no longer
        ``wanted`` by its turn (the user moved on) does not run, and one that
        reports progress stops at its next report. An urgent job (what a step
        shows: ``urgency`` `URGENT` and above, higher first) goes before the
        others queued; a step's text and graph start while the rest wait
        (`hold`)."""
        token = self._register(slot, (on_done, on_error, on_progress))
        callbacks, relay = self._callbacks, self._relay

        def still_wanted(token: int) -> bool:  # on the worker's or the helper's thread
            if token not in callbacks:
                return False  # superseded by a newer job of its slot
            if wanted():
                return True
            _emit(relay.dropped, token)
            return False

        if process is None:
            job = _Job(token, fn, args, self._relay, on_progress is not None, still_wanted)
            if self._held and urgency < GRAPH_FIRST:
                # What a newer job of its slot superseded goes: steps in a row
                # hold the jobs for as long as they come, and each step's parse
                # holds its pass's text (15 MB a U-Net pass).
                self._waiting = [w for w in self._waiting if w[0].token in callbacks]
                self._waiting.append((job, urgency))
            else:
                _start(job, urgency)
            return token
        helper = _helpers.get(process) or _helpers.setdefault(process, HelperProcess())

        def deliver(ok: bool, value: Any, trace: str) -> None:  # on the helper's thread
            if ok:
                _emit(relay.done, token, value)
            else:
                _emit(relay.failed, token, value, trace)

        # A superseded job never starts: only the newest of a slot is wanted.
        helper.submit(
            fn,
            args,
            deliver,
            wanted=lambda: still_wanted(token),
            progress=(lambda f: _emit(relay.progress, token, f)) if on_progress else None,
        )
        return token

    def hold(self) -> None:
        """Start only a step's text and graph until `release` (or `HOLD_AT_MOST_MS`)."""
        self._held = True
        self._stay_timer.stop()
        self._hold_timer.start()

    def release_after_stay(self) -> None:
        """`release` once no `hold` came for `STAY_SHOWN_MS`: a step is on
        screen, and the next one may be on its way."""
        self._stay_timer.start()

    def release(self) -> None:
        """Start the jobs held, in the order they came."""
        self._held = False
        self._hold_timer.stop()
        self._stay_timer.stop()
        waiting, self._waiting = self._waiting, []
        for job, urgency in waiting:
            _start(job, urgency)

    def _register(
        self, slot: str, callbacks: tuple[Callable, Callable | None, Callable | None]
    ) -> int:
        self._next += 1
        token = self._next
        old = self._slots.get(slot)
        if old is not None:
            self._callbacks.pop(old, None)
        self._slots[slot] = token
        was_busy = self.busy
        self._callbacks[token] = callbacks
        if not was_busy:
            self.busy_changed.emit(True)
        return token

    def _finish(self, token: int) -> tuple[Callable, Callable | None, Callable | None] | None:
        callbacks = self._callbacks.pop(token, None)
        if callbacks is not None and not self._callbacks:
            self.busy_changed.emit(False)
        return callbacks

    @Slot(int, object)
    def _on_done(self, token: int, result: object) -> None:
        self._arrived(token, True, result, "")

    @Slot(int, object, str)
    def _on_failed(self, token: int, error: object, trace: str) -> None:
        self._arrived(token, False, error, trace)

    def _arrived(self, token: int, ok: bool, value: object, trace: str) -> None:
        if token not in self._callbacks:
            return  # superseded
        # One result per pass of the event loop: results that arrive together
        # (a pass, its layout, its diff) would otherwise be handled in one go,
        # and the window would neither paint nor take input meanwhile.
        self._arrivals.append((token, ok, value, trace))
        if not self._deliver_timer.isActive():
            self._deliver_timer.start()

    def _deliver_next(self) -> None:
        if not self._arrivals:
            return
        token, ok, value, trace = self._arrivals.popleft()
        if self._arrivals:
            self._deliver_timer.start()
        callbacks = self._finish(token)
        if callbacks is None:
            return  # superseded while it waited
        # Its callback shows it: with the right of way, as a paint (`xlaview.turns`).
        with right_of_way():
            if ok:
                callbacks[0](value)
            elif callbacks[1] is not None:
                callbacks[1](value, trace)
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

    def wait(self, timeout_ms: int = 60000) -> bool:
        """Process events until every job reported back (headless export, tests)."""
        from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QElapsedTimer

        timer = QElapsedTimer()
        timer.start()
        for _ in range(2):  # a job's callback may have started another
            while self.busy and timer.elapsed() < timeout_ms:
                self._pool.waitForDone(QDeadlineTimer(20))
                QCoreApplication.processEvents()
                time.sleep(0.002)  # a helper-process job: no thread to wait for
            QCoreApplication.processEvents()
        # What the jobs replaced (documents, scenes) was handed to deleteLater,
        # which processEvents never runs: run it, or memory grows with each step.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        return not self.busy

    def shutdown(self) -> None:
        """Drop every pending result and the jobs still queued (at quit): a
        queued job of this worker then returns at once (nobody wants it); the
        other windows' jobs keep their turn."""
        for slot in list(self._slots):
            self.cancel(slot)
        self._arrivals.clear()
        self._held = False
        self._waiting.clear()
