"""Variants of one small JAX program compiled (not run) with XLA's dump
flags, for the op-by-op comparison of two dumps (``xlaview compare``).

Run as a script: ``python matching_programs.py --compile VARIANT`` compiles
one variant into the folder ``XLA_FLAGS`` names. ``generate`` compiles each
variant in a process of its own so that its flags apply.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Variant -> (the program's code, XLA flags beyond the dump's).
VARIANTS = {
    "default": ("mlp", ""),
    "again": ("mlp", ""),  # the same program, compiled again in another process
    "no_library": ("mlp", "--xla_cpu_experimental_ynn_fusion_type="),
    "extra_op": ("mlp_scaled", ""),
    # PyTorch/XLA's attention of tests/programs/frameworks.py, written in JAX.
    "torch_attention": ("attention", "--xla_cpu_experimental_ynn_fusion_type="),
    # The train step over 4 devices: the batch split, then the features too.
    "data_parallel": ("mlp_data", ""),
    "model_parallel": ("mlp_model", ""),
    # A scan whose body adds another constant: the change is two levels down.
    "scan": ("scan", ""),
    "scan_changed": ("scan_changed", ""),
}
DEVICES = {"data_parallel": 4, "model_parallel": 4}


def _compile(variant: str) -> None:
    import jax
    import jax.numpy as jnp

    code, _ = VARIANTS[variant]
    f32 = jnp.float32
    spec = jax.ShapeDtypeStruct
    if code == "attention":

        def attention(x, wq, wk, wv):
            q, k, v = x @ wq, x @ wk, x @ wv
            return jax.nn.softmax(q @ k.T / 8.0, axis=-1) @ v

        square = spec((64, 64), f32)
        jax.jit(attention).lower(spec((128, 64), f32), square, square, square).compile()
        return
    if code in ("scan", "scan_changed"):

        def scanned(c, xs):
            def step(c, v):
                c = jnp.tanh(c @ v + (2.0 if code == "scan_changed" else 1.0))
                return c, c.sum()

            c, sums = jax.lax.scan(step, c, xs)
            return c.sum() + sums.sum()

        jax.jit(scanned).lower(spec((64, 64), f32), spec((8, 64, 64), f32)).compile()
        return

    def loss(params, x, y):
        h = x
        for w, b in params:
            h = jnp.tanh(h @ w + b)
            if code == "mlp_scaled":
                h = h * 0.5 + 0.25  # the code change: one more op per layer
        return jnp.mean((h - y) ** 2)

    params = [(spec((128, 128), f32), spec((128,), f32)) for _ in range(3)]
    x, y = spec((256, 128), f32), spec((256, 128), f32)
    step = jax.value_and_grad(loss)
    if code in ("mlp_data", "mlp_model"):
        from jax.sharding import NamedSharding, PartitionSpec

        mesh = jax.make_mesh((2, 2), ("batch", "model"))
        batch = NamedSharding(mesh, PartitionSpec(("batch", "model")))
        if code == "mlp_model":
            batch = NamedSharding(mesh, PartitionSpec("batch", "model"))
        weights = NamedSharding(mesh, PartitionSpec(None, "model" if code == "mlp_model" else None))
        replicated = NamedSharding(mesh, PartitionSpec())
        shardings = ([(weights, replicated)] * 3, batch, batch)
        jax.jit(step, in_shardings=shardings).lower(params, x, y).compile()
        return
    jax.jit(step).lower(params, x, y).compile()


def generate(out: Path, names: tuple[str, ...] = tuple(VARIANTS)) -> dict[str, Path]:
    """Compile each variant into ``out/<variant>``; returns the folders."""
    from programs.zoo import dump_each

    folders = {}
    for name in names:
        _, flags = VARIANTS[name]
        folders.update(dump_each(__file__, out, (name,), flags, DEVICES))
    return folders


if __name__ == "__main__":
    if sys.argv[1] == "--compile":
        _compile(sys.argv[2])
    else:
        sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/: programs.zoo
        generate(Path(sys.argv[1]), tuple(sys.argv[2:]) or tuple(VARIANTS))
