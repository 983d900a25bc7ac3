"""Reading a file of a dump: the one way every reader opens one.

Dumps travel (attached to bug reports, shared between teams), so a file named
like a dump may be anything: a FIFO that blocks the reader forever, a link to
``/dev/zero`` that never ends, a 3 GB file. Every read goes through
`open_dump_file`, which

* refuses anything but a regular file: it stats the path (links followed)
  before opening, so no FIFO, socket or device is ever opened, and stats the
  opened descriptor again, so a file swapped for something else in between is
  caught on the descriptor it would read from;
* never blocks: the open is non-blocking (a FIFO swapped in after the check
  opens at once and is then refused);
* reads at most `file_size_limit` bytes (``XLAVIEW_MAX_FILE_SIZE``), whatever
  the file's size claims: ``/proc`` files say 0 and a file may grow.

`read_text` adds the text rules: a NUL byte means binary (refused, with its
line), bytes that are not UTF-8 are replaced, and a UTF-8 byte-order mark is
dropped. Every refusal is a `DumpReadError` naming the file.
"""

from __future__ import annotations

import codecs
import ctypes
import io
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from xlaview.dump.settings import FILE_SIZE_LIMIT_ENV, file_size_limit
from xlaview.errors import LocatedError
from xlaview.turns import turn
from xlaview.units import human_bytes

__all__ = [
    "DumpReadError",
    "check_dump_file",
    "non_regular_kind",
    "open_dump_file",
    "read_bytes",
    "read_head_tail",
    "read_text",
    "same_bytes",
]  # fmt: skip

# Work on big texts goes a megabyte at a time: one C call over a 30 MB kernel
# file (decoding it, counting its lines) holds the GIL, and so keeps the
# window from painting, for 30 ms and more.
BLOCK = 1 << 20
# A text up to this size is decoded in one call (a 15 MB pass: 3.4 ms of GIL):
# decoded a block at a time, its pieces and their join took 5-10 times longer
# (20 ms), at every pass step.
DECODE_AT_ONCE = 16 << 20
# A text over this size is first read straight into its str (`_read_ascii`):
# a 15 MB U-Net pass in 8.7 ms, its longest hold of the GIL 4.5 ms, against
# 25 and 13-16 ms read into bytes and decoded (7 MB: 4.0 against 15.8 ms).
READ_STRAIGHT_FROM = 1 << 20

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the check must not block the open
    | getattr(os, "O_NOCTTY", 0)  # a terminal swapped in must not become ours
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)  # Windows: no newline translation
)


class DumpReadError(LocatedError, OSError):
    """A file that cannot be read as text: missing, unreadable, not a regular
    file, too large, or binary. Names the file, and the line where there is one."""

    def __init__(self, path: str | os.PathLike[str], message: str, line: int = 0) -> None:
        super().__init__(message, os.fspath(path), line)


