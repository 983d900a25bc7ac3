"""Real dumps with lines mutated (numbers, attribute values, nesting, JSON,
shapes and layouts), real traces and XPlanes with bytes mutated: the core
answers with located problems only, keeps the rest of the module, stays
linear in its input, and writes nothing.

Whatever the mutation, the module goes through everything a command or the
window does with it: parse, price, roofline, traffic, boundaries, diff
against the original, graph, the inspector's join. Any exception that leaves
the core must be xlaview's own located one."""

from __future__ import annotations

import gzip
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlaview.analysis.boundaries import module_boundaries
from xlaview.analysis.cost import device, module_cost, roofline
from xlaview.analysis.drawing import build_graph
from xlaview.analysis.inspect import describe_instruction
from xlaview.analysis.passes import diff_modules
from xlaview.analysis.traffic import analyze_traffic
from xlaview.errors import LocatedError
from xlaview.hlo import Module, parse_module_tolerant
from xlaview.profile import TraceReadError, read_trace
from xlaview.resources import sample_dump

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")
_VALUE = re.compile(r"(?<=[=(])[^,(){}\s]+|\{[^{}\n]*\}")
_LAYOUT = re.compile(r"\{[\d,]*(?::[^{}\n]*)?\}")
_JSON = re.compile(r"backend_config=\{[^\n]*\}")
HOSTILE_NUMBERS = ["-1", "0", "-9223372036854775809", "9" * 25, "9" * 5000, "abc", "1e9", "NaN",
                   "²"]  # fmt: skip
HOSTILE_VALUES = ["{", "}", "{{{", "x", "{size=1xa}", "{size=1x2 stride=1}", '"open',
                  "{" * 3000 + "}" * 3000, "", "{a=b=c}", "%", "{1,,2}", "-"]  # fmt: skip
HOSTILE_LAYOUTS = ["{3}", "{1,0:T(8,x)}", "{1,0:E(-8)}", "{0,0}", "{1,0:T(0,128)}",
                   "{1,0:S(-1)}", "{" + "9" * 5000 + "}",
                   "{1,0:T(" + "8," * 3000 + "8)}"]  # fmt: skip
HOSTILE_JSON = [
    'backend_config={"known_trip_count":{"n":"-5"}}',
    'backend_config={"known_trip_count":{"n":"' + "9" * 5000 + '"}}',
    "backend_config=" + '{"a":' * 5000 + "1" + "}" * 5000,
    'backend_config={"outer_dimension_partitions":[',
    "backend_config={" + "[" * 100_000 + "]" * 100_000 + "}",
]


@pytest.fixture(scope="module")
def texts(zoo: dict[str, Path]) -> dict[str, str]:
    """Final dumps of real programs: attention, a training step, a scan, a
    conditional, a convolution, an SPMD program."""
    found = {"sample": next(sample_dump().glob("*cpu_after_optimizations.txt")).read_text()}
    for name, folder in zoo.items():
        found[name] = next(folder.glob("*after_optimizations.txt")).read_text()
    return found


def instruction_lines(text: str) -> list[int]:
    return [k for k, line in enumerate(text.split("\n")) if line.startswith("  ") and " = " in line]


