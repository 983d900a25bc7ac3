"""Issue 24's classes of hostile input, through the command line: each under
the 4 GB cap and the time limit, every command finishes with no traceback and
no "internal error", bad text is a warning located at its file and line (the
rest of the module analysed), a request that cannot be met is one line (exit
2), and the folder is left exactly as it was."""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import pytest
from hostile import AFTER, check_run, snapshot, xlaview_capped
from hostile_cases import CASES, CONVOLUTION, NAME, line_of


@pytest.fixture
def sealed(tmp_path: Path):
    """A dump folder to build; the commands that follow must leave it as it
    was once sealed (file list, sizes, modes, times)."""
    root = tmp_path / "dump"
    root.mkdir()
    state: list[dict] = []
    yield root, lambda: state.append(snapshot(root))
    assert state and snapshot(root) == state[0], "a command changed the dump folder"


@pytest.mark.parametrize("case", list(CASES))
def test_every_command_on_each_class(case: str, sealed, tmp_path: Path) -> None:
    root, seal = sealed
    text, instruction, marker, warning = CASES[case]
    (root / NAME).write_bytes(text)
    seal()
    path = str(root / NAME)
    for args in (
        ("summary", str(root)),
        ("inspect", path, "-i", instruction),
        ("cost", str(root)),
        ("traffic", str(root)),
        ("boundaries", str(root)),
    ):
        run = xlaview_capped(*args)
        check_run(run, args[0], True)
        if marker is not None and warning and args[0] in ("cost", "traffic", "inspect"):
            located = f"{path}:{line_of(text, marker)}: "
            assert located in run.stderr.decode() and warning in run.stderr.decode(), run
    out = tmp_path / "graph.svg"
    run = xlaview_capped("export", str(root), "--out", str(out), timeout=60)
    check_run(run, "export", True)
    assert out.stat().st_size > 1000, "the export is blank"


def test_a_wide_convolution_is_counted_exactly() -> None:
    """The closed form of XLA's double loop: 2 x 50,000 x 50,001 FLOPs."""
    from xlaview.analysis.cost import module_cost
    from xlaview.hlo import parse_module

    cost = module_cost(parse_module(CONVOLUTION))
    assert cost.op("conv").flops == 2 * 50_000 * 50_001


@pytest.mark.parametrize("flag", ["--module", "--pass"])
def test_arguments_of_5000_digits_are_one_line(sealed, flag: str, tmp_path: Path) -> None:
    root, seal = sealed
    (root / NAME).write_bytes(AFTER)
    seal()
    digits = "9" * 5000
    commands = {
        "--module": [("cost", str(root), "--module", digits)],
        "--pass": [
            ("diff", str(root), "--from", digits, "--to", "after"),
            ("export", str(root), "--pass", digits, "--out", str(tmp_path / "x.png")),
        ],
    }[flag]
    for args in commands:
        run = xlaview_capped(*args)
        check_run(run, args[0], False)
        assert run.returncode == 2, run


def test_a_kernel_file_of_5000_digit_numbers_is_read(sealed) -> None:
    root, seal = sealed
    (root / NAME).write_bytes(AFTER)
    ir = (
        "define void @wrapped_convert_kernel(ptr %0) {\n"
        f"  %2 = getelementptr inbounds %XLA_CPU_KernelArg, ptr %1, i32 {'9' * 5000}, i32 0\n"
        f"  %3 = load ptr, ptr %2, align 8, !dereferenceable !{'7' * 5000}\n"
        "  ret void\n}\n"
        f"!{'7' * 5000} = !{{i64 {'8' * 5000}}}\n"
    )
    (root / "module_0000.jit_f.wrapped_convert_kernel_module.ir-no-opt.ll").write_text(ir)
    seal()
    run = xlaview_capped("inspect", str(root / NAME), "-i", "wrapped_convert")
    check_run(run, "inspect", True)


@pytest.mark.parametrize("setting", ["XLAVIEW_MAX_FILE_SIZE", "XLAVIEW_MEMORY_BUDGET"])
def test_settings_of_400_digits_are_one_line(sealed, setting: str) -> None:
    root, seal = sealed
    (root / NAME).write_bytes(AFTER)
    seal()
    for args in (("cost", str(root)), (str(root),)):
        run = xlaview_capped(*args, env={setting: "9" * 400, "QT_QPA_PLATFORM": "offscreen"})
        assert run.returncode == 2, run
        lines = run.stderr.decode().strip().splitlines()
        assert len(lines) == 1 and setting in lines[0] and "Traceback" not in lines[0], run


def test_export_writes_only_where_it_may(sealed, tmp_path: Path) -> None:
    root, seal = sealed
    (root / NAME).write_bytes(AFTER)
    seal()
    run = xlaview_capped("export", str(root), "--out", "/nonexistent/x.svg")
    check_run(run, "export", False)
    assert run.returncode == 2 and b"no folder /nonexistent" in run.stderr, run
    assert b"QPainter" not in run.stderr, "Qt warnings on the way"
    run = xlaview_capped("export", str(root), "--out", str(root / "shot.png"))
    check_run(run, "export", False)
    assert b"inside the dump folder" in run.stderr and b"--force" in run.stderr, run
    assert not (root / "shot.png").exists()


def test_export_into_the_dump_with_force(tmp_path: Path) -> None:
    root = tmp_path / "dump"
    root.mkdir()
    (root / NAME).write_bytes(AFTER)
    run = xlaview_capped("export", str(root), "--out", str(root / "shot.png"), "--force",
                         timeout=60)  # fmt: skip
    check_run(run, "export", True)
    assert (root / "shot.png").stat().st_size > 1000


