"""Parsed computations shared between modules, kept within a byte budget.

The pass dumps of one module repeat most of their text: a pass changes a few
computations and prints the rest as before. A computation's text is parsed the
first time it is seen; a `ComputationStore` keeps the result under a digest of
that text, and the next module holding the same text takes it from there.
Positions (`Span`) stay right in each file: a `ParsedComputation` carries the
span it was parsed at, and a module whose copy of the text sits elsewhere
relocates the instructions' spans (lazily, on first access; see
`xlaview.hlo.model.Computation`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from xlaview.hlo.parse.parsed import ParsedComputation

__all__ = ["ComputationStore", "ParsedComputation", "text_key"]


def text_key(text: str, start: int, end: int) -> bytes:
    """The digest a computation's text is stored under."""
    # SHA-1 for speed (25 ms on 45 MB), not security: a collision would show a
    # wrong computation, and needs a crafted pair of texts.
    return hashlib.sha1(
        text[start:end].encode("utf-8", "surrogatepass"), usedforsecurity=False
    ).digest()


class ComputationStore:
    """Parsed computations by text digest, least recently used dropped first
    once their estimated size passes ``budget`` bytes. Thread-safe.

    A computation dropped from the store lives on in the modules that use it;
    the store only decides what a later parse can take instead of parsing.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.nbytes = 0
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[bytes, ParsedComputation] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: bytes) -> ParsedComputation | None:
        with self._lock:
            parsed = self._items.get(key)
            if parsed is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return parsed

    def put(self, key: bytes, parsed: ParsedComputation, missed: bool = False) -> None:
        """Keep ``parsed`` under ``key``; ``missed``: parsed on finding the
        key absent without a `get` (counted as a miss)."""
        with self._lock:
            self.misses += missed
            old = self._items.pop(key, None)
            if old is not None:
                self.nbytes -= old.nbytes
            self._items[key] = parsed
            self.nbytes += parsed.nbytes
            self._shrink(self.budget)

    def resize(self, budget: int) -> None:
        """Change the budget, dropping what no longer fits."""
        with self._lock:
            self.budget = budget
            self._shrink(budget)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.nbytes = 0

    def __contains__(self, key: bytes) -> bool:
        """Whether ``key`` is stored (neither a hit nor a miss, nor a use)."""
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def _shrink(self, budget: int) -> None:
        while self.nbytes > budget and self._items:
            _, parsed = self._items.popitem(last=False)
            self.nbytes -= parsed.nbytes
