"""This machine's CPU as a roofline device: its peaks measured once, by XLA:CPU
itself, and cached outside any dump; and the caveats of pricing a CPU dump on
an accelerator.

A CPU's peaks depend on its cores, vector width, clock and caches, none of
which a dump records, so they are measured: a short calibration compiles a
few programs with jax on the CPU (its own process, XLA's default flags, every
thread XLA uses), runs each several times under ``jax.profiler`` and keeps the
best time of each op, timed as a trace times it. Work and bytes are counted
by this package's own cost model (`totals.module_cost` of the compiled HLO),
so a figure is exactly what the roofline divides by:

- matrix FLOP/s: square f32 dots of 512, 1024 and 1536, bf16, f64 and s8
  dots of 1024 (XLA:CPU converts bf16 and f16 operands to f32 and runs the f32
  kernel: the bf16 peak is that kernel's; an f32 dot is at least as fast as
  an f64 one, so the f32 peak is at least the f64 one);
- the vector f32 rate: a 32-step polynomial over a cached array. The roofline
  prices element-wise work at the f32 peak, which is kept at least that;
- bytes/s by working set: row sums and in-place updates sized from the first cache to
  past the last cache (the sizes of ``/sys/devices/system/cpu/cpu0/cache``,
  per core and over all cores), bytes counted as the cost model counts them
  (an f32[N] updated in place: 8N). A tier's bandwidth is the best
  rate measured at that working set or any larger one, so the tiers never
  rise with size; between two tiers' sizes an op is priced on the way from
  one rate to the other (`Device.bandwidth_for`), not at the larger one's.

Peaks are upper bounds: the best of several runs, never a mean. A trace of
the same machine should find every op at or under its roofline.

The figures are cached in ``$XLAVIEW_CACHE_DIR`` (default
``$XDG_CACHE_HOME/xlaview``, ``~/.cache/xlaview``), one JSON file per key:
CPU model, logical and usable cores, jax and jaxlib versions, and
`CALIBRATION_VERSION`. A file that does not parse or names another key is
measured again; a folder that cannot be written is not an error: the CPU is
calibrated once per process then, and `cache_note` says why.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from xlaview.analysis.cost.datasheets import Device
from xlaview.analysis.cost.totals import OpCost
from xlaview.dump.files import read_text
from xlaview.errors import XlaviewError
from xlaview.hlo import Computation, Instruction, Module
from xlaview.units import human_bytes

CALIBRATION_VERSION = 2  # 2: probes run round by round, dots 8 times
_HALF = ("bf16", "f16")
_KIB = 1024
_CACHE_ROOT = Path("/sys/devices/system/cpu/cpu0/cache")
_SMALL_FILE = 1 << 20  # the most read of a cache file, /proc/cpuinfo or a sysfs one
# When sysfs says nothing (not Linux): a common desktop's L1d, L2 and L3.
_DEFAULT_CACHES = ((32 * _KIB, True), (512 * _KIB, True), (16 * _KIB * _KIB, False))


class CalibrationError(XlaviewError, RuntimeError):
    """The CPU cannot be calibrated: no jax, or the measuring process failed."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """What one calibration measured: the best FLOP/s of each dot (``(operand
    type, n, FLOP/s)``, an n x n x n dot), of the vector polynomial, and
    bytes/s of each stream (``(kind, working set in bytes, bytes/s)``);
    ``boundaries`` are the cache tiers' working-set limits."""

    date: str
    seconds: float
    threads: int
    dots: tuple[tuple[str, int, float], ...]
    vector_flops: float
    streams: tuple[tuple[str, int, float], ...]
    boundaries: tuple[int, ...]

    def dot_peak(self, element_type: str) -> float:
        return max((rate for kind, _, rate in self.dots if kind == element_type), default=0.0)

    def tiers(self) -> tuple[tuple[tuple[int, float], ...], float]:
        """``(cache_bandwidths, memory_bandwidth)``: each tier the best rate
        measured past the tier below it (non-increasing by construction)."""
        tiers = []
        below = 0
        for limit in self.boundaries:
            tiers.append((limit, self._best_past(below)))
            below = limit
        return tuple(tiers), self._best_past(below)

    def _best_past(self, size: int) -> float:
        rates = [rate for _, ws, rate in self.streams if ws > size]
        return max(rates) if rates else min(rate for _, _, rate in self.streams)

    def to_json(self) -> dict[str, object]:
        return {
            "date": self.date,
            "seconds": self.seconds,
            "threads": self.threads,
            "dots": [list(d) for d in self.dots],
            "vector_flops": self.vector_flops,
            "streams": [list(s) for s in self.streams],
            "boundaries": list(self.boundaries),
        }

    @classmethod
    def from_json(cls, data: object) -> Calibration:
        """The calibration ``data`` holds (ValueError, TypeError or KeyError if
        it is not one: a cache file is never trusted blindly)."""
        if not isinstance(data, dict):
            raise TypeError("not an object")
        dots = tuple((str(k), int(n), _positive(r)) for k, n, r in data["dots"])
        streams = tuple((str(k), int(n), _positive(r)) for k, n, r in data["streams"])
        boundaries = tuple(int(b) for b in data["boundaries"])
        if not streams or not any(k == "f32" for k, _, _ in dots):
            raise ValueError("no stream or no f32 dot measured")
        if any(b <= 0 for b in boundaries) or list(boundaries) != sorted(set(boundaries)):
            raise ValueError("cache tiers out of order")
        return cls(
            str(data["date"]),
            float(data["seconds"]),
            int(data["threads"]),
            dots,
            _positive(data["vector_flops"]),
            streams,
            boundaries,
        )


