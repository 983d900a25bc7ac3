"""The records of a dump's index: its files, pass dumps, reports and modules,
and the index itself (`xlaview.dump.index` builds them from a folder)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlaview.dump.files import same_bytes
from xlaview.dump.module_names import display_name
from xlaview.dump.points import ModulePoint, find_point, module_points
from xlaview.errors import Problem, XlaviewError
from xlaview.units import whole_number

__all__ = [
    "DumpFile", "DumpIndex", "DumpModule", "ModuleLookupError", "PassDump", "Problem", "Reports",
    "assign_refs",
]  # fmt: skip


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
    # The process that wrote the module, where the folder shows it and another
    # module shares its id: a ``<host>_<pid>`` folder (--xla_dump_hlo_to_subfolder),
    # the timestamp prefix of its files, or the backend of its final dump.
    process: str | None = None
    # What finds it where its id repeats (set by the index; see `assign_refs`).
    _ref: str | None = field(default=None, repr=False)
    _unchanged: dict[int, bool] = field(default_factory=dict, repr=False)
    # The points, and what they were made from: made again if the files change.
    _points: tuple[tuple[object, ...], list[ModulePoint]] | None = field(default=None, repr=False)

    @property
    def key(self) -> str:
        """How the user names the module: ``name`` or ``module_NNNN``."""
        return self.name or f"module_{self.id:04d}"

    @property
    def ref(self) -> str:
        """What finds this module again with :meth:`DumpIndex.module`, even where
        names or ids repeat: its id (``0009``), after its dump folder if not the
        root (``host1/0009``); where two modules of one dump share the id (two
        processes wrote the folder), the id and the name (``0037.jit_train``),
        and the process if they share that too (``0037.jit_train@cpu``)."""
        return self._ref or self.id_ref

    @property
    def id_ref(self) -> str:
        """The id after the dump folder, as a :attr:`ref` where ids do not repeat."""
        return f"{self.dump}/{self.id:04d}" if self.dump else f"{self.id:04d}"

    @property
    def identity(self) -> tuple[str, int, str | None, str | None, str | None]:
        """What tells this module from every other one of any index of its folder,
        whatever else the folder holds: dump, id, name, process, lone file."""
        return self.dump, self.id, self.name, self.process, self.plain_file

    @property
    def title(self) -> str:
        if self.plain_file:
            return f"{self.plain_file} ({self.name})" if self.name else self.plain_file
        process = f" ({self.process})" if self.process and not self.process_in_folder else ""
        return f"module_{self.id:04d}" + (f" {self.name}" if self.name else "") + process

    @property
    def process_in_folder(self) -> bool:
        """Whether the module's dump folder names its process (``.../<host>_<pid>``)."""
        return self.process is not None and (
            self.dump == self.process or self.dump.endswith("/" + self.process)
        )

    def points(self) -> list[ModulePoint]:
        """Every HLO text of the module in compilation order: before
        optimizations, pass dumps, snapshots (in-pass, and stages such as
        ``after_spmd_partitioner`` where XLA writes them), after optimizations.
        See `xlaview.dump.points`."""
        made_of = (
            self.before_optimizations,
            self.after_optimizations,
            len(self.passes),
            tuple(self.stages.items()),
        )
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


