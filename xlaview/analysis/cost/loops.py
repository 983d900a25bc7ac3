"""How often each part of a module runs: loops, their trip counts, and sums
that follow the module's structure.

XLA's cost model counts a ``while`` body once (it cannot know the trip
count). XLA does know it for many loops and prints it in the loop's backend
config (``known_trip_count``); the *executed* figures count each body that
many times (and its condition once more), nested loops multiplied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xlaview.analysis.cost.model import called_names
from xlaview.hlo import Computation, Instruction, Module

if TYPE_CHECKING:
    from xlaview.analysis.cost.model import CostModel

# Computations a top-level op runs as top-level code (not fused, not applied per element).
_STEP_ATTRIBUTES = {
    "while": ("body", "condition"),
    "conditional": ("branch_computations", "true_computation", "false_computation"),
    "call": ("to_apply",),
}


@dataclass(frozen=True, slots=True)
class LoopCount:
    """A ``while`` loop and how often its body runs (None: not known)."""

    name: str
    computation: str
    trip_count: int | None


def fold(
    module: Module, name: str, values: Mapping[str, float], executed: bool, memo: dict[str, float]
) -> float:
    """Add up per-op ``values`` over computation ``name`` and what it runs (see
    `ModuleCost.fold`)."""
    if name in memo:
        return memo[name]
    memo[name] = 0.0
    total = 0.0
    for instr in module.computation(name).instructions:
        op = instr.opcode
        if op not in _STEP_ATTRIBUTES:
            total += values.get(instr.name, 0.0)
            continue
        if op == "while":
            n = trip_count(instr) if executed else None
            for attribute, times in (("body", n or 1), ("condition", n + 1 if n else 1)):
                for callee in called_names(instr, attribute):
                    if module.has_computation(callee):
                        total += times * fold(module, callee, values, executed, memo)
            continue
        parts = [
            fold(module, c, values, executed, memo)
            for a in _STEP_ATTRIBUTES[op]
            for c in called_names(instr, a)
            if module.has_computation(c)
        ]
        if parts:
            total += max(parts) if op == "conditional" else sum(parts)
    memo[name] = total
    return total


def trip_count(instr: Instruction) -> int | None:
    """A ``while``'s ``known_trip_count`` from its backend config (None if absent)."""
    config = instr.backend_config
    if not isinstance(config, dict):
        return None
    known = config.get("known_trip_count")
    value = known.get("n") if isinstance(known, dict) else known
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def step_executions(
    module: Module, model: CostModel, entry: Computation
) -> tuple[dict[str, int], list[LoopCount]]:
    """Each computation that runs as top-level steps, with how often one run of
    the module executes it; and every loop with its trip count."""
    executions = {entry.name: 1}
    loops: list[LoopCount] = []
    order = [entry.name]
    i = 0
    while i < len(order):
        comp = module.computation(order[i])
        count = executions[order[i]]
        i += 1
        for instr in comp.instructions:
            attributes = _STEP_ATTRIBUTES.get(instr.opcode)
            if attributes is None:
                continue
            trips = trip_count(instr) if instr.opcode == "while" else None
            if instr.opcode == "while":
                loops.append(LoopCount(instr.name, comp.name, trips))
            for attribute in attributes:
                for name in called_names(instr, attribute):
                    if not module.has_computation(name):
                        continue
                    times = count
                    if instr.opcode == "while":
                        extra = attribute == "condition" and trips is not None
                        times = count * ((trips or 1) + extra)
                    if name not in executions:
                        order.append(name)
                    executions[name] = executions.get(name, 0) + times
    return executions, loops


def executed_totals(
    module: Module, model: CostModel, name: str, memo: dict[str, tuple[float, float, float]]
) -> tuple[float, float, float]:
    """A computation's totals with loop bodies scaled by their trip counts."""
    if name in memo:
        return memo[name]
    memo[name] = (0.0, 0.0, 0.0)
    comp = module.computation(name)
    total = [0.0, 0.0, 0.0]
    for instr in comp.instructions:
        op = instr.opcode
        if op in _STEP_ATTRIBUTES:
            if op == "while":
                n = trip_count(instr)
                body = _callee(instr, "body")
                cond = _callee(instr, "condition")
                parts = [(body, n or 1), (cond, (n + 1) if n is not None else 1)]
                for callee, times in parts:
                    if callee and module.has_computation(callee):
                        sub = executed_totals(module, model, callee, memo)
                        for k in range(3):
                            total[k] += sub[k] * times
                continue
            callees = [
                c
                for a in _STEP_ATTRIBUTES[op]
                for c in called_names(instr, a)
                if module.has_computation(c)
            ]
            subs = [executed_totals(module, model, c, memo) for c in callees]
            if subs:
                combine = max if op == "conditional" else sum
                for k in range(3):
                    total[k] += combine(s[k] for s in subs)
            continue
        props = model.price(instr, comp)
        total[0] += props.flops
        total[1] += props.transcendentals
        total[2] += props.bytes_accessed
    result = (total[0], total[1], total[2])
    memo[name] = result
    return result


def _callee(instr: Instruction, attribute: str) -> str | None:
    names = called_names(instr, attribute)
    return names[0] if names else None
