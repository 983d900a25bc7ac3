"""The points of a module's compilation, in order: the HLO before
optimizations, each pass dump, the snapshots taken inside a pass or between
pipelines, the HLO after optimizations.

Three kinds of point:

- ``stage``: a whole-module dump XLA takes at a fixed moment: ``before`` and
  ``after`` optimizations, ``after_spmd_partitioner`` (GPU), the TPU stages;
- ``pass``: the module between two passes (``--xla_dump_hlo_pass_re``);
- ``snapshot``: a dump taken inside a pass (copy insertion's steps).

Where a stage sits among the passes: ``after_spmd_partitioner`` is written
after the SPMD pipelines and before the ``optimization`` pipeline
(``GpuCompiler::OptimizeHloModule``); the other stages are written once the
HLO passes are done (their names say "after optimizations", "after codegen"),
so they sit after the last pass, before ``after``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xlaview.errors import XlaviewError
from xlaview.units import whole_number

if TYPE_CHECKING:
    from xlaview.dump.records import DumpFile, DumpModule

__all__ = [
    "ModulePoint",
    "NoSuchPointError",
    "find_point",
    "key_of",
    "module_points",
    "previous_point",
]

STAGE, PASS, SNAPSHOT = "stage", "pass", "snapshot"

_STAGE_TITLES = {
    "after_spmd_partitioner": "after SPMD partitioning",
    "before_config_assignment": "before config assignment",
    "after_optimizations_before_buffer_assignment": "after optimizations, before buffer assignment",
    "after_optimizations_after_buffer_assignment": "after optimizations, after buffer assignment",
    "after_codegen": "after codegen",
    "host_transfers": "host transfers",
}
# Stages written once the HLO passes are done, in the order they are written.
_LATE_STAGES = (
    "before_config_assignment",
    "after_optimizations_before_buffer_assignment",
    "after_optimizations_after_buffer_assignment",
    "after_codegen",
    "host_transfers",
)
# Pipelines GpuCompiler runs before it dumps after_spmd_partitioner.
_SPMD_PIPELINE = re.compile(r"spmd|shard|host-compute", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ModulePoint:
    """One point of a module's timeline.

    ``key`` is what ``--pass`` and :meth:`DumpModule.file_at` take: ``before``,
    ``after``, a pass's sequence number (``"12"``) or a stage's name
    (``"after_spmd_partitioner"``). ``title`` says what the point is, for a
    caption or a tooltip. ``pipeline``, ``seq`` and ``after`` (the pass, or the
    snapshot's step) are set for passes and in-pass snapshots only; ``before``
    for passes only.
    """

    key: str
    title: str
    file: DumpFile
    kind: str  # STAGE, PASS or SNAPSHOT
    pipeline: str | None = None
    seq: int | None = None
    after: str | None = None
    before: str | None = None


class NoSuchPointError(XlaviewError, KeyError):
    """A point (``--pass``) a module does not have."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def module_points(module: DumpModule) -> list[ModulePoint]:
    """Every HLO text of ``module`` in compilation order (see the module's docstring)."""
    passes: list[ModulePoint] = []
    for p in module.passes:
        if p.before is None:
            passes.append(
                ModulePoint(
                    str(p.seq),
                    f"{p.seq:04d}  {p.pipeline}: after {p.after}",
                    p.file,
                    SNAPSHOT,
                    p.pipeline,
                    p.seq,
                    p.after,
                )
            )
        else:
            passes.append(
                ModulePoint(
                    str(p.seq),
                    f"{p.seq:04d}  {p.pipeline}: after {p.after}  →  before {p.before}",
                    p.file,
                    PASS,
                    p.pipeline,
                    p.seq,
                    p.after,
                    p.before,
                )
            )
    early: list[ModulePoint] = []
    late: list[ModulePoint] = []
    for name in sorted(module.stages, key=_late_order):
        point = ModulePoint(
            name, _STAGE_TITLES.get(name, name.replace("_", " ")), module.stages[name], STAGE
        )
        (early if name == "after_spmd_partitioner" else late).append(point)
    at = _spmd_boundary(passes) if early else 0
    points: list[ModulePoint] = []
    if module.before_optimizations:
        points.append(
            ModulePoint("before", "before optimizations", module.before_optimizations, STAGE)
        )
    points += passes[:at] + early + passes[at:] + late
    if module.after_optimizations:
        points.append(
            ModulePoint("after", "after optimizations", module.after_optimizations, STAGE)
        )
    return points


def _late_order(name: str) -> tuple[int, str]:
    return (_LATE_STAGES.index(name) if name in _LATE_STAGES else len(_LATE_STAGES), name)


def _spmd_boundary(passes: list[ModulePoint]) -> int:
    """Where ``after_spmd_partitioner`` goes among the pass dumps: before the
    first pass of the ``optimization`` pipeline, else after the last pass of an
    SPMD pipeline, else first."""
    for i, p in enumerate(passes):
        if p.pipeline == "optimization":
            return i
    last = [i for i, p in enumerate(passes) if p.pipeline and _SPMD_PIPELINE.search(p.pipeline)]
    return last[-1] + 1 if last else 0


def find_point(module: DumpModule, key: str | int) -> ModulePoint:
    """The point ``key`` names: a key (``before``, ``after``, ``12``, a stage's
    name), a sequence number as file names print it (``0012``), a stage's file
    name part (``after_optimizations``), a pass that ran once (``fusion``,
    ``after_fusion``: the module after it), or an in-pass snapshot's step
    (``after_adding_special-case_copies``)."""
    text = str(key).strip()
    points = module.points()
    for p in points:
        if p.key == text:
            return p
    seq = whole_number(text)
    if seq is not None:
        for p in points:
            if p.seq == seq:
                return p
    aliases = {
        "before_optimizations": "before",
        "before_optimization": "before",
        "after_optimizations": "after",
        "after_optimization": "after",
    }
    if text in aliases:
        return find_point(module, aliases[text])
    # A pass by its name (``fusion``, ``after_fusion``): the dump of the module after it.
    name = text.removeprefix("after_")
    ran = [p for p in points if p.kind == PASS and p.after == name]
    if ran:
        return _only(ran, f"pass {name!r} ran {len(ran)} times in {module.key}")
    steps = [p for p in points if p.kind == SNAPSHOT and _step_names(p) & {text}]
    if steps:
        return _only(steps, f"{text!r} names several snapshots of {module.key}")
    raise NoSuchPointError(f"{module.key} has no pass {key!r} ({_choices(points)})")


def _only(found: list[ModulePoint], several: str) -> ModulePoint:
    """The one point found; several are refused, saying which numbers to give."""
    if len(found) == 1:
        return found[0]
    seqs = ", ".join(p.key for p in found)
    raise NoSuchPointError(f"{several}: {seqs} (give the sequence number)")


def _step_names(point: ModulePoint) -> set[str]:
    """How a user may name an in-pass snapshot: ``after_STEP``, ``STEP``,
    ``PASS.after_STEP``."""
    step = point.after or ""
    return {step, f"after_{step}", f"{point.pipeline}.after_{step}"}


def _choices(points: list[ModulePoint]) -> str:
    seqs = [p.seq for p in points if p.seq is not None]
    named = [p.key for p in points if p.seq is None]
    parts = [", ".join(named)] if named else []
    if seqs:
        parts.append(f"passes {min(seqs)}..{max(seqs)}")
    return "it has: " + "; ".join(parts) if parts else "it has no HLO text"


def previous_point(points: list[ModulePoint], key: str) -> ModulePoint | None:
    """The dump before ``key`` (what a pass's changes are measured against)."""
    keys = [p.key for p in points]
    if key not in keys or keys.index(key) == 0:
        return None
    return points[keys.index(key) - 1]


def key_of(module: DumpModule, dump_file: DumpFile) -> str | None:
    """The key of one of the module's HLO files, None if it is not one."""
    return next((p.key for p in module.points() if p.file.path == dump_file.path), None)