@st.composite
def mutated(draw, text: str) -> tuple[str, set[int]]:
    """``text`` with 1 to 3 of its instruction lines mutated; the (0-based)
    numbers of the lines changed."""
    lines = text.split("\n")
    candidates = instruction_lines(text)
    touched: set[int] = set()
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.sampled_from(candidates))
        line = lines[k]
        kind = draw(st.sampled_from(["number", "value", "layout", "json", "cut", "opcode"]))
        if kind == "number" and _NUMBER.search(line):
            spots = list(_NUMBER.finditer(line))
            m = spots[draw(st.integers(0, len(spots) - 1))]
            line = line[: m.start()] + draw(st.sampled_from(HOSTILE_NUMBERS)) + line[m.end() :]
        elif kind == "value" and _VALUE.search(line):
            spots = list(_VALUE.finditer(line))
            m = spots[draw(st.integers(0, len(spots) - 1))]
            line = line[: m.start()] + draw(st.sampled_from(HOSTILE_VALUES)) + line[m.end() :]
        elif kind == "layout" and _LAYOUT.search(line):
            m = _LAYOUT.search(line)
            assert m is not None
            line = line[: m.start()] + draw(st.sampled_from(HOSTILE_LAYOUTS)) + line[m.end() :]
        elif kind == "json":
            config = draw(st.sampled_from(HOSTILE_JSON))
            line = _JSON.sub(config, line) if _JSON.search(line) else f"{line}, {config}"
        elif kind == "cut":
            line = line[: draw(st.integers(0, len(line)))]
        else:
            line = re.sub(r"(= \S+ )[a-z][a-z0-9\-]*\(", r"\1no-such-op(", line, count=1)
        lines[k] = line
        touched.add(k)
    return "\n".join(lines), touched


