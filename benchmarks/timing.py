"""What the benchmarks share: wall-time measurement, the dump's main module and its final text."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xlaview.dump.records import DumpIndex, DumpModule


def best_of(fn: Callable[[], object], repeat: int = 7) -> tuple[float, float]:
    """(min, median) wall time of ``fn`` in seconds."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main_module(index: DumpIndex) -> DumpModule:
    """The module of a dump's index with the most pass dumps: the program's step."""
    return max(index.modules, key=lambda m: len(m.passes))


def after_optimizations(folder: Path) -> Path:
    """The dump's one after-optimizations module."""
    (path,) = folder.glob("*after_optimizations.txt")
    return path
