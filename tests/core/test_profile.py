"""Reading jax.profiler traces and joining them to the dump, on real traces of
small programs run on CPU (see tests/programs/profiled.py).

The oracle is the trace's own JSON, read here with ``json.load`` and summed
independently of xlaview's readers."""

from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from xlaview.dump import index_dump, load_module
from xlaview.profile import (
    TraceReadError,
    choose_module,
    find_trace,
    measure_dump_module,
    read_trace,
    trace_files,
)
from xlaview.profile import files as trace_files_module
from xlaview.profile.events import EventTable, OpKey
from xlaview.profile.measure import measure_module
from xlaview.profile.trace import Trace


def json_trace(folder: Path) -> Path:
    (path,) = (folder / "trace").glob("plugins/profile/*/*.trace.json.gz")
    return path


def raw_events(folder: Path) -> list[dict]:
    """The op events of the trace's JSON, as json.load gives them."""
    with gzip.open(json_trace(folder)) as handle:
        document = json.load(handle)
    return [
        e for e in document["traceEvents"] if e.get("ph") == "X" and "hlo_op" in e.get("args", {})
    ]


def sums(events: list[dict]) -> dict[str, tuple[int, float]]:
    """op -> (count, seconds): ``dur`` is in microseconds."""
    found: dict[str, list] = defaultdict(lambda: [0, 0.0])
    for e in events:
        found[e["args"]["hlo_op"]][0] += 1
        found[e["args"]["hlo_op"]][1] += e["dur"] * 1e-6
    return {op: (n, s) for op, (n, s) in found.items()}


def runs_of(events: list[dict], module: str) -> list[list[dict]]:
    """The events of each run of ``module``, runs in time order."""
    by_run: dict[str, list[dict]] = defaultdict(list)
    for e in events:
        if e["args"]["hlo_module"] == module:
            by_run[e["args"]["run_id"]].append(e)
    return sorted(by_run.values(), key=lambda run: min(e["ts"] for e in run))


def dump_module(folder: Path, name: str, nth: int = 0):
    index = index_dump(folder / "dump")
    modules = [m for m in index.modules if m.name == name]
    return index, modules[nth]


def assert_same(measured, expected: dict[str, tuple[int, float]], what: str) -> None:
    got = {op.name: (op.count, op.measured_s) for op in (*measured.ops, *measured.unmatched)}
    assert set(got) == set(expected), f"{what}: ops {sorted(got)} != trace's {sorted(expected)}"
    for op, (count, seconds) in expected.items():
        assert got[op][0] == count, f"{what}: {op} counted {got[op][0]}, the trace has {count}"
        assert got[op][1] == pytest.approx(seconds, rel=0.01), f"{what}: {op} time"


@pytest.mark.parametrize("prefer", ["xplane", "json"])
def test_every_timed_op_counts_the_traces_own_events(
    profiled: dict[str, Path], prefer: str
) -> None:
    folder = profiled["mlp_scan"]
    expected = sums([e for e in raw_events(folder) if e["args"]["hlo_module"] == "jit_mlp_scan"])
    index, module = dump_module(folder, "jit_mlp_scan")
    trace = read_trace(folder / "trace", prefer=prefer)
    assert trace.format == prefer
    measured = measure_dump_module(trace, index, module)
    assert_same(measured, expected, prefer)
    assert measured.runs == 3 and not measured.unmatched
    assert measured.matched_by == ("program id" if prefer == "xplane" else "name")


