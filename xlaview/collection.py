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

from xlaview.dump.naming import parse_file_name
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


def holds_dump(folder: Path) -> bool:
    """Whether ``folder`` already holds files XLA's dumper names."""
    try:
        return any(parse_file_name(entry.name) is not None for entry in os.scandir(folder))
    except OSError:
        return False


def ensure_writable(folder: Path, force: bool = False) -> Path:
    """``folder`` made, writable, and (unless ``force``) holding no dump yet:
    a second program dumped into it would mix its modules with the first's
    (module ids start at 0000 again)."""
    if not force and holds_dump(folder):
        raise CollectError(
            f"{folder} already holds a dump: another program's modules would mix with it "
            "(their ids start again at 0000); give a new folder, or --force to add to it"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CollectError(f"cannot create {folder}: {err.strerror or err}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CollectError(f"cannot write into {folder}")
    return folder


# XLA reads XLA_FLAGS with its own small tokenizer (xla/parse_flags_from_env.cc,
# ParseArgvFromString): flags are split on these four characters, a value may
# be quoted (--flag="..." with backslash escapes, or --flag='...'), and reading
# stops, silently, at the first token that does not start with "-".
_XLA_SPACE = " \t\r\n"


def xla_flags(text: str) -> tuple[list[tuple[str, str]], str]:
    """``([(name, value), ...], rest)`` of an ``XLA_FLAGS`` value, read as XLA
    reads it; ``rest`` is the text from where XLA stops reading ("" when it
    reads everything)."""
    flags: list[tuple[str, str]] = []
    n = len(text)

    def skip_space(i: int) -> int:
        while i < n and text[i] in _XLA_SPACE:
            i += 1
        return i

    b = skip_space(0)
    while b < n and text[b] == "-":
        e = b
        while e < n and text[e].isascii() and (text[e] in "-_" or text[e].isalnum()):
            e += 1
        name = text[b:e]
        if e + 1 < n and text[e] == "=" and text[e + 1] in "'\"":
            quote, e = text[e + 1], e + 2
            value: list[str] = []
            while e < n and text[e] != quote:
                if quote == '"' and text[e] == "\\" and e + 1 < n:
                    e += 1
                value.append(text[e])
                e += 1
            flags.append((name, "".join(value)))
            e = min(n, e + 1)
        else:
            while e < n and text[e] not in _XLA_SPACE:
                e += 1
            token = text[b:e]
            flags.append(
                (name, token[len(name) + 1 :] if token[len(name) :].startswith("=") else "")
            )
        b = skip_space(e)
    return flags, text[b:]


def xla_flag(name: str, value: str) -> str:
    """``--name=value`` as XLA_FLAGS must spell it to read ``value`` back whole:
    quoted when it holds a space or starts with a quote, so a value such as
    ``"a --xla_dump_to=/x"`` stays one value and never becomes a second flag."""
    if "\0" in value:
        raise CollectError(f"{name}: a NUL character cannot pass through XLA_FLAGS")
    if value and value[0] not in "'\"" and not any(c in _XLA_SPACE for c in value):
        return f"{name}={value}"
    return f'{name}="' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def merge_xla_flags(
    existing: str, out: Path, passes: str | None = DEFAULT_PASSES, modules: str | None = None
) -> tuple[str, Path, list[str]]:
    """``XLA_FLAGS`` with dumping added to the user's flags.

    Returns (flags, the folder XLA will dump to, warnings). A ``--xla_dump_to``
    the user already set wins (with a warning); so do their own pass and module
    filters. The user's text is kept as it is (their quoting included) and ours
    is quoted as XLA reads it back, so no value of ours can add a flag.
    """
    flags, rest = xla_flags(existing)
    if rest:
        where = "it names a file of flags" if not flags else f"XLA stops reading at {rest[:40]!r}"
        raise CollectError(f"cannot add dump flags to XLA_FLAGS={existing[:80]!r}: {where}")
    given = dict(flags)
    warnings: list[str] = []
    ours: list[str] = []
    theirs = given.get("--xla_dump_to")
    if theirs:
        if Path(theirs).expanduser() != out:
            warnings.append(f"XLA_FLAGS already sets --xla_dump_to={theirs}: dumping there")
        out = Path(theirs).expanduser()
    else:
        ours.append(xla_flag("--xla_dump_to", str(out)))
    if passes and "--xla_dump_hlo_pass_re" not in given:
        ours.append(xla_flag("--xla_dump_hlo_pass_re", passes))
    if modules and "--xla_dump_hlo_module_re" not in given:
        ours.append(xla_flag("--xla_dump_hlo_module_re", modules))
    return " ".join([existing.strip(), *ours]).strip(), out, warnings


def run_with_dumps(
    command: Sequence[str],
    out: Path,
    passes: str | None = DEFAULT_PASSES,
    modules: str | None = None,
    env: dict[str, str] | None = None,
    force: bool = False,
) -> tuple[int, Path, list[str]]:
    """Run ``command`` with dumping on; stdin, stdout and stderr pass through.

    Returns (exit status, dump folder, warnings). A command that cannot be
    started raises `CollectError`.
    """
    env = dict(os.environ if env is None else env)
    flags, folder, warnings = merge_xla_flags(env.get("XLA_FLAGS", ""), out, passes, modules)
    ensure_writable(folder, force)
    env["XLA_FLAGS"] = flags
    try:
        completed = subprocess.run(list(command), env=env)
    except FileNotFoundError:
        raise CollectError(f"{command[0]}: command not found") from None
    except PermissionError:
        raise CollectError(f"{command[0]}: permission denied") from None
    except (OSError, ValueError) as err:  # not a program (a folder), a NUL in an argument
        raise CollectError(
            f"{command[0]}: cannot run: {getattr(err, 'strerror', None) or err}"
        ) from None
    return completed.returncode, folder, warnings


def collect(
    fn: Callable[..., Any],
    *args: Any,
    out: str | os.PathLike[str] | None = None,
    passes: str = DEFAULT_PASSES,
    profile: int = 0,
    force: bool = False,
    **jit_kwargs: Any,
) -> Path:
    """Compile ``fn`` for ``args`` (arrays or ``jax.ShapeDtypeStruct``) with
    every pass dumped; return the dump folder.

    The dump options go to this one compilation (jax's ``compiler_options``),
    so other compilations in the process are not dumped. ``jit_kwargs`` go to
    ``jax.jit`` (``static_argnums``, ``in_shardings``...). The caller opens
    the window on the folder if it wants to (``xlaview.collect(open=True)``).

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
    folder = ensure_writable(
        Path(out).expanduser() if out is not None else new_dump_folder(name), force
    )
    options: dict[str, str | bool] = {"xla_dump_to": str(folder), "xla_dump_hlo_pass_re": passes}
    compiled = jax.jit(fn, **jit_kwargs).lower(*args).compile(compiler_options=options)
    if profile:
        dynamic = _dynamic_args(fn, args, jit_kwargs)
        _run_profiled(compiled, _concrete(dynamic), profile, folder / TRACE_FOLDER)
    return folder


def _dynamic_args(
    fn: Callable[..., Any], args: tuple[Any, ...], jit_kwargs: dict[str, Any]
) -> tuple[Any, ...]:
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

    concrete: tuple[Any, ...] = jax.tree_util.tree_map(make, args)  # the same tree as args
    return concrete


def _run_profiled(compiled: Any, args: tuple[Any, ...], runs: int, trace: Path) -> None:
    import jax

    # Their signatures: jax leaves these two unannotated.
    block_until_ready: Callable[[Any], Any] = jax.block_until_ready
    stop_trace: Callable[[], None] = jax.profiler.stop_trace
    block_until_ready(compiled(*args))  # allocation and first-touch costs stay out of the trace
    try:
        jax.profiler.start_trace(str(trace))
    except RuntimeError as err:  # another trace is running
        raise CollectError(f"cannot start the profiler: {err}") from None
    try:
        for _ in range(runs):
            block_until_ready(compiled(*args))
    finally:
        stop_trace()


__all__ = ["CollectError", "collect", "merge_xla_flags", "run_with_dumps", "xla_flag", "xla_flags"]
