"""The one policy for Python's cyclic garbage collector.

xlaview builds hundreds of thousands of small acyclic records at a time (a
parsed module, a laid-out graph, a module's costs). A collection that such
allocations trigger walks every object of every module held, with the GIL
held: 30-300 ms on a 45 MB pass, on whichever thread allocates next (the
window's GUI thread, as like as not), and for garbage it never finds. So:

- `gc_paused`: no collection while the records are built (pauses nest, and
  count across threads: the collector runs again once no pause is held);
- ``settle=True`` (or `settle_built`) moves what was built to the oldest
  generation, so that the next young collection does not walk it all at once;
- `freeze_built`: what a window's job built goes out of the collector's sight
  for good (`gc.freeze`). Frozen objects are still freed when nothing refers
  to them; a reference cycle among them would stay, and these records make
  none (they are tuples, slotted records and Qt paths);
- `release_memory`: a process done with a big job gives its memory back. The
  parse's caches (`functools.lru_cache`: attribute dicts, shapes) hold a few
  MB of values made amid the module's objects, one in each of thousands of
  Python's 256 KiB arenas, and an arena goes back to the system only once
  empty: a helper that explained a 45 MB module's boundaries kept 340 MB of
  arenas for 4 MB of live values, for the rest of the session (60 MB with
  the caches cleared).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = True


@contextmanager
def gc_paused(settle: bool = False) -> Iterator[None]:
    """No cyclic collection inside; with ``settle``, what was built moves to
    the oldest generation at the end (`settle_built`)."""
    global _pauses, _was_enabled
    with _lock:
        _pauses += 1
        if _pauses == 1:
            _was_enabled = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        if settle:
            settle_built()
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()


def settle_built() -> None:
    """Every object now tracked joins the oldest generation (two list splices)."""
    gc.freeze()
    gc.unfreeze()


def freeze_built() -> None:
    """Every object now tracked leaves the collector's sight for good."""
    gc.freeze()


def release_memory() -> None:
    """Clear every `functools.lru_cache` of the process, collect, and hand the
    C heap's free memory back (glibc's ``malloc_trim``, where there is one).
    For a process between jobs (the helper): the collection walks everything."""
    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper):
            obj.cache_clear()
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None
