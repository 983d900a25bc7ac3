"""Collecting dumps: run a program with XLA's dump flags, or compile one JAX
function with them, and hand back the folder.

The user's own ``XLA_FLAGS`` are kept: ours are added, never replace theirs.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from xlaview.errors import XlaviewError
from xlaview.profile.files import TRACE_FOLDER

DEFAULT_PASSES = ".*"


class CollectError(XlaviewError, RuntimeError):
    """Collecting cannot start: no jax, a folder that cannot be written..."""


def cache_root() -> Path:
    """Where dumps go by default: ``$XDG_CACHE_HOME/xlaview/dumps`` (``~/.cache``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "xlaview" / "dumps"


def new_dump_folder(label: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)[:40].strip("_") or "dump"
    folder = cache_root() / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}"
    n = 1
    while folder.exists():
        n += 1
        folder = folder.with_name(f"{folder.name.rsplit('~', 1)[0]}~{n}")
    return folder


def ensure_writable(folder: Path) -> Path:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CollectError(f"cannot create {folder}: {err.strerror or err}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CollectError(f"cannot write into {folder}")
    return folder


def _flag_value(flags: list[str], name: str) -> str | None:
    for flag in flags:
        key, _, value = flag.partition("=")
        if key == name:
            return value
    return None


def merge_xla_flags(
    existing: str, out: Path, passes: str | None = DEFAULT_PASSES, modules: str | None = None
) -> tuple[str, Path, list[str]]:
    """``XLA_FLAGS`` with dumping added to the user's flags.

    Returns (flags, the folder XLA will dump to, warnings). A ``--xla_dump_to``
    the user already set wins (with a warning); so do their own pass and module
    filters.
    """
    # XLA splits XLA_FLAGS on whitespace and knows no shell quoting.
    flags = existing.split()
    warnings: list[str] = []
    theirs = _flag_value(flags, "--xla_dump_to")
    if theirs:
        if Path(theirs).expanduser() != out:
            warnings.append(f"XLA_FLAGS already sets --xla_dump_to={theirs}: dumping there")
        out = Path(theirs).expanduser()
    else:
        if any(c.isspace() for c in str(out)):
            raise CollectError(f"XLA_FLAGS cannot name a folder with spaces: {out}")
        flags.append(f"--xla_dump_to={out}")
    if passes and _flag_value(flags, "--xla_dump_hlo_pass_re") is None:
        flags.append(f"--xla_dump_hlo_pass_re={passes}")
    if modules and _flag_value(flags, "--xla_dump_hlo_module_re") is None:
        flags.append(f"--xla_dump_hlo_module_re={modules}")
    return " ".join(flags), out, warnings


def run_with_dumps(
    command: Sequence[str], out: Path, passes: str | None = DEFAULT_PASSES,
    modules: str | None = None, env: dict[str, str] | None = None,
) -> tuple[int, Path, list[str]]:
    """Run ``command`` with dumping on; stdin, stdout and stderr pass through.

    Returns (exit status, dump folder, warnings). A command that cannot be
    started raises `CollectError`.
    """
    env = dict(os.environ if env is None else env)
    flags, folder, warnings = merge_xla_flags(env.get("XLA_FLAGS", ""), out, passes, modules)
    ensure_writable(folder)
    env["XLA_FLAGS"] = flags
    try:
        completed = subprocess.run(list(command), env=env)
    except FileNotFoundError:
        raise CollectError(f"{command[0]}: command not found") from None
    except PermissionError:
        raise CollectError(f"{command[0]}: permission denied") from None
    return completed.returncode, folder, warnings


def collect(
    fn: Callable[..., Any],
    *args: Any,
    out: str | os.PathLike[str] | None = None,
    passes: str = DEFAULT_PASSES,
    open: bool = False,  # noqa: A002 (the natural name for the caller)
    profile: int = 0,
    **jit_kwargs: Any,
) -> Path:
    """Compile ``fn`` for ``args`` (arrays or ``jax.ShapeDtypeStruct``) with
    every pass dumped; return the dump folder.

    The dump options go to this one compilation (jax's ``compiler_options``),
    so other compilations in the process are not dumped. ``jit_kwargs`` go to
    ``jax.jit`` (``static_argnums``, ``in_shardings``...). With ``open=True`` the
    window opens on the folder.

    With ``profile=N`` the compiled function also runs: once to warm up, then
    N times under ``jax.profiler``, each run waited for; the trace goes to
    ``trace/`` inside the dump folder (`xlaview.profile.find_trace` finds it).
    Running needs real arrays: each ``ShapeDtypeStruct`` becomes an array of
    its shape, dtype and sharding, filled with normal random numbers (seed 0)
    for floating and complex types and with zeros otherwise (zeros are valid
    indices). Arrays given as arrays are used as they are.
    """
    try:
        import jax
    except ImportError:
        raise CollectError(
            "xlaview.collect needs jax: pip install 'xlaview[jax]' (or jax itself)"
        ) from None
    if not isinstance(profile, int) or isinstance(profile, bool) or profile < 0:
        raise CollectError(f"profile= takes a number of runs, not {profile!r}")
    name = getattr(fn, "__name__", "fn")
    folder = ensure_writable(Path(out).expanduser() if out is not None else new_dump_folder(name))
    options: dict[str, str | bool] = {"xla_dump_to": str(folder), "xla_dump_hlo_pass_re": passes}
    compiled = jax.jit(fn, **jit_kwargs).lower(*args).compile(compiler_options=options)
    if profile:
        dynamic = _dynamic_args(fn, args, jit_kwargs)
        _run_profiled(compiled, _concrete(dynamic), profile, folder / TRACE_FOLDER)
    if open:
        from xlaview.qt.app import run_gui  # the GUI only when asked for

        run_gui([str(folder)])
    return folder


def _dynamic_args(fn: Callable[..., Any], args: tuple[Any, ...],
                  jit_kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """``args`` without the static ones: a compiled function takes only the others."""
    static = jit_kwargs.get("static_argnums", ())
    static = {static} if isinstance(static, int) else set(static or ())
    names = jit_kwargs.get("static_argnames", ())
    names = {names} if isinstance(names, str) else set(names or ())
    if names:
        import inspect

        try:
            params = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            params = []
        static |= {params.index(n) for n in names if n in params}
    static = {i % len(args) for i in static if -len(args) <= i < len(args)}
    return tuple(a for i, a in enumerate(args) if i not in static)


def _concrete(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Arrays for the ``ShapeDtypeStruct`` leaves of ``args``."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)

    def make(leaf: Any) -> Any:
        if not isinstance(leaf, jax.ShapeDtypeStruct):
            return leaf
        if jnp.issubdtype(leaf.dtype, jnp.inexact):  # bfloat16 and float8 included
            value = rng.standard_normal(leaf.shape, dtype=np.float32).astype(leaf.dtype)
        else:
            value = np.zeros(leaf.shape, leaf.dtype)
        sharding = getattr(leaf, "sharding", None)
        return jax.device_put(value, sharding) if sharding is not None else jnp.asarray(value)

    return jax.tree_util.tree_map(make, args)


def _run_profiled(compiled: Any, args: tuple[Any, ...], runs: int, trace: Path) -> None:
    import jax

    jax.block_until_ready(compiled(*args))  # allocation and first-touch costs stay out of the trace
    try:
        jax.profiler.start_trace(str(trace))
    except RuntimeError as err:  # another trace is running
        raise CollectError(f"cannot start the profiler: {err}") from None
    try:
        for _ in range(runs):
            jax.block_until_ready(compiled(*args))
    finally:
        jax.profiler.stop_trace()


__all__ = ["CollectError", "collect", "merge_xla_flags", "run_with_dumps"]
