"""A trace read from disk: its files, and the op events of all of them."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xlaview.profile.events import EventTable, OpKey
from xlaview.profile.files import MAX_FILE_BYTES, MAX_TEXT_BYTES, TraceFile, trace_files
from xlaview.profile.trace_json import read_trace_json
from xlaview.profile.xplane import MAX_XPLANE_BYTES, read_xplane


@dataclass(frozen=True, slots=True)
class Trace:
    """The op events of a ``jax.profiler`` trace (one file per host).

    ``events`` counts the timed events the files hold, ``table`` keeps those
    that time an HLO op; ``notes`` says what the reader noticed (a JSON export
    cut at its million-event limit).
    """

    path: Path
    files: tuple[TraceFile, ...]
    table: EventTable
    events: int
    notes: tuple[str, ...] = ()

    @property
    def format(self) -> str:
        return "+".join(sorted({f.format for f in self.files}))

    @property
    def devices(self) -> tuple[str, ...]:
        """Every device that ran an op, in name order."""
        return tuple(sorted({k.device for k in self.table.keys}))

    @property
    def module_names(self) -> tuple[str, ...]:
        """Every module name the events give, in name order."""
        return tuple(sorted({k.module for k in self.table.keys}))

    def keys_of(self, module: str) -> list[OpKey]:
        return [k for k in self.table.keys if k.module == module]


def read_trace(
    path: str | os.PathLike[str],
    prefer: str = "xplane",
    progress: Callable[[int], None] | None = None,
    max_file: int = MAX_FILE_BYTES,
    max_text: int = MAX_TEXT_BYTES,
) -> Trace:
    """Read the trace at ``path`` (a trace file, a run folder, a
    ``jax.profiler`` log dir, or a dump folder holding ``trace/``).

    ``prefer`` picks the file of each host when both are there: ``"xplane"``
    (complete, with program ids) or ``"json"``. ``progress`` gets the number
    of events read so far. Raises `TraceReadError` (missing, not a regular
    file, too large, corrupt). Never writes anything.
    """
    files = trace_files(path, prefer)
    table = EventTable()
    events = 0
    hosts = {f.host for f in files}
    notes: list[str] = []
    for f in files:
        # One host: devices are named as the trace names them, without it.
        host = f.host if len(hosts) > 1 else ""
        if f.format == "xplane":
            events += read_xplane(f.path, table, host, min(max_file, MAX_XPLANE_BYTES), progress)
        else:
            events += read_trace_json(f.path, table, host, max_text, max_file, progress, notes)
    return Trace(Path(path), tuple(files), table.finish(), events, tuple(notes))
