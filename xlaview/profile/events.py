"""The events of a trace that time an HLO op, in one compact table.

Both readers (trace JSON, XPlane) feed an `EventTable`. A profile of a long
run holds millions of events: they are kept as parallel arrays of numbers
(about 40 bytes an event) with the strings they repeat (module, op, device,
thread) interned once, not as a Python object per event.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass

# Lines that hold one event per HLO op. On TPU they are the op timeline; on
# GPU XProf derives them from the kernels (one op may launch several kernels).
# Where a device has such a line, only it is read, so that an op is not
# counted once per kernel and once more as an op.
OP_LINE_NAMES = frozenset({"XLA Ops"})


@dataclass(frozen=True, slots=True)
class OpKey:
    """What an event times: an op of a module (and which compilation, where the
    trace says: XPlane carries the program id that names the dump's
    ``module_NNNN``) on a device."""

    module: str
    op: str
    device: str
    program_id: int | None


@dataclass(frozen=True, slots=True)
class OpEvent:
    """One event of the table, as a record (for tests and small traces)."""

    key: OpKey
    run: str | None
    thread: str
    start_s: float
    duration_s: float


class EventTable:
    """Op events as parallel arrays; build with `add`, then `finish`."""

    __slots__ = (
        "_key_ids",
        "_op_lines",
        "_run_ids",
        "_thread_ids",
        "duration",
        "key",
        "keys",
        "run",
        "runs",
        "start",
        "thread",
        "threads",
    )

    def __init__(self) -> None:
        self.keys: list[OpKey] = []
        self.runs: list[str] = []
        self.threads: list[tuple[str, str]] = []  # (device, line name), one per timeline
        self.key = array("l")
        self.run = array("l")  # index into runs, -1 when the event names no run
        self.thread = array("l")
        self.start = array("d")  # seconds from the trace's start
        self.duration = array("d")  # seconds
        self._key_ids: dict[OpKey, int] = {}
        self._run_ids: dict[str, int] = {}
        self._thread_ids: dict[tuple[str, str, object], int] = {}
        self._op_lines: set[int] = set()

    def __len__(self) -> int:
        return len(self.key)

    def thread_id(self, device: str, line: str, line_id: object) -> int:
        """The index of one timeline (``line_id`` tells apart lines of one name)."""
        ident = (device, line, line_id)
        index = self._thread_ids.get(ident)
        if index is None:
            index = self._thread_ids[ident] = len(self.threads)
            self.threads.append((device, line))
            if line in OP_LINE_NAMES:
                self._op_lines.add(index)
        return index

    def add(
        self, key: OpKey, run: str | None, thread: int, start_s: float, duration_s: float
    ) -> None:
        key_index = self._key_ids.get(key)
        if key_index is None:
            key_index = self._key_ids[key] = len(self.keys)
            self.keys.append(key)
        run_index = -1
        if run is not None:
            run_index = self._run_ids.get(run, -1)
            if run_index < 0:
                run_index = self._run_ids[run] = len(self.runs)
                self.runs.append(run)
        self.key.append(key_index)
        self.run.append(run_index)
        self.thread.append(thread)
        self.start.append(start_s)
        self.duration.append(duration_s)

    def finish(self) -> EventTable:
        """Drop the events of devices that have an op line from their other lines."""
        if not self._op_lines:
            return self
        op_devices = {self.threads[t][0] for t in self._op_lines}
        keep = [
            i
            for i, t in enumerate(self.thread)
            if t in self._op_lines or self.threads[t][0] not in op_devices
        ]
        if len(keep) == len(self.thread):
            return self
        for name in ("key", "run", "thread", "start", "duration"):
            column = getattr(self, name)
            setattr(self, name, array(column.typecode, (column[i] for i in keep)))
        return self

    def events(self) -> Iterator[OpEvent]:
        """Every event as a record, in reading order."""
        for i in range(len(self.key)):
            run = self.run[i]
            yield OpEvent(
                self.keys[self.key[i]],
                self.runs[run] if run >= 0 else None,
                self.threads[self.thread[i]][1],
                self.start[i],
                self.duration[i],
            )
