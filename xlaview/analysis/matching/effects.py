"""What the differences between two matched modules do: each match's change
in FLOPs, bytes, roofline time and traffic, and the changes ranked by their
effect on the estimated time and on memory.

Both modules are priced on one device (the caller's choice: the one the first
dump was compiled for), so that a difference is the program's, not the
device's. Memory here is what the ops write to main memory as materialized
intermediates (`xlaview.analysis.traffic`): a value a fusion keeps inside is
not in it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xlaview.analysis.cost.devices import Device
from xlaview.analysis.cost.roofline import Roofline, roofline
from xlaview.analysis.cost.totals import ModuleCost
from xlaview.analysis.matching.facts import PLUMBING, moves_data
from xlaview.analysis.matching.instructions import InstructionMatching, Match
from xlaview.analysis.traffic import Intermediate, Traffic, analyze_traffic
from xlaview.dump.reports import ModuleReports
from xlaview.hlo import Module

DELTA_KEYS = ("flops", "bytes_accessed", "time_s", "traffic_bytes")
_CALLING = frozenset(("while", "call", "conditional"))


class PricedModule:
    """One side of a comparison: the module, its cost, its ops on the
    device's roofline, its traffic; each entry op's figures on request."""

    __slots__ = ("_figures", "_written", "cost", "module", "roofline", "traffic")

    def __init__(self, module: Module, cost: ModuleCost, roofline: Roofline, traffic: Traffic):
        self.module, self.cost, self.roofline, self.traffic = module, cost, roofline, traffic
        entry = module.entry
        self._written: dict[str, list[Intermediate]] = {}
        self._figures: dict[str, dict[str, float | int | None]] = {}
        for i in traffic.intermediates:
            if entry is not None and i.computation == entry.name:
                self._written.setdefault(i.producer_instruction, []).append(i)

    def figures(self, name: str) -> dict[str, float | int | None]:
        """``flops``, ``bytes_accessed``, ``time_s`` (None: a cost nobody
        knows) and ``traffic_bytes`` (of the values it writes) of one run of
        op ``name``: a ``while``, ``call`` or ``conditional`` with the work of
        what it runs (loop bodies by their trip counts). Memoized: an op is
        asked for by its match and by the change it is part of."""
        found = self._figures.get(name)
        if found is not None:
            return found
        op = self.cost.top_level(name)
        run = self.cost.run_totals(name) if op is not None and op.opcode in _CALLING else None
        time: float | None = 0.0
        if op is not None and not op.known:
            time = None
        elif run is not None:
            time = self.roofline.run_time(name)
        elif op is not None:
            placed = self.roofline.op(name)
            time = placed.time_s if placed is not None else None
        work = run if run is not None else op
        found = self._figures[name] = {
            "flops": work.flops if work is not None else 0,
            "bytes_accessed": work.bytes_accessed if work is not None else 0,
            "time_s": time,
            "traffic_bytes": sum(i.traffic_bytes for i in self._written.get(name, ())),
        }
        return found

    def written(self, name: str) -> list[Intermediate]:
        """The materialized intermediates op ``name`` writes."""
        return self._written.get(name, [])

    @classmethod
    def priced(
        cls,
        module: Module,
        cost: ModuleCost,
        device: Device,
        reports: ModuleReports | Callable[[], ModuleReports | None] | None = None,
    ) -> PricedModule:
        """``module`` with its cost placed on ``device`` and its traffic
        (``reports``: its buffer assignment, for a module's final pass)."""
        return cls(module, cost, roofline(cost, device), analyze_traffic(module, reports, cost))


@dataclass(frozen=True, slots=True)
class Effect:
    """One change and what it does: ``what`` it is (``merged fusion``,
    ``split fusion``, ``changed layout``, ``new copy``, ``new all-gather``,
    ``removed materialized intermediate``...), the ops of each side it
    concerns, the change in roofline time (None when an op's cost is
    unknown) and in materialized bytes, and those intermediates as (side,
    producer, shape, bytes)."""

    what: str
    a: tuple[str, ...]
    b: tuple[str, ...]
    delta_time_s: float | None
    delta_memory_bytes: int
    intermediates: tuple[tuple[str, str, str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "a": list(self.a),
            "b": list(self.b),
            "delta_time_s": self.delta_time_s,
            "delta_memory_bytes": self.delta_memory_bytes,
            "intermediates": [
                {"side": side, "producer": producer, "shape": shape, "bytes": size}
                for side, producer, shape, size in self.intermediates
            ],
        }


class InstructionComparison:
    """A matching with its figures: ``deltas`` per match (second minus first,
    `DELTA_KEYS`), ``summary`` (the `Effect`s, largest first)."""

    __slots__ = ("deltas", "matching", "summary")

    def __init__(
        self,
        matching: InstructionMatching,
        deltas: dict[str, dict[str, float | int | None]],
        summary: tuple[Effect, ...],
    ) -> None:
        self.matching, self.deltas, self.summary = matching, deltas, summary

    def to_json(self) -> dict[str, Any]:
        document = self.matching.to_json()
        for match in document["matches"]:
            match["delta"] = self.deltas[match["a"]]
        document["summary"] = [e.to_json() for e in self.summary]
        return document


def compare_instructions(
    matching: InstructionMatching, a: PricedModule, b: PricedModule
) -> InstructionComparison:
    """The figures of ``matching`` between ``a`` and ``b`` (priced on one device)."""
    deltas = {m.a: _delta(a.figures(m.a), b.figures(m.b)) for m in matching.matches}
    effects: list[Effect] = []
    for g in matching.merges:
        effects.append(_effect("merged fusion", g.a, g.b, a, b))
    for g in matching.splits:
        effects.append(_effect("split fusion", g.a, g.b, a, b))
    for m in matching.matches:
        if matching.group_in_b(m.a) is not None or matching.group_in_a(m.b) is not None:
            continue  # told as part of its split or merge
        effect = _effect(_what_changed(m, a, b), (m.a,), (m.b,), a, b)
        if m.aspects or effect.delta_memory_bytes or effect.delta_time_s:
            effects.append(effect)
    for name in matching.only_a:
        effect = _effect(_what_alone("removed", name, a), (name,), (), a, b)
        if _worth_telling(effect, a.module, name):
            effects.append(effect)
    for name in matching.only_b:
        effect = _effect(_what_alone("new", name, b), (), (name,), a, b)
        if _worth_telling(effect, b.module, name):
            effects.append(effect)
    total_time = max(a.roofline.executed_time_s, b.roofline.executed_time_s, 1e-12)
    total_bytes = max(
        sum(i.bytes for i in a.traffic.intermediates),
        sum(i.bytes for i in b.traffic.intermediates),
        1,
    )

    def weight(e: Effect) -> float:
        return abs(e.delta_time_s or 0.0) / total_time + abs(e.delta_memory_bytes) / total_bytes

    effects.sort(key=weight, reverse=True)
    return InstructionComparison(matching, deltas, tuple(effects))


def _delta(
    fa: dict[str, float | int | None], fb: dict[str, float | int | None]
) -> dict[str, float | int | None]:
    out: dict[str, float | int | None] = {}
    for key in DELTA_KEYS:
        va, vb = fa[key], fb[key]
        out[key] = None if va is None or vb is None else vb - va
    return out


def _effect(
    what: str, names_a: tuple[str, ...], names_b: tuple[str, ...], a: PricedModule, b: PricedModule
) -> Effect:
    time: float | None = 0.0
    for priced, names, sign in ((a, names_a, -1), (b, names_b, 1)):
        for name in names:
            t = priced.figures(name)["time_s"]
            time = None if t is None or time is None else time + sign * t
    # The values written on both sides alike (the same shape) are no change.
    before = [i for n in names_a for i in a.written(n)]
    after = [i for n in names_b for i in b.written(n)]
    common = Counter(i.shape for i in before) & Counter(i.shape for i in after)
    listed = []
    for side, values in (("a", before), ("b", after)):
        alike = Counter(common)
        for i in values:
            if alike[i.shape] > 0:
                alike[i.shape] -= 1
            else:
                listed.append((side, i.producer, i.shape, i.bytes))
    memory = sum(size if side == "b" else -size for side, _, _, size in listed)
    return Effect(what, names_a, names_b, time, memory, tuple(listed))


def _what_changed(m: Match, a: PricedModule, b: PricedModule) -> str:
    if "layout" in m.aspects:
        return "changed layout"
    if m.aspects:
        return "changed " + ", ".join(m.aspects)
    before, after = len(a.written(m.a)), len(b.written(m.b))
    return (
        "new materialized intermediate" if after > before else "removed materialized intermediate"
    )


def _what_alone(sign: str, name: str, side: PricedModule) -> str:
    entry = side.module.entry
    assert entry is not None
    instr = entry.instruction(name)
    moved = moves_data(side.module, instr)
    if moved is not None:
        return f"{sign} {moved}"
    if side.written(name):
        return f"{sign} materialized intermediate"
    return f"{sign} {'fusion' if instr.opcode == 'fusion' else instr.opcode}"


def _worth_telling(effect: Effect, module: Module, name: str) -> bool:
    entry = module.entry
    assert entry is not None
    opcode = entry.instruction(name).opcode
    if opcode in PLUMBING:
        return bool(effect.delta_memory_bytes)
    return True
