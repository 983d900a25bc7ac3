"""HLO modules of a dump, parsed once and kept within a memory budget, their
computations shared between passes. Every file is read through
`xlaview.dump.files` (regular files only, non-blocking, size-capped)."""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path

from xlaview.dump.files import DumpReadError, read_text
from xlaview.dump.records import DumpFile
from xlaview.dump.settings import memory_budget
from xlaview.errors import Problem
from xlaview.hlo import Computation, HloSyntaxError, Module, parse_module_tolerant
from xlaview.hlo.model import built_flags
from xlaview.hlo.parse.driver import Deferral
from xlaview.hlo.parse.parsed import estimate_bytes
from xlaview.hlo.parse.store import ComputationStore
from xlaview.turns import blocked

CACHE_SIZE = 12  # parsed modules kept at most: a pass step re-reads its neighbours
# The share of the budget for computations shared between passes: they are
# what makes a step cheap (a text is re-read in milliseconds, a computation
# is parsed in much longer).
STORE_SHARE = 0.6
_COMPUTATION_BYTES = 600  # a Computation and its entries in the module's dicts
_RELOCATED_BYTES = 310  # an instruction rebuilt at another position: its tuple and Span


@dataclass(frozen=True, slots=True)
class LoadedModule:
    """A parsed HLO file and what went wrong parsing it (empty when nothing).

    ``nbytes`` estimates the memory the module held, when it was loaded,
    beside the computations it shares with other passes (its text, its own
    computations); ``measure()`` tells it now (`ModuleBytes`)."""

    module: Module
    problems: tuple[Problem, ...]
    nbytes: int = 0
    measure: ModuleBytes | None = field(default=None, compare=False, repr=False)


class ModuleBytes:
    """Estimated bytes a module holds of its own now: its text, its
    computations, the instructions parsed for it alone, and those built at
    other positions than their shared parse's (on first access). Asked again
    at every step of the cache: what cannot change is summed once, and the
    computations that would be built elsewhere are listed, those built since
    counted in C (12 modules of 14,000 computations took 20-30 ms a step)."""

    __slots__ = ("fixed", "relocatable", "sizes")

    def __init__(self, module: Module) -> None:
        fixed = sys.getsizeof(module.text) + _COMPUTATION_BYTES * len(module.computations)
        relocatable: list[Computation] = []
        for comp in module.computations:
            parsed = comp.parsed
            if parsed is None:
                fixed += estimate_bytes(len(comp), comp.span.end - comp.span.offset)
            elif parsed.span.offset != comp.span.offset or parsed.span.line != comp.span.line:
                relocatable.append(comp)
        self.fixed = fixed
        self.relocatable = relocatable
        self.sizes = [_RELOCATED_BYTES * len(comp.parsed) for comp in relocatable]  # type: ignore[arg-type]

    def __call__(self) -> int:
        return self.fixed + sum(compress(self.sizes, built_flags(self.relocatable)))


