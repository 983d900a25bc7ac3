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
}


def _compile(variant: str) -> None:
    import jax
    import jax.numpy as jnp

    code, _ = VARIANTS[variant]

    def loss(params, x, y):
        h = x
        for w, b in params:
            h = jnp.tanh(h @ w + b)
            if code == "mlp_scaled":
                h = h * 0.5 + 0.25  # the code change: one more op per layer
        return jnp.mean((h - y) ** 2)

    f32 = jnp.float32
    spec = jax.ShapeDtypeStruct
    params = [(spec((128, 128), f32), spec((128,), f32)) for _ in range(3)]
    x, y = spec((256, 128), f32), spec((256, 128), f32)
    jax.jit(jax.value_and_grad(loss)).lower(params, x, y).compile()


def generate(out: Path, names: tuple[str, ...] = tuple(VARIANTS)) -> dict[str, Path]:
    """Compile each variant into ``out/<variant>``; returns the folders."""
    from programs.zoo import dump_each

    folders = {}
    for name in names:
        _, flags = VARIANTS[name]
        folders.update(dump_each(__file__, out, (name,), flags, {}))
    return folders


if __name__ == "__main__":
    if sys.argv[1] == "--compile":
        _compile(sys.argv[2])
    else:
        sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/: programs.zoo
        generate(Path(sys.argv[1]), tuple(sys.argv[2:]) or tuple(VARIANTS))
