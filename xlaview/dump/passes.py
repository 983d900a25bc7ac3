"""The passes of a module in the order a user walks them: the HLO before
optimizations, every pass dump, the HLO after optimizations.

A *pass* is named everywhere by its key: ``"before"``, a pass sequence number
as a string (``"12"``), or ``"after"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xlaview.dump.index import DumpFile, DumpModule


@dataclass(frozen=True, slots=True)
class PassPoint:
    """One dump on a module's timeline."""

    key: str  # "before", "12", "after"
    title: str  # what a caption or a tooltip says
    pipeline: str  # passes of one pipeline share a colour
    file: DumpFile


def pass_points(module: DumpModule) -> list[PassPoint]:
    """Every HLO text of ``module`` in compilation order."""
    points = []
    if module.before_optimizations:
        points.append(PassPoint("before", "before optimizations", "before optimizations",
                                module.before_optimizations))
    for p in module.passes:
        if p.before is None:
            title = f"{p.seq:04d}  {p.pipeline}: {p.after}"
        else:
            title = f"{p.seq:04d}  {p.pipeline}: after {p.after}  →  before {p.before}"
        points.append(PassPoint(str(p.seq), title, p.pipeline, p.file))
    if module.after_optimizations:
        points.append(PassPoint("after", "after optimizations", "after optimizations",
                                module.after_optimizations))
    return points


def pass_key(value: int | str) -> str:
    """The key of a pass as a user may write it: ``12``, ``"0012"``, ``"after"``."""
    text = str(value).strip()
    return str(int(text)) if text.isdigit() else text


def previous_point(points: list[PassPoint], key: str) -> PassPoint | None:
    """The dump before ``key`` (what a pass's changes are measured against)."""
    keys = [p.key for p in points]
    if key not in keys or keys.index(key) == 0:
        return None
    return points[keys.index(key) - 1]


def point_of_file(points: list[PassPoint], path: Path) -> PassPoint | None:
    """The point showing the file at ``path``, if it is one of them."""
    path = Path(path).absolute()
    return next((p for p in points if p.file.path == path), None)