def _positive(value: object) -> float:
    number = float(value)  # type: ignore[arg-type]
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"not a positive rate: {value!r}")
    return number


# -- the device ----------------------------------------------------------------------


def cpu_device(refresh: bool = False) -> Device:
    """This machine's CPU with measured peaks: read from the cache when it
    matches, else calibrated (a few seconds, once) and cached. ``refresh``
    measures again. `CalibrationError` without jax or when measuring fails."""
    return device_from(calibration(refresh))


def device_from(cal: Calibration) -> Device:
    """The `Device` of a calibration's figures."""
    f32_dot, f64_dot = cal.dot_peak("f32"), cal.dot_peak("f64")
    f32 = max(f32_dot, f64_dot, cal.vector_flops)
    bf16 = max(cal.dot_peak("bf16"), f32_dot)
    tiers, memory = cal.tiers()
    return Device(
        "cpu",
        f"{cpu_model()} ({usable_cores()} cores)",
        "cpu",
        bf16,
        memory,
        f32_flops=f32,
        f64_flops=f64_dot or None,
        int8_flops=max(cal.dot_peak("s8"), bf16),
        cache_bandwidths=tiers,
        memory="RAM",
        measured=describe(cal),
    )


def describe(cal: Calibration) -> str:
    """How the figures were measured, in one line."""
    sizes = sorted({ws for _, ws, _ in cal.streams})
    f32 = sorted({n for kind, n, _ in cal.dots if kind == "f32"})
    return (
        f"measured on this machine {cal.date} in {cal.seconds:.1f} s with jax "
        f"{_version('jax') or '?'} (XLA:CPU default flags, {cal.threads} threads), best "
        f"op time in jax.profiler: f32 dots {'/'.join(map(str, f32))}³, bf16, f64 and s8 "
        f"dots 1024³, a 32-step f32 polynomial ({cal.vector_flops / 1e9:.0f} GFLOP/s), row "
        f"sums and in-place updates of {human_bytes(sizes[0], 0)} to {human_bytes(sizes[-1], 0)}"
    )


# -- the cache -----------------------------------------------------------------------

_calibrations = 0  # measurements this process ran (the tests count them)
_note: str | None = None
_uncached: dict[tuple[Path, str], Calibration] = {}  # figures no file could keep, by file and key


def calibrations() -> int:
    """How many times this process measured the CPU."""
    return _calibrations


def cache_note() -> str | None:
    """Why the last calibration could not be cached (None when it was)."""
    return _note


