"""Each hostile case of issue 15, through the command line: under the 4 GB
cap and the time limit, exit status and one clear line, the terminal safe,
the folder untouched."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hostile import AFTER, BEFORE, REPORTS, check_run, create, snapshot, xlaview_capped

AFTER_NAME = "module_0000.jit_f.cpu_after_optimizations.txt"
BEFORE_NAME = "module_0000.jit_f.before_optimizations.txt"


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    """A small real dump (the sample's module, renamed): before, after, reports."""
    root = tmp_path / "dump"
    root.mkdir()
    (root / AFTER_NAME).write_bytes(AFTER)
    (root / BEFORE_NAME).write_bytes(BEFORE)
    for kind, text in REPORTS.items():
        (root / AFTER_NAME.replace(".txt", f"-{kind}.txt")).write_bytes(text)
    return root


@pytest.fixture
def untouched(dump: Path):
    """Call it once the test has built its folder: the commands that follow
    must leave it as it is then."""
    sealed: list[dict] = []
    yield lambda: sealed.append(snapshot(dump))
    assert sealed, "the folder was never sealed"
    assert snapshot(dump) == sealed[0], "a command changed the dump folder"


FIFO_COMMANDS = [
    ("summary", ["summary", "DUMP"], True),
    ("traffic", ["traffic", "DUMP", "--module", "module_0001"], False),
    ("traffic", ["traffic", "DUMP/module_0001.jit_g.cpu_after_optimizations.txt"], False),
    ("diff", ["diff", "DUMP", "--module", "module_0001", "--from", "before", "--to", "after"],
     False),
    ("inspect", ["inspect", "DUMP/module_0001.jit_g.cpu_after_optimizations.txt"], False),
    ("inspect", ["inspect", f"DUMP/{AFTER_NAME}"], True),  # its live-range report is a FIFO
    ("compare", ["compare", "DUMP", "DUMP"], True),
    ("export", ["export", "DUMP/module_0001.jit_g.cpu_after_optimizations.txt", "--out", "PNG"],
     False),
]  # fmt: skip


@pytest.mark.parametrize(
    "command,args,works", FIFO_COMMANDS, ids=[" ".join(a[:1] + a[2:3]) for _, a, _ in FIFO_COMMANDS]
)
def test_fifos_named_like_dumps_never_block(
    dump: Path, untouched, tmp_path: Path, command: str, args: list[str], works: bool
) -> None:
    live_range = dump / AFTER_NAME.replace(".txt", "-live-range.txt")
    live_range.unlink()
    os.mkfifo(live_range)
    os.mkfifo(dump / "module_0001.jit_g.cpu_after_optimizations.txt")
    os.mkfifo(dump / "module_0001.jit_g.before_optimizations.txt")
    png = tmp_path / "out.png"
    args = [a.replace("DUMP", str(dump)).replace("PNG", str(png)) for a in args]
    untouched()
    run = xlaview_capped(*args)
    check_run(run, command, works)
    assert not png.exists()
    if not works:
        assert b"FIFO" in run.stderr or b"no module" in run.stderr, run.stderr


def test_a_link_to_dev_zero_is_not_called_empty(dump: Path, untouched) -> None:
    link = "module_0001.jit_g.cpu_after_optimizations.txt"
    (dump / link).symlink_to("/dev/zero")
    untouched()
    run = xlaview_capped("summary", str(dump))
    check_run(run, "summary", True)
    assert (
        f"{link}: not a regular file: a character device (a link to /dev/zero)".encode()
        in run.stdout
    )
    assert b"empty" not in run.stdout
    run = xlaview_capped("traffic", str(dump / link))
    check_run(run, "traffic", False)
    assert b"a character device (a link to /dev/zero); not read" in run.stderr


def test_a_file_over_the_limit_is_one_clear_line(dump: Path, untouched) -> None:
    big = dump / "module_0001.jit_g.cpu_after_optimizations.txt"
    create(dump, big.name.encode(), "huge")
    untouched()
    run = xlaview_capped("traffic", str(big))
    check_run(run, "traffic", False)
    assert run.stderr.endswith(
        b"too large: 3.0 GiB, limit 2.0 GiB (set XLAVIEW_MAX_FILE_SIZE to read it)\n"
    ), run.stderr
    run = xlaview_capped("summary", str(dump))
    assert f"{big.name}: too large: 3.0 GiB".encode() in run.stdout
    run = xlaview_capped("traffic", str(dump / AFTER_NAME), env={"XLAVIEW_MAX_FILE_SIZE": "1K"})
    check_run(run, "traffic", False)
    assert b"limit 1.0 KiB" in run.stderr
    run = xlaview_capped("traffic", str(dump / AFTER_NAME), env={"XLAVIEW_MAX_FILE_SIZE": "big"})
    check_run(run, "traffic", False)
    assert b"XLAVIEW_MAX_FILE_SIZE='big': expected a size" in run.stderr


@pytest.mark.parametrize("replace,with_", [
    (rb"\(max \d+\)", b"(max 3000000000)"),
    (rb":\d+-\d+\n", b":-5--9\n"),
    (rb"at \d+ \(peak\)", b"at -3 (peak)"),
])  # fmt: skip
def test_report_numbers_that_would_size_memory_are_warnings(
    dump: Path, untouched, replace: bytes, with_: bytes
) -> None:
    import re

    report = dump / AFTER_NAME.replace(".txt", "-live-range.txt")
    report.write_bytes(re.sub(replace, with_, REPORTS["live-range"], count=1))
    untouched()
    run = xlaview_capped("inspect", str(dump / AFTER_NAME))
    check_run(run, "inspect", True)
    assert f"warning: {report.name}:".encode() in run.stderr, run.stderr


def test_summary_escapes_what_would_drive_the_terminal(dump: Path, untouched) -> None:
    names = {
        "osc": "module_0001.jit_\x1b]0;pwned\x07.cpu_after_optimizations.txt",
        "csi": "module_0002.jit_\x1b[2J\x1b[31m.cpu_after_optimizations.txt",
        "newline": "module_0003.jit_a\nmodule_9999.forged.cpu_after_optimizations.txt",
        "bidi": "module_0004.jit_\u202etxt.exe.cpu_after_optimizations.txt",
    }
    for name in names.values():
        (dump / name).write_bytes(AFTER)
    untouched()
    run = xlaview_capped("summary", str(dump))
    check_run(run, "summary", True)
    out = run.stdout.decode()
    assert "jit_\\x1b]0;pwned\\x07" in out and "jit_\\x1b[2J\\x1b[31m" in out
    assert "jit_a\\nmodule_9999.forged" in out and "\nmodule_9999" not in out
    assert "jit_\\u202etxt" in out


@pytest.mark.parametrize("env", [
    {"PYTHONIOENCODING": "ascii:strict"}, {"LC_ALL": "C", "LANG": "C"}, {},
])  # fmt: skip
def test_names_that_are_not_utf8_print_and_stay_valid_json(
    dump: Path, untouched, env: dict
) -> None:
    name = b"module_0001.jit_\xff\xfe\xc3.cpu_after_optimizations.txt"
    with open(os.path.join(os.fsencode(dump), name), "wb") as f:
        f.write(AFTER)
    (dump / "module_0002.jit_é×.cpu_after_optimizations.txt").write_bytes(AFTER)
    untouched()
    run = xlaview_capped("summary", str(dump), env=env)
    check_run(run, "summary", True)
    assert b"jit_\\xff\\xfe\\xc3" in run.stdout, run.stdout
    run = xlaview_capped("summary", "--json", str(dump), env=env)
    check_run(run, "summary", True)
    document = json.loads(run.stdout.decode("utf-8"))  # strict UTF-8
    names = {m["name"] for m in document["modules"]}
    assert names == {"jit_f", "jit_\ufffd\ufffd\ufffd", "jit_é×"}
    run = xlaview_capped("traffic", os.path.join(os.fsencode(dump), name), env=env)
    check_run(run, "traffic", True)


def test_repeated_pass_numbers_and_deep_dumps_are_listed(dump: Path, untouched) -> None:
    first = "module_0000.jit_f.0005.alpha.after_x.before_y.txt"
    (dump / first).write_bytes(BEFORE)
    (dump / "module_0000.jit_f.0005.beta.after_z.before_w.txt").write_bytes(AFTER)
    create(dump, b"d/" * 9 + b"module_0000.jit_deep.cpu_after_optimizations.txt", "file", AFTER)
    untouched()
    run = xlaview_capped("summary", str(dump))
    check_run(run, "summary", True)
    assert f"pass 5 of module_0000 jit_f dumped twice: {first} is shown".encode() in run.stdout
    assert b"folder not searched: deeper than 8 folder levels" in run.stdout


# Qt is never started when a request cannot be met: with no platform plugin
# to load, a Qt start would abort; exit status 2 proves it did not start.
NO_QT = {"QT_QPA_PLATFORM": "xlaview-no-such-platform"}


@pytest.mark.parametrize("args,message", [
    (["DUMP/missing"], "no such file or folder"),
    (["DUMP/fifo.txt"], "not a regular file: a FIFO"),
    (["EMPTY"], "no XLA module files here"),
    (["DUMP", "--module", "nope"], "no module 'nope'"),
    (["DUMP", "--pass", "7"], "no pass '7'"),
    (["DUMP", "--select", "nope.1"], "no instruction 'nope.1'"),
    (["DUMP", "--pass", "before", "--select", "no_such"], "no instruction 'no_such'"),
    (["DUMP/words.txt"], "no HLO computation in this file"),
    (["DUMP", "--size", "40000x40000"], "at most 16384x16384"),
    (["DUMP", "--size", "100x100"], "at least 200x200"),
])  # fmt: skip
def test_export_that_cannot_work_fails_before_qt_starts(
    dump: Path, untouched, tmp_path: Path, args: list[str], message: str
) -> None:
    os.mkfifo(dump / "fifo.txt")
    (dump / "words.txt").write_text("not HLO\n")
    (tmp_path / "empty").mkdir()
    png = tmp_path / "out.png"
    args = [a.replace("DUMP", str(dump)).replace("EMPTY", str(tmp_path / "empty")) for a in args]
    untouched()
    run = xlaview_capped("export", *args, "--out", str(png), env=NO_QT)
    assert run.returncode == 2 and message.encode() in run.stderr, run
    if b"--size" not in b" ".join(a.encode() for a in args):  # argparse says usage first
        check_run(run, "export", False)
    assert not png.exists(), "an image was written"


def outside(tmp_path: Path, name: str) -> Path:
    """A file beside the dump folder ``tmp_path``, not in it (export refuses
    to write into a dump unless --force)."""
    folder = tmp_path.with_name(tmp_path.name + "-out")
    folder.mkdir(exist_ok=True)
    return folder / name


def test_export_of_a_one_line_module_is_checked_by_parsing(tmp_path: Path) -> None:
    """A module on one line has no header line to find: it is parsed instead,
    so a request for one of its instructions passes the check (and Qt,
    missing here, is what fails)."""
    (tmp_path / AFTER_NAME).write_bytes(AFTER.replace(b"\n", b" "))
    png = outside(tmp_path, "o.png")
    run = xlaview_capped(
        "export", str(tmp_path), "--select", "nope_x", "--out", str(png), env=NO_QT
    )
    assert run.returncode == 2 and b"no instruction 'nope_x'" in run.stderr, run
    run = xlaview_capped(
        "export",
        str(tmp_path),
        "--select",
        "convert_exponential_fusion",
        "--out",
        str(png),
        env=NO_QT,
    )
    assert run.returncode != 2, f"the check refused an instruction the module has: {run}"


def test_export_of_a_name_with_markup(tmp_path: Path) -> None:
    (
        tmp_path / "module_0001.jit_<img src=&#47;dev&#47;zero>.cpu_after_optimizations.txt"
    ).write_bytes(AFTER)
    png = outside(tmp_path, "out.png")
    run = xlaview_capped("export", str(tmp_path), "--out", str(png), timeout=60)
    check_run(run, "export", True)
    assert png.exists()


def test_export_with_a_binary_neighbour_pass(tmp_path: Path) -> None:
    """The final dump is fine: the window shows it, lists the broken pass as a
    problem, and the image is written."""
    (tmp_path / AFTER_NAME).write_bytes(AFTER)
    (tmp_path / "module_0000.jit_f.0001.pipe.after_a.before_b.txt").write_bytes(b"\0" * 100)
    png = outside(tmp_path, "out.png")
    run = xlaview_capped("export", str(tmp_path), "--out", str(png), timeout=60)
    check_run(run, "export", True)
    assert png.exists()


@pytest.mark.parametrize("left,right,message", [
    ("DUMP", "EMPTY", "no after-optimizations module dump here"),
    ("DUMP", "OTHER", "no module of the same name"),
    ("DUMP", "DUMP/fifo", "is not a folder"),
])  # fmt: skip
def test_compare_with_nothing_to_compare_fails(
    dump: Path, tmp_path: Path, left: str, right: str, message: str
) -> None:
    os.mkfifo(dump / "fifo")
    (tmp_path / "empty").mkdir()
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(dump / AFTER_NAME, other / AFTER_NAME.replace("jit_f", "jit_other"))
    paths = {"DUMP": str(dump), "EMPTY": str(tmp_path / "empty"), "OTHER": str(other)}
    run = xlaview_capped(
        "compare", *(paths.get(p) or p.replace("DUMP", str(dump)) for p in (left, right))
    )
    check_run(run, "compare", False)
    assert message.encode() in run.stderr, run


@pytest.mark.parametrize("setting", ["XLAVIEW_MEMORY_BUDGET", "XLAVIEW_MAX_FILE_SIZE"])
def test_the_window_with_a_bad_setting_says_so_before_qt_starts(dump: Path, setting: str) -> None:
    run = xlaview_capped(str(dump), env={**NO_QT, setting: "lots"})
    assert run.returncode == 2, run
    assert run.stderr.decode().strip() == (
        f"xlaview: {setting}='lots': expected a size, a whole number of bytes or of K, M, G or T "
        "(2G, 500M, 1000000)"
    )
