"""A JAX train step whose blocks are named scopes (as Flax and Equinox name
their modules), compiled (not run) with every pass dumped, for the folding tests.

``python scoped.py OUT_DIR [--blocks 8]`` writes the dump folder; each block is
``jax.named_scope(f"block_{i}")`` holding ``attention`` and ``mlp`` scopes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys


def compile_step(blocks: int) -> None:
    import jax
    import jax.numpy as jnp

    d, seq = 64, 32
    spec = jax.ShapeDtypeStruct

    def block(x, p, i):
        with jax.named_scope(f"block_{i}"):
            with jax.named_scope("attention"):
                q, k = x @ p["q"], x @ p["k"]
                x = x + jax.nn.softmax(q @ k.T / 8.0, axis=-1) @ x
            with jax.named_scope("mlp"):
                return x + jnp.tanh(x @ p["up"]) @ p["down"]

    def loss(params, x):
        for i, p in enumerate(params):
            x = block(x, p, i)
        return (x**2).mean()

    def train_step(params, x):
        grads = jax.grad(loss)(params, x)
        return jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads)

    f32 = jnp.float32
    one = {"q": spec((d, d), f32), "k": spec((d, d), f32)}
    one |= {"up": spec((d, 4 * d), f32), "down": spec((4 * d, d), f32)}
    jax.jit(train_step).lower([one] * blocks, spec((seq, d), f32)).compile()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--compile", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.compile:
        compile_step(args.blocks)
        return
    env = {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "XLA_FLAGS": f"--xla_dump_to={args.out} --xla_dump_hlo_pass_re=.*",
    }
    cmd = [sys.executable, __file__, args.out, "--blocks", str(args.blocks), "--compile"]
    subprocess.run(cmd, env=env, check=True)


if __name__ == "__main__":
    main()
