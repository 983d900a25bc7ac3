"""What the benchmarks share: wall-time measurement and the dump's final module."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from pathlib import Path


def best_of(fn: Callable[[], object], repeat: int = 7) -> tuple[float, float]:
    """(min, median) wall time of ``fn`` in seconds."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def after_optimizations(folder: Path) -> Path:
    """The dump's one after-optimizations module."""
    (path,) = folder.glob("*after_optimizations.txt")
    return path
