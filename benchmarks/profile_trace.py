"""A big real jax.profiler trace for the profile benchmark: a 2,000-step scan
run 100 times on CPU, every step's ops timed (about 2.4 million events).

``python benchmarks/profile_trace.py OUT_DIR`` writes ``OUT_DIR/dump`` and
``OUT_DIR/trace``.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(out: Path, steps: int = 2000, runs: int = 100) -> None:
    import jax
    import jax.numpy as jnp

    def step(c, v):
        c = jnp.tanh(c @ v + 1.0)
        return c, c.sum()

    def scan(c, xs):
        return jax.lax.scan(step, c, xs)

    c, xs = jnp.ones((16, 16)), jnp.ones((steps, 16, 16)) * 0.01
    compiled = (
        jax.jit(scan).lower(c, xs).compile(compiler_options={"xla_dump_to": str(out / "dump")})
    )
    jax.block_until_ready(compiled(c, xs))
    jax.profiler.start_trace(str(out / "trace"))
    for _ in range(runs):
        jax.block_until_ready(compiled(c, xs))
    jax.profiler.stop_trace()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
