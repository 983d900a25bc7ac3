"""Reading ``<host>.xplane.pb``: the profiler's own record, decoded by hand.

An XSpace is a protocol buffer (``tsl/profiler/protobuf/xplane.proto``):
planes (one per host or device) hold lines (timelines), lines hold events,
events carry stats. Event names and stat names live in per-plane metadata
maps. Only the few fields needed here are decoded, straight from the wire
format (varints and length-delimited fields), so no protobuf package or
generated code is needed:

    XSpace          planes = 1
    XPlane          id = 1, name = 2, lines = 3, event_metadata = 4 (map), stat_metadata = 5 (map)
    XLine           id = 1, name = 2, timestamp_ns = 3, display_name = 11, events = 4
    XEvent          metadata_id = 1, offset_ps = 2, duration_ps = 3, stats = 4, num_occurrences = 5
    XStat           metadata_id = 1, double = 2, uint64 = 3, int64 = 4, str = 5, bytes = 6, ref = 7
    XEventMetadata  id = 1, name = 2, stats = 5
    XStatMetadata   id = 1, name = 2

Why read it at all when ``.trace.json.gz`` sits beside it: the JSON drops
the ``program_id`` stat, which is the ``NNNN`` of the dump's
``module_NNNN.<name>`` files and so tells compilations of one name apart.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from pathlib import Path

from xlaview.profile.events import EventTable, OpKey
from xlaview.profile.files import TraceReadError, read_bytes
from xlaview.profile.trace_json import device_name

_PS = 1e-12
# The file is decoded from memory: 1 GiB holds about 17 million events, a
# minute or more of decoding in Python.
MAX_XPLANE_BYTES = 1 << 30
_LENGTH = 2


class _Corrupt(Exception):
    pass


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise _Corrupt("a number runs past the end of its message")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise _Corrupt("a number longer than 10 bytes")


def _fields(
    data: bytes, start: int = 0, end: int | None = None
) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, a, b) for each field of a message: for a
    length-delimited field its bytes are ``data[a:b]``; for the others ``a``
    is the value (``b`` is 0)."""
    end = len(data) if end is None else end
    pos = start
    while pos < end:
        tag, pos = _varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if number == 0:  # no message has a field 0: this is not a protocol buffer
            raise _Corrupt("a field numbered 0")
        if wire == 0:
            value, pos = _varint(data, pos)
            yield number, wire, value, 0
        elif wire == _LENGTH:
            size, pos = _varint(data, pos)
            if pos + size > end:
                raise _Corrupt("a field runs past the end of its message")
            yield number, wire, pos, pos + size
            pos += size
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if pos + width > end:
                raise _Corrupt("a field runs past the end of its message")
            yield number, wire, int.from_bytes(data[pos : pos + width], "little"), 0
            pos += width
        else:
            raise _Corrupt(f"unknown wire type {wire}")


def _skip(data: bytes, pos: int) -> int:
    """Past the field whose tag starts at ``pos``."""
    tag, pos = _varint(data, pos)
    wire = tag & 7
    if tag >> 3 == 0:
        raise _Corrupt("a field numbered 0")
    if wire == 0:
        return _varint(data, pos)[1]
    if wire == _LENGTH:
        size, pos = _varint(data, pos)
        return pos + size
    if wire in (1, 5):
        return pos + (8 if wire == 1 else 4)
    raise _Corrupt(f"unknown wire type {wire}")


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(data: bytes, start: int, end: int) -> str:
    return data[start:end].decode("utf-8", errors="replace")


