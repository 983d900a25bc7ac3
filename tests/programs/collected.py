"""A small JAX program dumped and profiled by ``xlaview.collect(fn, *args,
profile=3)``, as a user does it, for the window's tests.

Run as a script: ``python collected.py OUT_DIR`` writes the dump folder
``OUT_DIR`` with the trace in ``OUT_DIR/trace`` (its own process, so that
nothing else in the test run is dumped or traced).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

RUNS = 3


def _run(out: Path) -> None:
    import jax
    import jax.numpy as jnp

    import xlaview

    def mlp_scan(x, w, xs):
        def step(c, v):
            c = jnp.tanh(c @ v + 1.0)
            return c, c.sum()

        h = jax.nn.gelu(x @ w)
        c, sums = jax.lax.scan(step, h[:64, :64], xs)
        return h.sum() + c.sum() + sums.sum()

    f32 = jnp.float32
    xlaview.collect(
        mlp_scan,
        jax.ShapeDtypeStruct((256, 128), f32),
        jax.ShapeDtypeStruct((128, 256), f32),
        jax.ShapeDtypeStruct((4, 64, 64), f32),
        out=out,
        profile=RUNS,
    )


def generate(out: Path) -> Path:
    """Dump and profile the program into ``out`` in a process of its own."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run(
        [sys.executable, __file__, str(out)],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"collecting the profiled program failed:\n{proc.stderr[-3000:]}")
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    _run(Path(sys.argv[1]))