def cache_folder() -> Path:
    """``$XLAVIEW_CACHE_DIR``, else ``$XDG_CACHE_HOME/xlaview`` (``~/.cache``)."""
    chosen = os.environ.get("XLAVIEW_CACHE_DIR")
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "xlaview"


def cache_key() -> dict[str, object]:
    """What the figures hold for: this CPU, these cores, this jax."""
    return {
        "cpu": cpu_model(),
        "logical_cores": os.cpu_count() or 1,
        "usable_cores": usable_cores(),
        "jax": _version("jax"),
        "jaxlib": _version("jaxlib"),
        "calibration": CALIBRATION_VERSION,
    }


def _key_text(key: dict[str, object]) -> str:
    return json.dumps(key, sort_keys=True)


def cache_path() -> Path:
    """The file this machine's figures go in (one per key)."""
    digest = hashlib.sha256(_key_text(cache_key()).encode()).hexdigest()[:16]
    return cache_folder() / f"cpu-{digest}.json"


def calibration_cached() -> bool:
    """Whether `cpu_device` has its figures without measuring (a matching
    cache file, or a calibration this process already ran)."""
    key, path = _key_text(cache_key()), cache_path()
    return (path, key) in _uncached or _read(path, key) is not None


def calibration(refresh: bool = False) -> Calibration:
    """The figures of this machine: cached, or measured and cached."""
    global _calibrations, _note
    key = _key_text(cache_key())
    path = cache_path()
    if not refresh:
        found = _read(path, key) or _uncached.get((path, key))
        if found is not None:
            return found
    cal = _measure()
    _calibrations += 1
    _note = _write(path, key, cal)
    if _note is None:
        _uncached.pop((path, key), None)
    else:
        _uncached[path, key] = cal
    return cal


def _read(path: Path, key: str) -> Calibration | None:
    try:
        data = json.loads(read_text(path, _SMALL_FILE))
        if not isinstance(data, dict) or not isinstance(data.get("key"), dict):
            return None
        if _key_text(data["key"]) != key:
            return None
        return Calibration.from_json(data.get("figures"))
    except (OSError, UnicodeError, ValueError, TypeError, KeyError):
        return None


def _write(path: Path, key: str, cal: Calibration) -> str | None:
    """Write ``cal`` to ``path`` atomically; the reason it could not (None: written)."""
    from xlaview.dump.naming import parse_file_name

    folder = path.parent
    fallback = "the CPU is calibrated again in every run"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with os.scandir(folder) as entries:
            dump = any(parse_file_name(entry.name) is not None for entry in entries)
        if dump:
            return f"{folder} holds an XLA dump, so nothing is written there; {fallback}"
        text = json.dumps({"key": json.loads(key), "figures": cal.to_json()}, indent=1)
        fd, temp = tempfile.mkstemp(prefix=".cpu-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as err:
        return f"cannot write {path}: {err.strerror or err}; {fallback}"
    return None


# -- this machine ----------------------------------------------------------------------


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``, else `platform.processor`)."""
    try:
        for line in read_text("/proc/cpuinfo", _SMALL_FILE).splitlines():
            name, _, value = line.partition(":")
            if name.strip() in ("model name", "Model", "cpu model") and value.strip():
                return " ".join(value.split())
    except OSError:  # DumpReadError too
        pass
    return platform.processor() or platform.machine() or "CPU"


def usable_cores() -> int:
    """The cores this process may run on (the threads XLA:CPU starts)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cache_levels(root: Path = _CACHE_ROOT) -> list[tuple[int, bool]]:
    """``(bytes, private to one CPU)`` of each data or unified cache, smallest first."""
    found = []
    try:
        for index in sorted(root.glob("index*")):
            kind = read_text(index / "type", _SMALL_FILE).strip()
            size = _size(read_text(index / "size", _SMALL_FILE).strip())
            if kind in ("Data", "Unified") and size:
                shared = read_text(index / "shared_cpu_list", _SMALL_FILE).strip()
                found.append((size, _cpu_count(shared) <= 1))
    except OSError:
        return []
    return sorted(found)