class _Plane:
    """The metadata of one plane: event names and stat names by id."""

    def __init__(self, data: bytes, start: int, end: int) -> None:
        self.name = ""
        self.lines: list[tuple[int, int]] = []
        self.event_names: dict[int, str] = {}
        self.event_stats: dict[int, list[tuple[int, int]]] = {}
        self.stat_names: dict[int, str] = {}
        for number, wire, a, b in _fields(data, start, end):
            if wire != _LENGTH:
                continue
            if number == 2:
                self.name = _text(data, a, b)
            elif number == 3:
                self.lines.append((a, b))
            elif number in (4, 5):
                self._map_entry(data, number, a, b)

    def _map_entry(self, data: bytes, number: int, start: int, end: int) -> None:
        key, message = 0, None
        for field, wire, a, b in _fields(data, start, end):
            if field == 1 and wire == 0:
                key = _signed(a)
            elif field == 2 and wire == _LENGTH:
                message = (a, b)
        if message is None:
            return
        for field, wire, a, b in _fields(data, *message):
            if field == 2 and wire == _LENGTH:
                (self.event_names if number == 4 else self.stat_names)[key] = _text(data, a, b)
            elif field == 5 and wire == _LENGTH and number == 4:
                self.event_stats.setdefault(key, []).append((a, b))


# The stats an op event carries, by name.
_WANTED = {"hlo_op", "hlo_module", "program_id", "run_id", "device_ordinal"}


def _stat(data: bytes, start: int, end: int, plane: _Plane) -> tuple[str, object] | None:
    name = None
    value: object = None
    for field, wire, a, b in _fields(data, start, end):
        if field == 1:
            name = plane.stat_names.get(a)
            if name not in _WANTED:
                return None
        elif field == 2 and wire == 1:
            value = struct.unpack("<d", a.to_bytes(8, "little"))[0]
        elif field == 3:
            value = a
        elif field == 4:
            value = _signed(a)
        elif field in (5, 6) and wire == _LENGTH:
            value = _text(data, a, b)
        elif field == 7:
            value = plane.stat_names.get(a)
    return (name, value) if name else None