def non_regular_kind(mode: int) -> str | None:
    """What a file is when it is not a regular file ("a FIFO"...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((what for test, what in kinds if test(mode)), "not a regular file")


def _link_note(path: str | os.PathLike[str]) -> str:
    """`` (a link to /dev/zero)`` for a symbolic link: where it leads is the news."""
    try:
        if os.path.islink(path):
            return f" (a link to {os.path.realpath(path)})"
    except (OSError, ValueError):
        pass
    return ""


def _check(path: str | os.PathLike[str], st: os.stat_result, limit: int) -> None:
    kind = non_regular_kind(st.st_mode)
    if kind is not None:
        raise DumpReadError(path, f"not a regular file: {kind}{_link_note(path)}; not read")
    if st.st_size > limit:
        raise DumpReadError(path, _too_large(st.st_size, limit))


def _too_large(size: int, limit: int) -> str:
    over = "more than " if size == limit + 1 else ""
    return (
        f"too large: {over}{human_bytes(size)}, limit {human_bytes(limit)} "
        f"(set {FILE_SIZE_LIMIT_ENV} to read it)"
    )


def _cannot(path: str | os.PathLike[str], err: OSError) -> DumpReadError:
    if isinstance(err, DumpReadError):
        return err
    if isinstance(err, BlockingIOError):
        return DumpReadError(path, "cannot read: it would block (not an ordinary file)")
    return DumpReadError(path, f"cannot read: {err.strerror or err}")


def check_dump_file(path: str | os.PathLike[str], limit: int | None = None) -> os.stat_result:
    """The stat of ``path`` (links followed) if it is a regular file xlaview may
    read; else `DumpReadError`. Opens nothing."""
    limit = file_size_limit() if limit is None else limit
    try:
        st = os.stat(path)
    except OSError as err:
        raise _cannot(path, err) from None
    _check(path, st, limit)
    return st


@contextmanager
def open_dump_file(
    path: str | os.PathLike[str], limit: int | None = None
) -> Iterator[tuple[io.FileIO, os.stat_result]]:
    """``(binary file, its stat)`` of a regular dump file, opened without blocking.

    The path is checked before opening (nothing but a regular file is ever
    opened) and the descriptor after (the file read is the file checked).
    """
    limit = file_size_limit() if limit is None else limit
    check_dump_file(path, limit)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as err:
        raise _cannot(path, err) from None
    try:
        st = os.fstat(fd)
        _check(path, st, limit)
        stream = os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise
    with stream:
        yield stream, st


def read_bytes(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of a regular dump file, at most ``limit`` of them (default
    `file_size_limit`): a file that turns out longer is refused, not cut."""
    limit = file_size_limit() if limit is None else limit
    with _reading(path, limit) as (stream, st):
        return _read_all(path, stream, st, limit)


@contextmanager
def _reading(
    path: str | os.PathLike[str], limit: int
) -> Iterator[tuple[io.FileIO, os.stat_result]]:
    """`open_dump_file`, what goes wrong while it is read made a `DumpReadError`."""
    try:
        with open_dump_file(path, limit) as opened:
            yield opened
    except MemoryError:
        raise DumpReadError(path, f"not enough memory to read {_size_of(path)}") from None
    except OSError as err:
        raise _cannot(path, err) from None


def _read_all(
    path: str | os.PathLike[str], stream: io.FileIO, st: os.stat_result, limit: int
) -> bytes:
    """The rest of ``stream`` (``path``, stat ``st``), at most ``limit`` bytes."""
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        # The size the file claims, in one read; then a megabyte at a
        # time if it grew (or claimed 0, as /proc files do).
        want = st.st_size + 1 - total if total <= st.st_size else BLOCK
        chunk = stream.read(min(want, limit + 1 - total))
        if chunk is None:  # non-blocking, and no data: not an ordinary file
            raise BlockingIOError
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise DumpReadError(path, _too_large(total, limit))
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _size_of(path: str | os.PathLike[str]) -> str:
    try:
        return human_bytes(os.stat(path).st_size)
    except OSError:
        return "it"


def read_text(path: str | os.PathLike[str], limit: int | None = None) -> str:
    """A dump file as text. Binary files (a NUL byte) are refused with the line
    of the first NUL; bytes that are not UTF-8 are replaced, not fatal; a UTF-8
    byte-order mark is dropped. Every refusal is a `DumpReadError`."""
    limit = file_size_limit() if limit is None else limit
    with _reading(path, limit) as (stream, st):
        text = _read_ascii(stream, st.st_size)
        if text is not None:
            return text
        stream.seek(0)
        data = _read_all(path, stream, st, limit)
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise DumpReadError(path, "binary data (NUL byte), not a text dump", line)
    start = 3 if data.startswith(codecs.BOM_UTF8) else 0
    try:
        if len(data) - start <= DECODE_AT_ONCE:
            return data[start:].decode("utf-8", errors="replace")
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        view = memoryview(data)
        parts = []
        for i in range(start, len(data), BLOCK):
            turn()
            parts.append(decoder.decode(view[i : i + BLOCK]))
        return "".join(parts) + decoder.decode(b"", final=True)
    except MemoryError:
        raise DumpReadError(path, f"not enough memory to read {human_bytes(len(data))}") from None


# Bytes of a text read straight into a str looked at in one call (for a NUL,
# or a byte that is not ASCII): a copy of them, then two scans.
CHECK_SPAN = 1 << 16


