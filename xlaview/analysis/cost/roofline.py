"""Each op on a roofline: how long it takes at best on a device, and what bounds it.

An op's time is ``max(work / peak, bytes / bandwidth)``: ``work`` its FLOPs
plus transcendentals (counted one each: no vendor publishes a transcendental
rate), ``peak`` the rate of its precision on that device
(`xlaview.analysis.cost.devices.peak_for`), ``bytes`` what it moves to and from main
memory (`OpCost.memory_bytes`). It is compute-bound when the first term wins.
Times are lower bounds, as XLA's own ``optimal_seconds`` are: no launch
overhead, no imperfect overlap. Module times add ops up the way the cost totals
do (`ModuleCost.fold`); an op's share is of the *executed* time, loop bodies
counted as often as they run.
"""

from __future__ import annotations

from dataclasses import dataclass

from xlaview.analysis.cost.devices import Device, peak_for
from xlaview.analysis.cost.totals import ModuleCost, OpCost
from xlaview.collector import gc_paused


@dataclass(frozen=True, slots=True)
class OpRoofline:
    """One op on the roofline, one execution of it.

    ``bound`` is ``compute``, ``memory``, or ``unknown`` for a custom call
    nobody can price. ``share`` is the op's part of the module's executed time
    (its time x executions / the executed total).
    """

    name: str
    intensity: float | None
    time_s: float
    compute_time_s: float
    memory_time_s: float
    bound: str
    precision: str
    peak_flops: float
    share: float


class Roofline:
    """A module's ops placed on one device's roofline."""

    __slots__ = ("_by_name", "_cost", "device", "executed_time_s", "ops", "time_s")

    def __init__(self, cost: ModuleCost, device: Device) -> None:
        self.device = device
        self._cost = cost
        first = {op.name: _place(op, device, 0.0) for op in cost.ops}
        times = {name: r.time_s for name, r in first.items()}
        self.time_s = cost.fold(times)
        self.executed_time_s = cost.fold(times, executed=True)
        self.ops = tuple(_with_share(first[op.name], op, self.executed_time_s) for op in cost.ops)
        self._by_name = {r.name: r for r in self.ops}

    def op(self, name: str) -> OpRoofline | None:
        """Any instruction on the roofline, fused ones included (None if unpriced)."""
        name = name.lstrip("%")
        found = self._by_name.get(name)
        if found is None:
            cost = self._cost.op(name)
            if cost is None:
                return None
            found = _with_share(_place(cost, self.device, 0.0), cost, self.executed_time_s)
            self._by_name[name] = found
        return found


def roofline(cost: ModuleCost, device: Device) -> Roofline:
    """Place every top-level op of ``cost`` on ``device``'s roofline."""
    with gc_paused():
        return Roofline(cost, device)


def _place(op: OpCost, device: Device, share: float) -> OpRoofline:
    peak, precision = peak_for(device, op.element_type, op.matrix, op.highest_precision)
    work = op.flops + op.transcendentals
    compute = work / peak
    memory = op.memory_bytes / device.memory_bandwidth
    bound = "unknown" if not op.known else "compute" if compute > memory else "memory"
    intensity = work / op.memory_bytes if op.memory_bytes else None
    return OpRoofline(
        op.name, intensity, max(compute, memory), compute, memory, bound, precision, peak, share
    )


def _with_share(placed: OpRoofline, op: OpCost, total: float) -> OpRoofline:
    share = placed.time_s * op.executions / total if total > 0 else 0.0
    return OpRoofline(
        placed.name,
        placed.intensity,
        placed.time_s,
        placed.compute_time_s,
        placed.memory_time_s,
        placed.bound,
        placed.precision,
        placed.peak_flops,
        share,
    )
