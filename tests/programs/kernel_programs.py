"""A small JAX program with every kind of op XLA:CPU runs differently, compiled
(not run) with XLA's dump flags and its emitters' IR dumps, for the kernel tests.

``generate(out)`` compiles it twice, each in a process of its own:

* ``default``: XLA:CPU's default flags; its dots go to YNNPACK (``__ynn_fusion``
  kCustom fusions, library calls);
* ``no_ynn``: ``--xla_cpu_experimental_ynn_fusion_type=`` (no library fusions:
  the dots stay unfused and run in Eigen).

Both dump every pass and, with ``--xla_dump_emitter_re=.*``, each kernel's MLIR
stages (``<fusion>_kernel_module-pre-optimization.mlir``...) and pass log. The
program has fusions of the loop emitter, a scatter (its own emitter), a loop
and a conditional (kernels in their bodies), a sort (its comparator compiled
apart), small loops XLA:CPU compiles as one kernel (``xla_cpu_small_call``), an
unfused concatenate (an elemental kernel), a convolution, an FFT, a top k and a
Cholesky factorization (library and runtime calls), copies, bitcasts and tuples.

Run as a script: ``python kernel_programs.py OUT_DIR``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

FLAGS = "--xla_dump_hlo_pass_re=.* --xla_dump_emitter_re=.*"
VARIANTS = {"default": "", "no_ynn": "--xla_cpu_experimental_ynn_fusion_type="}


def _compile() -> None:
    # XLA:CPU's emitters compile fusions on a thread pool as large as the CPUs
    # the process may use, and dumping their MLIR from several threads at once
    # crashes this jaxlib about every other time (double free, segfault): one
    # CPU, one thread, no crash.
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    import jax
    import jax.numpy as jnp

    f32 = jnp.float32
    spec = jax.ShapeDtypeStruct

    def program(x, w, idx, u, k, m, v, key):
        h = jnp.tanh(x @ w + 1.0)
        s = h.at[idx].add(u)
        c = jax.lax.fori_loop(0, 3, lambda i, a: jnp.sin(a) * 2.0, s)
        srt = jnp.sort(c, axis=1)
        conv = jax.lax.conv_general_dilated(k, k[:, :, :3, :3], (1, 1), "SAME")
        top = jax.lax.top_k(c, 3)[0]
        chol = jnp.linalg.cholesky(m @ m.T + jnp.eye(8))
        fft = jnp.fft.fft(x[0]).real
        cat = jnp.concatenate([c, srt], axis=0)
        pad = jnp.pad(c, 1)
        gathered = c[idx]
        branch = jax.lax.cond(c.sum() > 0, jnp.cos, lambda a: a * 3.0, c)
        small = jax.lax.fori_loop(0, 5, lambda i, a: a * 1.5 + i.astype(f32), v)
        noise = jax.random.normal(jax.random.wrap_key_data(key), (4,))
        return (
            c.sum(axis=0), c.T.reshape(-1)[:10], srt, conv, top, chol, fft, cat, pad,
            gathered, branch, small, noise,
        )  # fmt: skip

    args = (
        spec((64, 32), f32), spec((32, 32), f32), spec((8,), jnp.int32), spec((8, 32), f32),
        spec((1, 3, 8, 8), f32), spec((8, 8), f32), spec((4,), f32), spec((2,), jnp.uint32),
    )  # fmt: skip
    jax.jit(program).lower(*args).compile()


def generate(out: Path) -> dict[str, Path]:
    """Compile the program into ``out/default`` and ``out/no_ynn``; returns the folders."""
    folders = {}
    for variant, flags in VARIANTS.items():
        folder = out / variant
        dump = f"--xla_dump_to={folder} {FLAGS} {flags}"
        env = {**os.environ, "XLA_FLAGS": dump, "JAX_PLATFORMS": "cpu"}
        for attempt in range(3):  # the crash above, should a thread pool still race
            shutil.rmtree(folder, ignore_errors=True)
            done = subprocess.run([sys.executable, __file__, "--compile"], env=env)
            if done.returncode == 0 or attempt == 2:
                done.check_returncode()
                break
        folders[variant] = folder
    return folders


if __name__ == "__main__":
    if sys.argv[1] == "--compile":
        _compile()
    else:
        generate(Path(sys.argv[1]))
