"""Reading a Chrome trace-event JSON file (``<host>.trace.json.gz``,
``perfetto_trace.json.gz``) event by event.

The whole text of a long profile does not fit in memory as Python objects,
so the ``traceEvents`` array is decoded one event at a time from a buffer
refilled a megabyte at a time; only events that time an HLO op (complete
events, ``"ph": "X"``, whose ``args`` name ``hlo_op``) are kept. Times in
this format are microseconds (``displayTimeUnit`` only sets how viewers show
them).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from xlaview.profile.events import EventTable, OpKey
from xlaview.profile.files import MAX_FILE_BYTES, MAX_TEXT_BYTES, TraceReadError, text_chunks

_NOT_WHITESPACE = re.compile(r"[^ \t\n\r]")
_DECODER = json.JSONDecoder()
_US = 1e-6
MAX_EVENT_CHARS = 64 << 20  # no real event comes near; a longer one is corrupt text
# The profiler's JSON export keeps the earliest million events and drops the
# rest (tsl's MaybeDropEventsForTraceViewer); the .xplane.pb keeps them all.
JSON_EXPORT_LIMIT = 1_000_000


class _Stream:
    """A JSON text read in chunks, decoded one value at a time."""

    def __init__(self, path: Path, chunks: Iterator[str]) -> None:
        self.path = path
        self._chunks = chunks
        self.text = ""
        self.pos = 0
        self.consumed = 0  # characters dropped from the front of ``text``
        self.eof = False
        self.bad_times = 0  # op events left out: a negative, infinite or NaN time

    def _refill(self, at_least: int = 0) -> bool:
        """Read on until the buffer holds ``at_least`` characters past ``pos``
        (one more chunk at the least); False at the end of the text."""
        if self.eof:
            return False
        parts = [self.text[self.pos :]]
        have = len(parts[0])
        while True:
            chunk = next(self._chunks, None)
            if chunk is None:
                self.eof = True
                break
            parts.append(chunk)
            have += len(chunk)
            if have >= at_least:
                break
        self.consumed += self.pos
        self.text = "".join(parts)
        self.pos = 0
        return len(parts) > 1

    def peek(self) -> str:
        """The next character that is not white space ('' at the end)."""
        while True:
            found = _NOT_WHITESPACE.search(self.text, self.pos)
            if found is not None:
                self.pos = found.start()
                return self.text[self.pos]
            self.pos = len(self.text)
            if not self._refill():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            self.fail(f"expected {char!r}")
        self.pos += 1

    def value(self) -> object:
        """The next JSON value. A value that reaches the end of the buffer is
        decoded again after a refill: a number cut by the chunk boundary would
        otherwise decode short. A value that does not decode is corrupt only
        once the text has ended or it is longer than any event could be."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except RecursionError:  # the standard decoder recurses per level
                self.fail("a value nested deeper than any trace event")
            except json.JSONDecodeError as err:
                # Perhaps only cut short by the end of the buffer: read on,
                # doubling what is buffered so that a long value is decoded
                # a few times, not once per chunk.
                pending = len(self.text) - self.pos
                if pending <= MAX_EVENT_CHARS and self._refill(2 * pending):
                    continue
                self.fail(err.msg, err.pos)
            if end == len(self.text) and self._refill():
                continue
            self.pos = end
            return value

    def fail(self, message: str, pos: int | None = None) -> NoReturn:
        where = self.consumed + (self.pos if pos is None else pos)
        raise TraceReadError(
            self.path, f"not a trace-event JSON file: {message} at character {where:,}"
        )


def read_trace_json(
    path: Path,
    table: EventTable,
    host: str = "",
    max_text: int = MAX_TEXT_BYTES,
    max_file: int = MAX_FILE_BYTES,
    progress: Callable[[int], None] | None = None,
    notes: list[str] | None = None,
) -> int:
    """Add the op events of one JSON trace file to ``table``; returns how many
    events the file holds in all. ``progress`` gets the events read so far,
    every 100,000; ``notes`` gets a line if the file looks cut short by the
    profiler's export limit."""
    stream = _Stream(path, text_chunks(path, max_text, max_file))
    complete = _read(stream, table, host, progress)
    if stream.bad_times and notes is not None:
        notes.append(
            f"{path}: {stream.bad_times:,} op events with a negative, infinite or NaN time "
            "left out of every figure"
        )
    if complete >= JSON_EXPORT_LIMIT and notes is not None:
        notes.append(
            f"{path}: {complete:,} timed events, the most the profiler's JSON export "
            "keeps: later events were dropped (the .xplane.pb beside it has them all)"
        )
    return complete


