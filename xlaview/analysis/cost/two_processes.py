"""A big module read and priced by two processes (the command line's commands).

Most of a big module's text is fused computations, each called by one fusion
of the entry. Once the text is read the process forks: each process parses
the bodies of its half of the computations (split at a text offset) and
prices the entry's instructions that call into its half. The helper sends
back what the parent needs of its half, which is small: what each of its
computations calls (for the parent's checks) and the prices of its entry
instructions (`xlaview.analysis.cost.totals.SharePrices`). The parent's module
leaves the helper's bodies unread until something asks for them
(`xlaview.hlo.parse.driver.Deferral`).

Whatever goes wrong in the helper (it dies, the fast parser refuses one of
its bodies, it says nothing for `HELPER_TIMEOUT_S`) leaves that part to the
parent: the result is always the one a single process gives. Small modules,
one core, or no ``fork`` (Windows): one process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xlaview.analysis.cost.totals import ModuleCost, SharePrices, module_cost, price_share
from xlaview.dump.files import read_text
from xlaview.dump.modules import LoadedModule, load_text
from xlaview.hlo import Instruction, Module
from xlaview.hlo.parse.driver import parse_module_tolerant  # here: a forked child imports nothing
from xlaview.hlo.parse.printed import named_calls

# Below this many characters one process is as quick (a fork costs ~10 ms).
SPLIT_FROM = 8 << 20
HELPER_TIMEOUT_S = 60.0
# The parent's share of the text: it also checks, sums and prints; less of
# it when it has other work to do meanwhile (about 0.1 s).
PARENT_SHARE = 0.44
MEANWHILE_SHARE = 0.04
_HEADER = struct.Struct("<Q")
PIPE_BYTES = 1 << 20


def load_and_price(
    path: str | Path, *, helper: bool | None = None, meanwhile: Callable[[], object] | None = None
) -> tuple[LoadedModule, ModuleCost]:
    """`xlaview.dump.modules.load_module` and `module_cost` of an HLO file,
    with a helper process when the module is big (``helper`` True or False:
    with or without one, whatever the size). ``meanwhile()``, if given, runs
    here while the helper starts (reading the module's reports, say); the
    helper then takes a larger share."""
    text = read_text(path)
    if helper is None:
        helper = len(text) >= SPLIT_FROM and _cores() > 1
    share = PARENT_SHARE - (MEANWHILE_SHARE if meanwhile is not None else 0.0)
    mid = int(len(text) * share)
    helper_process = None
    if helper and hasattr(os, "fork"):
        helper_process = _Helper.start(lambda send: _help(text, mid, send))
    if meanwhile is not None:
        meanwhile()
    if helper_process is None:
        loaded = load_text(path, text)
        return loaded, module_cost(loaded.module)
    try:
        loaded = load_text(path, text, deferral=_ParentDeferral(mid, helper_process))
        cost = module_cost(loaded.module, share=_ParentShare(loaded.module, mid, helper_process))
    finally:
        helper_process.stop()
    return loaded, cost


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _help(text: str, mid: int, send: Callable[[Any], None]) -> None:
    """The helper's work: parse the computations from ``mid`` on, say what
    each calls, then price the entry's instructions that call them."""
    module = parse_module_tolerant(text, deferral=_HelperDeferral(mid)).module
    read = [
        (c.span.offset, c.name, c.parsed.calls if c.parsed is not None else None)
        for c in module.computations
        if c.span.offset >= mid and not c.is_entry
    ]
    send(read)
    send(price_share(module, _calls_from(module, mid)))


def _calls_from(module: Module, mid: int) -> Callable[[Instruction], bool]:
    """Whether an instruction calls a computation that starts at ``mid`` or
    later. Both processes ask it of the same module: it says which one
    prices an instruction, so it need only be cheap, not exact."""
    later = {c.name for c in module.computations if c.span.offset >= mid}

    def calls_into(instr: Instruction) -> bool:
        text = instr.attribute_text
        return bool(text) and not later.isdisjoint(named_calls(text))

    return calls_into


class _HelperDeferral:
    """In the helper: the parent's half stays unread, and the parent checks it."""

    def __init__(self, mid: int) -> None:
        self.mid = mid

    def defers(self, offset: int) -> bool:
        return offset < self.mid

    def settle(self, deferred: list[tuple[int, str]]) -> list[tuple[str, ...]]:
        return [() for _ in deferred]


class _ParentDeferral:
    """In the parent: the helper's half stays unread, vouched for by the helper."""

    def __init__(self, mid: int, helper: _Helper) -> None:
        self.mid = mid
        self.helper = helper

    def defers(self, offset: int) -> bool:
        return offset >= self.mid

    def settle(self, deferred: list[tuple[int, str]]) -> list[tuple[str, ...]] | None:
        read = self.helper.receive()
        if (
            read is None
            or [(offset, name) for offset, name, _ in read] != deferred
            or any(calls is None for _, _, calls in read)
        ):
            self.helper.stop()  # its module is not this one: its prices would not be either
            return None
        return [calls for _, _, calls in read]


class _ParentShare:
    """In the parent: the entry's instructions calling into the helper's half."""

    def __init__(self, module: Module, mid: int, helper: _Helper) -> None:
        self.elsewhere = _calls_from(module, mid)
        self.helper = helper

    def prices(self) -> SharePrices | None:
        prices = self.helper.receive()
        return prices if isinstance(prices, SharePrices) else None


class _Helper:
    """A forked process sending pickled messages through a pipe."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd: int | None = fd

    @classmethod
    def start(cls, work: Callable[[Callable[[Any], None]], None]) -> _Helper | None:
        """Fork a process that runs ``work(send)``; None if it cannot start."""
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            return None
        try:  # room for both messages (a 45 MB module's: 60 KB and 0.9 MB): no wait to send
            import fcntl

            fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except (ImportError, AttributeError, OSError):  # not Linux: it may wait for the reader
            pass
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return None
        if pid == 0:  # the helper: never returns
            code = 0
            try:
                os.close(read_fd)
                work(lambda message: _send(write_fd, message))
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(write_fd)
        return cls(pid, read_fd)

    def receive(self) -> Any:
        """The next message, or None once the helper failed or stopped."""
        if self.fd is None:
            return None
        try:
            size = _HEADER.unpack(self._read(_HEADER.size))[0]
            return pickle.loads(self._read(size))
        except (OSError, EOFError, TimeoutError, ValueError, pickle.UnpicklingError, struct.error):
            self.stop()
            return None

    def _read(self, size: int) -> bytes:
        assert self.fd is not None
        chunks, got = [], 0
        while got < size:
            ready, _, _ = select.select([self.fd], [], [], HELPER_TIMEOUT_S)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.fd, min(size - got, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def stop(self) -> None:
        """End the helper (if it still runs) and reap it."""
        if self.fd is None:
            return
        os.close(self.fd)
        self.fd = None
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def _send(fd: int, message: Any) -> None:
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]
