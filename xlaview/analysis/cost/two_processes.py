"""A big module read and priced by two processes (the command line's commands).

Most of a big module's text is fused computations, each called by one fusion
of the entry. Once the text is read the process forks: each process parses
the bodies of its half of the computations (split at a text offset), then
both price the entry's instructions, taking them a few at a time
(`_Claims`): the parent from those calling into its half, the helper from
the other end, until they meet. Where they meet follows how long each
process's share takes, whatever the program: a fixed split by what the
instructions call kept the parent busy 1.3 s after the helper was done on
the U-Net benchmark, whose library calls sit early in its text. The helper
sends back what the parent needs of its half, which is small: what each of
its computations calls (for the parent's checks) and the prices of the
instructions it took (`xlaview.analysis.cost.totals.SharePrices`). The
parent's module leaves the helper's bodies unread until something asks for
them (`xlaview.hlo.parse.driver.Deferral`).

Whatever goes wrong in the helper (it dies, the fast parser refuses one of
its bodies, it says nothing for `HELPER_TIMEOUT_S`) leaves that part to the
parent: the result is always the one a single process gives. Small modules,
one core, or no ``fork`` (Windows): one process.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from xlaview.analysis.cost.totals import ModuleCost, SharePrices, module_cost, price_share
from xlaview.dump.files import read_text
from xlaview.dump.modules import LoadedModule, load_text
from xlaview.hlo import Computation, Instruction, Module
from xlaview.hlo.parse.driver import parse_module_tolerant  # here: a forked child imports nothing
from xlaview.hlo.parse.printed import named_calls

# Below this many characters one process is as quick (a fork costs ~10 ms).
SPLIT_FROM = 8 << 20
HELPER_TIMEOUT_S = 60.0
# The parent's share of the text to parse: it also parses the entry (the
# helper's half) and sums and prints; less of it when it has other work to
# do meanwhile (about 0.1 s). The pricing after the parse balances itself.
PARENT_SHARE = 0.44
MEANWHILE_SHARE = 0.04
# Entry instructions taken at a time: 64 fusions are priced in 5-20 ms, a
# claim in tens of microseconds.
CLAIM = 64
_HEADER = struct.Struct("<Q")
_BOUNDS = struct.Struct("<qq")
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
    claims = None
    if helper and hasattr(os, "fork"):
        claims = _Claims()
        helper_process = _Helper.start(lambda send: _help(text, mid, send, claims))
    if meanwhile is not None:
        meanwhile()
    if helper_process is None or claims is None:
        if claims is not None:
            claims.close()  # (the fork failed)
        loaded = load_text(path, text)
        return loaded, module_cost(loaded.module)
    try:
        loaded = load_text(path, text, deferral=_ParentDeferral(mid, helper_process))
        cost = module_cost(loaded.module, share=_ParentShare(loaded.module, helper_process, claims))
    finally:
        helper_process.stop()
        claims.close()
    return loaded, cost


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _help(text: str, mid: int, send: Callable[[Any], None], claims: _Claims) -> None:
    """The helper's work: parse the computations from ``mid`` on, say what
    each calls, then price the entry's instructions it takes from the end of
    their order, and send their prices."""
    module = parse_module_tolerant(text, deferral=_HelperDeferral(mid)).module
    read = [
        (c.span.offset, c.name, c.parsed.calls if c.parsed is not None else None)
        for c in module.computations
        if c.span.offset >= mid and not c.is_entry
    ]
    send(read)
    for comp in module.computations:
        if comp.parsed is not None and comp.parsed.deferred_body:
            comp.parsed.calls = None  # type: ignore[assignment]  # unknown until read

    def taken(entry: Computation) -> Iterator[Sequence[Instruction]]:
        order = _order(module, entry)
        while got := claims.take(front=False, count=len(order)):
            yield order[got.start : got.stop]

    send(price_share(module, taken).packed())


def _order(module: Module, entry: Computation) -> list[Instruction]:
    """The entry's instructions in the order both processes take them: by
    the last computation each calls, those calling none last. Each process
    then first prices what calls into the half it read (the other's bodies
    it reads when it must). Both processes sort the same module alike: it
    need only be cheap, not exact."""
    offsets = {c.name: c.span.offset for c in module.computations}
    anywhere = len(module.text)

    def last_called(instr: Instruction) -> int:
        text = instr.attribute_text
        called = named_calls(text) if text else ()
        return max((offsets.get(name, -1) for name in called), default=anywhere)

    instructions = entry.instructions
    keys = list(map(last_called, instructions))
    order = sorted(range(len(keys)), key=keys.__getitem__)  # (stable: ties in text order)
    return [instructions[k] for k in order]


class _Claims:
    """Which of the entry's instructions (in `_order`) each process prices:
    the parent takes them from the front, the helper from the back, `CLAIM`
    at a time, until they meet. Two bounds in memory both processes share,
    under a lock that is a byte in a pipe: whoever reads it holds the lock."""

    def __init__(self) -> None:
        self.bounds = mmap.mmap(-1, _BOUNDS.size)  # anonymous: shared across the fork
        self.bounds[:] = _BOUNDS.pack(0, -1)  # (the back is set by the first to take)
        self.lock, self.unlock = os.pipe()
        os.set_blocking(self.lock, False)
        os.write(self.unlock, b".")

    def take(self, *, front: bool, count: int, watch: int | None = None) -> range | None:
        """The next instructions for the parent (``front``) or the helper
        (from the back): empty once the two meet, None when the
        other process is gone (``watch``, the helper's pipe, tells the
        parent: it becomes readable when the helper ends) or still holds
        the lock after `HELPER_TIMEOUT_S`."""
        if not self._acquire(watch):
            return None
        try:
            low, high = _BOUNDS.unpack(self.bounds[:])
            high = count if high < 0 else high
            if front:
                got = range(low, min(high, low + CLAIM))
                low = got.stop
            else:
                got = range(max(low, high - CLAIM), high)
                high = got.start
            self.bounds[:] = _BOUNDS.pack(low, high)
        finally:
            os.write(self.unlock, b".")
        return got

    def _acquire(self, watch: int | None) -> bool:
        """Take the lock; False if ``watch`` turns readable while the lock
        stays taken (the helper died holding it), or after `HELPER_TIMEOUT_S`."""
        deadline = time.monotonic() + HELPER_TIMEOUT_S
        waiting = [self.lock] if watch is None else [self.lock, watch]
        while (left := deadline - time.monotonic()) > 0:
            ready = select.select(waiting, [], [], left)[0]
            if self.lock not in ready:
                if ready and not select.select([self.lock], [], [], 0.05)[0]:
                    return False  # the helper ended while it held the lock
                continue
            with contextlib.suppress(BlockingIOError):  # (the other took it first)
                if os.read(self.lock, 1):
                    return True
        return False

    def close(self) -> None:
        os.close(self.lock)
        os.close(self.unlock)
        self.bounds.close()


class _HelperDeferral:
    """In the helper: the parent's half stays unread, and the parent checks
    it. (Said to call nothing while the parse checks what is called; unknown
    after it, `_help`: a body the helper reads for an instruction it takes
    says it then.)"""

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
    """In the parent: the entry's instructions it takes, and the helper's prices of the rest."""

    def __init__(self, module: Module, helper: _Helper, claims: _Claims) -> None:
        self.module = module
        self.helper = helper
        self.claims = claims
        self.theirs: list[Instruction] | None = None  # what the helper took (None: nothing known)

    def mine(self, entry: Computation) -> Iterator[Sequence[Instruction]]:
        order = _order(self.module, entry)
        low = 0
        while self.helper.fd is not None:
            got = self.claims.take(front=True, count=len(order), watch=self.helper.fd)
            if got is None:
                break  # the helper is gone: the rest is priced here
            if not got:
                self.theirs = order[got.start :]
                return
            low = got.stop
            yield order[got.start : got.stop]
        self.helper.stop()
        yield order[low:]

    def prices(self) -> SharePrices | None:
        theirs = self.theirs
        if not theirs:
            return None  # the helper took nothing, or is gone: nothing to take from it
        try:
            prices = SharePrices.unpacked(self.helper.receive())
        except (TypeError, ValueError):
            prices = None
        if prices is None or prices.props.keys() != {instr.name for instr in theirs}:
            self.helper.stop()  # not what it took: the parent prices it
            return None
        return prices


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
