"""The ``cpu`` device: this machine's peaks, measured by a short calibration
under XLA:CPU, cached outside any dump; and the caveats of a CPU dump priced
on an accelerator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from xlaview.analysis.cost import cpu_device as cpu
from xlaview.analysis.cost.cpu_device import Calibration, cpu_caveats, cpu_device
from xlaview.hlo import parse_module
from xlaview.resources import sample_dump

SAMPLE = "module_0000.jit_attention.cpu_after_optimizations.txt"

# Figures of a calibration, as the measuring process hands them back.
FIGURES = {
    "date": "2026-12-01",
    "seconds": 7.5,
    "threads": 2,
    "dots": [["f32", 1024, 2e11], ["bf16", 1024, 1.9e11], ["f64", 1024, 9e10], ["s8", 1024, 3e11]],
    "vector_flops": 9e10,
    "streams": [
        ["sum", 32768, 3e10],
        ["fill", 65536, 5e10],
        ["sum", 1048576, 7e10],
        ["fill", 2097152, 6e10],
        ["sum", 33685504, 2e10],
        ["sum", 134217728, 1.5e10],
    ],
    "boundaries": [32768, 1048576, 33554432],
}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder, and a calibration that counts instead of measuring."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("XLAVIEW_CACHE_DIR", str(folder))
    monkeypatch.setattr(cpu, "_measure", lambda: Calibration.from_json(FIGURES))
    return folder


def test_calibration_is_cached_outside_any_dump_and_read_back(cache: Path) -> None:
    before = cpu.calibrations()
    assert not cpu.calibration_cached()
    first = cpu_device()
    assert cpu.calibrations() == before + 1 and cpu.cache_note() is None
    (written,) = cache.iterdir()
    assert written == cpu.cache_path() and written.suffix == ".json"
    document = json.loads(written.read_text())
    assert document["key"] == cpu.cache_key()
    assert {"cpu", "logical_cores", "jax", "jaxlib", "calibration"} <= set(document["key"])
    assert cpu.calibration_cached()
    assert cpu_device() == first and cpu.calibrations() == before + 1, "read, not measured"
    assert cpu_device(refresh=True) == first and cpu.calibrations() == before + 2


def test_the_device_of_the_figures(cache: Path) -> None:
    dev = cpu_device()
    assert (dev.name, dev.platform) == ("cpu", "cpu")
    assert dev.title.startswith(cpu.cpu_model()) and "cores" in dev.title
    assert dev.peak("f32") == 2e11 and dev.peak("bf16") == 2e11, "bf16 dots run as f32 ones"
    assert dev.peak("f64") == 9e10 and dev.peak("int8") == 3e11
    # each tier: the best rate at its working set or any larger one
    assert dev.cache_bandwidths == ((32768, 7e10), (1048576, 7e10), (33554432, 6e10))
    assert dev.memory_bandwidth == 2e10
    assert dev.bandwidth_for(1 << 20) == 7e10 and dev.bandwidth_for(1 << 30) == 2e10
    # between two tiers' sizes, on the way from one rate to the other (log-linear)
    middle = dev.bandwidth_for(round(2**22.5))  # halfway from 1 MiB to 32 MiB, in log
    assert middle == pytest.approx((7e10 * 6e10) ** 0.5)
    sizes = [(1 << 20) + k * (1 << 19) for k in range(63)]  # 1 MiB to 32 MiB
    rates = [dev.bandwidth_for(size) for size in sizes]
    assert rates == sorted(rates, reverse=True) and min(rates) >= 6e10 and max(rates) <= 7e10
    assert dev.measured.startswith("measured on this machine 2026-12-01")
    assert "\n" not in dev.measured


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        '{"key": {}, "figures": {}}',
        "[1, 2]",
        "FOREIGN",
        "NEGATIVE",
    ],
)
def test_a_bad_or_foreign_cache_file_is_measured_again(cache: Path, text: str) -> None:
    cache.mkdir()
    key = cpu.cache_key()
    if text == "FOREIGN":
        text = json.dumps({"key": {**key, "cpu": "another CPU"}, "figures": FIGURES})
    elif text == "NEGATIVE":
        text = json.dumps({"key": key, "figures": {**FIGURES, "vector_flops": -1.0}})
    cpu.cache_path().write_text(text)
    assert not cpu.calibration_cached()
    before = cpu.calibrations()
    assert cpu_device().peak("f32") == 2e11
    assert cpu.calibrations() == before + 1
    assert json.loads(cpu.cache_path().read_text())["key"] == key, "rewritten with the figures"


def test_an_unwritable_cache_still_gives_a_device(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("XLAVIEW_CACHE_DIR", str(blocker / "cache"))  # under a file: never a folder
    before = cpu.calibrations()
    dev = cpu_device()
    assert dev.name == "cpu" and cpu.calibrations() == before + 1
    note = cpu.cache_note()
    assert note is not None and "cannot write" in note and "every run" in note
    assert cpu.calibration_cached(), "measured once per process"
    assert cpu_device() == dev and cpu.calibrations() == before + 1


def test_a_dump_folder_is_never_written(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dump = cache.parent / "dump"
    dump.mkdir()
    (dump / "module_0000.jit_f.before_optimizations.txt").write_text("HloModule f\n")
    monkeypatch.setenv("XLAVIEW_CACHE_DIR", str(dump))
    assert cpu_device().name == "cpu"
    assert sorted(p.name for p in dump.iterdir()) == ["module_0000.jit_f.before_optimizations.txt"]
    assert "holds an XLA dump" in (cpu.cache_note() or "")


def test_tier_limits_from_the_caches() -> None:
    caches = [(32 << 10, True), (1 << 20, True), (32 << 20, False)]
    # each cache, each private cache over both cores, and twice the largest
    assert cpu.tier_limits(caches, 2) == (32 << 10, 64 << 10, 1 << 20, 2 << 20, 32 << 20, 64 << 20)
    assert cpu.tier_limits(caches, 1) == (32 << 10, 1 << 20, 32 << 20, 64 << 20)
    defaults = tuple(size for size, _ in cpu._DEFAULT_CACHES)
    assert cpu.tier_limits([], 1) == (*defaults, 2 * defaults[-1])
    assert cpu.cache_levels(Path("/no/such/folder")) == []


# -- caveats ---------------------------------------------------------------------------


def test_caveats_of_the_bundled_sample_name_the_upcast() -> None:
    module = parse_module((sample_dump() / SAMPLE).read_text())
    caveats = cpu_caveats(module)
    assert len(caveats) == 3, caveats
    dots, widened, rounding = caveats
    # dot_general.4/.5 on wrapped_convert (x), .6 on convert_convert_fusion.*, .7 on wrapped_convert
    assert dots.startswith("4 dots run in f32 on operands XLA:CPU converted from bf16")
    assert "dot_general.4" in dots and "wrapped_convert" in dots
    assert "f32" in widened and "f32[8192,8192]" in widened
    assert rounding.startswith("2 fusions only round f32 to bf16 and back")
    assert "convert_convert_fusion" in rounding
    assert all("\n" not in c and c.endswith(".") for c in caveats)


def test_caveats_inside_a_library_fusion() -> None:
    from xlaview.resources import sample_dump_default_flags

    module = parse_module((sample_dump_default_flags() / SAMPLE).read_text())
    caveats = cpu_caveats(module)
    assert caveats and caveats[0].startswith("4 dots run in f32"), caveats
    assert "convert" in caveats[0]


def test_no_caveat_for_an_f32_module() -> None:
    text = textwrap.dedent("""\
        HloModule m
        ENTRY %main (a: f32[8,8], b: f32[8,8]) -> f32[8,8] {
          %a = f32[8,8]{1,0} parameter(0)
          %b = f32[8,8]{1,0} parameter(1)
          ROOT %d = f32[8,8]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
        }
        """)
    assert cpu_caveats(parse_module(text)) == []


# -- measured on this machine -----------------------------------------------------------


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Calibration:
    """One real calibration of this machine, into a cache of its own."""
    pytest.importorskip("jax")
    folder = tmp_path_factory.mktemp("cpu-cache")
    old = os.environ.get("XLAVIEW_CACHE_DIR")
    os.environ["XLAVIEW_CACHE_DIR"] = str(folder)
    try:
        return cpu.calibration(refresh=True)
    finally:
        if old is None:
            os.environ.pop("XLAVIEW_CACHE_DIR")
        else:
            os.environ["XLAVIEW_CACHE_DIR"] = old


@pytest.mark.slow
def test_measured_figures_are_sane(measured: Calibration) -> None:
    dev = cpu.device_from(measured)
    assert measured.seconds < 60
    for precision in ("f32", "bf16", "f64", "int8"):
        assert dev.peak(precision) > 1e8, precision
    assert dev.peak("f64") <= dev.peak("f32")
    assert measured.vector_flops <= dev.peak("f32")
    rates = [rate for _, rate in dev.cache_bandwidths] + [dev.memory_bandwidth]
    assert all(r > 1e8 for r in rates) and rates == sorted(rates, reverse=True), rates
    sizes = [size for size, _ in dev.cache_bandwidths]
    assert sizes == sorted(sizes) and len(sizes) >= 2


PROGRAMS = {
    # matmul-heavy: dots of several shapes, a bias and a gelu between them
    "mlp": (
        """
