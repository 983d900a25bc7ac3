"""One dump folder written by two processes at once, as a JAX run of two
processes (or a CPU and a TPU compile of one program) writes it: XLA numbers
modules per process, so the ids repeat.

Process A compiles ``_full_run`` (its module ``jit__full_run``, a private name
like JAX's own helpers), process B a small ``scatter_add``; neither runs an
eager op first, so both modules get the same id. Both compile with every pass
dumped, into one ``--xla_dump_to``, at the same time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIG = "jit__full_run"
SMALL = "jit_scatter_add"

_PROGRAMS = {
    BIG: """
import jax, jax.numpy as jnp
def _full_run(x, w):
    for _ in range(6):
        x = jnp.tanh(x @ w) + jnp.sin(x)
    return x.sum()
s = jax.ShapeDtypeStruct((64, 64), jnp.float32)
jax.jit(_full_run).lower(s, s).compile()
""",
    SMALL: """
import jax, jax.numpy as jnp
def scatter_add(x, i):
    return x.at[i].add(1.0)
jax.jit(scatter_add).lower(
    jax.ShapeDtypeStruct((8,), jnp.float32), jax.ShapeDtypeStruct((2,), jnp.int32)
).compile()
""",
}

_made: dict[str, Path] = {}


def generate(out: Path) -> Path:
    """The folder (``out/dump``), compiled once per test session."""
    if "dump" in _made:
        return _made["dump"]
    folder = out / "dump"
    env = {
        **os.environ,
        "XLA_FLAGS": f"--xla_dump_to={folder} --xla_dump_hlo_pass_re=.*",
        "JAX_PLATFORMS": "cpu",
    }
    running = [
        subprocess.Popen([sys.executable, "-c", source], env=env, stderr=subprocess.PIPE)
        for source in _PROGRAMS.values()
    ]
    for name, process in zip(_PROGRAMS, running, strict=True):
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, f"compiling {name}: {err.decode(errors='replace')}"
    _made["dump"] = folder
    return folder


# -- folders built from the peer corpus's real dumps ----------------------------

GSPMD = "real_dumps/clarkechong__scale-your-amd/runs/_hlo_gspmd_vs_shardmap"
FME = "real_dumps/carlesoctav__fme/xla_dump"


def copy_module(
    source: Path,
    module: str,
    out: Path,
    as_id: int | None = None,
    *,
    prefix: str = "",
    mtime: float | None = None,
    stamp: bool = False,
) -> list[Path]:
    """Copy the files of ``module`` (``module_NNNN.name``) from a real dump into
    ``out``, renumbered ``as_id`` (what a second process writes under an id the
    first used), with ``prefix`` (a timestamp) on the files XLA stamps when
    ``stamp``, and modification times from ``mtime`` on, a file a microsecond
    after the other in name order (the order XLA writes them in is not known)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    number = int(module.split(".", 1)[0].removeprefix("module_"))
    for k, path in enumerate(sorted(source.glob(module + ".*"))):
        if not path.is_file():
            continue
        name = path.name
        if as_id is not None:
            name = name.replace(f"module_{number:04d}.", f"module_{as_id:04d}.", 1)
        # XLA stamps its HLO dumps and their reports, not the other files.
        if stamp and name.endswith(".txt"):
            name = prefix + name
        target = out / name
        target.write_bytes(path.read_bytes())
        if mtime is not None:
            os.utime(target, (mtime + k * 1e-6, mtime + k * 1e-6))
        written.append(target)
    return written
