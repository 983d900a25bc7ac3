"""A GPT train step compiled by XLA with every pass dumped: the benchmarks' input.

``python benchmarks/gpt.py OUT_DIR [--layers 48]`` writes the dump folder
(compile only, nothing runs). The 48-layer step is the large real module the
benchmarks measure: its after-optimizations module has about 20k instructions.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys


def compile_step(layers: int) -> None:
    import jax
    import jax.numpy as jnp

    d, heads, seq, batch, vocab = 256, 4, 128, 2, 512
    spec = jax.ShapeDtypeStruct

    def layer_norm(x, g):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g

    def block(x, p):
        h = layer_norm(x, p["ln1"])
        q, k, v = jnp.split(h @ p["qkv"], 3, axis=-1)

        def split(t):
            return t.reshape(batch, seq, heads, d // heads).transpose(0, 2, 1, 3)

        q, k, v = split(q), split(k), split(v)
        s = (q @ k.transpose(0, 1, 3, 2)) / jnp.sqrt(d // heads)
        mask = jnp.tril(jnp.ones((seq, seq), bool))
        a = jax.nn.softmax(jnp.where(mask, s, -1e9), axis=-1) @ v
        x = x + a.transpose(0, 2, 1, 3).reshape(batch, seq, d) @ p["proj"]
        h = layer_norm(x, p["ln2"])
        return x + jax.nn.gelu(h @ p["up"]) @ p["down"]

    def loss(params, tokens):
        x = params["embed"][tokens]
        for p in params["blocks"]:  # unrolled on purpose: one big module
            x = block(x, p)
        logits = layer_norm(x, params["lnf"]) @ params["embed"].T
        logp = jax.nn.log_softmax(logits)
        return -jnp.take_along_axis(logp[:, :-1], tokens[:, 1:, None], -1).mean()

    def train_step(params, tokens):
        value, grads = jax.value_and_grad(loss)(params, tokens)
        return value, jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads)

    f32 = jnp.float32
    block_params = {
        "ln1": spec((d,), f32), "qkv": spec((d, 3 * d), f32), "proj": spec((d, d), f32),
        "ln2": spec((d,), f32), "up": spec((d, 4 * d), f32), "down": spec((4 * d, d), f32),
    }  # fmt: skip
    params = {
        "embed": spec((vocab, d), f32),
        "lnf": spec((d,), f32),
        "blocks": [block_params] * layers,
    }
    jax.jit(train_step).lower(params, spec((batch, seq), jnp.int32)).compile()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=10)
    ap.add_argument("--compile", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.compile:
        compile_step(args.layers)
        return
    env = {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "XLA_FLAGS": f"--xla_dump_to={args.out} --xla_dump_hlo_pass_re=.*",
    }
    cmd = [sys.executable, __file__, args.out, "--layers", str(args.layers), "--compile"]
    subprocess.run(cmd, env=env, check=True)


if __name__ == "__main__":
    main()
