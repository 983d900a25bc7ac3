"""Big train steps of shapes unlike the GPT's, compiled by XLA with every pass
dumped: the scale benchmarks hold on programs they were not tuned on.

``python benchmarks/shapes.py OUT_DIR --program NAME [--size N]`` writes the
dump folder (compile only, nothing runs):

- ``moe``: a mixture-of-experts stack, N layers of top-2 routing over 16
  experts, unrolled, with Adam: wide graphs of many small parallel ops, the
  optimizer's update fused per tensor.
- ``unet``: N stacked U-Nets (an hourglass network) of 5 levels down and up
  with skip connections (convs, pooling, upsampling, concatenations reaching
  across the graph), trained with momentum: long edges from each level down to
  its twin up.
- ``remat``: an MLP-mixer in bf16 with f32 master weights: ``lax.scan`` over
  8 stacked stages, each N mixer blocks under ``jax.checkpoint``: while loops
  whose bodies hold the recomputed forward, with Adam.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

PROGRAMS = ("moe", "unet", "remat")


def _adam(params, grads, state):
    import jax
    import jax.numpy as jnp

    m, v = state
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
    params = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, m, v)
    return params, (m, v)


def compile_moe(layers: int) -> None:
    import jax
    import jax.numpy as jnp

    d, hidden, experts, tokens = 128, 256, 16, 512
    spec, f32 = jax.ShapeDtypeStruct, jnp.float32

    def moe_layer(x, p):
        logits = x @ p["router"]
        weights, chosen = jax.lax.top_k(jax.nn.softmax(logits), 2)
        out = jnp.zeros_like(x)
        for e in range(experts):  # unrolled: each expert its own ops
            gate = jnp.sum(jnp.where(chosen == e, weights, 0.0), axis=-1, keepdims=True)
            h = jax.nn.silu(x @ p["w_in"][e]) @ p["w_out"][e]
            out = out + gate * h
        return x + out

    def loss(params, x):
        for p in params:
            x = moe_layer(x, p)
        return jnp.mean(x**2)

    def step(params, state, x):
        grads = jax.grad(loss)(params, x)
        return _adam(params, grads, state)

    layer = {
        "router": spec((d, experts), f32),
        "w_in": spec((experts, d, hidden), f32),
        "w_out": spec((experts, hidden, d), f32),
    }
    params = [layer] * layers
    jax.jit(step).lower(params, (params, params), spec((tokens, d), f32)).compile()


def compile_unet(stacks: int) -> None:
    import jax
    import jax.numpy as jnp

    spec, f32 = jax.ShapeDtypeStruct, jnp.float32
    levels = 5
    base, size, batch = 8, 2 ** (levels + 2), 2

    def conv(x, w):
        return jax.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    def block(x, p):
        return jax.nn.relu(conv(jax.nn.relu(conv(x, p[0])), p[1]))

    def unet(params, x):
        skips = []
        for p in params["down"]:
            x = block(x, p)
            skips.append(x)
            x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        x = block(x, params["mid"])
        for p, skip in zip(params["up"], reversed(skips), strict=True):
            x = jnp.repeat(jnp.repeat(x, 2, axis=1), 2, axis=2)
            x = block(jnp.concatenate([x, skip], axis=-1), p)
        return conv(x, params["out"])

    def loss(params, x, y):
        for p in params:  # each hourglass refines the last one's output
            x = x + unet(p, x)
        return jnp.mean((x - y) ** 2)

    def step(params, velocity, x, y):
        grads = jax.grad(loss)(params, x, y)
        velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
        return jax.tree.map(lambda p, v: p - 1e-2 * v, params, velocity), velocity

    def pair(cin, cout):
        return (spec((3, 3, cin, cout), f32), spec((3, 3, cout, cout), f32))

    widths = [base * 2**i for i in range(levels)]
    down, cin = [], 3
    for w in widths:
        down.append(pair(cin, w))
        cin = w
    mid = pair(cin, cin * 2)
    up, cin = [], cin * 2
    for w in reversed(widths):
        up.append(pair(cin + w, w))
        cin = w
    params = [{"down": down, "mid": mid, "up": up, "out": spec((1, 1, cin, 3), f32)}] * stacks
    image = spec((batch, size, size, 3), f32)
    jax.jit(step).lower(params, params, image, image).compile()


def compile_remat(depth: int) -> None:
    import jax
    import jax.numpy as jnp

    spec, f32, bf16 = jax.ShapeDtypeStruct, jnp.float32, jnp.bfloat16
    tokens, channels, hidden, batch = 64, 128, 256, 4

    def mixer(x, p):
        x = x.astype(bf16)
        y = jax.nn.gelu(jnp.swapaxes(x, 1, 2) @ p["t1"].astype(bf16)) @ p["t2"].astype(bf16)
        x = x + jnp.swapaxes(y, 1, 2)
        y = jax.nn.gelu(x @ p["c1"].astype(bf16)) @ p["c2"].astype(bf16)
        return (x + y).astype(f32)

    def stage(x, ps):
        for p in ps:  # unrolled inside the loop's body
            x = mixer(x, p)
        return x, None

    def loss(stacked, x):
        x, _ = jax.lax.scan(jax.checkpoint(stage), x, stacked)
        return jnp.mean(x.astype(f32) ** 2)

    def step(stacked, state, x):
        grads = jax.grad(loss)(stacked, x)
        return _adam(stacked, grads, state)

    stages = 8
    block = {
        "t1": spec((stages, tokens, hidden), f32),
        "t2": spec((stages, hidden, tokens), f32),
        "c1": spec((stages, channels, hidden), f32),
        "c2": spec((stages, hidden, channels), f32),
    }
    stacked = [block] * depth
    x = spec((batch, tokens, channels), f32)
    jax.jit(step).lower(stacked, (stacked, stacked), x).compile()


COMPILERS = {"moe": compile_moe, "unet": compile_unet, "remat": compile_remat}
# Sizes that give dump folders of 0.5-1.5 GB.
DEFAULT_SIZES = {"moe": 48, "unet": 64, "remat": 64}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--program", choices=PROGRAMS, required=True)
    ap.add_argument("--size", type=int, default=None)
    ap.add_argument("--compile", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    size = args.size or DEFAULT_SIZES[args.program]
    if args.compile:
        COMPILERS[args.program](size)
        return
    env = {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "XLA_FLAGS": f"--xla_dump_to={args.out} --xla_dump_hlo_pass_re=.*",
    }
    subprocess.run(
        [sys.executable, __file__, args.out, "--program", args.program, "--size", str(size)]
        + ["--compile"],
        env=env,
        check=True,
    )


if __name__ == "__main__":
    main()