class ModuleCache:
    """Parsed HLO files by (path, size, mtime): nothing is parsed twice, and a
    file rewritten while a program runs is parsed again. Thread-safe: a thread
    asking for a file another thread is parsing waits for that parse.

    Memory is bounded by ``budget`` bytes, not by the number of passes: the
    modules least recently asked for are dropped first (at most ``size`` kept),
    and the computations shared between passes (`store`) have their own share
    of the budget. What the cache drops stays alive while a caller holds it.
    """

    def __init__(self, size: int = CACHE_SIZE, budget: int | None = None) -> None:
        self._size = size
        budget = memory_budget() if budget is None else budget
        self.budget = budget
        self.store = ComputationStore(int(budget * STORE_SHARE))
        self.nbytes = 0  # of the modules kept (the store counts its own)
        self._items: OrderedDict[tuple[str, int, int], LoadedModule] = OrderedDict()
        self._measures: dict[tuple[str, int, int], ModuleBytes] = {}  # of the modules kept
        self._lock = threading.Lock()
        self._loading: dict[tuple[str, int, int], threading.Event] = {}
        # The computation a step read alone last (`note_read`), and the module
        # used last then: that read is the nearer until another module is used.
        self._read: Module | None = None
        self._read_after: LoadedModule | None = None

    def set_budget(self, budget: int) -> None:
        """Change the memory budget (a setting), dropping what no longer fits."""
        with self._lock:
            self.budget = budget
            self._shrink()
        self.store.resize(int(budget * STORE_SHARE))

    def memory(self) -> dict[str, int]:
        """Estimated bytes held: ``modules`` (texts and their own parts),
        ``computations`` (shared between passes), ``total``, and the budget."""
        shared = self.store.nbytes
        return {
            "modules": self.nbytes,
            "computations": shared,
            "total": self.nbytes + shared,
            "budget": self.budget,
        }

    def cached(self, dump_file: DumpFile | str | Path) -> LoadedModule | None:
        """The module if it is parsed and kept, without parsing it."""
        path = dump_file.path if isinstance(dump_file, DumpFile) else Path(dump_file)
        try:
            st = path.stat()
        except OSError:
            return None
        with self._lock:
            return self._items.get((str(path), st.st_size, st.st_mtime_ns))

    def _shrink(self) -> None:
        # Sizes again: what callers built since a module came in counts now.
        measures = self._measures
        sizes = {key: measures[key]() for key in self._items}
        self.nbytes = sum(sizes.values())
        limit = self.budget - int(self.budget * STORE_SHARE)
        while self._items and (len(self._items) > self._size or self.nbytes > limit):
            key, _ = self._items.popitem(last=False)
            del measures[key]
            self.nbytes -= sizes[key]

    def _last(self) -> LoadedModule | None:
        """The module used last: as like as not, a neighbour of the next one asked for."""
        return next(reversed(self._items.values()), None)

    def note_read(self, module: Module) -> None:
        """``module``: a computation a step read alone, before its pass was
        parsed (`xlaview.hlo.parse.early.lone_module`). While the user
        scrubs, each step's parse is stopped by the next step, and the module
        used last may lie many passes away: on a mixture of experts every
        step's entry was read as an edit of the last pass's (where the window
        opened), 180-280 ms, where its neighbour's differs by a few lines.
        Kept (one, beside the modules) until another module is used."""
        with self._lock:
            self._read, self._read_after = module, self._last()

    def nearest(self) -> tuple[Module, ...]:
        """The versions of a pass's computations a step reads the next pass's
        from (`xlaview.hlo.parse.early.read_computation`), the most recently
        used first: the computation read alone last, the module used last."""
        with self._lock:
            last = self._last()
            if self._read is not None and self._read_after is not last:
                self._read = self._read_after = None  # a module used since
            found = [] if self._read is None else [self._read]
            return (*found, *([] if last is None else [last.module]))

    def load(
        self,
        dump_file: DumpFile | str | Path,
        text: str | None = None,
        check: Callable[[], None] | None = None,
    ) -> LoadedModule:
        """The file parsed (once); ``text``: its text, read already; ``check``
        as for `xlaview.hlo.parse_module_tolerant` (it may stop the parse)."""
        path = dump_file.path if isinstance(dump_file, DumpFile) else Path(dump_file)
        try:
            st = path.stat()
        except OSError as err:
            raise DumpReadError(path, f"cannot read: {err.strerror or err}") from None
        key = (str(path), st.st_size, st.st_mtime_ns)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            other = self._loading.get(key)
            if other is None:
                parsing = self._loading[key] = threading.Event()
                last = self._last()
        if other is not None:
            # Another thread is parsing it: wait, then take its result from the cache
            # (or, if that parse failed, fail the same way).
            with blocked():
                other.wait()
            return self.load(dump_file)
        loaded = None
        try:
            previous = last.module if last is not None else None
            if text is None:
                text = read_text(path)
            loaded = load_text(path, text, store=self.store, previous=previous, check=check)
        finally:
            with self._lock:
                del self._loading[key]
                if loaded is not None:
                    self._items[key] = loaded
                    self._measures[key] = loaded.measure or ModuleBytes(loaded.module)
                    self._shrink()
            parsing.set()
        return loaded

    def clear(self) -> None:
        with self._lock:
            self._read = self._read_after = None
            self._items.clear()
            self._measures.clear()
            self.nbytes = 0
        self.store.clear()


def load_module(
    path: str | Path, store: ComputationStore | None = None, previous: Module | None = None
) -> LoadedModule:
    """Parse one HLO file tolerantly; raises `DumpReadError` only if it cannot
    be read as text at all. With a ``store``, computations another pass
    already had are taken from it (see `xlaview.hlo.parse.store`); with a
    ``previous`` module, those it prints alike (see `xlaview.hlo.parse.reuse`)."""
    return load_text(path, read_text(path), store=store, previous=previous)


def load_text(
    path: str | Path,
    text: str,
    store: ComputationStore | None = None,
    previous: Module | None = None,
    deferral: Deferral | None = None,
    check: Callable[[], None] | None = None,
) -> LoadedModule:
    """`load_module` of the text read from ``path`` (``deferral`` and
    ``check`` as in `xlaview.hlo.parse.driver.parse_module_tolerant`)."""
    result = parse_module_tolerant(
        text, store=store, previous=previous, deferral=deferral, check=check
    )
    problems = tuple(_problem(path, d) for d in result.diagnostics)
    if not result.module.computations and not problems:
        problems = (Problem(str(path), "no HLO computation in this file"),)
    measure = ModuleBytes(result.module)
    return LoadedModule(result.module, problems, measure(), measure)


def _problem(path: str | Path, err: HloSyntaxError) -> Problem:
    return Problem(str(path), f"{err.message} (column {err.column})", err.line)
