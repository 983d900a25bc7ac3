"""A helper process for long pure-Python jobs (no Qt).

Python threads share one GIL: a thread that lexes a file for a second takes
the interpreter from the GUI thread about half of that time, and the window
stutters. A job that needs none of the window's objects (colouring a file's
text) runs instead in one child Python process, which never holds our GIL.

The child is started on first use with ``python -c`` (never by re-importing
the parent's main script, as `multiprocessing` does: a user's script without
an ``if __name__ == "__main__"`` guard would open a second window). Jobs go
one at a time over its stdin, results come back over a private pipe, as
pickles: a job's function, arguments and result must pickle, and its result
should be cheap to unpickle (arrays, not millions of small objects).

The child dies with its parent, even in the middle of a job that never ends
(a read that blocks, a loop): on Linux the kernel kills it when the parent
goes (``PR_SET_PDEATHSIG``); everywhere, a thread of the child watches its
end of the job pipe and exits the child when the parent's end closes, as it
does when the parent exits or is killed.
"""

from __future__ import annotations

import ctypes
import io
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable
from typing import IO, Any, BinaryIO

from xlaview.collector import gc_paused, release_memory
from xlaview.errors import XlaviewError
from xlaview.turns import turn

NICENESS = 10
MAX_DEATHS = 3  # children that die in a row before jobs run in this process instead
# The argument a frozen (PyInstaller) xlaview takes to be the helper instead.
FROZEN_HELPER_ARG = "--xlaview-helper"
# The parent's pid, given to the child: it exits at once if the parent is
# already gone by the time it asked to be killed with it.
PARENT_ENV = "XLAVIEW_HELPER_PARENT"
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

Deliver = Callable[[bool, Any, str], None]  # (ok, result or error, traceback text)
Progress = Callable[[float], None]
# A job as the child reads it: (function, arguments, whether it reports progress).
_Job = tuple[Callable[..., Any], tuple[Any, ...], bool]


class HelperDied(XlaviewError, RuntimeError):
    """The helper process died while it ran a job (the job is not run again)."""

    def __init__(self, fn: Callable[..., Any] | str, status: int | None = None) -> None:
        name = fn if isinstance(fn, str) else getattr(fn, "__name__", repr(fn))
        how = ""
        if status is not None and status < 0:
            how = f" (signal {-status}{': out of memory?' if -status == signal.SIGKILL else ''})"
        elif status:
            how = f" (exit status {status})"
        super().__init__(f"the helper process died running {name}{how}")
        self.fn_name, self.status = name, status

    def __reduce__(self) -> tuple[type[HelperDied], tuple[str, int | None]]:
        return (HelperDied, (self.fn_name, self.status))


def _send(stream: IO[bytes], obj: object) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(8, "little"))
    stream.write(data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError
    size = int.from_bytes(header, "little")
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    # A U-Net pass's boundaries are 330,000 records: loaded with the collector
    # on, their allocations set off a full collection of the window's heap
    # (855 ms with the GIL held, on this reader thread: the window stalled).
    with gc_paused(settle=True):
        return pickle.Unpickler(_InTurns(data)).load()


class _InTurns:
    """A pickle read a frame at a time, a turn (`xlaview.turns.turn`) before
    each: the unpickler asks for the next frame (64 KiB) through ``read``, so
    the interpreter changes hands between frames. ``pickle.loads`` is one call
    in C: a 7.7 MB result (a U-Net pass's analysis) held the GIL 182 ms on the
    window's reader thread, 5.3 MB on the GPT-48 70 ms; a frame is 1-2 ms."""

    def __init__(self, data: bytes) -> None:
        self._stream = io.BytesIO(data)
        self.readline = self._stream.readline
        self.readinto = self._stream.readinto

    def read(self, size: int = -1) -> bytes:
        turn()
        return self._stream.read(size)


def _die_with_parent() -> None:
    """Have the kernel kill this process when its parent dies (Linux), and
    exit now if that parent is already gone."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no libc to ask: the pipe watch still holds
            pass
    parent = os.environ.get(PARENT_ENV, "")
    if parent.isdigit() and os.getppid() != int(parent):
        os._exit(0)  # reparented already: the parent died before prctl


def _watch_jobs(jobs: BinaryIO, inbox: queue.SimpleQueue[_Job | Exception]) -> None:
    """Read jobs from the parent into ``inbox``; when the pipe closes (the
    parent exited, was killed, or is done with us), end this process, even
    while a job runs: a job blocked for ever must not outlive its window."""
    while True:
        try:
            inbox.put(_receive(jobs))
        except EOFError:
            os._exit(0)
        except Exception as err:
            inbox.put(err)


def serve() -> None:
    """The child's loop: run each job read from stdin, write its outcome back
    (and its progress reports before it, for a job that reports)."""
    _die_with_parent()
    # The window comes first: on a machine with few cores, a helper running at
    # the same priority takes turns on a core with the GUI thread.
    os.nice(NICENESS)
    inbox: queue.SimpleQueue[_Job | Exception] = queue.SimpleQueue()
    threading.Thread(
        target=_watch_jobs, args=(sys.stdin.buffer, inbox), daemon=True, name="xlaview-helper-watch"
    ).start()
    # Results go to the original stdout; anything a job prints goes to stderr.
    results = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    def report(fraction: float) -> None:
        _send(results, ("progress", fraction))

    while True:
        job = inbox.get()
        if isinstance(job, Exception):
            _send(results, ("done", False, job, ""))
            continue
        fn, args, wants_progress = job
        ok, value, trace = _run_here(fn, args, report if wants_progress else None)
        try:
            _send(results, ("done", ok, value, trace))
        except (pickle.PicklingError, TypeError, AttributeError) as err:
            error = RuntimeError(f"{fn.__name__}: {err}")
            _send(results, ("done", False, error, traceback.format_exc()))
        del job, fn, args, value
        release_memory()  # 35 ms after a 45 MB module's boundaries, 11 ms after a small job


def _run_here(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    progress: Progress | None,
) -> tuple[bool, Any, str]:
    """(ok, result or error, traceback text) of a job run in this process:
    the child's way of running one, and the way when no child can run it."""
    try:
        return True, fn(*args, progress=progress) if progress else fn(*args), ""
    except BaseException as err:  # delivered to the caller, which shows it
        return False, err, traceback.format_exc()


def helper_command() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable, FROZEN_HELPER_ARG]
    paths = [p for p in sys.path if p]  # so the child imports what we import
    boot = f"import sys; sys.path[:0] = {paths!r}; from xlaview.helper import serve; serve()"
    return [sys.executable, "-c", boot]


