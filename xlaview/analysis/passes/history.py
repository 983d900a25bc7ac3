"""An instruction's life over a module's pass timeline: where it appeared,
changed and disappeared. Read from the raw text of each dump (the line that
defines it), so stepping through hundreds of pass files parses none of them."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from xlaview.dump.files import read_bytes


@dataclass(frozen=True, slots=True)
class Event:
    point: str  # a timeline label: "before", a pass sequence number, "after"
    what: str  # "appeared", "changed" or "disappeared"


def instruction_history(
    files: Sequence[tuple[str, Path]],
    name: str,
    progress: Callable[[float], None] | None = None,
) -> list[Event]:
    """Events of ``name`` over ``files`` (timeline label, HLO text path), in order."""
    pattern = re.compile(
        rb"^[ \t]*(?:ROOT[ \t]+)?%?" + re.escape(name.encode()) + rb"[ \t]*=[^\n]*", re.MULTILINE
    )
    events: list[Event] = []
    previous: bytes | None = None
    for i, (label, path) in enumerate(files):
        try:
            m = pattern.search(read_bytes(path))
        except OSError:
            m = None
        line = _without_metadata(m.group()) if m else None
        if i > 0 and line != previous:
            if previous is None:
                events.append(Event(label, "appeared"))
            elif line is None:
                events.append(Event(label, "disappeared"))
            else:
                events.append(Event(label, "changed"))
        previous = line
        if progress is not None and i % 8 == 0:
            progress(i / max(1, len(files)))
    return events


_METADATA = re.compile(rb", metadata=\{[^}]*\}")


def _without_metadata(line: bytes) -> bytes:
    # Metadata churns (stack frame ids renumber) without the instruction changing.
    return _METADATA.sub(b"", line.strip())


def change_sizes(
    files: Sequence[tuple[str, Path]], progress: Callable[[float], None] | None = None
) -> dict[str, int]:
    """For each dump after the first: how many lines differ from the dump
    before. A cheap measure of a pass's change, read from the text without
    parsing (whole lines compared as sets, all in C: hundreds of multi-MB pass
    files go by in seconds); 0 means the pass changed nothing."""
    sizes: dict[str, int] = {}
    previous: set[bytes] | None = None
    for i, (label, path) in enumerate(files):
        try:
            lines = set(read_bytes(path).splitlines())
        except OSError:
            lines = set()
        if previous is not None:
            sizes[label] = max(len(lines - previous), len(previous - lines))
        previous = lines
        if progress is not None and i % 8 == 0:
            progress(i / max(1, len(files)))
    return sizes
