"""Small JAX programs whose boundaries have a known reason, compiled (not run)
for CPU with XLA's dump flags, all in one process (same flags for all: each
gets its own module, named after its function).

Run as a script: ``python boundary_programs.py OUT_DIR``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# An all-reduce needs several devices; the other programs run on one of them.
FLAGS = "--xla_force_host_platform_device_count=4"


def _compile() -> None:
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    f32 = jnp.float32
    spec = jax.ShapeDtypeStruct
    rows = spec((512, 1024), f32)

    def softmax(x):
        return jax.nn.softmax(x, axis=-1)

    def layer_norm(x, g, b):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / jnp.sqrt(var + 1e-5) * g + b

    def transposed_matmul(x, w):  # batch dims moved to the front for the dot, tanh fused in
        return jnp.einsum("mbk,bkn->bmn", jnp.tanh(x), w)

    def transpose_only_matmul(x, w):  # the same, the transpose alone
        return jnp.einsum("mbk,bkn->bmn", x, w)

    def shared_read(x):  # a sort is never fused: its result read by two fusions
        y = jnp.sort(x, axis=-1)
        return jnp.sin(y), jnp.cos(y)

    def program_output(x):
        y = jnp.exp(x)
        return y, jnp.sort(y, axis=-1)

    def while_loop(x):
        y = jax.lax.fori_loop(0, 10, lambda i, c: jnp.tanh(c @ c), x)
        return jnp.sort(y, axis=-1)

    jax.jit(softmax).lower(rows).compile()
    jax.jit(layer_norm).lower(rows, spec((1024,), f32), spec((1024,), f32)).compile()
    batched = (spec((128, 8, 64), f32), spec((8, 64, 32), f32))
    jax.jit(transposed_matmul).lower(*batched).compile()
    jax.jit(transpose_only_matmul).lower(*batched).compile()
    jax.jit(shared_read).lower(rows).compile()
    jax.jit(program_output).lower(spec((256, 256), f32)).compile()
    jax.jit(while_loop).lower(spec((64, 64), f32)).compile()

    mesh = Mesh(jax.devices()[:4], ("x",))

    def all_reduce(x, w):  # contracting dimension sharded: partial sums all-reduced
        return jnp.tanh(x @ w).sum(axis=0)

    jax.jit(
        all_reduce,
        in_shardings=(NamedSharding(mesh, P(None, "x")), NamedSharding(mesh, P("x", None))),
    ).lower(spec((64, 128), f32), spec((128, 32), f32)).compile()


def generate(out: Path, extra_flags: str = "") -> Path:
    """Compile every program into the dump folder ``out``; returns it."""
    flags = f"--xla_dump_to={out} --xla_dump_hlo_pass_re=.* {FLAGS} {extra_flags}".strip()
    env = {**os.environ, "XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu"}
    subprocess.run([sys.executable, __file__, "--compile"], env=env, check=True)
    return out


if __name__ == "__main__":
    if sys.argv[1] == "--compile":
        _compile()
    else:
        generate(Path(sys.argv[1]))