def _size(text: str) -> int:
    units = {"K": _KIB, "M": _KIB * _KIB, "G": _KIB**3}
    try:
        if text and text[-1].upper() in units:
            return int(text[:-1]) * units[text[-1].upper()]
        return int(text)
    except ValueError:
        return 0


def _cpu_count(cpu_list: str) -> int:
    count = 0
    for part in filter(None, cpu_list.split(",")):
        low, _, high = part.partition("-")
        try:
            count += int(high or low) - int(low) + 1
        except ValueError:
            return 2
    return count


def tier_limits(caches: list[tuple[int, bool]], cores: int) -> tuple[int, ...]:
    """Working-set limits of the tiers: each cache; a private cache over all
    cores (an op XLA splits over threads holds that much); and twice the
    largest: an op updating its operand in place touches half the bytes the
    cost model counts (read, then written), so that much still fits."""
    caches = caches or list(_DEFAULT_CACHES)
    limits = {size for size, _ in caches}
    limits |= {size * cores for size, private in caches if private and cores > 1}
    return tuple(sorted(limits | {2 * max(limits)}))


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


# -- measuring (in a process of its own) ---------------------------------------------

_STREAMS = ("sum", "update")
_MEASURE = "from xlaview.analysis.cost.cpu_device import _measure_here; _measure_here()"


def _measure() -> Calibration:
    """Calibrate in a fresh process: jax on the CPU, no XLA_FLAGS (the user's
    may dump), nothing printed, nothing written but a temporary trace."""
    if find_spec("jax") is None:
        raise CalibrationError("calibrating this machine's CPU needs jax: pip install jax")
    limits = tier_limits(cache_levels(), usable_cores())
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    root = str(Path(__file__).resolve().parents[3])
    env.update(
        JAX_PLATFORMS="cpu",
        TF_CPP_MIN_LOG_LEVEL="2",
        PYTHONPATH=os.pathsep.join(filter(None, (root, env.get("PYTHONPATH")))),
    )
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _MEASURE, json.dumps(limits)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tempfile.gettempdir(),
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise CalibrationError(f"calibrating this machine's CPU failed: {err}") from None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise CalibrationError(f"calibrating this machine's CPU failed: {last}")
    data = json.loads(lines[-1])
    data["seconds"] = time.perf_counter() - start
    return Calibration.from_json(data)


@dataclass(frozen=True, slots=True)
class _Probe:
    kind: str  # an operand type for dots, "vector", or a stream's kind
    size: int  # n of a dot; the target working set of a stream
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    runs: int
    donate: bool = False  # the first argument is updated in place (its result fed back)


