"""A trace beside a dump folder: which of the dump's modules the trace timed,
and the measured time of one of them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from xlaview.dump.main_module import pick_module
from xlaview.dump.modules import load_module
from xlaview.dump.records import DumpFile, DumpIndex, DumpModule, ModuleLookupError
from xlaview.hlo import Module
from xlaview.profile.measure import ModuleTime, measure_module
from xlaview.profile.trace import Trace

LoadModule = Callable[[DumpFile], Module]


def parse_dump_file(dump_file: DumpFile) -> Module:
    """An HLO file of the dump, parsed tolerantly (the default ``load``)."""
    return load_module(dump_file.path).module


def executed_file(dump_module: DumpModule) -> DumpFile | None:
    """The HLO text of what ran: the after-optimizations module, else the
    last pass dumped."""
    if dump_module.after_optimizations is not None:
        return dump_module.after_optimizations
    timeline = dump_module.timeline()
    return timeline[-1][1] if timeline else None


def compilations(index: DumpIndex, dump_module: DumpModule) -> list[DumpModule]:
    """The modules of one dump (one process) that share ``dump_module``'s name."""
    return [
        m
        for m in index.modules
        if m.name == dump_module.name and m.dump == dump_module.dump and executed_file(m)
    ]


class _InstructionNames(Mapping[int, frozenset[str]]):
    """Instruction names of other compilations, read only if asked for: the
    program ids of an XPlane trace usually settle the match without them."""

    def __init__(self, modules: list[DumpModule], load: LoadModule) -> None:
        self._modules = {m.id: m for m in modules}
        self._load = load
        self._names: dict[int, frozenset[str]] = {}

    def __getitem__(self, module_id: int) -> frozenset[str]:
        if module_id not in self._names:
            dump_file = executed_file(self._modules[module_id])
            assert dump_file is not None
            module = self._load(dump_file)
            self._names[module_id] = frozenset(i.name for i in module.instructions())
        return self._names[module_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


def measure_dump_module(
    trace: Trace,
    index: DumpIndex,
    dump_module: DumpModule,
    module: Module | None = None,
    device: str | None = None,
    load: LoadModule = parse_dump_file,
) -> ModuleTime:
    """The measured time of ``dump_module`` (whose executed HLO, if already
    parsed, is ``module``) on ``device`` (None: every device, summed).

    Other compilations of the same name in the dump are parsed only when the
    trace cannot tell them apart by program id.
    """
    if module is None:
        dump_file = executed_file(dump_module)
        if dump_file is None:
            raise KeyError(f"{dump_module.key} has no HLO text to join the trace to")
        module = load(dump_file)
    others = [m for m in compilations(index, dump_module) if m.id != dump_module.id]
    instructions = {i.name for i in module.instructions()}
    name = dump_module.name or module.name
    return measure_module(
        trace, name, instructions, dump_module.id, _InstructionNames(others, load), device
    )


@dataclass(frozen=True, slots=True)
class TracedModule:
    """A module name the trace timed: how long its events took in all (nested
    events counted twice: a ranking, not a measure), the program ids it ran
    as, and the dump modules of that name (empty: not in the dump)."""

    name: str
    total_s: float
    program_ids: tuple[int, ...]
    dump_modules: tuple[DumpModule, ...]


def traced_modules(trace: Trace, index: DumpIndex) -> list[TracedModule]:
    """Every module name in the trace, most time first, with its dump modules."""
    table = trace.table
    per_key = [0.0] * len(table.keys)
    for k, d in zip(table.key, table.duration, strict=True):
        per_key[k] += d
    totals: dict[str, float] = {}
    ids: dict[str, set[int]] = {}
    for key, seconds in zip(table.keys, per_key, strict=True):
        totals[key.module] = totals.get(key.module, 0.0) + seconds
        if key.program_id is not None:
            ids.setdefault(key.module, set()).add(key.program_id)
    by_name: dict[str | None, list[DumpModule]] = {}
    for m in index.modules:
        if executed_file(m):
            by_name.setdefault(m.name, []).append(m)
    found = []
    for name, seconds in totals.items():
        modules = by_name.get(name, [])
        program_ids = ids.get(name, set())
        if program_ids and {m.id for m in modules} & program_ids:
            # The ids are the dump's: the modules that ran come first.
            modules = sorted(modules, key=lambda m: m.id not in program_ids)
        found.append(TracedModule(name, seconds, tuple(sorted(program_ids)), tuple(modules)))
    return sorted(found, key=lambda t: (-t.total_s, t.name))


def busiest_module(trace: Trace, index: DumpIndex) -> DumpModule | None:
    """The dump module the trace spent most time in (None if it timed none)."""
    for traced in traced_modules(trace, index):
        if traced.dump_modules:
            return traced.dump_modules[0]
    return None


def choose_module(trace: Trace, index: DumpIndex, key: str | None = None) -> DumpModule:
    """The dump module to profile: the one ``key`` names (a name, ``module_NNNN``
    or id; of several compilations of a name, the one the trace timed most),
    or without a key the one the trace spent most time in. Raises KeyError
    with a message saying what there is."""
    if key is None:
        busiest = busiest_module(trace, index)
        if busiest is None:
            timed = ", ".join(trace.module_names[:10]) or "no HLO op at all"
            raise KeyError(f"the trace times none of the dump's modules (it timed: {timed})")
        return busiest
    # A name several compilations share: the one the trace timed most.
    traced = traced_modules(trace, index)
    for timed_name in traced:
        if timed_name.name == key and timed_name.dump_modules:
            return timed_name.dump_modules[0]
    try:
        return index.module(key)  # an id, module_NNNN, a name: KeyError names what there is
    except ModuleLookupError as err:
        if not err.modules:
            raise
        # An id two processes used: the one the trace timed most, else the largest.
        ran = [m for t in traced for m in t.dump_modules if m in err.modules]
        return ran[0] if ran else pick_module(index, key)[0]
