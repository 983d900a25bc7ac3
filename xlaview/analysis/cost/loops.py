"""How often each part of a module runs: loops, their trip counts, and sums
that follow the module's structure.

XLA's cost model counts a ``while`` body once (it cannot know the trip
count). XLA does know it for many loops and prints it in the loop's backend
config (``known_trip_count``); the *executed* figures count each body that
many times (and its condition once more), nested loops multiplied.

Every walk here follows the computations a top-level op runs as steps
(loop bodies and conditions, branches, called computations) with a stack of
its own, callers before callees or the reverse: a program of 10,000 nested
calls is walked like any other. A module whose computations call themselves
again (XLA's verifier refuses that) is walked once round the cycle, and the
cycle is said.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import count
from typing import TYPE_CHECKING

from xlaview.analysis.cost.model import CHECK_EVERY, called_names
from xlaview.hlo import Computation, Instruction, Module

if TYPE_CHECKING:
    from xlaview.analysis.cost.model import CostModel

# Computations a top-level op runs as top-level code (not fused, not applied per element).
_STEP_ATTRIBUTES = {
    "while": ("body", "condition"),
    "conditional": ("branch_computations", "true_computation", "false_computation"),
    "call": ("to_apply",),
}
# A known trip count above this is not believed (a damaged config, not a
# loop that runs for a day): the loop counts as one of unknown trips.
MAX_TRIP_COUNT = 10**12


@dataclass(frozen=True, slots=True)
class LoopCount:
    """A ``while`` loop and how often its body runs (None: not known)."""

    name: str
    computation: str
    trip_count: int | None


@dataclass(frozen=True, slots=True)
class Step:
    """One computation a top-level op runs, ``times`` per run of the op."""

    callee: str
    times: int


def steps_of(module: Module, instr: Instruction, executed: bool) -> list[Step]:
    """What ``instr`` runs as steps, each as often as one run of it does
    (``executed``: loop bodies by their known trip counts; else once, as XLA
    counts them)."""
    op = instr.opcode
    attributes = _STEP_ATTRIBUTES.get(op)
    if attributes is None:
        return []
    trips = trip_count(instr) if executed and op == "while" else None
    found = []
    for attribute in attributes:
        times = 1
        if trips is not None:
            times = trips + 1 if attribute == "condition" else trips
        for callee in called_names(instr, attribute):
            if module.has_computation(callee):
                found.append(Step(callee, times))
    return found


def callees_first(module: Module, name: str) -> tuple[list[str], list[str]]:
    """The computations ``name`` runs as steps, ``name`` too, each after all
    it runs (a post-order of the step graph); and the computations met again
    on their own path (cycles), where the walk stopped."""
    order: list[str] = []
    cycles: list[str] = []
    done: set[str] = set()
    on_path: set[str] = set()
    stack: list[tuple[str, bool]] = [(name, False)]
    while stack:
        comp_name, expanded = stack.pop()
        if expanded:
            on_path.discard(comp_name)
            done.add(comp_name)
            order.append(comp_name)
            continue
        if comp_name in done:
            continue
        if comp_name in on_path:
            cycles.append(comp_name)
            continue
        on_path.add(comp_name)
        stack.append((comp_name, True))
        below = [
            step.callee
            for instr in module.computation(comp_name).instructions
            for step in steps_of(module, instr, executed=False)
        ]
        stack += [(c, False) for c in reversed(below)]
    return order, cycles


def fold(module: Module, name: str, values: Mapping[str, float], executed: bool) -> float:
    """Add up per-op ``values`` over computation ``name`` and what it runs (see
    `ModuleCost.fold`)."""
    return _fold(module, name, lambda instr, _comp: (values.get(instr.name, 0.0),), 1, executed)[0]


def executed_totals(module: Module, model: CostModel, name: str) -> tuple[float, float, float]:
    """A computation's totals with loop bodies scaled by their trip counts."""
    seen = count(1)

    def priced(instr: Instruction, comp: Computation) -> tuple[float, ...]:
        if not next(seen) % CHECK_EVERY:
            model.check()  # (the moe's 40,000-op entry: 0.1 s)
        props = model.price(instr, comp)
        return props.flops, props.transcendentals, props.bytes_accessed

    flops, transcendentals, accessed = _fold(module, name, priced, 3, executed=True)
    return flops, transcendentals, accessed


