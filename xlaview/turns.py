"""Long calls into C taken in turns, so that the window's GUI thread gets the
interpreter between them.

The core maps its columns of 50,000 ops in C (``list(map(...))``, ``dict(zip(...))``,
``str.find`` over a 10 MB computation): several times faster than a Python
loop, but one such call holds the GIL from start to end, 5-35 ms on the big
benchmark programs, and a worker thread runs them beside the window. The GUI
thread asks for the GIL on every call from Qt into Python (a paint event, a
table cell, a timer), and each ask waits for the worker's call in C to end: a
window repaint that asks a few dozen times stalled 100-180 ms. Taken a chunk at
a time, the work is the same and the interpreter changes hands between chunks
(Python checks for a waiting thread between bytecodes, never inside a C call).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import TypeVar

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

# Items per turn: 1,024 steps of a map chain take 0.04-0.8 ms (node keys 0.04,
# edge ends 0.15, an edit's instructions made again 0.75; the moe's entry),
# the longest the GUI thread waits for each of its calls into Python while a
# worker maps.
# 4,096 (0.3-2.5 ms a turn) left longer stalls in the window's drives (the
# scale benchmark's gui_probe, six alternated pairs on the GPT-48, the
# mixture of experts and the U-Net): while scrubbing 67-95 ms against
# 59-84, stepping away from analyses 144-244 ms against 119-178 (a held key
# and the open alike within noise); 512 cost the graph's steps about 5 %
# more, 1,024 nothing measurable.
CHUNK = 1024
# Characters searched per turn (a 1 MiB ``str.find``: about 0.5 ms).
SPAN = 1 << 20


# The GUI thread's right of way (`right_of_way`): while it paints or hands a
# result to the window, a worker waits at its next turn, for at most this
# long from the moment the right of way was taken, and the interpreter
# changes hands every few microseconds, not every 0.1 ms. The GUI thread
# enters Python from Qt, and each entry waited for the worker's turn to end:
# a repaint of the Traffic table entered 280 times (one per cell) and took
# 50-150 ms beside a worker, 16 ms alone. Held longer, the worker's steps
# were slower by a fifth to a half (gui_probe scale, GPT-48 and moe).
RIGHT_OF_WAY_AT_MOST_S = 0.04
RIGHT_OF_WAY_SWITCH_S = 5e-6
_way = threading.Event()
_way.set()
_holder = {"thread": 0, "depth": 0, "switch": 0.0, "since": 0.0}


@contextmanager
def right_of_way() -> Iterator[None]:
    """While in it, other threads wait at their next turn (`turn`), until
    `RIGHT_OF_WAY_AT_MOST_S` after it began: this thread has the interpreter
    to itself but for their Python between turns. It nests on one thread."""
    holder = _holder
    if holder["depth"] == 0:
        holder["thread"] = threading.get_ident()
        holder["switch"] = sys.getswitchinterval()
        holder["since"] = time.monotonic()
        _take()
    holder["depth"] += 1
    try:
        yield
    finally:
        holder["depth"] -= 1
        if holder["depth"] == 0:
            _lift()


@contextmanager
def blocked() -> Iterator[None]:
    """Around a wait for another thread (a lock, a parse it runs): the right
    of way, if this thread has it, is lifted meanwhile. Else the other thread
    would wait at its turns for this one, which waits for it."""
    holder = _holder
    if not holder["depth"] or threading.get_ident() != holder["thread"]:
        yield
        return
    _lift()
    try:
        yield
    finally:
        _take()


def _take() -> None:
    sys.setswitchinterval(RIGHT_OF_WAY_SWITCH_S)
    _way.clear()


def _lift() -> None:
    sys.setswitchinterval(_holder["switch"])
    _way.set()


# The check each thread makes at its turns (`stopping`), if any.
_stops = threading.local()


@contextmanager
def stopping(check: Callable[[], None]) -> Iterator[None]:
    """While in it, every turn this thread takes calls ``check`` first, which
    may raise to stop the work: a job nobody wants any more (the user stepped
    on) stops at its next turn, not at its next progress report, which may be
    a second away (a pass's graph read, built and folded between two)."""
    before = getattr(_stops, "check", None)
    _stops.check = check
    try:
        yield
    finally:
        _stops.check = before


def turn() -> None:
    """A point between turns: stop here if this thread's work is no longer
    wanted (`stopping`); wait here while another thread has the right of way."""
    check = getattr(_stops, "check", None)
    if check is not None:
        check()
    if not _way.is_set() and threading.get_ident() != _holder["thread"]:
        left = _holder["since"] + RIGHT_OF_WAY_AT_MOST_S - time.monotonic()
        if left > 0:
            _way.wait(left)
        else:  # its time is up: the interpreter changes hands as usual again
            sys.setswitchinterval(_holder["switch"])


def listed(items: Iterable[T]) -> list[T]:
    """``list(items)``, a chunk at a time."""
    out: list[T] = []
    extend = out.extend
    it = iter(items)
    while True:
        before = len(out)
        extend(islice(it, CHUNK))
        if len(out) - before < CHUNK:
            return out
        turn()


def stepped(items: Iterable[T]) -> Iterator[T]:
    """``items`` one by one, a turn before each `CHUNK` of them: for a loop
    in Python over a computation's ops (50,000 of them: 30-100 ms)."""
    it = iter(items)
    while chunk := list(islice(it, CHUNK)):
        turn()
        yield from chunk


def every(items: Iterable[object]) -> bool:
    """``all(items)``, a chunk at a time."""
    it = iter(items)
    while True:
        chunk = list(islice(it, CHUNK))
        if not all(chunk):
            return False
        if len(chunk) < CHUNK:
            return True
        turn()


def dict_of(pairs: Iterable[tuple[K, V]]) -> dict[K, V]:
    """``dict(pairs)``, a chunk at a time. Each chunk goes into the dict
    straight from the iterator: made into a list first, 48,000 pairs took
    twice as long (6.7 against 3.7 ms)."""
    out: dict[K, V] = {}
    update = out.update
    it = iter(pairs)
    while True:
        before = len(out)
        update(islice(it, CHUNK))
        if len(out) - before < CHUNK:
            # The end, or a key met again within the chunk: one more pair says which.
            more = list(islice(it, 1))
            if not more:
                return out
            update(more)
        turn()


def find(text: str, sub: str, start: int = 0, end: int | None = None) -> int:
    """``text.find(sub, start, end)`` (``start`` and ``end`` not negative), a span at a time."""
    stop = len(text) if end is None else min(end, len(text))
    if not sub or start >= stop:
        return text.find(sub, start, stop)
    overlap = len(sub) - 1
    while start < stop:
        upto = min(stop, start + SPAN)
        found = text.find(sub, start, min(stop, upto + overlap))
        if found >= 0:
            return found
        start = upto
        turn()
    return -1


def split_lines(text: str, start: int, stop: int) -> list[str]:
    """``text[start:stop].split("\\n")`` (``0 <= start <= stop <= len(text)``),
    a span of lines at a time: a big entry's 5 MB sliced and split in one
    call held the GIL 20-50 ms (a U-Net pass edited from the one before)."""
    out: list[str] = []
    while stop - start > SPAN:
        cut = text.find("\n", start + SPAN, stop)
        if cut < 0:
            break
        out += text[start:cut].split("\n")
        start = cut + 1
        turn()
    out += text[start:stop].split("\n")
    return out


# sys.getrefcount of an object only `Apart` holds: the local name and
# getrefcount's own argument.
_ONLY_OURS = 2


class Apart:
    """Big structures taken apart a piece at a time (`free`), for whoever lets
    go of them: dropping the last reference to a structure of a few hundred
    thousand objects frees them all in one C call that holds the GIL (40-110
    ms for the reasons found in a mixture of experts' 13 MB module). An object
    only this holds is opened up (its parts queued, then it is dropped, which
    frees nothing more), down to ``depth`` levels below what was added; below
    that each part is dropped whole, but for a heavy one: an object whose
    class says how many levels more to open it (``apart_levels``; a
    computation's graph of 27,000 nodes, met as the last level of a laid-out
    result, took 13-65 ms to drop whole), a long container (freed a chunk of
    its items at a time).
    Whatever another owner still holds is left alone (only this one's
    reference is dropped)."""

    def __init__(self, depth: int) -> None:
        self._depth = depth
        self._levels: list[list[object]] = [[] for _ in range(depth + 1)]
        # Parts of heavy objects met at the last level, and the levels each
        # is still opened (parallel lists, freed first: they are the deepest).
        self._heavy: list[object] = []
        self._heavy_levels: list[int] = []

    def add(self, structure: object, depth: int) -> None:
        """Take ``structure`` (the caller keeps no reference to it), opened up
        ``depth`` levels down (at most the depth this was made with). The
        last added is freed first: add what holds a part before the part."""
        self._levels[self._depth - min(depth, self._depth)].append(structure)

    @property
    def pending(self) -> int:
        return sum(map(len, self._levels)) + len(self._heavy)

    def free(self, count: int) -> bool:
        """Drop or open up to ``count`` objects, the deepest first (its parts
        are freed before more are opened); whether any are left."""
        if self._heavy:
            self._free_heavy(count)
            return True
        levels = self._levels
        depth = next((d for d in range(self._depth, -1, -1) if levels[d]), None)
        if depth is None:
            return False
        level = levels[depth]
        last = depth == self._depth
        for _ in range(min(len(level), count)):
            obj = level.pop()
            if sys.getrefcount(obj) == _ONLY_OURS:
                if not last:
                    levels[depth + 1].extend(gc.get_referents(obj))
                else:
                    self._heavy_part(obj, 0)
            del obj
        return True

    def _free_heavy(self, count: int) -> None:
        """Up to ``count`` parts of heavy objects, or one chunk of a long
        container's items: freeing it is the last thing the call does."""
        heavy, left = self._heavy, self._heavy_levels
        for _ in range(min(len(heavy), count)):
            obj = heavy.pop()
            more = left.pop()
            if type(obj) is _Chunk:
                return  # (freed as this returns)
            if sys.getrefcount(obj) == _ONLY_OURS:
                self._heavy_part(obj, more)
            del obj

    def _heavy_part(self, obj: object, more: int) -> None:
        """Open ``obj`` (only this holds it) ``more`` levels down, or as many as
        its class says, or cut it into chunks if it is a long container;
        else leave it to be dropped whole."""
        more = max(more, getattr(type(obj), "apart_levels", 0))
        if more:
            parts = gc.get_referents(obj)
            self._heavy.extend(parts)
            self._heavy_levels.extend([more - 1] * len(parts))
        elif isinstance(obj, _CONTAINERS) and len(obj) >= HEAVY_LEN:
            items = gc.get_referents(obj)
            self._heavy.extend(
                _Chunk(items[i : i + CHUNK_LEN]) for i in range(0, len(items), CHUNK_LEN)
            )
            self._heavy_levels.extend([0] * -(-len(items) // CHUNK_LEN))


# A container of at least `HEAVY_LEN` items met where it would be dropped
# whole is freed `CHUNK_LEN` items at a time: the 60,000 edges of a U-Net's
# entry took 14 ms to free in one call, its 40,000 ops' drawings 15-32 ms.
HEAVY_LEN = 4096
CHUNK_LEN = 2048
_CONTAINERS = (tuple, list, dict, set, frozenset)


class _Chunk(list):
    """Some of a long container's items, freed in a call of their own."""

    __slots__ = ()


# Objects dropped or opened between turns by `let_go`.
LET_GO_BATCH = 16


def let_go(parts: list[object], depth: int) -> None:
    """Free ``parts`` (a list only the caller holds, which nothing else
    names: it is emptied) a piece at a time with a turn between pieces
    (`Apart`), the last first, each opened up ``depth`` levels down."""
    apart = Apart(depth)
    for _ in range(len(parts)):
        apart.add(parts.pop(0), depth)
    while apart.free(LET_GO_BATCH):
        turn()
