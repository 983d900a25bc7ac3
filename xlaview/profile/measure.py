"""Which events of a trace belong to a module of the dump, and what they add
up to per op.

Events name their module (``hlo_module``) and op (``hlo_op``); several
compilations may share a module name (a function jitted for two shapes). The
XPlane also gives the program id, which is the dump's ``module_NNNN``: where
the trace's program ids for a name are all modules of that name in the dump
(and the ops of the module's id are mostly its instructions), they decide.
Otherwise each run (``run_id``) goes to the compilation(s) whose instructions
name the most of its ops; a run that fits several equally is
counted for each, and the profile says with which (``shared_with``).

Ops nest: on CPU a ``while`` event spans the events of its body's ops, a
conditional those of its branch. A module's measured time is therefore the
sum of its outermost events; an op's ``self_s`` is its time less the events
nested directly inside it.
"""

from __future__ import annotations

from array import array
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
    trace: Trace,
    name: str,
    instructions: Collection[str],
    module_id: int | None = None,
    rivals: Mapping[int, Collection[str]] | None = None,
    device: str | None = None,
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
        i
        for i, k in enumerate(table.keys)
        if k.module == name and (device is None or k.device == device)
    }
    program_ids = {table.keys[i].program_id for i in wanted}
    known = rival_ids | ({module_id} if module_id is not None else set())
    shared: tuple[int, ...] = ()
    by_id = {i for i in wanted if table.keys[i].program_id == module_id}
    if (
        wanted
        and None not in program_ids
        and module_id is not None
        and program_ids <= known
        and _names_fit(table, by_id, instructions)
    ):
        matched_by = "program id"
        picked = _picked(table, by_id)
    elif rival_ids:
        matched_by = "op names"
        picked, shared = _pick_runs(
            table, wanted, set(instructions), {rid: rivals[rid] for rid in rival_ids}
        )
    else:
        matched_by = "name"
        picked = _picked(table, wanted)
    return _sum_up(table, picked, name, module_id, device, set(instructions), matched_by, shared)


def _names_fit(table: EventTable, keys: set[int], instructions: Collection[str]) -> bool:
    """Whether most ops of a program id name instructions of the module with
    that id. Program ids count compilations in one process: a dump and a trace
    taken in two processes can share ids that name different programs."""
    ops = {table.keys[i].op for i in keys}
    return not ops or 2 * sum(op in instructions for op in ops) > len(ops)


def _pick_runs(
    table: EventTable,
    wanted: set[int],
    instructions: set[str],
    rivals: Mapping[int, Collection[str]],
) -> tuple[array[int], tuple[int, ...]]:
    by_run: dict[int, array[int]] = {}
    for i in _picked(table, wanted):
        by_run.setdefault(table.run[i], array("l")).append(i)
    rival_sets = {rid: set(names) for rid, names in rivals.items()}
    picked = array("l")
    shared: set[int] = set()
    for events in by_run.values():
        ops = {table.keys[k].op for k in {table.key[i] for i in events}}
        mine = len(ops & instructions)
        fits = {rid: len(ops & names) for rid, names in rival_sets.items()}
        best = max(fits.values(), default=-1)
        if mine >= best:
            picked.extend(events)
            shared.update(rid for rid, n in fits.items() if n == mine)
    return array("l", sorted(picked)), tuple(sorted(shared))


def _picked(table: EventTable, keys: set[int]) -> array[int]:
    """The events of ``keys``, in table order."""
    return array("l", (i for i, k in enumerate(table.key) if k in keys))


def _sum_up(
    table: EventTable,
    picked: array[int],
    name: str,
    module_id: int | None,
    device: str | None,
    instructions: set[str],
    matched_by: str,
    shared: tuple[int, ...],
) -> ModuleTime:
    # Sums by key first (numbers in lists, no per-event objects), then by op
    # name: a million events of one module must not cost a dict entry each.
    keys, key_of, duration, run_of = table.keys, table.key, table.duration, table.run
    parent = _parents(table, picked)
    count = [0] * len(keys)
    total = [0.0] * len(keys)
    own = [0.0] * len(keys)
    matched = [k.op in instructions for k in keys]
    outer_total = outer_matched = 0.0
    runs: set[int] = set()
    for n, i in enumerate(picked):
        k, seconds = key_of[i], duration[i]
        count[k] += 1
        total[k] += seconds
        own[k] += seconds
        up = parent[n]
        if up < 0:
            outer_total += seconds
            if matched[k]:
                outer_matched += seconds
        else:
            own[key_of[picked[up]]] -= seconds
        runs.add(run_of[i])
    runs.discard(-1)
    by_op: dict[str, tuple[int, float, float]] = {}  # -> (count, total, own)
    devices: set[str] = set()
    for k, key in enumerate(keys):
        if count[k]:
            n, seconds, self_s = by_op.get(key.op, (0, 0.0, 0.0))
            by_op[key.op] = (n + count[k], seconds + total[k], self_s + own[k])
            devices.add(key.device)
    times = sorted(
        (OpTime(op, n, seconds, max(self_s, 0.0)) for op, (n, seconds, self_s) in by_op.items()),
        key=lambda t: (-t.measured_s, t.name),
    )
    ops = tuple(t for t in times if t.name in instructions)
    unmatched = tuple(t for t in times if t.name not in instructions)
    # Without run ids, an op that ran once per run ran least often.
    run_count = len(runs) if runs else min((t.count for t in ops), default=0)
    return ModuleTime(
        name,
        module_id,
        device,
        tuple(sorted(devices)),
        run_count,
        outer_total,
        outer_matched,
        ops,
        unmatched,
        matched_by,
        shared,
    )


def _parents(table: EventTable, picked: array[int]) -> array[int]:
    """For each picked event (by position in ``picked``), the position of the
    innermost picked event it lies within on its own timeline, or -1."""
    start, duration, thread = table.start, table.duration, table.thread
    lines: dict[int, list[int]] = {}
    for n, i in enumerate(picked):
        lines.setdefault(thread[i], []).append(n)
    parent = array("l", [-1]) * len(picked)
    for positions in lines.values():
        # By start time, the longer first where two start together (two stable
        # sorts on single keys: no tuple per event).
        positions.sort(key=lambda n: -duration[picked[n]])
        positions.sort(key=lambda n: start[picked[n]])
        stack: list[int] = []  # positions; ends kept beside them
        ends: list[float] = []
        for n in positions:
            i = picked[n]
            begin = start[i]
            while ends and ends[-1] < begin + _NEST_SLACK_S:
                stack.pop()
                ends.pop()
            end = begin + duration[i]
            if ends and end <= ends[-1] + _NEST_SLACK_S:
                parent[n] = stack[-1]
            stack.append(n)
            ends.append(end)
    return parent
