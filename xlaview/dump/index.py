"""Index a dump folder from file names and sizes: modules, their pass
timelines, reports and other files. Contents are read only where names say
nothing: the first few KB of an HLO text not named like a dump (``*.hlo``,
``*.txt`` starting with ``HloModule``: a module of its own), and of modules whose
file names give no name or backend (dumps before 2021).

A folder may hold several dumps (one sub-folder per host, process or run);
every directory with module files in it is one dump, and each module knows
which one it came from.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from xlaview.dump.naming import (
    DumpFileName,
    FileKind,
    backend_of,
    guess_module_name,
    parse_file_name,
)
from xlaview.dump.points import ModulePoint, find_point, module_points
from xlaview.errors import XlaviewError

__all__ = [
    "DumpFile", "DumpIndex", "DumpModule", "ModuleLookupError", "PassDump", "Problem", "Reports",
    "index_dump", "index_file",
]  # fmt: skip

MAX_DEPTH = 8  # sub-folder levels searched for dumps
_PJRT_INPUT_DIR_SUFFIX_DIGITS = 13  # PJRT compile-input folders: <name>_<unix millis>


@dataclass(frozen=True, slots=True)
class DumpFile:
    """A file of the dump: its path, its path relative to the index root, its size."""

    path: Path
    rel: str
    size: int
    mtime_ns: int = 0

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True, slots=True)
class PassDump:
    """One HLO dump between two passes (``after`` and ``before`` name them);
    ``before`` is None for a dump taken inside a pass (copy-insertion steps)."""

    seq: int
    pipeline: str
    after: str | None
    before: str | None
    file: DumpFile

    @property
    def label(self) -> str:
        if self.before is None:
            return f"{self.pipeline}: {self.after}"
        return f"{self.pipeline}: after {self.after}"


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with a file, found while indexing or reading it."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass(slots=True)
class Reports:
    buffer_assignment: DumpFile | None = None
    buffer_assignment_values: DumpFile | None = None
    live_range: DumpFile | None = None
    memory_usage: DumpFile | None = None

    def items(self) -> Iterator[tuple[str, DumpFile | None]]:
        yield "buffer_assignment", self.buffer_assignment
        yield "buffer_assignment_values", self.buffer_assignment_values
        yield "live_range", self.live_range
        yield "memory_usage", self.memory_usage


@dataclass(slots=True)
class DumpModule:
    """One HLO module of a dump, as its file names describe it."""

    id: int
    name: str | None
    dump: str  # the dump (sub-)folder, relative to the index root ("" for the root)
    backend: str | None = None
    timestamp: int | None = None
    changelist: int | None = None
    before_optimizations: DumpFile | None = None
    after_optimizations: DumpFile | None = None
    stages: dict[str, DumpFile] = field(default_factory=dict)  # other whole-module dumps
    passes: list[PassDump] = field(default_factory=list)
    reports: Reports = field(default_factory=Reports)
    other_files: list[DumpFile] = field(default_factory=list)
    # The file's name, for a module read from a lone HLO text not named like a
    # dump (its id is then xlaview's, not XLA's).
    plain_file: str | None = None
    _unchanged: dict[int, bool] = field(default_factory=dict, repr=False)
    # The points, and what they were made from: made again if the files change.
    _points: tuple[tuple, list[ModulePoint]] | None = field(default=None, repr=False)

    @property
    def key(self) -> str:
        """How the user names the module: ``name`` or ``module_NNNN``."""
        return self.name or f"module_{self.id:04d}"

    @property
    def ref(self) -> str:
        """What finds this module again with :meth:`DumpIndex.module`, even where
        names repeat: its id (``0009``), after its dump folder if not the root
        (``host1/0009``)."""
        return f"{self.dump}/{self.id:04d}" if self.dump else f"{self.id:04d}"

    @property
    def title(self) -> str:
        if self.plain_file:
            return f"{self.plain_file} ({self.name})" if self.name else self.plain_file
        return f"module_{self.id:04d}" + (f" {self.name}" if self.name else "")

    def points(self) -> list[ModulePoint]:
        """Every HLO text of the module in compilation order: before
        optimizations, pass dumps, snapshots (in-pass, and stages such as
        ``after_spmd_partitioner`` where XLA writes them), after optimizations.
        See `xlaview.dump.points`."""
        made_of = (self.before_optimizations, self.after_optimizations, len(self.passes),
                   tuple(self.stages.items()))
        if self._points is None or self._points[0] != made_of:
            self._points = (made_of, module_points(self))
        return list(self._points[1])

    def point(self, key: str | int) -> ModulePoint:
        """The point ``key`` names (``before``, ``after``, ``12``, ``0012``, a
        snapshot's name); raises `NoSuchPointError` (a KeyError) listing what there is."""
        return find_point(self, key)

    def timeline(self) -> list[tuple[str, DumpFile]]:
        """(key, file) of every point, in order: see :meth:`points`."""
        return [(p.key, p.file) for p in self.points()]

    def file_at(self, point: str | int) -> DumpFile:
        """The HLO text at a point: see :meth:`point`."""
        return find_point(self, point).file

    def unchanged(self, seq: int) -> bool:
        """Whether pass dump ``seq`` is byte-identical to the dump before it.

        Compared lazily (sizes first) and remembered.
        """
        if seq not in self._unchanged:
            points = self.timeline()
            labels = [label for label, _ in points]
            self._unchanged[seq] = _same_as_previous(points, labels.index(str(seq)))
        return self._unchanged[seq]

    def unchanged_passes(self) -> dict[int, bool]:
        """:meth:`unchanged` for every pass, in one walk of the timeline."""
        points = self.timeline()
        for i, (label, _) in enumerate(points):
            if label.isdigit() and int(label) not in self._unchanged:
                self._unchanged[int(label)] = _same_as_previous(points, i)
        return {p.seq: self._unchanged[p.seq] for p in self.passes}

    def all_files(self) -> list[DumpFile]:
        """Every file of the module, each once."""
        files = [f for _, f in self.timeline()]  # stages included
        files += [f for _, f in self.reports.items() if f]
        return files + self.other_files


class ModuleLookupError(XlaviewError, KeyError):
    """No module of that name or id, or several: ``modules`` lists those that match."""

    def __init__(self, message: str, modules: list[DumpModule] | None = None) -> None:
        super().__init__(message)
        self.modules = modules or []

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


@dataclass(slots=True)
class DumpIndex:
    root: Path
    modules: list[DumpModule]
    unrecognized: list[DumpFile]
    problems: list[Problem]
    dumps: list[str]  # folders holding module files, relative to root

    def module(self, key: str | int) -> DumpModule:
        """The module ``key`` names: its id (``9``, ``0009``, ``module_0009``), its
        name, its title, or a lone HLO text's file name; any of them after
        ``DUMP/`` to pick one dump of several (:attr:`DumpModule.ref` is such a key).

        Raises `ModuleLookupError` (a KeyError) when no module matches, and when
        several do: the message lists them with their ids.
        """
        text = str(key).strip()
        exact = [m for m in self.modules if m.ref == text]
        if len(exact) == 1:
            return exact[0]
        found = self._matching(text)
        if len(found) == 1:
            return found[0]
        if not found:
            raise ModuleLookupError(
                f"no module {text!r} in {self.root} (modules: {_listing(self.modules)})")
        raise ModuleLookupError(
            f"{len(found)} modules match {text!r}: {_listing(found)}; name one by its id", found)

    def _matching(self, text: str) -> list[DumpModule]:
        candidates, rest = self.modules, text
        if "/" in text:
            dump, _, rest = text.rpartition("/")
            folder = "" if dump == "." else dump
            in_dump = [m for m in self.modules if m.dump == folder]
            if in_dump:
                candidates = in_dump
            else:
                rest = text  # a name with a slash in it
        number = _module_number(rest)
        return [
            m
            for m in candidates
            if (number is not None and m.id == number) or rest in (m.name, m.title, m.plain_file)
        ]

    def module_of(self, path: Path) -> DumpModule | None:
        """The module a file belongs to."""
        path = Path(path).absolute()
        for module in self.modules:
            if any(f.path == path for f in module.all_files()):
                return module
        return None

    def to_json(self) -> dict:
        """The ``summary --json`` document."""

        def rel(f: DumpFile | None) -> str | None:
            return f.rel if f else None

        return {
            "root": str(self.root),
            "modules": [
                {
                    "id": m.id,
                    "name": m.name,
                    "backend": m.backend,
                    "dump": m.dump,
                    "before_optimizations": rel(m.before_optimizations),
                    "after_optimizations": rel(m.after_optimizations),
                    "passes": [
                        {
                            "seq": p.seq,
                            "pipeline": p.pipeline,
                            "after": p.after,
                            "before": p.before,
                            "file": p.file.rel,
                        }
                        for p in m.passes
                    ],
                    "stages": {k: v.rel for k, v in m.stages.items()},
                    "reports": {k: rel(v) for k, v in m.reports.items()},
                    "other_files": [f.rel for f in m.other_files],
                }
                for m in self.modules
            ],
            "unrecognized": [f.rel for f in self.unrecognized],
            "problems": [
                {"path": p.path, "message": p.message, "line": p.line} for p in self.problems
            ],
        }


def _module_number(text: str) -> int | None:
    """9 for ``9``, ``0009`` and ``module_0009``."""
    digits = text.removeprefix("module_")
    return int(digits) if digits.isdigit() else None


def _listing(modules: list[DumpModule], limit: int = 20) -> str:
    shown = ", ".join(f"{m.ref} {m.plain_file or m.name or '(no name)'}" for m in modules[:limit])
    return shown + (f", ... and {len(modules) - limit} more" if len(modules) > limit else "")


def index_file(path: str | os.PathLike[str]) -> DumpIndex:
    """The index of the folder holding an HLO file; a file whose name XLA did
    not give becomes a module of its own."""
    from xlaview.dump.contents import plain_module  # reads through the loader, which imports us

    path = Path(path).absolute()
    index = index_dump(path.parent)
    if index.module_of(path) is not None:
        return index
    st = path.stat()
    dump_file = DumpFile(path, path.name, st.st_size, st.st_mtime_ns)
    next_id = max((m.id + 1 for m in index.modules if not m.dump), default=0)
    index.unrecognized = [f for f in index.unrecognized if f.path != path]
    index.modules.insert(0, plain_module(dump_file, "", next_id))
    if "" not in index.dumps:
        index.dumps.insert(0, "")
    return index


def _same_as_previous(points: list[tuple[str, DumpFile]], i: int) -> bool:
    return i > 0 and _same_content(points[i - 1][1], points[i][1])


def _same_content(a: DumpFile, b: DumpFile) -> bool:
    if a.size != b.size:
        return False
    try:
        with open(a.path, "rb") as fa, open(b.path, "rb") as fb:
            while True:
                ca, cb = fa.read(1 << 20), fb.read(1 << 20)
                if ca != cb:
                    return False
                if not ca:
                    return True
    except OSError:
        return False


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
                    continue
                st = entry.stat()  # follows a file link; a loop or dangling link fails
            except OSError as err:
                kind = "symbolic link" if entry.is_symlink() else "file"
                problems.append(Problem(rel, f"unreadable {kind}: {err.strerror or err}"))
                continue
            if stat.S_ISDIR(st.st_mode):
                problems.append(Problem(rel, "link to a folder: not followed"))
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
            by_dump[rel_folder] = _group(rel_folder, entries, unrecognized)
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

    # Where names say nothing, the first few KB of the texts (the contents
    # module reads through the loader, which imports this one: hence here).
    from xlaview.dump.contents import add_plain_modules, describe_from_contents

    unrecognized.sort(key=lambda f: f.rel)
    unrecognized = add_plain_modules(modules, unrecognized, dumps)
    describe_from_contents(modules)
    for module in modules:
        _check(module, problems)
    for f in unrecognized:
        if f.size == 0:
            problems.append(Problem(f.rel, "empty file"))
    modules.sort(key=lambda m: (m.dump, m.id, m.name or ""))
    dumps.sort()
    return DumpIndex(root_path, modules, unrecognized, problems, dumps)


def _group(rel_folder: str, entries: list[_Entry], unrecognized: list[DumpFile]) -> list[DumpModule]:
    by_key: dict[tuple[int, str | None], DumpModule] = {}

    def module_for(parsed: DumpFileName, name: str | None) -> DumpModule:
        key = (parsed.module_id, name)
        module = by_key.get(key)
        if module is None:
            module = by_key[key] = DumpModule(parsed.module_id, name, rel_folder)
        if parsed.timestamp and not module.timestamp:
            module.timestamp = parsed.timestamp
        if parsed.changelist and not module.changelist:
            module.changelist = parsed.changelist
        return module

    others: list[_Entry] = []
    for entry in entries:
        parsed = entry.parsed
        if parsed is None:
            unrecognized.append(entry.file)
            continue
        if parsed.kind is FileKind.OTHER:
            others.append(entry)
            continue
        module = module_for(parsed, parsed.module_name)
        _place(module, parsed, entry.file)

    # Other files: split the module name off using the names the HLO dumps gave.
    names_by_id: dict[int, list[str]] = {}
    for module_id, name in by_key:
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
            if name is None and (parsed.module_id, None) not in by_key:
                name = known[0] if len(known) == 1 and not parsed.rest else guess_module_name(
                    parsed.rest
                )
        module_for(parsed, name).other_files.append(entry.file)

    for module in by_key.values():
        module.passes.sort(key=lambda p: p.seq)
        if module.backend is None:
            module.backend = _backend_from_other_files(module)
    return list(by_key.values())


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
        if f.size == 0:
            problems.append(Problem(f.rel, "empty file"))
    reports = [f for _, f in module.reports.items() if f]
    if reports and module.after_optimizations is None and not module.stages:
        for f in reports:
            problems.append(
                Problem(f.rel, f"report without its module: no HLO dump of {module.title} here")
            )