def test_nested_events_are_counted_once(profiled: dict[str, Path]) -> None:
    """The scan's while spans the events of its body's ops: the module's time
    sums the outermost events only, and the while's own time excludes its body."""
    folder = profiled["mlp_scan"]
    events = [e for e in raw_events(folder) if e["args"]["hlo_module"] == "jit_mlp_scan"]
    index, module = dump_module(folder, "jit_mlp_scan")
    hlo = load_module(module.after_optimizations.path).module
    measured = measure_dump_module(read_trace(folder / "trace"), index, module, hlo)
    loop = next(op for op in measured.ops if hlo.instruction(op.name).opcode == "while")
    inside = [
        e
        for e in events
        if any(
            w["ts"] <= e["ts"] and e["ts"] + e["dur"] <= w["ts"] + w["dur"] + 1e-3 and e is not w
            for w in events
            if w["args"]["hlo_op"] == loop.name
        )
    ]
    assert inside, "the trace nests the body's ops in the while"
    outermost = sum(e["dur"] for e in events if e not in inside) * 1e-6
    assert measured.measured_s == pytest.approx(outermost, rel=1e-6)
    assert loop.self_s == pytest.approx(
        loop.measured_s - sum(e["dur"] for e in inside) * 1e-6, rel=1e-6, abs=1e-9
    )
    assert 0 < loop.self_s < loop.measured_s


@pytest.mark.parametrize("program", ["two_shapes", "two_bodies"])
@pytest.mark.parametrize("prefer", ["xplane", "json"])
def test_compilations_of_one_name_are_told_apart(
    profiled: dict[str, Path], program: str, prefer: str
) -> None:
    """The first compilation ran three times, the second twice, one after the
    other: its runs are the first three runs of that name in the trace."""
    folder = profiled[program]
    name = "jit_" + {"two_shapes": "step", "two_bodies": "body"}[program]
    runs = runs_of(raw_events(folder), name)
    assert json.loads((folder / "runs.json").read_text()) == [0, 0, 0, 1, 1]
    assert len(runs) == 5
    trace = read_trace(folder / "trace", prefer=prefer)
    for nth, own_runs in ((0, runs[:3]), (1, runs[3:])):
        index, module = dump_module(folder, name, nth)
        measured = measure_dump_module(trace, index, module)
        expected = sums([e for run in own_runs for e in run])
        if prefer == "json" and program == "two_shapes":
            # Same op names and no program id: the runs fit both, and each
            # compilation is given all of them, saying so.
            assert measured.shared_with and measured.matched_by == "op names"
            assert_same(measured, sums([e for run in runs for e in run]), f"{program} shared")
            continue
        assert measured.runs == len(own_runs) and not measured.shared_with
        assert_same(measured, expected, f"{program} module_{module.id:04d} from {prefer}")


def test_events_naming_no_instruction_are_listed(profiled: dict[str, Path]) -> None:
    """A trace of another version of the program: same module name, other ops."""
    dump_folder, trace_folder = profiled["one_body"], profiled["other_body"]
    index, module = dump_module(dump_folder, "jit_body")
    measured = measure_dump_module(read_trace(trace_folder / "trace"), index, module)
    expected = sums([e for e in raw_events(trace_folder) if e["args"]["hlo_module"] == "jit_body"])
    assert not measured.ops and measured.matched_s == 0
    assert_same(measured, expected, "unmatched")
    assert measured.measured_s == pytest.approx(sum(s for _, s in expected.values()), rel=1e-6)


def test_the_busiest_module_is_chosen(profiled: dict[str, Path]) -> None:
    folder = profiled["mlp_scan"]
    trace = read_trace(folder / "trace")
    index = index_dump(folder / "dump")
    assert choose_module(trace, index).name == "jit_mlp_scan"
    two = profiled["two_bodies"]
    index = index_dump(two / "dump")
    chosen = choose_module(read_trace(two / "trace"), index, "jit_body")
    assert chosen.id == min(m.id for m in index.modules if m.name == "jit_body")
    with pytest.raises(KeyError, match="no module"):
        choose_module(trace, index, "jit_nothing")


def test_json_and_xplane_readers_agree(profiled: dict[str, Path]) -> None:
    for name, folder in profiled.items():
        tables = {}
        for prefer in ("xplane", "json"):
            trace = read_trace(folder / "trace", prefer=prefer)
            found: dict[tuple, list] = defaultdict(lambda: [0, 0.0])
            for event in trace.table.events():
                key = (event.key.module, event.key.op, event.key.device, event.run)
                found[key][0] += 1
                found[key][1] += event.duration_s
            tables[prefer] = found
        assert tables["xplane"].keys() == tables["json"].keys(), name
        for key, (count, seconds) in tables["xplane"].items():
            assert tables["json"][key][0] == count, (name, key)
            assert tables["json"][key][1] == pytest.approx(seconds, rel=1e-6, abs=1e-12), (
                name,
                key,
            )