class HelperProcess:
    """Runs jobs in one child process, in order, skipping those no longer wanted.

    ``deliver`` is called on this object's thread, never on the caller's.
    """

    def __init__(self) -> None:
        self._jobs: deque[
            tuple[Callable[..., Any], tuple[Any, ...], Deliver, Callable[[], bool], Progress | None]
        ] = deque()
        self._ready = threading.Condition()
        self._process: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self._deaths = 0  # children that died in a row

    def submit(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        deliver: Deliver,
        wanted: Callable[[], bool] = lambda: True,
        progress: Progress | None = None,
    ) -> None:
        """Run ``fn(*args)`` in the child unless ``wanted()`` is false by its turn
        (``fn(*args, progress=...)`` if ``progress``: its reports reach ``progress``)."""
        with self._ready:
            if self._closed:
                raise RuntimeError("the helper process is closed")
            self._jobs.append((fn, args, deliver, wanted, progress))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="xlaview-helper", daemon=True
                )
                self._thread.start()
            self._ready.notify()

    def close(self) -> None:
        """Drop queued jobs and stop the child (a running job is not waited for)."""
        with self._ready:
            self._closed = True
            self._jobs.clear()
            self._ready.notify()
        process = self._process
        if process is not None:
            process.kill()
            process.wait()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        try:
            self._serve_jobs()
        finally:
            self._drop_process()

    def _serve_jobs(self) -> None:
        while True:
            with self._ready:
                while not self._jobs and not self._closed:
                    self._ready.wait()
                if self._closed:
                    return
                fn, args, deliver, wanted, progress = self._jobs.popleft()
            if not wanted():
                continue
            try:
                if self._deaths >= MAX_DEATHS:
                    ok, value, trace = _run_here(fn, args, progress)
                else:
                    outcome = self._call(fn, args, progress, wanted)
                    self._deaths = 0
                    if outcome is None:
                        continue  # no longer wanted while it ran: its child was stopped
                    ok, value, trace = outcome
            except EOFError:  # the child died running the job (out of memory, killed)
                if self._closed:
                    return
                # Not run again here: what killed a child (a dump that takes all
                # memory, a crash on bad input) would take the window with it.
                status = self._exit_status()
                self._drop_process()
                self._deaths += 1  # a new child for the next job, unless they keep dying
                ok, value, trace = False, HelperDied(fn, status), ""
            except OSError:  # no child could start, or it was gone before it got the job
                if self._closed:
                    return
                self._drop_process()  # a new child for the next job ...
                self._deaths += 1  # ... unless they keep dying: then jobs run here
                ok, value, trace = _run_here(fn, args, progress)
            except Exception as err:  # the job or its outcome would not pickle
                ok, value, trace = False, err, traceback.format_exc()
            deliver(ok, value, trace)

    def _exit_status(self) -> int | None:
        """How the child that closed its pipe ended (negative: the signal), if it did."""
        try:
            return self._process.wait(timeout=1) if self._process else None
        except subprocess.TimeoutExpired:  # alive, yet its pipe closed: stopped below
            return None

    def _drop_process(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()

    def _call(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        progress: Progress | None,
        wanted: Callable[[], bool],
    ) -> tuple[bool, Any, str] | None:
        """The job's outcome from the child; None if, by one of its progress
        reports, it was no longer wanted (the child is stopped: the only way
        to stop a running job, and a new child starts in a tenth of a second)."""
        process = self._process
        if process is None or process.poll() is not None:
            self._drop_process()
            env = {**os.environ, PARENT_ENV: str(os.getpid())}
            process = self._process = subprocess.Popen(
                helper_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
            )
            if self._closed:  # closed while it started: close() did not see it
                self._drop_process()
                raise EOFError
        assert process.stdin is not None and process.stdout is not None
        _send(process.stdin, (fn, args, progress is not None))
        while True:
            message = _receive(process.stdout)
            if message[0] == "done":
                outcome: tuple[bool, Any, str] = message[1:]  # (ok, result or error, traceback)
                return outcome
            if not wanted():
                self._drop_process()
                return None
            if progress is not None:
                progress(message[1])