def _read(
    stream: _Stream,
    table: EventTable,
    host: str,
    progress: Callable[[int], None] | None,
) -> int:
    first = stream.peek()
    if first == "[":  # the bare-array form of the format
        return _read_events(stream, table, host, progress)
    if first != "{":
        stream.fail("expected '{' or '['")
    stream.pos += 1
    count = 0
    seen = False
    while stream.peek() != "}":
        key = stream.value()
        stream.expect(":")
        if key == "traceEvents":
            if stream.peek() != "[":
                stream.fail("traceEvents is not a list")
            count += _read_events(stream, table, host, progress)
            seen = True
        else:
            stream.value()
        if stream.peek() == ",":
            stream.pos += 1
        elif stream.peek() != "}":
            stream.fail("expected ',' or '}'")
    if not seen:
        stream.fail("no traceEvents")
    return count


def _read_events(
    stream: _Stream, table: EventTable, host: str, progress: Callable[[int], None] | None
) -> int:
    stream.expect("[")
    processes: dict[object, str] = {}
    threads: dict[tuple[object, object], str] = {}
    pending: list[dict[str, Any]] = []  # op events seen before their process was named
    count = seen = 0
    while stream.peek() != "]":
        event = stream.value()
        seen += 1
        if progress is not None and seen % 100_000 == 0:
            progress(seen)
        if isinstance(event, dict):
            phase = event.get("ph")
            if phase == "X":
                count += 1
                args = event.get("args")
                if isinstance(args, dict) and "hlo_op" in args:
                    pending.append(event)
                    if len(pending) >= 4096:
                        _flush(stream, pending, processes, threads, table, host)
            elif phase == "M":
                _metadata(event, processes, threads)
        elif event is not None and not isinstance(event, dict):
            stream.fail("an event is not an object")
        separator = stream.peek()
        if separator == ",":
            stream.pos += 1
        elif separator != "]":
            stream.fail("expected ',' or ']' after an event")
    stream.pos += 1
    _flush(stream, pending, processes, threads, table, host)
    return count


def _metadata(
    event: dict[str, Any],
    processes: dict[object, str],
    threads: dict[tuple[object, object], str],
) -> None:
    args = event.get("args")
    name = args.get("name") if isinstance(args, dict) else None
    if not isinstance(name, str):
        return
    if event.get("name") == "process_name":
        processes[event.get("pid")] = name
    elif event.get("name") == "thread_name":
        threads[(event.get("pid"), event.get("tid"))] = name


def _flush(
    stream: _Stream,
    pending: list[dict[str, Any]],
    processes: dict[object, str],
    threads: dict[tuple[object, object], str],
    table: EventTable,
    host: str,
) -> None:
    # The tsl writer puts the names of processes and threads first; buffering a
    # few thousand events covers writers that do not.
    for event in pending:
        args = event["args"]
        pid, tid = event.get("pid"), event.get("tid")
        try:
            start = float(event.get("ts", 0.0)) * _US
            duration = float(event.get("dur", 0.0)) * _US
        except (TypeError, ValueError, OverflowError):
            stream.fail(f"an event of {args.get('hlo_op')!r} has a time that is not a number")
        if not (math.isfinite(start) and math.isfinite(duration) and duration >= 0):
            stream.bad_times += 1
            continue
        device = device_name(processes.get(pid, f"pid {pid}"), args.get("device_ordinal"), host)
        line = threads.get((pid, tid), f"tid {tid}")
        run = args.get("run_id")
        key = OpKey(
            str(args.get("hlo_module", "")),
            str(args["hlo_op"]),
            device,
            _int_or_none(args.get("program_id")),
        )
        table.add(
            key,
            None if run is None else str(run),
            table.thread_id(device, line, (pid, tid)),
            start,
            duration,
        )
    pending.clear()


def _int_or_none(value: Any) -> int | None:
    """A whole number of JSON (an int, a whole float, digits in a string), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None  # not inf, not NaN
    if isinstance(value, str):
        return int(value) if value.isascii() and value.isdigit() and len(value) <= 19 else None
    return value if isinstance(value, int) else None


def device_name(plane: str, ordinal: object, host: str = "") -> str:
    """How a device is named: ``/device:GPU:0`` as the trace names it; a host
    plane running several devices (CPU) by its ordinal: ``/host:CPU:0``;
    prefixed by the host when the trace has one file per host."""
    name = plane
    if ordinal is not None and not plane.startswith("/device:"):
        name = f"{plane}:{ordinal}"
    return f"{host}{name}" if host and not name.startswith(host) else name
