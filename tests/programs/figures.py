"""Programs whose figures a performance engineer would quote, compiled (not
run) with XLA's dump flags: the seed attention under default flags (one
library fusion on XLA:CPU), a sharded matmul whose partial products an
8-device all-reduce adds up, and an f64 matmul.

    python tests/programs/figures.py OUT [NAME...]
"""

from __future__ import annotations

import sys
from pathlib import Path

PROGRAMS = ("attention_default", "allreduce8", "f64_dot")


def _compile(name: str) -> None:
    import jax
    import jax.numpy as jnp

    spec = jax.ShapeDtypeStruct
    if name == "attention_default":

        def attention(x, wq, wk):
            scores = (x @ wq) @ (x @ wk).T
            return jax.nn.softmax(scores, axis=-1) @ x

        bf16 = jnp.bfloat16
        jax.jit(attention).lower(
            spec((8192, 64), bf16), spec((64, 64), bf16), spec((64, 64), bf16)
        ).compile()
    elif name == "pooled_layers":
        # Five inputs of two sizes, each pooled twice: a library fusion
        # each, whose body runs the program of the others of its size
        # under other names.
        def pool(z):
            b, h, w, c = z.shape
            return z.reshape(b, h // 2, 2, w // 2, 2, c).sum(axis=(2, 4))

        def pooled(*xs):
            return [pool(pool(x)) for x in xs]

        shapes = [(2, 64, 64, 16)] * 3 + [(2, 32, 32, 8)] * 2
        jax.jit(pooled).lower(*(spec(s, jnp.float32) for s in shapes)).compile()
    elif name == "allreduce8":
        from jax.sharding import Mesh, NamedSharding
        from jax.sharding import PartitionSpec as P

        mesh = Mesh(jax.devices()[:8], ("x",))
        lhs = NamedSharding(mesh, P(None, "x"))
        rhs = NamedSharding(mesh, P("x", None))
        out = NamedSharding(mesh, P())
        jax.jit(jnp.matmul, in_shardings=(lhs, rhs), out_shardings=out).lower(
            spec((4096, 8192), jnp.bfloat16), spec((8192, 4096), jnp.bfloat16)
        ).compile()
    elif name == "f64_dot":
        jax.config.update("jax_enable_x64", True)
        jax.jit(jnp.matmul).lower(
            spec((2048, 2048), jnp.float64), spec((2048, 2048), jnp.float64)
        ).compile()
    else:
        raise SystemExit(f"unknown program {name!r}")


def generate(out: Path, names: tuple[str, ...] = PROGRAMS) -> dict[str, Path]:
    """Compile each program into ``out/<name>`` (final dumps only); returns the folders."""
    from programs.zoo import dump_each

    return dump_each(__file__, out, names, "", {"allreduce8": 8})


if __name__ == "__main__":
    if sys.argv[1] == "--compile":
        _compile(sys.argv[2])
    else:
        sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/: programs.zoo
        generate(Path(sys.argv[1]), tuple(sys.argv[2:]) or PROGRAMS)
