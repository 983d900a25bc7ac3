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
from collections.abc import Iterator
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
    chunks: list[bytes] = []
    total = 0
    try:
        with open_dump_file(path, limit) as (stream, st):
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
    except MemoryError:
        raise DumpReadError(path, f"not enough memory to read {_size_of(path)}") from None
    except OSError as err:
        raise _cannot(path, err) from None
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
    data = read_bytes(path, limit)
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise DumpReadError(path, "binary data (NUL byte), not a text dump", line)
    start = 3 if data.startswith(codecs.BOM_UTF8) else 0
    try:
        if len(data) - start <= DECODE_AT_ONCE:
            return data[start:].decode("utf-8", errors="replace")
        if data.isascii():
            text = _ascii_text(data, start)
            if text is not None:
                return text
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        view = memoryview(data)
        parts = []
        for i in range(start, len(data), BLOCK):
            turn()
            parts.append(decoder.decode(view[i : i + BLOCK]))
        return "".join(parts) + decoder.decode(b"", final=True)
    except MemoryError:
        raise DumpReadError(path, f"not enough memory to read {human_bytes(len(data))}") from None


# An ASCII str's characters follow its header (CPython's compact ASCII
# layout; `sys.getsizeof` of the empty one counts the header and a NUL).
_ASCII_HEADER = sys.getsizeof("") - 1


def _ascii_text(data: bytes, start: int) -> str | None:
    """``data[start:]``, ASCII, as a str whose characters are copied with the
    GIL let go (``ctypes.memmove``); None where that cannot be done (not
    CPython). A big text's fresh pages fault in as they are first written:
    decoded, or joined from decoded blocks, with the GIL held, a 45 MB pass
    held it 26-41 ms alone and made a window's GUI thread wait 170-200 ms for
    it under load. Here the copy, faults and all, runs beside the GUI thread."""
    source = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value
    if _new_ascii is None or source is None:
        return None
    size = len(data) - start
    text: str = _new_ascii(size, 127)
    ctypes.memmove(id(text) + _ASCII_HEADER, source + start, size)
    ends = (slice(start, start + 64), slice(len(data) - 64, len(data)))
    if text[:64] + text[-64:] != "".join(data[end].decode("ascii") for end in ends):
        return None  # (a layout other than CPython's compact ASCII: read the usual way)
    return text


# (CPython's C API; elsewhere ``ctypes.pythonapi`` may not even be there.)
_new_ascii = ctypes.pythonapi.PyUnicode_New if sys.implementation.name == "cpython" else None
if _new_ascii is not None:
    _new_ascii.restype = ctypes.py_object
    _new_ascii.argtypes = (ctypes.c_ssize_t, ctypes.c_uint32)


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