def test_perfetto_trace_and_one_file_per_host(profiled: dict[str, Path], tmp_path: Path) -> None:
    folder = profiled["mlp_scan"]
    (run,) = (folder / "trace" / "plugins" / "profile").iterdir()
    perfetto = run / "perfetto_trace.json.gz"
    assert perfetto.is_file(), "create_perfetto_trace=True writes it"
    assert [f.path.name for f in trace_files(run)] == [
        json_trace(folder).name.replace(".trace.json.gz", ".xplane.pb")
    ], "the host's own files win over the perfetto copy"
    assert list(read_trace(perfetto).table.events()) == list(
        read_trace(json_trace(folder)).table.events()
    )
    # Two hosts: one file each, devices named with their host.
    hosts = tmp_path / "plugins" / "profile" / "2026_01_01_00_00_00"
    hosts.mkdir(parents=True)
    for host in ("alpha", "beta"):
        (hosts / f"{host}.trace.json.gz").write_bytes(json_trace(folder).read_bytes())
    (hosts / "perfetto_trace.json.gz").write_bytes(perfetto.read_bytes())
    trace = read_trace(tmp_path)
    assert sorted(f.host for f in trace.files) == ["alpha", "beta"]
    assert trace.devices == ("alpha/host:CPU:0", "beta/host:CPU:0")
    index, module = dump_module(folder, "jit_mlp_scan")
    total = measure_dump_module(trace, index, module)
    one = measure_dump_module(trace, index, module, device="beta/host:CPU:0")
    assert total.runs == one.runs == 3, "the same run ids on both hosts"
    assert all(op.count == 2 * one.op(op.name).count for op in total.ops)


def test_json_is_read_across_any_chunk_boundary(profiled: dict[str, Path], monkeypatch) -> None:
    folder = profiled["two_bodies"]
    whole = read_trace(json_trace(folder))
    for size in (1, 7, 4096):
        monkeypatch.setattr(trace_files_module, "CHUNK", size)
        small = read_trace(json_trace(folder))
        assert small.events == whole.events
        assert list(small.table.events()) == list(whole.table.events()), f"chunks of {size}"


def test_find_trace_and_trace_files(profiled: dict[str, Path], tmp_path: Path) -> None:
    folder = profiled["mlp_scan"]
    (run,) = (folder / "trace" / "plugins" / "profile").iterdir()
    assert [f.format for f in trace_files(folder / "trace")] == ["xplane"]
    assert [f.format for f in trace_files(run, prefer="json")] == ["json"]
    assert trace_files(json_trace(folder))[0].host == json_trace(folder).name.split(".")[0]
    assert find_trace(folder / "dump") is None
    (tmp_path / "trace").symlink_to(folder / "trace")
    assert find_trace(tmp_path) == tmp_path / "trace" / "plugins" / "profile" / run.name


def test_several_devices_per_device_and_total() -> None:
    table = EventTable()
    for device in ("/host:CPU:0", "/host:CPU:1"):
        thread = table.thread_id(device, "worker", device)
        for run in ("1", "2"):
            table.add(OpKey("jit_f", "fusion", device, None), run, thread, float(run), 0.5)
            table.add(
                OpKey("jit_f", "all-reduce", device, None), run, thread, float(run) + 0.5, 0.25
            )
    trace = Trace(Path("t"), (), table.finish(), len(table))
    total = measure_module(trace, "jit_f", {"fusion", "all-reduce"})
    one = measure_module(trace, "jit_f", {"fusion", "all-reduce"}, device="/host:CPU:1")
    assert total.devices == ("/host:CPU:0", "/host:CPU:1") and total.runs == 2
    assert total.op("fusion").count == 4 and one.op("fusion").count == 2
    assert total.measured_s == pytest.approx(3.0) and one.measured_s == pytest.approx(1.5)


