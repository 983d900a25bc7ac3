"""Which events of a trace belong to a module of the dump, and what they add
up to per op.

Events name their module (``hlo_module``) and op (``hlo_op``); several
compilations may share a module name (a function jitted for two shapes). The
XPlane also gives the program id, which is the dump's ``module_NNNN``: where
the trace's program ids for a name are all modules of that name in the dump
(and the ops of the module's id are mostly its instructions), they decide. Otherwise each run (``run_id``) goes to the compilation(s) whose
instructions name the most of its ops; a run that fits several equally is
counted for each, and the profile says with which (``shared_with``).

Ops nest: on CPU a ``while`` event spans the events of its body's ops, a
conditional those of its branch. A module's measured time is therefore the
sum of its outermost events; an op's ``self_s`` is its time less the events
nested directly inside it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from xlaview.profile.events import EventTable
from xlaview.profile.trace import Trace

_NEST_SLACK_S = 1e-9  # times are rounded to the nanosecond in the JSON export


@dataclass(frozen=True, slots=True)
class OpTime:
    """The events of one op: how many, their total time, and that total less
    the op events nested in them."""

    name: str
    count: int
    measured_s: float
    self_s: float

    @property
    def mean_s(self) -> float:
        return self.measured_s / self.count if self.count else 0.0


@dataclass(frozen=True, slots=True)
class ModuleTime:
    """What a trace measured of one module of the dump.

    ``device`` is the device measured, None for all of them together
    (``devices`` lists them). ``measured_s`` sums the outermost op events, and
    ``matched_s`` those of them that name an instruction of the module.
    ``ops`` are the ops that name an instruction, ``unmatched`` the others;
    both sorted by measured time, longest first. ``matched_by`` says how
    events were given to this compilation: ``"program id"``, ``"op names"``
    or ``"name"`` (the only compilation of that name).
    """

    module: str
    module_id: int | None
    device: str | None
    devices: tuple[str, ...]
    runs: int
    measured_s: float
    matched_s: float
    ops: tuple[OpTime, ...]
    unmatched: tuple[OpTime, ...]
    matched_by: str
    shared_with: tuple[int, ...] = ()

    def op(self, name: str) -> OpTime | None:
        for op in self.ops:
            if op.name == name:
                return op
        return None


def measure_module(
    trace: Trace, name: str, instructions: Collection[str], module_id: int | None = None,
    rivals: Mapping[int, Collection[str]] | None = None, device: str | None = None,
) -> ModuleTime:
    """The measured time of module ``name`` (dump id ``module_id``, whose
    instruction names are ``instructions``) on ``device`` (None: all).

    ``rivals`` maps the ids of the dump's other compilations of the same name
    to their instruction names, so that each run goes to the one it fits.
    """
    table = trace.table
    rivals = rivals or {}
    rival_ids = {rid for rid in rivals if rid != module_id}
    wanted = {
        i for i, k in enumerate(table.keys)
        if k.module == name and (device is None or k.device == device)
    }
    program_ids = {table.keys[i].program_id for i in wanted}
    known = rival_ids | ({module_id} if module_id is not None else set())
    shared: tuple[int, ...] = ()
    by_id = {i for i in wanted if table.keys[i].program_id == module_id}
    if (wanted and None not in program_ids and module_id is not None and program_ids <= known
            and _names_fit(table, by_id, instructions)):
        matched_by = "program id"
        picked = [i for i in range(len(table.key)) if table.key[i] in by_id]
    elif rival_ids:
        matched_by = "op names"
        picked, shared = _pick_runs(table, wanted, set(instructions),
                                    {rid: rivals[rid] for rid in rival_ids})
    else:
        matched_by = "name"
        picked = [i for i in range(len(table.key)) if table.key[i] in wanted]
    return _sum_up(table, picked, name, module_id, device, set(instructions), matched_by, shared)


def _names_fit(table: EventTable, keys: set[int], instructions: Collection[str]) -> bool:
    """Whether most ops of a program id name instructions of the module with
    that id. Program ids count compilations in one process: a dump and a trace
    taken in two processes can share ids that name different programs."""
    ops = {table.keys[i].op for i in keys}
    return not ops or 2 * sum(op in instructions for op in ops) > len(ops)


def _pick_runs(
    table: EventTable, wanted: set[int], instructions: set[str],
    rivals: Mapping[int, Collection[str]],
) -> tuple[list[int], tuple[int, ...]]:
    by_run: dict[int, list[int]] = {}
    for i in range(len(table.key)):
        if table.key[i] in wanted:
            by_run.setdefault(table.run[i], []).append(i)
    rival_sets = {rid: set(names) for rid, names in rivals.items()}
    picked: list[int] = []
    shared: set[int] = set()
    for events in by_run.values():
        ops = {table.keys[table.key[i]].op for i in events}
        mine = len(ops & instructions)
        fits = {rid: len(ops & names) for rid, names in rival_sets.items()}
        best = max(fits.values(), default=-1)
        if mine >= best:
            picked += events
            shared.update(rid for rid, n in fits.items() if n == mine)
    picked.sort()
    return picked, tuple(sorted(shared))


def _sum_up(
    table: EventTable, picked: list[int], name: str, module_id: int | None,
    device: str | None, instructions: set[str], matched_by: str, shared: tuple[int, ...],
) -> ModuleTime:
    keys, duration = table.keys, table.duration
    nested_in = _parents(table, picked)
    count: dict[str, int] = {}
    total: dict[str, float] = {}
    own: dict[str, float] = {}
    op_of = {i: keys[table.key[i]].op for i in picked}
    outer_total = outer_matched = 0.0
    runs: set[int] = set()
    devices: set[str] = set()
    for i in picked:
        op = op_of[i]
        count[op] = count.get(op, 0) + 1
        total[op] = total.get(op, 0.0) + duration[i]
        own[op] = own.get(op, 0.0) + duration[i]
        parent = nested_in.get(i)
        if parent is None:
            outer_total += duration[i]
            if op in instructions:
                outer_matched += duration[i]
        else:
            own[op_of[parent]] -= duration[i]
        if table.run[i] >= 0:
            runs.add(table.run[i])
        devices.add(keys[table.key[i]].device)
    times = sorted(
        (OpTime(op, count[op], total[op], max(own[op], 0.0)) for op in count),
        key=lambda t: (-t.measured_s, t.name),
    )
    ops = tuple(t for t in times if t.name in instructions)
    unmatched = tuple(t for t in times if t.name not in instructions)
    # Without run ids, an op that ran once per run ran least often.
    run_count = len(runs) if runs else min((t.count for t in ops), default=0)
    return ModuleTime(name, module_id, device, tuple(sorted(devices)), run_count, outer_total,
                      outer_matched, ops, unmatched, matched_by, shared)


def _parents(table: EventTable, picked: list[int]) -> dict[int, int]:
    """The innermost picked event each picked event lies within, on its own
    timeline."""
    start, duration, thread = table.start, table.duration, table.thread
    order = sorted(picked, key=lambda i: (thread[i], start[i], -duration[i]))
    parents: dict[int, int] = {}
    stack: list[int] = []
    current_thread = None
    for i in order:
        if thread[i] != current_thread:
            current_thread, stack = thread[i], []
        begin = start[i]
        while stack and start[stack[-1]] + duration[stack[-1]] < begin + _NEST_SLACK_S:
            stack.pop()
        end = begin + duration[i]
        if stack and end <= start[stack[-1]] + duration[stack[-1]] + _NEST_SLACK_S:
            parents[i] = stack[-1]
        stack.append(i)
    return parents
