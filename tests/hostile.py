"""Hostile dump folders, built file by file, and running the command line on
them as the issue's checks do: a new process under a 4 GB address-space cap
and a time limit, the folder compared before and after."""

from __future__ import annotations

import os
import re
import resource
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from xlaview.resources import sample_dump

ADDRESS_SPACE = 4 << 30
TIME_LIMIT = 30.0  # seconds a command may take
HUGE = 3 << 30  # a sparse file larger than the default read limit (2 GiB)

SAMPLE = sample_dump()
BEFORE = next(SAMPLE.glob("*.before_optimizations.txt")).read_bytes()
AFTER = next(SAMPLE.glob("*cpu_after_optimizations.txt")).read_bytes()
REPORTS = {
    kind: next(SAMPLE.glob(f"*cpu_after_optimizations-{kind}.txt")).read_bytes()
    for kind in ("buffer-assignment", "live-range", "memory-usage-report")
}

# HLO contents: name -> (bytes, whether commands can work with it).
_FIRST_COMPUTATION_END = AFTER.index(b"\n}\n") + 3
HLO_CONTENTS: dict[str, tuple[bytes, bool]] = {
    "good": (AFTER, True),
    "before": (BEFORE, True),
    "truncated": (AFTER[: _FIRST_COMPUTATION_END + 200], True),  # cut inside the second
    "one line": (AFTER.replace(b"\n", b" "), True),
    "bom": (b"\xef\xbb\xbf" + AFTER, True),
    "not utf-8": (AFTER.replace(b'op_name="', b'op_name="\xff\xfe\x80', 3), True),
    "markup": (AFTER.replace(b'op_name="', b'op_name="<img src=/dev/zero><a href=x>', 3), True),
    "escapes": (AFTER.replace(b'op_name="', b'op_name="\x1b]0;pwned\x07\x1b[31m', 3), True),
    "binary": (AFTER[:900] + b"\0\0\x01\x02" + AFTER[900:], False),
    "header only": (b"HloModule m, entry_computation_layout={()->f32[]}\n", False),
    "words": (b"this is not HLO at all\nnor is this\n", False),
    "empty": (b"", False),
}


def _mutate(text: bytes, pattern: bytes, replacement: bytes) -> bytes:
    return re.sub(pattern, replacement, text, count=1)


REPORT_CONTENTS: dict[str, bytes] = {
    "real": b"",  # the real report of its kind
    "max 3e9": _mutate(REPORTS["live-range"], rb"\(max \d+\)", b"(max 3000000000)"),
    "negative times": _mutate(REPORTS["live-range"], rb":\d+-\d+\n", b":-5--9\n"),
    "peak far away": _mutate(REPORTS["live-range"], rb"at \d+ \(peak\)", b"at 99999999999 (peak)"),
    "long number": _mutate(REPORTS["buffer-assignment"], rb"size \d+", b"size " + b"9" * 5000),
    "brackets": b"    " + b"(" * 200_000 + b"%);\n",
    "binary": b"\0" * 64,
    "truncated": REPORTS["memory-usage-report"][:300],
}


def create(root: Path, rel: bytes, kind: str, content: bytes = b"") -> None:
    """One entry of a hostile folder: ``kind`` is file, fifo, zero (a link to
    /dev/zero), dangling (a link to nothing), huge (sparse, 3 GiB) or
    unreadable (mode 000)."""
    path = os.path.join(os.fsencode(root), rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        os.symlink(b"/dev/zero", path)
    elif kind == "dangling":
        os.symlink(b"/nonexistent/xlaview-target", path)
    elif kind == "huge":
        with open(path, "wb") as f:
            f.truncate(HUGE)
    else:
        with open(path, "wb") as f:
            f.write(content)
        if kind == "unreadable":
            os.chmod(path, 0)


def readable(root: Path, rel: bytes) -> bool:
    return os.access(os.path.join(os.fsencode(root), rel), os.R_OK)


def snapshot(root: Path) -> dict[bytes, tuple[int, int, int]]:
    """Every entry under ``root`` (links not followed): mode, size, mtime."""
    out: dict[bytes, tuple[int, int, int]] = {}
    base = os.fsencode(root)
    for folder, dirs, files in os.walk(base):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            size = st.st_size if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode) else 0
            out[os.path.relpath(path, base)] = (st.st_mode, size, st.st_mtime_ns)
    return out


@dataclass(frozen=True)
class Run:
    args: tuple
    returncode: int
    stdout: bytes
    stderr: bytes
    seconds: float

    def __str__(self) -> str:
        return (
            f"xlaview {' '.join(map(repr, self.args))} -> {self.returncode} "
            f"in {self.seconds:.1f}s\nstderr: {self.stderr[-2000:]!r}"
        )


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def xlaview_capped(
    *args: str | bytes | os.PathLike, env: dict[str, str] | None = None, timeout: float = TIME_LIMIT
) -> Run:
    """``python -m xlaview ARGS`` under the address-space cap; a command that
    outlives ``timeout`` fails the test that ran it (it hung)."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "xlaview", *args],
        capture_output=True,
        check=False,
        preexec_fn=_cap,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env or {})},
    )
    return Run(tuple(args), proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start)


# Qt's offscreen platform says this on every window it shows; not ours to print.
_QT_NOISE = re.compile(rb"This plugin does not support propagateSizeHints\(\)\n")
_TERMINAL_CONTROL = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")


def check_run(run: Run, command: str, expect_ok: bool) -> None:
    """What every command must do on any folder: no signal, no traceback, no
    raw control character on the terminal, and an exit status that says
    whether it did its job, failing with exactly one ``xlaview CMD:`` line."""
    assert run.returncode >= 0, f"killed by signal {-run.returncode}: {run}"
    stderr = _QT_NOISE.sub(b"", run.stderr)
    assert b"Traceback" not in stderr and b"internal error" not in stderr, str(run)
    for stream, text in (("stdout", run.stdout), ("stderr", stderr)):
        bad = _TERMINAL_CONTROL.search(text)
        assert bad is None, f"raw control character {bad[0]!r} on {stream}: {run}"
    errors = [
        line for line in stderr.splitlines() if line.startswith(f"xlaview {command}:".encode())
    ]
    if expect_ok:
        assert run.returncode == 0 and not errors, f"expected success: {run}"
    else:
        assert run.returncode != 0, f"expected failure: {run}\nstdout: {run.stdout[-500:]!r}"
        assert len(errors) == 1, f"expected one error line: {run}"
