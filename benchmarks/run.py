"""xlaview's benchmarks: ``python benchmarks/run.py [NAME ...]``.

Each benchmark prints its figures and a ratio against a reference measured in
the same run (XLA's own parser, a plain ``os.scandir`` of the folder, ...), so
that results compare across machines. The input is a real dump of a GPT train
step (``benchmarks/gpt.py``), generated once into ``XLAVIEW_BENCH_DIR``
(default: ``~/.cache/xlaview-bench``).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

BENCH_DIR = Path(os.environ.get("XLAVIEW_BENCH_DIR", Path.home() / ".cache" / "xlaview-bench"))
BENCHMARKS: dict[str, Callable[[Path], None]] = {}


def benchmark(fn: Callable[[Path], None]) -> Callable[[Path], None]:
    BENCHMARKS[fn.__name__] = fn
    return fn


def gpt_dump(layers: int = 10) -> Path:
    """The GPT train-step dump folder, compiled on first use (a few minutes)."""
    folder = BENCH_DIR / f"gpt{layers}"
    if not any(folder.glob("*after_optimizations.txt")):
        print(f"compiling the {layers}-layer GPT train step into {folder} ...", flush=True)
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, str(HERE / "gpt.py"), str(folder), "--layers", str(layers)],
            check=True,
        )
    return folder


def best_of(fn: Callable[[], object], repeat: int = 7) -> tuple[float, float]:
    """(min, median) wall time of ``fn`` in seconds."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def report(name: str, ours: tuple[float, float], ref: tuple[float, float], ref_name: str,
           goal: str = "") -> None:
    ratio = ours[0] / ref[0]
    print(
        f"{name}: ours {ours[0] * 1000:.0f} ms (median {ours[1] * 1000:.0f}), "
        f"{ref_name} {ref[0] * 1000:.0f} ms (median {ref[1] * 1000:.0f}); "
        f"ratio {ratio:.2f} (median {ours[1] / ref[1]:.2f}) {goal}"
    )


@benchmark
def parse(folder: Path) -> None:
    """parse_module against XLA's parser on the largest after-optimizations module."""
    from jax._src.lib import xla_client

    from xlaview.hlo import parse_module

    (path,) = folder.glob("*after_optimizations.txt")
    text = path.read_text()
    module = parse_module(text)
    print(f"input: {path.name}: {len(text) / 1e6:.2f} MB, {module.instruction_count} instructions")
    ours, xla = [], []
    for _ in range(9):  # interleaved, so that machine noise hits both alike
        ours.append(best_of(lambda: parse_module(text), 1)[0])
        xla.append(best_of(lambda: xla_client.hlo.hlo_module_from_text(text), 1)[0])
    report("parse", (min(ours), statistics.median(ours)), (min(xla), statistics.median(xla)),
           "XLA", "(goal <= 1.0)")
    print(f"parse: {len(text) / 1e6 / min(ours):.1f} MB/s")
    del module
    gc.collect()
    tracemalloc.start()
    module = parse_module(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"parse: peak Python memory {peak / 1e6:.1f} MB for a {len(text) / 1e6:.1f} MB text "
          f"X")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"benchmarks to run (default: all): {list(BENCHMARKS)}")
    ap.add_argument("--layers", type=int, default=10, help="GPT depth of the input dump")
    args = ap.parse_args()
    folder = gpt_dump(args.layers)
    for name in args.names or BENCHMARKS:
        BENCHMARKS[name](folder)


if __name__ == "__main__":
    main()