def test_an_op_line_is_preferred_to_the_kernels_of_its_device() -> None:
    """Where a device has an "XLA Ops" line (TPU; GPU as XProf derives it), the
    kernels of its other lines are not counted again."""
    table = EventTable()
    ops = table.thread_id("/device:GPU:0", "XLA Ops", 1)
    stream = table.thread_id("/device:GPU:0", "Stream #7", 2)
    key = OpKey("jit_f", "fusion", "/device:GPU:0", None)
    table.add(key, "1", ops, 0.0, 1.0)
    table.add(key, "1", stream, 0.0, 0.4)
    table.add(key, "1", stream, 0.5, 0.4)
    table.finish()
    assert [e.thread for e in table.events()] == ["XLA Ops"]


def _gzip(path: Path, text: bytes) -> Path:
    with gzip.open(path, "wb") as handle:
        handle.write(text)
    return path


@pytest.mark.parametrize("make,message", [
    (lambda d: d / "missing.trace.json.gz", "no such file"),
    (lambda d: d, "no trace here"),
    (lambda d: _gzip(d / "h.trace.json.gz", b'{"traceEvents": [{"ph": "X", "args": '),
     "not a trace"),
    (lambda d: _gzip(d / "h.trace.json.gz", b'{"traceEvents": [1, 2]}'), "not an object"),
    (lambda d: _gzip(d / "h.trace.json.gz", b'{"displayTimeUnit": "ns"}'), "no traceEvents"),
    (lambda d: _gzip(d / "h.trace.json.gz", b"\x00\x01 not json"), "not a trace"),
    (lambda d: (d / "h.trace.json.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
     and d / "h.trace.json.gz",
     "corrupt compressed data"),
    (lambda d: (d / "h.xplane.pb").write_bytes(b"\x0a\xff\xff\xff\xff\x0f") and d / "h.xplane.pb",
     "not an XPlane"),
    (lambda d: (d / "h.xplane.pb").write_bytes(b"\x0f") and d / "h.xplane.pb", "not an XPlane"),
    (lambda d: (d / "notes.txt").write_text("x") and d / "notes.txt", "not a trace"),
])  # fmt: skip
def test_bad_traces_give_a_clear_error(tmp_path: Path, make, message: str) -> None:
    path = make(tmp_path)
    with pytest.raises(TraceReadError, match=message) as caught:
        read_trace(path)
    assert str(path) in str(caught.value) or str(tmp_path) in str(caught.value)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "h.trace.json.gz"
    os.mkfifo(fifo)
    with pytest.raises(TraceReadError, match="not a regular file"):
        read_trace(fifo)


def test_huge_traces_stop_at_the_cap(tmp_path: Path) -> None:
    """A gzip bomb: 64 MB of text in 64 KB on disk stops at the text cap, at
    the file cap, and, within both, at the ratio cap (a thousand to one)."""
    path = tmp_path / "bomb.trace.json.gz"
    with gzip.open(path, "wb", compresslevel=9) as handle:
        handle.write(b'{"traceEvents": [' + b" " * (80 << 20) + b"]}")
    with pytest.raises(TraceReadError, match="too large"):
        read_trace(path, max_text=16 << 20)
    with pytest.raises(TraceReadError, match="too large"):
        read_trace(path, max_file=1024)
    with pytest.raises(TraceReadError, match="a compression bomb"):
        read_trace(path)


def test_reading_writes_nothing(profiled: dict[str, Path]) -> None:
    folder = profiled["mlp_scan"]
    before = sorted((p, p.stat().st_mtime_ns) for p in folder.rglob("*"))
    index, module = dump_module(folder, "jit_mlp_scan")
    measure_dump_module(read_trace(folder / "trace"), index, module)
    read_trace(folder / "trace", prefer="json")
    assert sorted((p, p.stat().st_mtime_ns) for p in folder.rglob("*")) == before