def _read_ascii(stream: io.FileIO, size: int) -> str | None:
    """A big file (over `READ_STRAIGHT_FROM` bytes, ``size`` as its stat says)
    read straight into a str, if it is ASCII with no NUL, as the texts of
    every dump are; None otherwise (then read as usual from its start, which
    says what is wrong). The file's bytes are copied once, into the str, by
    the kernel, with the GIL let go while the str's fresh pages fault in:
    read into bytes, then decoded, or copied into a str, a 45 MB pass was
    two copies (30 ms each) and a 45 MB bytes object beside the text, and
    decoded with the GIL held it kept a window's GUI thread waiting 170-200
    ms under load. The bytes are then checked a `CHECK_SPAN` at a time,
    with turns between."""
    if _new_ascii is None or size <= READ_STRAIGHT_FROM:
        return None
    try:
        text: str = _new_ascii(size, 127)
    except MemoryError:
        return None
    base = id(text) + _ASCII_HEADER
    got = 0
    while got < size:
        read = stream.readinto((ctypes.c_char * (size - got)).from_address(base + got))
        if not read:
            return None  # shorter than it said: read as usual
        got += read
    if stream.read(1):
        return None  # it grew: read as usual
    for i in range(0, size, CHECK_SPAN):
        if i % BLOCK == 0:
            turn()
        span = ctypes.string_at(base + i, min(CHECK_SPAN, size - i))
        if not span.isascii() or b"\0" in span:
            return None
    return text


# An ASCII str's characters follow its header (CPython's compact ASCII
# layout; `sys.getsizeof` of the empty one counts the header and a NUL).
_ASCII_HEADER = sys.getsizeof("") - 1


def _ascii_layout() -> Callable[[int, int], str] | None:
    """CPython's ``PyUnicode_New``, if a str it makes holds its characters
    after `_ASCII_HEADER` bytes (checked on a small one); else None. (Looked
    up on CPython only: elsewhere ``ctypes.pythonapi`` may not even be there.)"""
    if sys.implementation.name != "cpython":
        return None
    new = ctypes.pythonapi.PyUnicode_New
    new.restype = ctypes.py_object
    new.argtypes = (ctypes.c_ssize_t, ctypes.c_uint32)
    probe = b"HloModule probe\n"
    made = new(len(probe), 127)
    ctypes.memmove(id(made) + _ASCII_HEADER, probe, len(probe))
    return new if made == probe.decode() else None


_new_ascii = _ascii_layout()


def read_head_tail(
    path: str | os.PathLike[str], head: int, tail: int, limit: int | None = None
) -> tuple[bytes, bytes]:
    """The first ``head`` and last ``tail`` bytes of a regular dump file (a
    quick look for binary or truncated files, without reading it all)."""
    try:
        with open_dump_file(path, limit) as (stream, st):
            first = stream.read(head)
            if st.st_size <= head:
                return first, first[-tail:] if tail else b""
            stream.seek(max(0, st.st_size - tail))
            return first, stream.read(tail)
    except OSError as err:
        raise _cannot(path, err) from None


def same_bytes(
    a: str | os.PathLike[str], b: str | os.PathLike[str], limit: int | None = None
) -> bool:
    """Whether two regular dump files hold the same bytes (False if either
    cannot be read), compared a megabyte at a time."""
    try:
        with open_dump_file(a, limit) as (fa, sa), open_dump_file(b, limit) as (fb, sb):
            if sa.st_size != sb.st_size:
                return False
            read = 0
            while read <= max(sa.st_size, BLOCK):  # bounded, even if both keep growing
                ca, cb = fa.read(BLOCK), fb.read(BLOCK)
                if ca != cb:
                    return False
                if not ca:
                    return True
                read += len(ca)
            return False
    except OSError:
        return False


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of a dump file (fewer if it is shorter), read
    through `xlaview.dump.files` (regular files only, never blocking)."""
    return read_head_tail(path, size, 0)[0]


SETTLE_SECONDS = 2.0  # a file written this recently may be half-written


def recently_written(path: str | Path, seconds: float = SETTLE_SECONDS) -> bool:
    """Whether a file changed so recently that a program may still be writing it
    (a cut-short file is then not reported as broken, but looked at again)."""
    try:
        return time.time() - Path(path).stat().st_mtime < seconds
    except OSError:
        return False
