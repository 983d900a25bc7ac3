"""The one way to read a dump file: regular files only, never blocking,
size-capped, decoded with replacement, BOM dropped (issue 15)."""

from __future__ import annotations

import os
import pickle
import socket
import threading
from pathlib import Path

import pytest

from xlaview.dump import files
from xlaview.dump.files import (
    DumpReadError,
    check_dump_file,
    read_bytes,
    read_head_tail,
    read_text,
    same_bytes,
)
from xlaview.dump.settings import SettingError, file_size_limit


def finishes(fn, *args, timeout: float = 10):
    """``fn(*args)`` run on a thread: (its outcome, whether it returned in time).
    A read that blocks would otherwise hang the test run."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(fn(*args))
        except Exception as err:
            outcome.append(err)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    return (outcome[0] if outcome else None), not thread.is_alive()


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "module_0000.jit_f.cpu_after_optimizations.txt"
    os.mkfifo(path)
    return path


def test_text_is_decoded_with_replacement_and_a_bom_dropped(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_bytes(b'\xef\xbb\xbfHloModule m\n  op_name="\xff\xfe"\n')
    assert read_text(path) == 'HloModule m\n  op_name="\ufffd\ufffd"\n'


def test_a_big_text_decodes_a_megabyte_at_a_time_across_characters(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    text = "x" * (files.BLOCK - 1) + "×" * 1000 + "\n"  # a 2-byte character across the block edge
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert read_text(path) == text


def test_a_big_ascii_text_is_copied_beside_other_threads(tmp_path: Path) -> None:
    """A big ASCII text (every dump of the 48-layer train step) becomes a str
    without the GIL held while its pages fault in: a thread that ticks every
    fifth of a millisecond waits far less meanwhile than it waits while the
    same bytes are decoded (a window's GUI thread waited 170-200 ms there)."""
    import time

    line = b"  %fusion.1 = f32[128,1024]{1,0} fusion(%p.0, %p.1), kind=kLoop, calls=%f\n"
    data = line * (64 * 2**20 // len(line))
    path = tmp_path / "big.txt"
    path.write_bytes(data)
    assert read_text(path) == data.decode()

    def longest_wait(work) -> float:
        waits: list[float] = []
        stop = threading.Event()

        def tick() -> None:
            last = time.perf_counter()
            while not stop.is_set():
                time.sleep(0.0002)
                now = time.perf_counter()
                waits.append(now - last)
                last = now

        ticker = threading.Thread(target=tick)
        ticker.start()
        time.sleep(0.02)
        work()
        stop.set()
        ticker.join()
        return max(waits)

    read = min(longest_wait(lambda: read_text(path)) for _ in range(3))
    decoded = min(longest_wait(data.decode) for _ in range(3))
    assert read < decoded / 2, f"waited {read * 1e3:.0f} ms, decoding {decoded * 1e3:.0f} ms"


def test_a_big_text_not_ascii_is_decoded_with_replacement(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    data = b"x" * (files.DECODE_AT_ONCE + 10) + "×".encode() + b"\xff\n"
    path.write_bytes(data)
    assert read_text(path) == data.decode(errors="replace")


def test_a_big_ascii_text_is_read_straight_into_its_str(tmp_path: Path) -> None:
    """The bytes of a big ASCII file go once into the str that holds them:
    read into a bytes object first, then copied, the text cost two copies and
    twice its size at its peak (a 45 MB pass: 72-87 ms, now 41-45)."""
    import tracemalloc

    line = b"  %add.1 = f32[8]{0} add(%p.0, %p.1)\n"
    data = line * ((files.READ_STRAIGHT_FROM + 4 * 2**20) // len(line))
    path = tmp_path / "big.txt"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        text = read_text(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text == data.decode()
    assert peak < 1.25 * len(data), f"{peak / len(data):.2f} times the file's size at the peak"


@pytest.mark.parametrize("claimed", [-1000, 1000])
def test_a_big_file_other_than_its_size_says_is_read_as_it_is(
    tmp_path: Path, monkeypatch, claimed: int
) -> None:
    """A file that grows or shrinks as it is read (a dump being written) is
    read as the usual way reads it, not cut at the size it had."""
    data = b"x" * (files.READ_STRAIGHT_FROM + 10) + b"\n"
    path = tmp_path / "big.txt"
    path.write_bytes(data)
    fstat = os.fstat

    def claiming(fd: int) -> os.stat_result:
        st = fstat(fd)
        fields = list(st)
        fields[6] = st.st_size + claimed  # st_size
        return os.stat_result(fields)

    monkeypatch.setattr(files.os, "fstat", claiming)
    assert read_text(path) == data.decode()


def test_a_nul_deep_in_a_big_text_is_refused_with_its_line(tmp_path: Path) -> None:
    line = b"  %add.1 = f32[8]{0} add(%p.0, %p.1)\n"
    lines = (files.READ_STRAIGHT_FROM + 2**20) // len(line)
    path = tmp_path / "big.txt"
    path.write_bytes(line * lines + b"ab\0\n" + line)
    with pytest.raises(DumpReadError) as err:
        read_text(path)
    assert err.value.line == lines + 1


def test_binary_data_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_bytes(b"HloModule m\n\nab\0cd\n")
    with pytest.raises(DumpReadError) as err:
        read_text(path)
    assert (
        err.value.line == 3
        and str(err.value) == f"{path}:3: binary data (NUL byte), not a text dump"
    )


@pytest.mark.parametrize(
    "reader", [read_text, read_bytes, check_dump_file, lambda p: read_head_tail(p, 10, 10)]
)
def test_a_fifo_is_refused_without_blocking(fifo: Path, reader) -> None:
    error, returned = finishes(reader, fifo)
    assert returned, "reading a FIFO blocked"
    assert isinstance(error, DumpReadError) and "a FIFO (named pipe)" in error.message, error


def test_a_fifo_swapped_in_after_the_check_is_refused_on_its_descriptor(
    fifo: Path, monkeypatch
) -> None:
    """The path is checked before opening; if it changes in between, the
    descriptor is checked again, and the open never blocks."""
    monkeypatch.setattr(files, "check_dump_file", lambda path, limit=None: os.stat(path))
    error, returned = finishes(read_text, fifo)
    assert returned, "opening a FIFO blocked"
    assert isinstance(error, DumpReadError) and "FIFO" in error.message, error


def test_a_socket_and_devices_are_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # a socket's path is at most 107 bytes: bind a relative one
    sock_path = tmp_path / "module_0000.jit_f.cpu_after_optimizations.txt"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(sock_path.name)
        with pytest.raises(DumpReadError, match="a socket"):
            read_text(sock_path)
    link = tmp_path / "zero.txt"
    link.symlink_to("/dev/zero")
    with pytest.raises(DumpReadError, match=r"a character device \(a link to /dev/zero\)"):
        read_text(link)
    with pytest.raises(DumpReadError, match="a folder"):
        read_text(tmp_path)


def test_a_link_is_followed_to_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("HloModule m\n")
    (tmp_path / "link.txt").symlink_to("real.txt")
    assert read_text(tmp_path / "link.txt") == "HloModule m\n"
    (tmp_path / "dangling.txt").symlink_to("nowhere.txt")
    with pytest.raises(DumpReadError, match="cannot read: No such file"):
        read_text(tmp_path / "dangling.txt")


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with open(path, "wb") as f:
        f.truncate(3 << 30)  # sparse: nothing is written
    with pytest.raises(DumpReadError) as err:
        read_text(path)
    assert err.value.message == (
        "too large: 3.0 GiB, limit 2.0 GiB (set XLAVIEW_MAX_FILE_SIZE to read it)"
    )


@pytest.mark.parametrize("setting,limit", [
    ("", 2 << 30), ("1000", 1000), ("500M", 500 << 20), ("4G", 4 << 30), ("4GiB", 4 << 30),
    ("1536", 1536), (" 2 g ", 2 << 30),
])  # fmt: skip
def test_the_limit_is_a_setting(setting: str, limit: int, monkeypatch) -> None:
    monkeypatch.setenv("XLAVIEW_MAX_FILE_SIZE", setting)
    assert file_size_limit() == limit


def test_the_limit_applies_and_a_bad_setting_says_so(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "m.txt"
    path.write_text("x" * 2000)
    monkeypatch.setenv("XLAVIEW_MAX_FILE_SIZE", "1K")
    with pytest.raises(DumpReadError, match=r"too large: 2.0 KiB, limit 1.0 KiB"):
        read_text(path)
    assert read_text(path, limit=4000) == "x" * 2000
    monkeypatch.setenv("XLAVIEW_MAX_FILE_SIZE", "lots")
    with pytest.raises(SettingError, match="XLAVIEW_MAX_FILE_SIZE='lots'"):
        read_text(path)


def test_a_file_that_claims_no_size_is_read_within_the_limit() -> None:
    """/proc files say 0 bytes: they are read to their end, never past the limit."""
    status = Path("/proc/self/status")
    if not status.is_file():
        pytest.skip("no /proc")
    assert "Pid:" in read_text(status)
    with pytest.raises(DumpReadError, match="too large: more than"):
        read_text(status, limit=16)


def test_head_and_tail_and_same_bytes(tmp_path: Path, fifo: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"0123456789")
    b.write_bytes(b"0123456789")
    assert read_head_tail(a, 3, 2) == (b"012", b"89")
    assert read_head_tail(a, 30, 2) == (b"0123456789", b"89")
    assert same_bytes(a, b)
    b.write_bytes(b"0123456780")
    assert not same_bytes(a, b)
    outcome, returned = finishes(same_bytes, a, fifo)
    assert returned and outcome is False


def test_errors_keep_their_file_and_line_across_pickling(tmp_path: Path) -> None:
    error = DumpReadError(tmp_path / "m.txt", "binary data", 4)
    again = pickle.loads(pickle.dumps(error))
    assert (again.path, again.message, again.line, str(again)) == (
        error.path,
        error.message,
        4,
        f"{tmp_path / 'm.txt'}:4: binary data",
    )
    assert isinstance(again, OSError)


def test_every_reader_in_xlaview_reads_through_this_module() -> None:
    """No other core or command-line module opens a file itself (the sources
    are searched for the ways Python opens one)."""
    import re

    import xlaview

    package = Path(xlaview.__file__).parent
    allowed = {"dump/files.py", "helper.py"}  # the reader itself; the helper's pipes
    opens = re.compile(r"\.read_text\(|\.read_bytes\(|(?<!\w)open\(|\bos\.open\(")
    offenders = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel in allowed or rel.startswith("qt/"):  # the window: the lead's part
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if opens.search(code) and "os.devnull" not in code:
                offenders.append(f"{rel}:{number}: {line.strip()}")
    assert not offenders, "files opened outside xlaview.dump.files:\n" + "\n".join(offenders)
