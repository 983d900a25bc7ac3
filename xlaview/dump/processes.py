"""Which process wrote which files, where several wrote one dump folder.

XLA numbers modules per process (``HloModule::unique_id``), so two processes
dumping into one folder (the hosts of a JAX SPMD run, a CPU and a TPU compile of
one program) repeat ids. Files of one id with different names are told apart
by their names; what else the folder shows of the process:

- ``--xla_dump_hlo_to_subfolder`` writes into ``<module name>/<host>_<pid>/``
  (``xla/service/dump_options.cc``): the folder names the process;
- ``--xla_dump_include_timestamp`` prefixes every HLO dump of a module with the
  time the process first dumped it (``module_id_to_timestamp`` in
  ``xla/service/dump.cc``): two timestamps on one id and name are two processes;
- the final dump names the backend (``cpu_``, ``sm_9.0_gpu_``, none on TPU): two
  final dumps of one id and name are two compiles, hence two processes. Their
  other files (the passes, before optimizations) do not say which; each goes to
  the compile whose final dump is the first written after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xlaview.dump.contents import read_hlo_head
from xlaview.dump.naming import DumpFileName, FileKind

if TYPE_CHECKING:
    from xlaview.dump.records import DumpFile, DumpModule

__all__ = ["Named", "folder_process", "processes_evidence", "split_processes"]

Named = tuple["DumpFile", DumpFileName]

# The stages of a finished compile (the after-optimizations dump and what only
# TPU writes beside it), and the reports written with them.
_FINAL = frozenset(
    (
        "after_optimizations",
        "after_optimization",
        "after_optimizations_before_buffer_assignment",
        "after_optimizations_after_buffer_assignment",
        "after_codegen",
        "host_transfers",
    )
)
_TPU_STAGES = frozenset(_FINAL - {"after_optimizations", "after_optimization"})
_HOST_PID = re.compile(r".+_\d+\Z")


def split_processes(files: Sequence[Named]) -> list[tuple[str | None, list[Named]]]:
    """The files of one module id and name, by the process that wrote them:
    one group labelled None where nothing shows two, else one per timestamp
    (labelled by it) and, within one, one per backend of a final dump
    (labelled by its prefix: ``cpu``, ``sm_9.0_gpu``; a TPU's unprefixed one
    by what its text shows)."""
    groups: list[tuple[str | None, list[Named]]] = []
    for stamp, part in _by_timestamp(files):
        for backend, sub in _by_backend(part):
            label = ".".join(x for x in (stamp, backend) if x) or None
            groups.append((label, sub))
    return groups


def _by_timestamp(files: Sequence[Named]) -> list[tuple[str | None, list[Named]]]:
    stamps = sorted({p.timestamp for _, p in files if p.kind is not FileKind.OTHER and p.timestamp})
    if len(stamps) < 2:
        return [(None, list(files))]
    parts: dict[int, list[Named]] = {s: [] for s in stamps}
    for f, p in files:
        if p.timestamp in parts:
            parts[p.timestamp].append((f, p))
        elif p.timestamp:  # a snapshot of a later execution: the compile before it
            parts[max((s for s in stamps if s <= p.timestamp), default=stamps[0])].append((f, p))
        else:  # files XLA never stamps (LLVM IR, debug options): the last writer's
            parts[stamps[-1]].append((f, p))
    return [(str(s), parts[s]) for s in stamps]


def _is_final(p: DumpFileName) -> bool:
    return p.kind in (FileKind.STAGE, FileKind.REPORT) and p.stage in _FINAL


def _by_backend(files: list[Named]) -> list[tuple[str | None, list[Named]]]:
    finals: dict[str | None, list[Named]] = {}
    for f, p in files:
        if _is_final(p):
            prefix = p.backend_prefix if p.stage not in _TPU_STAGES else None
            finals.setdefault(prefix, []).append((f, p))
    if len(finals) < 2:
        return [(None, files)]
    # The compiles in the order their final dumps were written.
    order = sorted(finals, key=lambda k: (max(f.mtime_ns for f, _ in finals[k]), k or ""))
    written = [max(f.mtime_ns for f, _ in finals[k]) for k in order]
    parts: dict[str | None, list[Named]] = {k: [] for k in order}
    for f, p in files:
        if _is_final(p):
            prefix = p.backend_prefix if p.stage not in _TPU_STAGES else None
            parts[prefix].append((f, p))
            continue
        at = next((i for i, t in enumerate(written) if f.mtime_ns <= t), len(order) - 1)
        parts[order[at]].append((f, p))
    labels: dict[str | None, str] = {k: k for k in order if k is not None}
    if None in parts:
        labels[None] = _unprefixed_label(parts[None], set(labels.values()))
    return [(labels[k], parts[k]) for k in order]


def _unprefixed_label(files: list[Named], taken: set[str | None]) -> str:
    """An unprefixed final dump's backend: ``tpu`` where its stages or its
    changelist say so, else what its text shows, else ``unprefixed``."""
    if any(p.stage in _TPU_STAGES or p.changelist for _, p in files):
        return "tpu"
    final = next((f for f, p in files if p.kind is FileKind.STAGE and _is_final(p)), None)
    head = read_hlo_head(final) if final is not None else None
    backend = head.backend if head is not None else None
    return backend if backend and backend not in taken else "unprefixed"


def folder_process(dump: str, modules: list[DumpModule]) -> str | None:
    """The process a dump folder is of, where XLA named it so
    (``--xla_dump_hlo_to_subfolder``: ``<module name>/<host>_<pid>``), else None."""
    parts = dump.split("/")
    if len(parts) < 2 or not _HOST_PID.match(parts[-1]) or not modules:
        return None
    if all(m.name == parts[-2] for m in modules):
        return parts[-1]
    return None


def processes_evidence(modules: list[DumpModule]) -> list[str]:
    """What shows that several processes wrote the folder, one sentence each:
    ids repeated in one dump folder, per-process folders, one id and name
    split by timestamp or backend. Empty where nothing shows it."""
    said: list[str] = []
    by_id: dict[tuple[str, int], list[DumpModule]] = {}
    for m in modules:
        if not m.plain_file and _has_text(m):
            by_id.setdefault((m.dump, m.id), []).append(m)
    repeated = {k: ms for k, ms in by_id.items() if len(ms) > 1}
    if repeated:
        groups = [", ".join(m.ref for m in ms) for ms in repeated.values()]
        shown = "; ".join(groups[:5]) + ("; ..." if len(groups) > 5 else "")
        said.append(
            f"{len(repeated)} module id{'s' * (len(repeated) != 1)} written twice or more "
            f"(XLA numbers modules per process): {shown}"
        )
    folders = sorted({m.process for m in modules if m.process and m.process_in_folder})
    if len(folders) > 1:
        listed = ", ".join(folders[:8]) + (", ..." if len(folders) > 8 else "")
        said.append(f"{len(folders)} per-process folders (<module>/<host>_<pid>): {listed}")
    split = [ms for ms in repeated.values() if len({m.name for m in ms}) < len(ms)]
    for ms in split[:5]:
        names: dict[str | None, list[DumpModule]] = {}
        for m in ms:
            names.setdefault(m.name, []).append(m)
        for same in (group for group in names.values() if len(group) > 1):
            labels = ", ".join(m.process or "?" for m in same)
            said.append(
                f"module_{same[0].id:04d} {same[0].name or ''}".rstrip()
                + f" was written by {len(same)} processes ({labels})"
            )
    return said


def _has_text(module: DumpModule) -> bool:
    return bool(
        module.before_optimizations or module.after_optimizations or module.passes or module.stages
    )