def _fold(
    module: Module,
    name: str,
    value: Callable[[Instruction, Computation], tuple[float, ...]],
    width: int,
    executed: bool,
) -> list[float]:
    """``value`` (``width`` figures) of each op summed over ``name`` the way
    a run adds up: what a loop, call or conditional runs folded into it
    (callees first, so each is summed once; a cycle's way back counts 0)."""
    order, _ = callees_first(module, name)
    memo: dict[str, list[float]] = {}
    for comp_name in order:
        comp = module.computation(comp_name)
        total = [0.0] * width
        for instr in comp.instructions:
            if instr.opcode not in _STEP_ATTRIBUTES:
                for k, v in enumerate(value(instr, comp)):
                    total[k] += v
                continue
            steps = steps_of(module, instr, executed)
            parts = [
                [v * step.times for v in memo[step.callee]] for step in steps if step.callee in memo
            ]
            if not parts:
                continue
            combine = max if instr.opcode == "conditional" else sum
            for k in range(width):
                total[k] += combine(part[k] for part in parts)
        memo[comp_name] = total
    return memo.get(name, [0.0] * width)


def trip_count(instr: Instruction) -> int | None:
    """A ``while``'s ``known_trip_count`` from its backend config (None if
    absent, or not a count of iterations: negative, not a whole number, or
    more than `MAX_TRIP_COUNT`; `trip_count_problem` says which)."""
    return _trip_count(instr)[0]


def trip_count_problem(instr: Instruction) -> str | None:
    """Why a ``known_trip_count`` the loop gives is not used, if it is not."""
    return _trip_count(instr)[1]


def _trip_count(instr: Instruction) -> tuple[int | None, str | None]:
    config = instr.backend_config
    if not isinstance(config, dict) or "known_trip_count" not in config:
        return None, None
    known = config.get("known_trip_count")
    value = known.get("n") if isinstance(known, dict) else known
    if isinstance(value, str) and value.lstrip("-").isascii() and value.lstrip("-").isdigit():
        if len(value) > 20:
            return None, f"known_trip_count {value[:24]}… is not a trip count: counted once"
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None, f"known_trip_count {str(value)[:40]!r} is not a number: counted once"
    if value < 0:
        return None, f"known_trip_count {value} is negative: counted once"
    if value > MAX_TRIP_COUNT:
        return None, f"known_trip_count {value} is not believed (over 10^12): counted once"
    return value, None


def step_executions(module: Module, entry: Computation) -> tuple[dict[str, int], list[LoopCount]]:
    """Each computation that runs as top-level steps, with how often one run of
    the module executes it; and every loop with its trip count. Counts flow
    from callers to callees in the step graph's order, so that a computation
    two others run (the second reached later) counts both."""
    order, _ = callees_first(module, entry.name)
    callers_first = list(reversed(order))
    place = {name: k for k, name in enumerate(callers_first)}
    executions = dict.fromkeys(order, 0)
    executions[entry.name] = 1
    loops: list[LoopCount] = []
    for comp_name in callers_first:
        comp = module.computation(comp_name)
        count = executions[comp_name]
        for instr in comp.instructions:
            if instr.opcode == "while":
                loops.append(LoopCount(instr.name, comp.name, trip_count(instr)))
            for step in steps_of(module, instr, executed=True):
                # Only down the order: the way back round a cycle counts no
                # more runs (as `fold` counts it 0), so no share passes 100%.
                if place.get(step.callee, -1) > place[comp_name]:
                    executions[step.callee] += count * step.times
    return {name: n for name, n in executions.items() if n or name == entry.name}, loops
