"""Building many objects without the cyclic garbage collector in the way."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while hundreds of thousands of
    acyclic tuples are built: collections triggered by them cost more than
    building them.

    At the end the new objects go straight to the oldest generation (freeze,
    then unfreeze: two list splices). Left in the youngest, the first
    collection after would walk all of them at once (0.15 s for a 45 MB
    module) holding the GIL, in whichever thread allocates next: the GUI's, as
    like as not. The price: cycles among them wait for a full collection.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()
