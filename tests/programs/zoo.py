"""Small JAX programs compiled (not run) with XLA's dump flags, for tests.

Run as a script: ``python zoo.py OUT_DIR [NAME ...]`` compiles each program
into ``OUT_DIR/NAME`` with every pass dumped. Each program is compiled in its
own process so that XLA_FLAGS apply.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROGRAMS = ("attention", "mlp_grad", "scan", "cond", "conv", "spmd")


def _compile(name: str) -> None:
    import jax
    import jax.numpy as jnp

    f32 = jnp.float32
    spec = jax.ShapeDtypeStruct
    if name == "attention":

        def attention(x, wq, wk):
            s = (x @ wq) @ (x @ wk).T
            return jax.nn.softmax(s, axis=-1) @ x

        args = (
            spec((256, 64), jnp.bfloat16),
            spec((64, 64), jnp.bfloat16),
            spec((64, 64), jnp.bfloat16),
        )
        jax.jit(attention).lower(*args).compile()
    elif name == "mlp_grad":

        def loss(params, x, y):
            h = x
            for w, b in params:
                h = jax.nn.gelu(h @ w + b)
            return jnp.mean((h - y) ** 2)

        params = [(spec((32, 64), f32), spec((64,), f32)), (spec((64, 32), f32), spec((32,), f32))]
        jax.jit(jax.grad(loss)).lower(params, spec((16, 32), f32), spec((16, 32), f32)).compile()
    elif name == "scan":

        def step(carry, x):
            carry = jnp.tanh(carry @ x + 1.0)
            return carry, carry.sum()

        def run(c, xs):
            return jax.lax.scan(step, c, xs)

        jax.jit(run).lower(spec((8, 8), f32), spec((5, 8, 8), f32)).compile()
    elif name == "cond":

        def branchy(p, x):
            return jax.lax.cond(p > 0, lambda v: jnp.sin(v) * 2, lambda v: jnp.cos(v) - 1, x)

        jax.jit(branchy).lower(spec((), f32), spec((16,), f32)).compile()
    elif name == "conv":

        def conv(x, k):
            y = jax.lax.conv_general_dilated(x, k, (1, 1), "SAME")
            return jax.nn.relu(y).sum(axis=(2, 3))

        jax.jit(conv).lower(spec((2, 3, 16, 16), f32), spec((8, 3, 3, 3), f32)).compile()
    elif name == "spmd":
        from jax.sharding import Mesh, NamedSharding
        from jax.sharding import PartitionSpec as P

        mesh = Mesh(jax.devices()[:8], ("x",))
        sharded = NamedSharding(mesh, P("x", None))

        def layer(x, w):
            return jnp.tanh(x @ w).sum(axis=0)

        jax.jit(layer, in_shardings=(sharded, NamedSharding(mesh, P()))).lower(
            spec((64, 32), f32), spec((32, 16), f32)
        ).compile()
    else:
        raise SystemExit(f"unknown program {name!r}")


def generate(
    out: Path, names: tuple[str, ...] = PROGRAMS, extra_flags: str = ""
) -> dict[str, Path]:
    """Compile each program into ``out/<name>``, every pass dumped; returns the folders."""
    return dump_each(__file__, out, names, f"--xla_dump_hlo_pass_re=.* {extra_flags}", {"spmd": 8})


def dump_each(
    script: str, out: Path, names: tuple[str, ...], flags: str, devices: dict[str, int]
) -> dict[str, Path]:
    """Run ``script --compile NAME`` for each name, in a process of its own
    dumping into ``out/<name>`` with ``flags`` (and ``devices[name]`` host
    devices where given); returns the folders."""
    folders = {}
    for name in names:
        folder = out / name
        dump = f"--xla_dump_to={folder} {flags}"
        if name in devices:
            dump += f" --xla_force_host_platform_device_count={devices[name]}"
        env = {**os.environ, "XLA_FLAGS": dump, "JAX_PLATFORMS": "cpu"}
        subprocess.run([sys.executable, script, "--compile", name], env=env, check=True)
        folders[name] = folder
    return folders


if __name__ == "__main__":
    if sys.argv[1] == "--compile":
        _compile(sys.argv[2])
    else:
        generate(Path(sys.argv[1]), tuple(sys.argv[2:]) or PROGRAMS)