def mlp(x, w1, w2, w3):
    h = jax.nn.gelu(x @ w1 + 1.0)
    h = jnp.tanh(h @ w2)
    return (h @ w3).sum(axis=0)
""",
        "((512, 1024), f32), ((1024, 1024), f32), ((1024, 512), f32), ((512, 256), f32)",
    ),
    # element-wise and reductions: a layer norm over 32 MiB, a softmax over 2 MiB
    "norms": (
        """
def norms(x, y):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    normed = (x - mean) * jax.lax.rsqrt(var + 1e-5)
    return normed, jax.nn.softmax(y, axis=-1)
""",
        "((4096, 2048), f32), ((512, 1024), f32)",
    ),
}


def profile_program(name: str, out: Path) -> Path:
    """``xlaview.collect(fn, *shapes, profile=5)`` in a process of its own."""
    source, shapes = PROGRAMS[name]
    script = textwrap.dedent("""
        import sys
        import jax, jax.numpy as jnp
        import xlaview
        f32 = jnp.float32
        {source}
        shapes = [{shapes}]
        xlaview.collect({name}, *[jax.ShapeDtypeStruct(s, t) for s, t in shapes],
                        out=sys.argv[1], profile=5)
        """).format(source=textwrap.indent(source, ""), shapes=shapes, name=name)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run(
        [sys.executable, "-c", script, str(out)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_no_op_beats_this_machines_roofline(
    measured: Calibration, program: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against the best this machine showed: a calibration taken while the
    machine was busy (15.5 s instead of 5 s, on a clean-clone run) reads its
    peaks low, and an op timed later, on a quiet machine, then "beats" them
    (1.3x). An op beyond the roofline of one calibration is judged again
    against the best figures of that one and a second, taken now."""
    from xlaview.dump import index_dump
    from xlaview.profile import choose_module, find_trace, read_trace
    from xlaview.profile.join import executed_file, measure_dump_module, parse_dump_file
    from xlaview.profile.report import combine
    from xlaview.profile.static import static_costs

    folder = profile_program(program, tmp_path / program)
    found = find_trace(folder)
    assert found is not None
    trace = read_trace(found)
    index = index_dump(folder)
    dump_module = choose_module(trace, index, f"jit_{program}")
    file = executed_file(dump_module)
    assert file is not None
    module = parse_dump_file(file)
    measured_time = measure_dump_module(trace, index, dump_module, module)
    assert measured_time.runs == 5

    def beyond(calibration: Calibration) -> tuple[str, list]:
        dev = cpu.device_from(calibration)
        profile = combine(measured_time, static_costs(module, dev), dev.name)
        timed = [op for op in profile.ops if op.roofline_fraction is not None and op.time_s]
        assert timed, [op.name for op in profile.ops]
        report = sorted(
            ((op.roofline_fraction or 0.0, op.name, op.mean_s, op.time_s) for op in timed),
            reverse=True,
        )
        print(f"\n{program} on {dev.title}: worst roofline fractions {report[:5]}")
        return dev.measured, [r for r in report if r[0] > 1.05]

    where, fast = beyond(measured)
    if fast:
        monkeypatch.setenv("XLAVIEW_CACHE_DIR", str(tmp_path / "again"))
        again = cpu.calibration(refresh=True)
        best = replace(measured, dots=measured.dots + again.dots,
                       streams=measured.streams + again.streams)  # fmt: skip
        where, fast = beyond(best)
    assert not fast, f"ops faster than the roofline of {where}: {fast}"
