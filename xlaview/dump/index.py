"""Index a dump folder from file names and sizes: modules, their pass
timelines, reports and other files. Contents are read only where names say
nothing: the first few KB of an HLO text not named like a dump (``*.hlo``,
``*.txt`` starting with ``HloModule``: a module of its own), and of modules whose
file names give no name or backend (dumps before 2021).

A folder may hold several dumps (one sub-folder per host, process or run);
every directory with module files in it is one dump, and each module knows
which one it came from. Several processes may also write one folder, and
their module ids repeat: a module is its id and name, and the process that
wrote it where the folder shows one (`xlaview.dump.processes`).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from xlaview.dump.contents import add_plain_modules, describe_from_contents, plain_module
from xlaview.dump.files import check_dump_file, non_regular_kind
from xlaview.dump.naming import (
    DumpFileName,
    FileKind,
    backend_of,
    guess_module_name,
    parse_file_name,
    routinely_empty,
)
from xlaview.dump.processes import folder_process, processes_evidence, split_processes
from xlaview.dump.records import DumpFile, DumpIndex, DumpModule, PassDump, assign_refs
from xlaview.errors import Problem

__all__ = ["index_dump", "index_file"]

MAX_DEPTH = 8  # sub-folder levels searched for dumps
_PJRT_INPUT_DIR_SUFFIX_DIGITS = 13  # PJRT compile-input folders: <name>_<unix millis>


def index_file(path: str | os.PathLike[str]) -> DumpIndex:
    """The index of the folder holding an HLO file; a file whose name XLA did
    not give becomes a module of its own."""
    path = Path(path).absolute()
    st = check_dump_file(path)  # a FIFO or device given by name is refused here
    index = index_dump(path.parent)
    if index.module_of(path) is not None:
        return index
    dump_file = DumpFile(path, path.name, st.st_size, st.st_mtime_ns)
    next_id = max((m.id + 1 for m in index.modules if not m.dump), default=0)
    index.unrecognized = [f for f in index.unrecognized if f.path != path]
    index.modules.insert(0, plain_module(dump_file, "", next_id))
    if "" not in index.dumps:
        index.dumps.insert(0, "")
    assign_refs(index.modules)
    return index


# -- walking --------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    file: DumpFile
    parsed: DumpFileName | None


def _scan(root: Path, problems: list[Problem]) -> dict[str, list[_Entry]]:
    """Files by folder (relative to root), without following directory links."""
    folders: dict[str, list[_Entry]] = {}
    stack: list[tuple[Path, str, int]] = [(root, "", 0)]
    while stack:
        folder, rel_folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as err:
            problems.append(Problem(rel_folder or ".", f"cannot list folder: {err.strerror}"))
            continue
        files: list[_Entry] = []
        for entry in sorted(entries, key=lambda e: e.name):
            rel = f"{rel_folder}/{entry.name}" if rel_folder else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth < MAX_DEPTH:
                        stack.append((Path(entry.path), rel, depth + 1))
                    else:
                        message = f"folder not searched: deeper than {MAX_DEPTH} folder levels"
                        problems.append(Problem(rel, message))
                    continue
                st = entry.stat()  # follows a file link; a loop or dangling link fails
            except OSError as err:
                kind = "symbolic link" if entry.is_symlink() else "file"
                problems.append(Problem(rel, f"unreadable {kind}: {err.strerror or err}"))
                continue
            if stat.S_ISDIR(st.st_mode):
                problems.append(Problem(rel, "link to a folder: not followed"))
                continue
            special = non_regular_kind(st.st_mode)
            if special is not None:  # a FIFO would block its reader, a device never ends
                link = f" (a link to {os.path.realpath(entry.path)})" if entry.is_symlink() else ""
                problems.append(Problem(rel, f"not a regular file: {special}{link}; never opened"))
                continue
            dump_file = DumpFile(Path(entry.path).absolute(), rel, st.st_size, st.st_mtime_ns)
            files.append(_Entry(dump_file, parse_file_name(entry.name)))
            if not os.access(entry.path, os.R_OK):
                problems.append(Problem(rel, "file is not readable (permissions)"))
        folders[rel_folder] = files
    return folders


def index_dump(root: str | os.PathLike[str]) -> DumpIndex:
    """Index the dump folder ``root`` (names and sizes only)."""
    root_path = Path(root).absolute()
    problems: list[Problem] = []
    if not root_path.is_dir():
        raise NotADirectoryError(f"{root_path} is not a folder")
    folders = _scan(root_path, problems)
    modules: list[DumpModule] = []
    unrecognized: list[DumpFile] = []
    dumps: list[str] = []

    by_dump: dict[str, list[DumpModule]] = {}
    for rel_folder in sorted(folders):
        entries = folders[rel_folder]
        if any(e.parsed for e in entries):
            dumps.append(rel_folder)
            by_dump[rel_folder] = _group(rel_folder, entries, unrecognized, problems)
            modules += by_dump[rel_folder]
    # Folders without module files of their own: a module's sub-folder
    # (module_NNNN.name/, shardy/module_NNNN.name/, PJRT's <name>_<millis>/)
    # belongs to that module; anything else is listed as unrecognized.
    for rel_folder in sorted(folders):
        if rel_folder in by_dump:
            continue
        owner = _owner_of_folder(rel_folder, by_dump)
        files = [e.file for e in folders[rel_folder]]
        if owner is not None:
            owner.other_files += files
        else:
            unrecognized += files

    # Where names say nothing, the first few KB of the texts.
    unrecognized.sort(key=lambda f: f.rel)
    unrecognized = add_plain_modules(modules, unrecognized, dumps)
    describe_from_contents(modules)
    for dump, in_dump in by_dump.items():
        process = folder_process(dump, in_dump)
        for module in in_dump if process else ():
            module.process = module.process or process
    for module in modules:
        _check(module, problems)
    for f in unrecognized:
        if f.size == 0:
            problems.append(Problem(f.rel, "empty file"))
    modules.sort(key=lambda m: (m.dump, m.id, m.name or "", m.process or ""))
    dumps.sort()
    assign_refs(modules)  # the evidence names modules by their refs
    return DumpIndex(root_path, modules, unrecognized, problems, dumps, processes_evidence(modules))


def _drop_repeated_passes(module: DumpModule, problems: list[Problem]) -> None:
    """Sort the passes; of two dumps with one sequence number (two runs into one
    folder, or names that differ only in the pipeline), the first by file name
    stays in the timeline, the other moves to ``other_files``, and a problem
    names both: the timeline never shows one of them silently."""
    module.passes.sort(key=lambda p: (p.seq, p.file.rel))
    kept: list[PassDump] = []
    for p in module.passes:
        if kept and kept[-1].seq == p.seq:
            shown = kept[-1].file.rel
            message = (
                f"pass {p.seq} of {module.title} dumped twice: {shown} is shown, not this file"
            )
            problems.append(Problem(p.file.rel, message))
            module.other_files.append(p.file)
            continue
        kept.append(p)
    module.passes = kept


def _group(
    rel_folder: str, entries: list[_Entry], unrecognized: list[DumpFile], problems: list[Problem]
) -> list[DumpModule]:
    """The modules of one dump folder: its files by module id and name, each
    split by the process that wrote it where two did (`split_processes`)."""
    files_of: dict[tuple[int, str | None], list[_Entry]] = {}
    others: list[_Entry] = []
    for entry in entries:
        parsed = entry.parsed
        if parsed is None:
            unrecognized.append(entry.file)
            continue
        if parsed.kind is FileKind.OTHER:
            others.append(entry)
            continue
        files_of.setdefault((parsed.module_id, parsed.module_name), []).append(entry)

    # Other files: split the module name off using the names the HLO dumps gave.
    names_by_id: dict[int, list[str]] = {}
    for module_id, name in files_of:
        if name:
            names_by_id.setdefault(module_id, []).append(name)
    for entry in others:
        parsed = entry.parsed
        assert parsed is not None
        name = parsed.module_name
        if name is None:
            known = sorted(names_by_id.get(parsed.module_id, []), key=len, reverse=True)
            name = next(
                (n for n in known if parsed.rest == n or parsed.rest.startswith(n + ".")), None
            )
            if name is None and (parsed.module_id, None) not in files_of:
                name = (
                    known[0]
                    if len(known) == 1 and not parsed.rest
                    else guess_module_name(parsed.rest)
                )
        files_of.setdefault((parsed.module_id, name), []).append(entry)

    modules: list[DumpModule] = []
    for (module_id, name), group in files_of.items():
        named = [(e.file, e.parsed) for e in group if e.parsed is not None]
        for process, part in split_processes(named):
            module = DumpModule(module_id, name, rel_folder, process=process)
            for dump_file, parsed in part:
                if parsed.timestamp and not module.timestamp:
                    module.timestamp = parsed.timestamp
                if parsed.changelist and not module.changelist:
                    module.changelist = parsed.changelist
                if parsed.kind is FileKind.OTHER:
                    module.other_files.append(dump_file)
                else:
                    _place(module, parsed, dump_file)
            _drop_repeated_passes(module, problems)
            if module.backend is None:
                module.backend = _backend_from_other_files(module)
            modules.append(module)
    return modules


def _place(module: DumpModule, parsed: DumpFileName, dump_file: DumpFile) -> None:
    text = parsed.format == "txt"
    if parsed.kind in (FileKind.PASS, FileKind.SNAPSHOT) and text:
        assert parsed.seq is not None and parsed.pipeline is not None
        module.passes.append(
            PassDump(parsed.seq, parsed.pipeline, parsed.after, parsed.before, dump_file)
        )
        return
    if parsed.kind is FileKind.REPORT and text:
        slot = parsed.report
        assert slot is not None  # a report file's name says which report
        # The final stage's reports win over any other stage's.
        if getattr(module.reports, slot) is None or parsed.stage == "after_optimizations":
            setattr(module.reports, slot, dump_file)
        return
    if parsed.kind is FileKind.STAGE and text:
        backend = backend_of(parsed.backend_prefix, parsed.stage)
        if backend and not module.backend:
            module.backend = backend
        if parsed.stage in ("before_optimizations", "before_optimization"):
            module.before_optimizations = dump_file
            return
        if parsed.stage in ("after_optimizations", "after_optimization"):
            module.after_optimizations = dump_file
            return
        module.stages[parsed.stage or dump_file.name] = dump_file
        return
    module.other_files.append(dump_file)


def _backend_from_other_files(module: DumpModule) -> str | None:
    names = [f.name for f in module.other_files]
    if any(n.endswith(".ptx") or "gpu_target_config" in n or "thunk_sequence" in n for n in names):
        return "gpu"
    if any(n.endswith(".o") and ".obj-file." in n for n in names):
        return "cpu"
    if module.changelist is not None:
        return "tpu"  # .cl_N appears only in internal (libtpu) builds
    return None


def _owner_of_folder(rel_folder: str, by_dump: dict[str, list[DumpModule]]) -> DumpModule | None:
    """The module a non-dump folder belongs to: the nearest folder on its path
    named after a module of the nearest dump above it."""
    parts = rel_folder.split("/")
    for cut in range(len(parts) - 1, -1, -1):
        dump = "/".join(parts[:cut])
        if dump not in by_dump:
            continue
        modules = by_dump[dump]
        for name in reversed(parts[cut:]):
            if owner := _module_named_by_folder(name, modules):
                return owner
        return None
    return None


def _module_named_by_folder(name: str, modules: list[DumpModule]) -> DumpModule | None:
    parsed = parse_file_name(name)
    if parsed is not None:
        same_id = [m for m in modules if m.id == parsed.module_id]
        exact = next((m for m in same_id if (m.name or "") == parsed.rest), None)
        return exact or (same_id[0] if same_id else None)
    # The k-th PJRT compile-input folder of a name belongs to the k-th module of that name.
    base = _pjrt_input_base(name)
    if base is None:
        return None
    # Folders are visited in name order, so by time for one name.
    same_name = sorted((m for m in modules if m.name == base), key=lambda m: m.id)
    unclaimed = (m for m in same_name if not any(map(_is_pjrt_file, m.other_files)))
    return next(unclaimed, same_name[-1] if same_name else None)


def _is_pjrt_file(f: DumpFile) -> bool:
    parent = f.rel.rsplit("/", 2)
    return len(parent) >= 2 and _pjrt_input_base(parent[-2]) is not None


def _pjrt_input_base(folder: str) -> str | None:
    """``name`` for PJRT's compile-input folders (2025-08 to 2026-04),
    ``<name>_<unix millis>``; None for any other folder."""
    base, _, millis = folder.rpartition("_")
    return base if millis.isdigit() and len(millis) == _PJRT_INPUT_DIR_SUFFIX_DIGITS else None


def _check(module: DumpModule, problems: list[Problem]) -> None:
    for f in module.all_files():
        if f.size == 0 and routinely_empty(f.name) is None:  # else an empty file, no problem
            problems.append(Problem(f.rel, "empty file"))
    # Reports belong to their module whatever else it has (a module whose final
    # dump is missing still has its passes); only one with no HLO text at all
    # has nothing to show them against.
    reports = [f for _, f in module.reports.items() if f]
    if reports and not module.timeline():
        for f in reports:
            problems.append(
                Problem(f.rel, f"report without its module: no HLO dump of {module.title} here")
            )
