"""Finding the files of a ``jax.profiler`` trace, and reading them with bounds.

A trace folder as ``jax.profiler.start_trace(log_dir)`` leaves it::

    log_dir/plugins/profile/<run>/<host>.xplane.pb         every event, program ids
    log_dir/plugins/profile/<run>/<host>.trace.json.gz     the same events as JSON
    log_dir/plugins/profile/<run>/perfetto_trace.json.gz   with create_perfetto_trace=True

``<run>`` is the capture time (``2026_11_30_18_36_50``), so names sort in time
order. Only regular files are read (a FIFO would block, a device never ends),
and both the bytes on disk and the bytes after decompression are capped: a
gzip bomb stops at the cap with an error naming the file.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from xlaview.dump.files import DumpReadError, open_dump_file
from xlaview.dump.files import read_bytes as read_dump_bytes
from xlaview.errors import LocatedError

# Traces of long runs are big: 1 GB of JSON holds about 4 million events.
# The caps guard against hostile files, not against real profiles.
MAX_FILE_BYTES = 2 << 30
MAX_TEXT_BYTES = 8 << 30
CHUNK = 1 << 20
# gzip turns a megabyte into at most about a gigabyte (1032:1, for runs of one
# byte); real traces compress 10 to 40 times. Past this much text, a file that
# has grown more than MAX_RATIO times the bytes read from disk is a bomb.
RATIO_CHECKED_AFTER = 64 << 20
MAX_RATIO = 200

TRACE_FOLDER = "trace"  # where xlaview.collect(profile=N) puts the trace in a dump folder
_JSON_SUFFIXES = (".trace.json.gz", ".trace.json", ".json.gz", ".json")
_XPLANE_SUFFIX = ".xplane.pb"


class TraceReadError(LocatedError, OSError):
    """A trace that cannot be read: missing, not a regular file, too large, corrupt."""

    def __init__(self, path: str | Path, message: str, line: int = 0) -> None:
        super().__init__(message, str(path), line)


@dataclass(frozen=True, slots=True)
class TraceFile:
    """One file of a trace: its path, its format (``xplane`` or ``json``) and
    the host it was taken on (from its name; ``""`` when the name has none)."""

    path: Path
    format: str
    host: str


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """A whole (uncompressed) file, capped at ``limit`` bytes."""
    try:
        return read_dump_bytes(path, limit)
    except DumpReadError as err:
        raise TraceReadError(path, err.message) from None


def text_chunks(
    path: Path, limit: int = MAX_TEXT_BYTES, file_limit: int = MAX_FILE_BYTES
) -> Iterator[str]:
    """The text of a (possibly gzipped) file, a megabyte at a time, decoded as
    UTF-8 with replacement; stops with an error once ``limit`` bytes of text
    have been read."""
    try:
        with open_dump_file(path, file_limit) as (raw, _st):
            buffered = io.BufferedReader(raw)
            stream: io.BufferedIOBase = buffered
            compressed = buffered.peek(2)[:2] == b"\x1f\x8b"
            if compressed:
                stream = gzip.GzipFile(fileobj=buffered, mode="rb")
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            total = 0
            while True:
                try:
                    block = stream.read(CHUNK)
                except (EOFError, zlib.error, gzip.BadGzipFile) as err:
                    raise TraceReadError(path, f"corrupt compressed data: {err}") from None
                if not block:
                    break
                total += len(block)
                if total > limit:
                    raise TraceReadError(path, f"too large: more than {limit:,} bytes of text")
                if compressed and total > RATIO_CHECKED_AFTER and total > MAX_RATIO * raw.tell():
                    raise TraceReadError(
                        path,
                        f"{raw.tell():,} compressed bytes grew to more than {total:,}: "
                        f"over {MAX_RATIO} times, a compression bomb, not a trace",
                    )
                yield decoder.decode(block)
            yield decoder.decode(b"", final=True)
    except DumpReadError as err:
        raise TraceReadError(path, err.message) from None
    except TraceReadError:
        raise
    except OSError as err:
        raise TraceReadError(path, f"cannot read: {err.strerror or err}") from None


def host_of(name: str) -> str:
    """``vm.trace.json.gz`` -> ``vm``; ``perfetto_trace.json.gz`` -> ``""``."""
    for suffix in (_XPLANE_SUFFIX, *_JSON_SUFFIXES):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            return "" if stem in ("perfetto_trace", "trace") else stem
    return ""


def _classify(path: Path) -> TraceFile | None:
    name = path.name
    if name.endswith(_XPLANE_SUFFIX):
        return TraceFile(path, "xplane", host_of(name))
    if name.endswith(_JSON_SUFFIXES):
        return TraceFile(path, "json", host_of(name))
    return None


def _run_folders(log_dir: Path) -> list[Path]:
    profile = log_dir / "plugins" / "profile"
    if not profile.is_dir():
        return []
    return sorted(p for p in profile.iterdir() if p.is_dir())


def trace_files(path: str | os.PathLike[str], prefer: str = "xplane") -> list[TraceFile]:
    """The files to read for the trace at ``path``: a trace file, a run folder
    (``plugins/profile/<run>``), a log dir (its latest run), or a dump folder
    with a ``trace/`` inside.

    One file per host: the ``.xplane.pb`` when ``prefer`` is ``"xplane"`` (it
    holds every event and the program id that tells compilations of one name
    apart), else the ``.trace.json.gz``; ``perfetto_trace.json.gz`` only when a
    run has no host trace. Raises `TraceReadError` when there is no trace.
    """
    path = Path(path)
    if not path.exists():
        raise TraceReadError(path, "no such file or folder")
    if not path.is_dir():
        found = _classify(path)
        if found is None:
            raise TraceReadError(
                path, "not a trace: expected a .xplane.pb, .trace.json.gz or .json file"
            )
        return [found]
    run = _latest_run(path)
    if run is None:
        raise TraceReadError(
            path,
            "no trace here: expected plugins/profile/<run>/<host>.xplane.pb or "
            "<host>.trace.json.gz (the folder given to jax.profiler.start_trace)",
        )
    files = [f for f in (_classify(p) for p in sorted(run.iterdir()) if p.is_file()) if f]
    by_host: dict[str, dict[str, TraceFile]] = {}
    for f in files:
        if f.host:
            by_host.setdefault(f.host, {})[f.format] = f
    chosen = []
    for formats in by_host.values():
        first, second = ("xplane", "json") if prefer == "xplane" else ("json", "xplane")
        chosen.append(formats.get(first) or formats[second])
    if not chosen:
        chosen = [f for f in files if not f.host][:1]  # perfetto_trace.json.gz
    if not chosen:
        raise TraceReadError(run, "no .xplane.pb or .trace.json.gz in this trace folder")
    return chosen


def _latest_run(folder: Path) -> Path | None:
    """The run folder to read under ``folder`` (which may itself be one)."""
    if any(_classify(p) for p in folder.iterdir() if p.is_file()):
        return folder
    for log_dir in (folder, folder / TRACE_FOLDER):
        runs = [r for r in _run_folders(log_dir) if any(_classify(p) for p in r.iterdir())]
        if runs:
            return runs[-1]
    return None


def find_trace(dump_folder: str | os.PathLike[str]) -> Path | None:
    """The trace ``xlaview.collect(profile=N)`` stored in a dump folder
    (``<dump>/trace/plugins/profile/<latest run>``), or None."""
    folder = Path(dump_folder) / TRACE_FOLDER
    if not folder.is_dir():
        return None
    try:
        return _latest_run(folder)
    except OSError:
        return None