def analyse(module: Module, original: Module) -> None:
    """Everything the command line and the window do with a module."""
    cost = module_cost(module)
    roof = roofline(cost, device("h100"))
    for op in roof.ops:
        assert 0.0 <= op.share <= 1.0 + 1e-9, (op.name, op.share)
    traffic = analyze_traffic(module)
    module_boundaries(module, traffic)
    diff_modules(original, module)
    for comp in module.computations[:12]:
        build_graph(module, comp.name)
    names = [i.name for c in module.computations for i in c.instructions]
    for name in names[:: max(1, len(names) // 8)]:
        describe_instruction(module, name, None, None, cost=cost, roof=roof)


def check_contained(text: str, touched: set[int], original: Module, original_text: str) -> None:
    try:
        result = parse_module_tolerant(text)
        for d in result.diagnostics:
            assert d.line >= 1, d
        analyse(result.module, original)
    except LocatedError:
        return  # a located error of xlaview's own: allowed
    # The rest of the module: every computation none of whose lines changed is
    # there, whole (a bad line costs its instruction, at worst its computation).
    lost = []
    got = {c.name: {i.name for i in c.instructions} for c in result.module.computations}
    for comp in original.computations:
        first = comp.span.line - 1
        last = first + original_text.count("\n", comp.span.offset, comp.span.end)
        if any(first <= k <= last for k in touched):
            continue
        if comp.name not in got or not {i.name for i in comp.instructions} <= got[comp.name]:
            lost.append(comp.name)
    assert not lost, f"computations no mutation touched were lost: {lost[:5]}"


@pytest.mark.parametrize("program", ["sample", "mlp_grad", "scan", "cond", "conv", "spmd"])
@FUZZ
@given(data=st.data())
def test_mutated_lines_are_contained(texts: dict[str, str], program: str, data) -> None:
    text = texts[program]
    original = parse_module_tolerant(text).module
    mutated_text, touched = data.draw(mutated(text))
    check_contained(mutated_text, touched, original, text)


def _timed(build, n: int) -> float:
    """The CPU time of this thread reading ``build(n)``: unlike the wall clock, it
    does not count the time another process or a thread holding the GIL takes
    (CI measured 0.25 s for 2,000 nested calls and 0.94 s for 4,000 on a busy
    machine, where an idle one takes 0.19 s and 0.42 s)."""
    text = build(n)
    start = time.thread_time()
    module = parse_module_tolerant(text).module
    cost = module_cost(module)
    roofline(cost, device("h100"))
    analyze_traffic(module)
    return time.thread_time() - start


def _braces(n: int) -> str:
    return (
        "HloModule m\n\nENTRY %e () -> f32[] {\n"
        f"  ROOT %c = f32[] constant({'{' * n}1{'}' * n})\n}}\n"
    )


def _json(n: int) -> str:
    config = '{"a":' * n + "1" + "}" * n
    return (
        "HloModule m\n\nENTRY %e (p: f32[8]) -> f32[8] {\n  %p = f32[8]{0} parameter(0)\n"
        f"  ROOT %n = f32[8]{{0}} negate(%p), backend_config={config}\n}}\n"
    )


def _calls(n: int) -> str:
    parts = [f"%c{n} (p: f32[8]) -> f32[8] {{\n  %p = f32[8]{{0}} parameter(0)\n"
             "  ROOT %e = f32[8]{0} exponential(%p)\n}\n"]  # fmt: skip
    for i in range(n - 1, 0, -1):
        parts.append(
            f"%c{i} (p.{i}: f32[8]) -> f32[8] {{\n  %p.{i} = f32[8]{{0}} parameter(0)\n"
            f"  ROOT %call.{i} = f32[8]{{0}} call(%p.{i}), to_apply=%c{i + 1}\n}}\n"
        )
    parts.append("ENTRY %main (x: f32[8]) -> f32[8] {\n  %x = f32[8]{0} parameter(0)\n"
                 "  ROOT %call.0 = f32[8]{0} call(%x), to_apply=%c1\n}\n")  # fmt: skip
    return "HloModule m\n\n" + "\n".join(parts)


def _convolution(n: int) -> str:
    return (
        "HloModule m\n\nENTRY %e (x: f32[1,1,"
        f"{3 * n}], k: f32[1,1,{n}]) -> f32[1,1,{n + 1}] {{\n"
        f"  %x = f32[1,1,{3 * n}]{{2,1,0}} parameter(0)\n"
        f"  %k = f32[1,1,{n}]{{2,1,0}} parameter(1)\n"
        f"  ROOT %c = f32[1,1,{n + 1}]{{2,1,0}} convolution(%x, %k), window={{size={n} stride=2}}, "
        "dim_labels=bf0_oi0->bf0\n}\n"
    )


@pytest.mark.parametrize(
    "build,n",
    [(_braces, 50_000), (_json, 2_000), (_calls, 2_000), (_convolution, 1_000_000)],
    ids=["nested braces", "nested JSON", "nested calls", "a wide convolution"],
)
def test_time_is_linear_in_the_hostile_part(build, n: int) -> None:
    """Doubling what makes the input hostile at most about doubles the time
    (a quadratic reader would take four times as long)."""
    _timed(build, n // 10)  # warm
    small = min(_timed(build, n) for _ in range(3))
    large = min(_timed(build, 2 * n) for _ in range(3))
    assert large < 3 * small + 0.05, f"{n}: {small:.3f} s, {2 * n}: {large:.3f} s"


def _xplane_bytes(profiled: dict[str, Path]) -> tuple[Path, bytes]:
    path = next((profiled["mlp_scan"] / "trace").rglob("*.xplane.pb"))
    return path, path.read_bytes()


@FUZZ
@given(data=st.data())
def test_mutated_traces_are_read_or_refused(profiled, tmp_path_factory, data) -> None:
    path, raw = _xplane_bytes(profiled)
    json_path = next((profiled["mlp_scan"] / "trace").rglob("*.trace.json.gz"))
    json_raw = gzip.decompress(json_path.read_bytes())
    folder = tmp_path_factory.mktemp("mutated")
    for name, content in (("vm.xplane.pb", raw), ("vm.trace.json", json_raw)):
        blob = bytearray(content)
        for _ in range(data.draw(st.integers(1, 8))):
            at = data.draw(st.integers(0, len(blob) - 1))
            choice = data.draw(st.integers(0, 2))
            if choice == 0:
                blob[at] = data.draw(st.integers(0, 255))
            elif choice == 1:
                del blob[at:]
                break
            else:
                blob[at:at] = data.draw(st.sampled_from([b"\x00" * 64, b"\xff" * 16, b"[" * 5000]))
        target = folder / name
        target.write_bytes(bytes(blob))
        try:
            trace = read_trace(target)
        except TraceReadError as err:
            assert str(target) in str(err)
            continue
        for key in trace.table.keys:
            assert key.program_id is None or isinstance(key.program_id, int)