def test_collect_into_a_dump_is_refused(sealed) -> None:
    root, seal = sealed
    (root / NAME).write_bytes(AFTER)
    seal()
    marker = root.parent / "ran"
    run = xlaview_capped(
        "collect", "--out", str(root), "--", "python3", "-c", f"open({str(marker)!r}, 'w')"
    )
    check_run(run, "collect", False)
    assert run.returncode == 2 and b"already holds a dump" in run.stderr, run
    assert not marker.exists(), "the program ran"


def test_no_display_is_one_line(sealed) -> None:
    root, seal = sealed
    (root / NAME).write_bytes(AFTER)
    seal()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "xlaview", str(root)], capture_output=True, text=True,
        env=env, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display" in lines[0], proc.stderr
    assert "xlaview export" in lines[0] and "QT_QPA_PLATFORM=offscreen" in lines[0]
    assert "libxcb" not in proc.stderr


# A real op of the module, timed once: the trace joins the dump whatever else it holds.
GOOD_EVENT = (
    '{"ph":"X","name":"wrapped_convert","ts":1,"dur":3,"pid":1,"tid":1,'
    '"args":{"hlo_op":"wrapped_convert","hlo_module":"jit_f"}}'
)


def _trace(tmp_path: Path, events: str) -> Path:
    folder = tmp_path / "trace"
    folder.mkdir()
    (folder / "vm.trace.json").write_text('{"traceEvents": [' + events + "]}")
    return folder


@pytest.mark.parametrize(
    "events,message",
    [
        (GOOD_EVENT + ',{"ph":"X","name":"e","ts":1,"dur":-5,"pid":1,"tid":1,'
         '"args":{"hlo_op":"wrapped_convert","hlo_module":"jit_f"}}',
         "1 op events with a negative, infinite or NaN time"),
        (GOOD_EVENT + ',{"ph":"X","name":"e","ts":1,"dur":NaN,"pid":1,"tid":1,'
         '"args":{"hlo_op":"wrapped_convert","hlo_module":"jit_f"}}',
         "1 op events with a negative, infinite or NaN time"),
        (GOOD_EVENT.replace('"jit_f"}', '"jit_f","program_id":Infinity}'),
         "wrapped_convert"),
        ("[" * 100_000 + "]" * 100_000, "nested deeper"),
    ],
)  # fmt: skip
def test_hostile_traces(sealed, tmp_path: Path, events: str, message: str) -> None:
    root, seal = sealed
    (root / NAME).write_bytes(AFTER)
    trace = _trace(tmp_path, events)
    seal()
    run = xlaview_capped("profile", str(root), str(trace))
    assert b"Traceback" not in run.stderr and b"internal error" not in run.stderr, run
    assert message.encode() in run.stdout + run.stderr, run


def test_junk_xplane_and_gzip_bomb_are_refused_in_two_seconds(tmp_path: Path) -> None:
    """Within 2 s of what the same command takes on a small good trace, timed
    in the same run (the start of Python and jax, the dump's parse)."""
    root = tmp_path / "dump"
    root.mkdir()
    (root / NAME).write_bytes(AFTER)
    junk = tmp_path / "junk"
    junk.mkdir()
    with open(junk / "vm.xplane.pb", "wb") as f:
        f.truncate(300 << 20)  # 300 MB of zeros
    bomb = tmp_path / "bomb"
    bomb.mkdir()
    # 7.5 GiB of text in 7.8 MB: one compressed member of 16 MiB of spaces,
    # repeated (a gzip file may hold many; readers inflate them in turn).
    spaces = gzip.compress(b" " * (16 << 20), compresslevel=9)
    with open(bomb / "vm.trace.json.gz", "wb") as f:
        f.write(gzip.compress(b'{"traceEvents": ['))
        for _ in range(480):
            f.write(spaces)
    reference = xlaview_capped("profile", str(root), str(_trace(tmp_path, GOOD_EVENT)))
    check_run(reference, "profile", True)
    for trace, message in ((junk, b"a field numbered 0"), (bomb, b"compression bomb")):
        run = xlaview_capped("profile", str(root), str(trace))
        check_run(run, "profile", False)
        assert message in run.stderr, run
        assert run.seconds < reference.seconds + 2.0, (run.seconds, reference.seconds)


def test_one_line_per_bad_line_and_the_rest_analysed(sealed) -> None:
    """Containment: the bad instruction is the only one lost (its users say
    their operand is missing); every op of every other computation is priced."""
    root, seal = sealed
    text, *_ = CASES["window size 1xa"]
    (root / NAME).write_bytes(text)
    seal()
    good = xlaview_capped("cost", "--json", str(_good(root.parent)))
    bad = xlaview_capped("cost", "--json", str(root))
    check_run(bad, "cost", True)
    import json

    names_good = {op["name"] for op in json.loads(good.stdout)["ops"]}
    names_bad = {op["name"] for op in json.loads(bad.stdout)["ops"]}
    assert names_good - names_bad <= {"wrapped_reduce-window"}, names_good - names_bad
    warnings = [ln for ln in bad.stderr.decode().splitlines() if ln.startswith("warning:")]
    assert warnings and all(re.search(r":\d+: ", ln) for ln in warnings), warnings


def _good(parent: Path) -> Path:
    folder = parent / "good"
    folder.mkdir(exist_ok=True)
    (folder / NAME).write_bytes(AFTER)
    return folder
