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
  none (they are tuples, slotted records and Qt paths).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
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