def unchanged_marks(module: DumpModule) -> dict[str, bool]:
    """Pass key -> whether the dump is byte-identical to the one before it
    (every pass file read: a job for a helper process)."""
    return {str(seq): same for seq, same in module.unchanged_passes().items()}


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
    # Why the folder looks written by several processes (ids that repeat,
    # per-process folders, one id compiled for two backends); empty if nothing shows it.
    processes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        assign_refs(self.modules)

    def summary(self) -> str:
        """``ROOT: 3 modules, 1 dump``."""
        n, d = len(self.modules), len(self.dumps)
        return f"{self.root}: {n} module{'s' * (n != 1)}, {d} dump{'s' * (d != 1)}"

    def module(self, key: str | int) -> DumpModule:
        """The module ``key`` names: its id (``9``, ``0009``, ``module_0009``), its
        name, its title, or a lone HLO text's file name; any of them after
        ``DUMP/`` to pick one dump of several (:attr:`DumpModule.ref` is such a key).

        Where ids repeat (two processes wrote the folder), ``NNNN.NAME`` (and
        ``NNNN.NAME@PROCESS``) names one of them: :attr:`DumpModule.ref` is such a key.

        Raises `ModuleLookupError` (a KeyError) when no module matches, and when
        several do: the message lists them by their refs, and the error's
        ``modules`` are those (`xlaview.dump.main_module.pick_module` takes the
        largest of them instead).
        """
        text = str(key).strip()
        found = self.matching(text)
        if len(found) == 1:
            return found[0]
        if not found:
            raise ModuleLookupError(
                f"no module {text!r} in {self.root} (modules: {_listing(self.modules)})"
            )
        raise ModuleLookupError(
            f"{len(found)} modules match {text!r}: {_listing(found)}; name one as listed", found
        )

    def matching(self, text: str) -> list[DumpModule]:
        """Every module ``text`` names (see :meth:`module`): one for a ref."""
        text = text.strip()
        exact = [m for m in self.modules if m.ref == text]
        if len(exact) == 1:  # refs are never a bare id another module of its dump has
            return exact
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
        found = [
            m
            for m in candidates
            if (number is not None and m.id == number) or rest in (m.name, m.title, m.plain_file)
        ]
        found = found or [m for m in candidates if _names_by_id(m, rest)]
        # Last, the name the module list shows (TensorFlow's function name).
        return found or [m for m in candidates if m.name and display_name(m.name) == rest]

    def module_of(self, path: Path) -> DumpModule | None:
        """The module a file belongs to."""
        path = Path(path).absolute()
        for module in self.modules:
            if any(f.path == path for f in module.all_files()):
                return module
        return None

    def to_json(self) -> dict[str, Any]:
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
                    "ref": m.ref,
                    "process": m.process,
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
            "several_processes": bool(self.processes),
            "processes": list(self.processes),
            "unrecognized": [f.rel for f in self.unrecognized],
            "problems": [
                {"path": p.path, "message": p.message, "line": p.line} for p in self.problems
            ],
        }


def assign_refs(modules: list[DumpModule]) -> None:
    """Give each module a :attr:`DumpModule.ref` no other one has: its id where
    the id is its own in its dump, else the id and the name, else those and
    the process (the index calls this whenever its modules change)."""
    by_id: dict[str, list[DumpModule]] = {}
    for m in modules:
        by_id.setdefault(m.id_ref, []).append(m)
    for base, group in by_id.items():
        if len(group) == 1:
            group[0]._ref = None
            continue
        refs = {id(m): f"{base}.{m.name or f'module_{m.id:04d}'}" for m in group}
        for m in group:
            if sum(1 for r in refs.values() if r == refs[id(m)]) > 1:
                m._ref = refs[id(m)] + (f"@{m.process}" if m.process else "")
            else:
                m._ref = refs[id(m)]
        seen: dict[str, int] = {}
        for m in group:  # the same name and process twice: never from an index
            assert m._ref is not None
            seen[m._ref] = seen.get(m._ref, 0) + 1
            if seen[m._ref] > 1:
                m._ref += f"#{seen[m._ref]}"


def _names_by_id(module: DumpModule, text: str) -> bool:
    """Whether ``text`` is ``NNNN.NAME`` or ``NNNN.NAME@PROCESS`` of ``module``
    (the id in any of its forms: ``37``, ``0037``, ``module_0037``)."""
    head, dot, tail = text.partition(".")
    if not dot or _module_number(head) != module.id or module.name is None:
        return False
    return tail == module.name or (
        module.process is not None and tail == f"{module.name}@{module.process}"
    )


def _module_number(text: str) -> int | None:
    """9 for ``9``, ``0009`` and ``module_0009``."""
    return whole_number(text.removeprefix("module_"))


def _listing(modules: list[DumpModule], limit: int = 20) -> str:
    def named(m: DumpModule) -> str:
        if m.ref != m.id_ref:  # the ref names the module already
            return m.ref
        return f"{m.ref} {m.plain_file or m.name or '(no name)'}"

    shown = ", ".join(named(m) for m in modules[:limit])
    return shown + (f", ... and {len(modules) - limit} more" if len(modules) > limit else "")


def _same_as_previous(points: list[tuple[str, DumpFile]], i: int) -> bool:
    return i > 0 and _same_content(points[i - 1][1], points[i][1])


def _same_content(a: DumpFile, b: DumpFile) -> bool:
    return a.size == b.size and same_bytes(a.path, b.path)