def _probes(limits: tuple[int, ...]) -> Iterator[_Probe]:
    import jax
    import jax.numpy as jnp
    import numpy as np

    def full(shape: tuple[int, ...], dtype: Any, value: float = 0.5) -> Any:
        return jax.device_put(np.full(shape, value, dtype))

    def dot(kind: str, dtype: Any, n: int, runs: int) -> _Probe:
        a = full((n, n), dtype, 1)
        if kind == "s8":
            return _Probe(kind, n, _int_matmul, (a, a), runs)
        return _Probe(kind, n, jnp.matmul, (a, a), runs)

    for n in (512, 1024, 1536):
        yield dot("f32", np.float32, n, 8)
    yield dot("bf16", jnp.bfloat16, 1024, 8)
    yield dot("f64", np.float64, 1024, 5)
    yield dot("s8", np.int8, 1024, 8)
    for n in (1 << 15, 1 << 18):
        yield _Probe("vector", n, _polynomial, (full((n,), np.float32),), 20)
    for size in _stream_sizes(limits):
        runs = 40 if size <= 4 << 20 else 10 if size <= 64 << 20 else 3
        rows = max(size // 1024, 1)
        yield _Probe("sum", size, _row_sum, (full((rows, 256), np.float32),), runs)
        update = (full((max(size // 8, 256),), np.float32),)
        yield _Probe("update", size, _relax, update, runs, donate=True)


def _int_matmul(a: Any, b: Any) -> Any:
    import jax.numpy as jnp

    return jnp.matmul(a, b, preferred_element_type=jnp.int32)


def _polynomial(x: Any) -> Any:
    for i in range(32):
        x = x * 0.999 + 0.001 * i
    return x


def _row_sum(a: Any) -> Any:
    return a.sum(axis=1)


def _relax(x: Any) -> Any:
    return x * 0.999 + 0.0005


def _stream_sizes(limits: tuple[int, ...]) -> list[int]:
    """Working sets to stream: the top of each tier and, above the first,
    its geometric middle; and one well past the last cache."""
    sizes = []
    below = 0
    for limit in limits:
        if below:
            sizes.append(int(math.sqrt(below * limit)))
        sizes.append(limit)
        below = limit
    last = limits[-1] if limits else 64 << 20
    sizes.append(min(max(2 * last, 128 << 20), 1 << 30))
    return sorted(set(sizes))


def _measure_here() -> None:  # pragma: no cover - runs in the calibrating process
    """Measure and print the figures as one JSON line (the calibrating process)."""
    import jax

    jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]

    limits = tuple(json.loads(sys.argv[1]))
    probes = list(_probes(limits))
    # Compiling is most of the time: on all cores (XLA lets go of the GIL).
    with ThreadPoolExecutor(max(1, min(usable_cores(), 4))) as pool:
        compiled = list(pool.map(_compile, range(len(probes)), probes))
    times: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory(prefix="xlaview-calibration-") as folder:
        options = jax.profiler.ProfileOptions()
        options.python_tracer_level = 0
        options.enable_hlo_proto = False
        # The compute probes round by round, each once per round: a burst of
        # load from elsewhere slows one run of each, never every run of one.
        # A stream's runs follow each other: its working set stays in its tier.
        compute = [c for c in compiled if c[0].kind not in _STREAMS]
        with jax.profiler.trace(folder, profiler_options=options):
            for round_ in range(max(c[0].runs for c in compute)):
                for probe, exe, args, _, _ in compute:
                    if round_ < probe.runs:
                        _run(exe, args, probe.donate)
            for probe, exe, args, _, _ in compiled:
                if probe.kind in _STREAMS:
                    for _ in range(probe.runs):
                        _run(exe, args, probe.donate)
        for module, name, seconds in _op_times(Path(folder)):
            key = (module, name)
            times[key] = min(times.get(key, math.inf), seconds)
    dots, vector, streams = [], 0.0, []
    for probe, _, _, module, op in compiled:
        best = times.get((module, op.name))
        if not best:
            continue
        if probe.kind == "vector":
            vector = max(vector, (op.flops + op.transcendentals) / best)
        elif probe.kind in _STREAMS:
            streams.append((probe.kind, op.memory_bytes, op.memory_bytes / best))
        else:
            dots.append((probe.kind, probe.size, op.flops / best))
    figures = {
        "date": time.strftime("%Y-%m-%d"),
        "seconds": 0.0,
        "threads": usable_cores(),
        "dots": dots,
        "vector_flops": vector,
        "streams": streams,
        "boundaries": list(limits),
    }
    print(json.dumps(figures))


def _compile(  # pragma: no cover
    k: int, probe: _Probe
) -> tuple[_Probe, Any, list[Any], str, OpCost]:
    """The probe compiled, priced by the cost model, run once (buffers
    allocated, caches warm): (probe, executable, module name, its main op)."""
    import jax

    from xlaview.analysis.cost.totals import module_cost
    from xlaview.hlo import parse_module

    named = _named(probe.fn, f"xlaview_probe_{k}")
    donate = (0,) if probe.donate else ()
    exe = jax.jit(named, donate_argnums=donate).lower(*probe.args).compile()
    cost = module_cost(parse_module(exe.as_text() or ""))
    if probe.kind in _STREAMS:
        op = max(cost.ops, key=lambda o: o.memory_bytes)
    else:
        op = max(cost.ops, key=lambda o: o.flops + o.transcendentals)
    args = list(probe.args)
    _run(exe, args, probe.donate)
    return probe, exe, args, f"jit_{named.__name__}", op


def _run(exe: Any, args: list[Any], donate: bool) -> None:  # pragma: no cover
    """One run, waited for; a donated argument is replaced by the result."""
    import jax

    result = jax.block_until_ready(exe(*args))  # type: ignore[no-untyped-call]
    if donate:
        args[0] = result


def _named(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` under ``name``: jax names the module ``jit_<name>``."""

    def run(*args: Any) -> Any:
        return fn(*args)

    run.__name__ = run.__qualname__ = name
    return run


def _op_times(folder: Path) -> Iterator[tuple[str, str, float]]:  # pragma: no cover
    """(module, op, seconds) of each op event of the trace in ``folder``."""
    import jax

    for file in folder.rglob("*.xplane.pb"):
        data = jax.profiler.ProfileData.from_file(str(file))
        for plane in data.planes:
            for line in plane.lines:
                for event in line.events:
                    stats = dict(event.stats)
                    if "hlo_op" in stats and "hlo_module" in stats:
                        yield (
                            str(stats["hlo_module"]),
                            str(stats["hlo_op"]),
                            event.duration_ns * 1e-9,
                        )


# -- caveats of a CPU dump priced on an accelerator -----------------------------------


def compiled_for_cpu(file: Path) -> bool:
    """Whether XLA:CPU compiled the module of ``file``: its optimized HLO is
    named ``module_NNNN.<name>.cpu_after_optimizations.txt``."""
    if ".cpu_after_optimizations" in file.name:
        return True
    prefix = file.name.split(".")[0]  # module_NNNN
    try:
        return next(file.parent.glob(f"{prefix}.*.cpu_after_optimizations*"), None) is not None
    except OSError:
        return False


def caveats_on(dev: Device, module: Module, path: Path | None) -> list[str]:
    """`cpu_caveats` when ``module`` (read from ``path``) is an XLA:CPU one
    priced on an accelerator ``dev``; else none."""
    if dev.platform == "cpu" or path is None or not compiled_for_cpu(path):
        return []
    return cpu_caveats(module)


def cpu_caveats(module: Module) -> list[str]:
    """What to say when a dump XLA:CPU compiled is priced on an accelerator:
    dots it runs in f32 on operands it converted from bf16 or f16, f32 values
    an accelerator would keep in bf16, and fusions that only round to bf16
    and back. One short sentence each; none when the module has no such op."""
    caveats = []
    upcast = list(_upcast_dots(module))
    if upcast:
        (dot, source, half), n = upcast[0], len(upcast)
        caveats.append(
            f"{n} dot{'s' if n > 1 else ''} run in f32 on operands XLA:CPU converted from "
            f"{half} (e.g. {dot}, fed by {source}): an accelerator would run "
            f"{'them' if n > 1 else 'it'} on {half} operands."
        )
    widened = _widened_values(module)
    if widened:
        total = sum(i.shape.byte_size() for i in widened)
        big = max(widened, key=lambda i: i.shape.byte_size())
        caveats.append(
            f"XLA:CPU keeps {len(widened)} intermediate{'s' if len(widened) > 1 else ''} of "
            f"bf16 inputs in f32 ({human_bytes(total)}, largest {big.name} "
            f"{_shape(big)}): an accelerator would keep them in bf16 or fuse them away."
        )
    rounding = [i for i in _top_level(module) if _only_rounds(module, i)]
    if rounding:
        caveats.append(
            f"{len(rounding)} fusion{'s' if len(rounding) > 1 else ''} only round f32 to bf16 "
            f"and back (e.g. {rounding[0].name}): XLA:CPU's stand-in for bf16 arithmetic, "
            "which an accelerator does not run."
        )
    return caveats


def _shape(instr: Instruction) -> str:
    return f"{instr.shape.element_type}[{','.join(map(str, instr.shape.dims))}]"


def _upcast_dots(module: Module) -> Iterator[tuple[str, str, str]]:
    """(dot, the op that converted an operand, from which type) of each dot
    or convolution with an operand XLA:CPU converted from bf16 or f16."""
    for instr in module.instructions_with("dot", "convolution"):
        comp = module.computation(instr.computation)
        for operand in instr.operand_names[:2]:
            found = _half_source(module, comp, operand, 0)
            if found is not None:
                yield instr.name, found[0], found[1]
                break


def _half_source(
    module: Module, comp: Computation, name: str, depth: int
) -> tuple[str, str] | None:
    """(op, type) when value ``name`` of ``comp`` is a bf16/f16 value
    converted to f32: a convert, a fusion whose root is one, or a fused
    parameter fed so; through layout ops, bitcasts and broadcasts."""
    if depth > 12 or name not in comp:
        return None
    instr = comp.instruction(name)
    if instr.shape.element_type != "f32":
        return None
    if instr.opcode == "convert":
        operand = instr.operand_names[0] if instr.operand_names else ""
        source = comp.instruction(operand) if operand in comp else None
        if source is not None and source.shape.element_type in _HALF:
            return instr.name, source.shape.element_type
        return None
    if instr.opcode in ("bitcast", "copy", "reshape", "transpose", "broadcast") and (
        instr.operand_names
    ):
        return _half_source(module, comp, instr.operand_names[0], depth + 1)
    if instr.opcode == "fusion" and instr.called_computations:
        body = module.computation(instr.called_computations[0])
        root = body.root
        inner = _half_source(module, body, root.name, depth + 1) if root else None
        return (instr.name, inner[1]) if inner else None
    if instr.opcode == "parameter":
        number = instr.parameter_number
        for caller in module.callers(comp.name):
            if caller.opcode == "fusion" and number is not None:
                outer = module.computation(caller.computation)
                if number < len(caller.operand_names):
                    return _half_source(module, outer, caller.operand_names[number], depth + 1)
    return None


_TOP = ("entry", "while body", "while condition", "branch", "call", "async wrapped")


def _top_level(module: Module) -> Iterator[Instruction]:
    """The instructions whose results go through memory (not fused ones)."""
    for comp in module.computations:
        if module.computation_kind(comp.name) in _TOP:
            yield from comp.instructions


def _widened_values(module: Module) -> list[Instruction]:
    """Top-level f32 results computed from bf16 values XLA:CPU converted to f32."""
    widened: list[Instruction] = []
    for comp in module.computations:
        if module.computation_kind(comp.name) not in _TOP:
            continue
        tainted: set[str] = set()
        for instr in comp.instructions:
            if instr.opcode in ("parameter", "constant", "get-tuple-element", "tuple"):
                continue
            if instr.shape.element_type != "f32":
                continue
            if (
                any(o in tainted for o in instr.operand_names)
                or _half_source(module, comp, instr.name, 0)
                or (instr.opcode == "fusion" and _widens(module, instr.called_computations))
            ):
                tainted.add(instr.name)
                widened.append(instr)
    return widened


def _widens(module: Module, called: tuple[str, ...]) -> bool:
    """Whether a fused body converts a bf16 or f16 value to f32."""
    if not called:
        return False
    body = module.computation(called[0])
    for instr in body.instructions:
        if instr.opcode == "convert" and instr.shape.element_type == "f32" and instr.operand_names:
            name = instr.operand_names[0]
            if name in body and body.instruction(name).shape.element_type in _HALF:
                return True
    return False


def _only_rounds(module: Module, instr: Instruction) -> bool:
    """A fusion of converts alone, f32 in and f32 out through bf16 or f16."""
    if instr.opcode != "fusion" or instr.shape.element_type != "f32":
        return False
    if not instr.called_computations:
        return False
    body = module.computation(instr.called_computations[0])
    types = set()
    for inner in body.instructions:
        if inner.opcode == "parameter":
            if inner.shape.element_type != "f32":
                return False
        elif inner.opcode in ("convert", "bitcast", "copy", "reshape"):
            types.add(inner.shape.element_type)
        else:
            return False
    return bool(types & set(_HALF))
