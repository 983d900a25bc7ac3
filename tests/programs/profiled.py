"""Small JAX programs run under ``jax.profiler`` with every pass dumped, for tests.

Run as a script: ``python profiled.py OUT_DIR NAME`` writes ``OUT_DIR/NAME/dump``
(XLA_FLAGS dumping every pass of every compilation) and ``OUT_DIR/NAME/trace``
(the ``jax.profiler`` log dir; mlp_scan's also has a ``perfetto_trace.json.gz``),
and ``OUT_DIR/NAME/runs.json`` saying which
compilation ran how often, in order. Each program runs in its own process so
that XLA_FLAGS apply. Every function runs once before the trace starts, so the
trace holds exactly the runs listed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROGRAMS = ("mlp_scan", "two_shapes", "two_bodies", "one_body", "other_body")
RUNS = 3


def _programs():
    import jax
    import jax.numpy as jnp

    def mlp_scan(x, w, xs):
        def step(c, v):
            c = jnp.tanh(c @ v + 1.0)
            return c, c.sum()

        h = jax.nn.gelu(x @ w)
        c, sums = jax.lax.scan(step, h[:16, :16], xs)
        return h.sum() + c.sum() + sums.sum()

    def step(x):  # one name, two shapes: identical op names
        return jnp.tanh(x * 2.0)

    def body(x):  # one name, two bodies: different ops per shape
        return jnp.sin(x) if x.ndim == 1 else jnp.cos(x @ x.T).sum()

    def other(x):  # "body" again, another version: its ops are not in the other's dump
        return jnp.exp(x).max()

    other.__name__ = "body"
    f32 = jnp.float32
    return {
        "mlp_scan": [
            (
                mlp_scan,
                (
                    jnp.ones((64, 32), f32),
                    jnp.ones((32, 64), f32) * 0.1,
                    jnp.ones((5, 16, 16), f32) * 0.1,
                ),
            )
        ],
        "two_shapes": [(step, (jnp.ones((1000,), f32),)), (step, (jnp.ones((2000,), f32),))],
        "two_bodies": [(body, (jnp.ones((1000,), f32),)), (body, (jnp.ones((32, 32), f32),))],
        "one_body": [(body, (jnp.ones((1000,), f32),))],
        "other_body": [(other, (jnp.ones((1000,), f32),))],
    }


def _run(name: str, out: Path) -> None:
    import jax

    functions = _programs()[name]
    compiled = [jax.jit(fn).lower(*args).compile() for fn, args in functions]
    for call, (_, args) in zip(compiled, functions, strict=True):
        jax.block_until_ready(call(*args))
    runs = []
    jax.profiler.start_trace(str(out / "trace"), create_perfetto_trace=name == "mlp_scan")
    for k, (call, (_, args)) in enumerate(zip(compiled, functions, strict=True)):
        # Compilations of one name run different numbers of times, one after
        # the other, so that tests can tell their runs apart in the JSON.
        for _ in range(RUNS - k):
            jax.block_until_ready(call(*args))
            runs.append(k)
    jax.profiler.stop_trace()
    (out / "runs.json").write_text(json.dumps(runs))


def generate(root: Path, names: tuple[str, ...] = PROGRAMS) -> dict[str, Path]:
    """Run each program in its own process; returns NAME -> its folder."""
    done = {}
    for name in names:
        out = root / name
        out.mkdir(parents=True, exist_ok=True)
        env = dict(
            os.environ,
            JAX_PLATFORMS="cpu",
            XLA_FLAGS=f"--xla_dump_to={out / 'dump'} --xla_dump_hlo_pass_re=.*",
        )
        proc = subprocess.run(
            [sys.executable, __file__, str(root), name],
            check=False,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"profiling {name} failed:\n{proc.stderr[-3000:]}")
        done[name] = out
    return done


if __name__ == "__main__":
    _run(sys.argv[2], Path(sys.argv[1]) / sys.argv[2])