def read_xplane(
    path: Path,
    table: EventTable,
    host: str = "",
    max_file: int = MAX_XPLANE_BYTES,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Add the op events of one ``.xplane.pb`` to ``table``; returns how many
    events the file holds in all."""
    data = read_bytes(path, max_file)
    try:
        return _read_space(data, table, host, progress)
    except _Corrupt as err:
        raise TraceReadError(path, f"not an XPlane protocol buffer: {err}") from None
    except IndexError:  # the inline decoding of events ran off the end of the file
        raise TraceReadError(
            path, "not an XPlane protocol buffer: it ends inside an event"
        ) from None


def _read_space(
    data: bytes, table: EventTable, host: str, progress: Callable[[int], None] | None
) -> int:
    count = 0
    origin: int | None = None  # the earliest line start, so times are small numbers
    planes = [
        _Plane(data, a, b)
        for number, wire, a, b in _fields(data)
        if number == 1 and wire == _LENGTH
    ]
    if not planes and data:
        raise _Corrupt("no planes")
    for plane in planes:
        reader = _EventReader(data, plane)
        for line_span in plane.lines:
            # Two walks over the line: its name comes after its events in the
            # wire order, and listing a million events first would double the
            # memory a big trace takes.
            line_id, line_name, display, start_ns = 0, "", "", 0
            for number, wire, a, b in _fields(data, *line_span):
                if number == 1 and wire == 0:
                    line_id = a
                elif number == 2 and wire == _LENGTH:
                    line_name = _text(data, a, b)
                elif number == 11 and wire == _LENGTH:
                    display = _text(data, a, b)
                elif number == 3 and wire == 0:
                    start_ns = _signed(a)
            events = (
                (a, b)
                for number, wire, a, b in _fields(data, *line_span)
                if number == 4 and wire == _LENGTH
            )
            if origin is None:
                origin = start_ns
            base_s = (start_ns - origin) * 1e-9
            thread = None
            keys: dict[tuple[object, object, object, object], OpKey] = {}
            for start, end in events:
                count += 1
                if progress is not None and count % 100_000 == 0:
                    progress(count)
                found = reader.op_event(start, end)
                if found is None:
                    continue
                stats, offset_ps, duration_ps = found
                ident = (
                    stats.get("hlo_module"),
                    stats["hlo_op"],
                    stats.get("device_ordinal"),
                    stats.get("program_id"),
                )
                key = keys.get(ident)
                if key is None:
                    device = device_name(plane.name, ident[2], host)
                    program = ident[3]
                    key = keys[ident] = OpKey(
                        str(ident[0] or ""),
                        str(ident[1]),
                        device,
                        program if isinstance(program, int) else None,
                    )
                if thread is None:
                    thread = table.thread_id(
                        key.device, display or line_name, (plane.name, line_id)
                    )
                run = stats.get("run_id")
                table.add(
                    key,
                    None if run is None else str(run),
                    thread,
                    base_s + offset_ps * _PS,
                    duration_ps * _PS,
                )
    return count


class _EventReader:
    """Decodes the events of one plane. A profile holds millions of events, so
    this is the hot loop: one-byte tags and varints are read inline, and the
    few stats wanted (whose values repeat: the op, the module, the run) are
    decoded once per distinct encoding and then looked up."""

    def __init__(self, data: bytes, plane: _Plane) -> None:
        self.data = data
        self.plane = plane
        self.wanted_ids = {i for i, name in plane.stat_names.items() if name in _WANTED}
        self.cache: dict[bytes, tuple[str, object] | None] = {}

    def op_event(self, pos: int, end: int) -> tuple[dict[str, object], int, int] | None:
        data = self.data
        metadata_id = 0
        times: list[int] = []  # where offset_ps and duration_ps start; decoded for op events only
        stat_spans: list[tuple[int, int]] = []
        while pos < end:
            tag = data[pos]
            pos += 1
            if tag == 0x08:  # metadata_id
                byte = data[pos]
                pos += 1
                metadata_id, shift = byte & 0x7F, 7
                while byte >= 0x80:
                    byte = data[pos]
                    pos += 1
                    metadata_id |= (byte & 0x7F) << shift
                    shift += 7
            elif tag == 0x10 or tag == 0x18:  # offset_ps, duration_ps: skipped for now
                times.append(pos if tag == 0x10 else -pos)
                while data[pos] >= 0x80:
                    pos += 1
                pos += 1
            elif tag == 0x22:  # a stat
                size = data[pos]
                pos += 1
                if size >= 0x80:
                    size, pos = _varint(data, pos - 1)
                stat_spans.append((pos, pos + size))
                pos += size
            elif tag == 0x28:
                return None  # an aggregate of several occurrences, no single time
            else:
                pos = _skip(data, pos - 1)
        if pos > end:
            raise _Corrupt("a field runs past the end of its event")
        metadata_stats = self.plane.event_stats.get(_signed(metadata_id))
        if not stat_spans and not metadata_stats:
            return None
        stats: dict[str, object] = {}
        # As the profiler's own JSON export does: the stats of the event's
        # metadata first, then the event's own, which win.
        for span in (*(metadata_stats or ()), *stat_spans):
            found = self._stat(*span)
            if found is not None:
                stats[found[0]] = found[1]
        if "hlo_op" not in stats:
            return None
        offset = duration = 0
        for at in times:
            value = _signed(_varint(data, abs(at))[0])
            if at > 0:
                offset = value
            else:
                duration = value
        return stats, offset, duration

    def _stat(self, start: int, end: int) -> tuple[str, object] | None:
        data = self.data
        if end - start < 2 or data[start] != 0x08:
            return None  # no metadata id first: not a stat the profiler wrote
        stat_id = data[start + 1]
        if stat_id >= 0x80:
            stat_id = _varint(data, start + 1)[0]
        if stat_id not in self.wanted_ids:
            return None  # unwanted stats (counters) are often unique: not cached
        raw = data[start:end]
        if raw not in self.cache:
            self.cache[raw] = _stat(raw, 0, len(raw), self.plane)
        return self.cache[raw]
