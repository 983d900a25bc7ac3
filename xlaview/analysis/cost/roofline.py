"""Each op on a roofline: how long it takes at best on a device, and what bounds it.

An op's time is the largest of three terms: ``work / peak``, ``bytes /
bandwidth`` and, for a collective, ``wire / interconnect``. ``work`` is its
FLOPs plus transcendentals, each transcendental counted as one operation (no
vendor publishes a transcendental rate; XLA's cost model counts them apart
from FLOPs, and the intensity here, work per byte, uses the same sum).
``peak`` is the rate of its precision on that device
(`xlaview.analysis.cost.devices.peak_for`), ``bytes`` what it moves to and
from main memory (`OpCost.memory_bytes`: HBM, never on-chip VMEM/SMEM),
``bandwidth`` the device's for that working set (`Device.bandwidth_for`: HBM
on accelerators, the cache tier on a calibrated CPU), ``wire`` what each
device sends for a collective (`xlaview.analysis.cost.collectives`). The
bound is the term that wins: ``compute``, ``memory``, ``interconnect``, or
``unknown`` for a custom call nobody can price (its time is then not known,
and it is left out of shares).

Times are lower bounds, as XLA's own ``optimal_seconds`` are: no launch
overhead, no imperfect overlap. A library kernel (`OpCost.opaque`) is placed
at what its operands and result move; ``interior_time_s`` says how long it
would take if the values between the stages of its body went through memory
too. Module times add ops up the way the cost totals do (`ModuleCost.fold`);
an op's share is of the *executed* time, loop bodies counted as often as
they run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from xlaview import units
from xlaview.analysis.cost.devices import Device, peak_for
from xlaview.analysis.cost.totals import ModuleCost, OpCost
from xlaview.collector import gc_paused
from xlaview.units import human_bytes


@dataclass(frozen=True, slots=True)
class OpRoofline:
    """One op on the roofline, one execution of it.

    ``bound`` is ``compute``, ``memory``, ``interconnect``, or ``unknown`` for
    a custom call nobody can price (its times are then 0: not known).
    ``share`` is the op's part of the module's executed time (its time x
    executions / the executed total). ``interior_time_s`` is the time of a
    library kernel whose interior goes through memory (None for other ops).
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
    interconnect_time_s: float = 0.0
    interior_time_s: float | None = None
    bandwidth: float = 0.0  # the memory bandwidth its memory time used

    @property
    def known(self) -> bool:
        return self.bound != "unknown"


class Roofline:
    """A module's ops placed on one device's roofline."""

    __slots__ = ("_by_name", "_cost", "device", "executed_time_s", "ops", "time_s")

    def __init__(self, cost: ModuleCost, device: Device) -> None:
        self.device = device
        self._cost = cost
        # Each op timed once, then placed once with its share of the total
        # (placed, then copied with its share: 0.1-0.2 s of a U-Net's 18,000 ops).
        timed = [_timed(op, device) for op in cost.ops]
        times = {op.name: t.time for op, t in zip(cost.ops, timed, strict=True)}
        self.time_s = cost.fold(times)
        self.executed_time_s = cost.fold(times, executed=True)
        total = self.executed_time_s
        self.ops = tuple(_place(op, t, total) for op, t in zip(cost.ops, timed, strict=True))
        self._by_name = {r.name: r for r in self.ops}

    def run_time(self, name: str) -> float | None:
        """The time of one run of a ``while``, ``call`` or ``conditional``:
        its callees' op times, loop bodies by their trip counts (None for any
        other op)."""
        times = {r.name: r.time_s for r in self.ops}
        return self._cost.run_fold(name, times)

    def op(self, name: str) -> OpRoofline | None:
        """Any instruction on the roofline, fused ones included (None if unpriced)."""
        name = name.lstrip("%")
        found = self._by_name.get(name)
        if found is None:
            cost = self._cost.op(name)
            if cost is None:
                return None
            found = _place(cost, _timed(cost, self.device), self.executed_time_s)
            self._by_name[name] = found
        return found


def roofline(cost: ModuleCost, device: Device) -> Roofline:
    """Place every top-level op of ``cost`` on ``device``'s roofline."""
    with gc_paused():
        return Roofline(cost, device)


class _Timed(NamedTuple):
    """An op's times on a device (`_timed`), before its share is known."""

    peak: float
    precision: str
    compute: float
    memory: float
    interconnect: float
    time: float
    bandwidth: float
    interior: float | None


def _timed(op: OpCost, device: Device) -> _Timed:
    peak, precision = peak_for(device, op.element_type, op.matrix, op.precision)
    compute = (op.flops + op.transcendentals) / peak
    bandwidth = device.bandwidth_for(op.memory_bytes)
    memory = op.memory_bytes / bandwidth
    interconnect = 0.0
    if op.collective is not None and device.interconnect_bandwidth:
        interconnect = op.collective.wire_bytes / device.interconnect_bandwidth
    time = max(compute, memory, interconnect)
    interior = None
    if op.opaque and op.interior_bytes:
        inside = op.memory_bytes + op.interior_bytes
        interior = max(time, inside / device.bandwidth_for(inside))
    return _Timed(peak, precision, compute, memory, interconnect, time, bandwidth, interior)


def _place(op: OpCost, t: _Timed, total: float) -> OpRoofline:
    """``op`` on the roofline, its share of an executed ``total`` time."""
    if not op.known:
        bound = "unknown"
    elif t.interconnect >= t.time and t.interconnect > 0:
        bound = "interconnect"
    else:
        bound = "compute" if t.compute > t.memory else "memory"
    work = op.flops + op.transcendentals
    return OpRoofline(
        op.name,
        work / op.memory_bytes if op.memory_bytes else None,
        t.time,
        t.compute,
        t.memory,
        bound,
        t.precision,
        t.peak,
        t.time * op.executions / total if total > 0 else 0.0,
        t.interconnect,
        t.interior,
        t.bandwidth,
    )


def headline(cost: ModuleCost, roof: Roofline) -> list[str]:
    """What a module's figures say, in plain lines (the command line's
    header, the window's Cost tab): the executed figure first when loops run
    their bodies more than once, then what the figures leave out."""
    lines = []
    total, executed = cost.totals, cost.executed
    hbm = sum(op.memory_bytes for op in cost.ops)
    on_chip = total.bytes_accessed - hbm
    memory = roof.device.memory
    traffic = sum(op.memory_bytes * op.executions for op in cost.ops)
    work = (
        f"{units.count(executed.flops, 'FLOP')}, "
        f"{units.count(executed.transcendentals)} transcendentals, "
        f"{human_bytes(traffic)} of {memory} traffic"
    )
    if executed != total:
        lines.append(
            f"executed (each loop body × its trip count): {work}; "
            f"{units.seconds(roof.executed_time_s)} at best"
        )
        lines.append(
            f"one iteration of each loop (XLA's totals): {units.count(total.flops, 'FLOP')}, "
            f"{human_bytes(hbm)} of {memory} traffic; {units.seconds(roof.time_s)}"
        )
    else:
        lines.append(f"{work}; {units.seconds(roof.time_s)} at best")
    if on_chip > 0:
        lines.append(
            f"and {human_bytes(on_chip)} on chip (VMEM, SMEM) or on the host, in no time above"
        )
    unknown_loops = [loop.name for loop in cost.loops if loop.trip_count is None]
    if unknown_loops:
        lines.append(
            f"loops without a known trip count (counted once): {units.elided(unknown_loops)}"
        )
    unknown = cost.unknown_ops
    if unknown:
        named = [f"{op.kind} ({op.name})" for op in unknown]
        lines.append(
            f"{len(unknown)} ops of unknown cost: {units.elided(named)}: "
            "left out of the totals, times and shares"
        )
    opaque = [(op, roof.op(op.name)) for op in cost.ops if op.opaque and op.interior_bytes]
    if opaque:
        inside = sum(op.interior_bytes * op.executions for op, _ in opaque)
        slowest = max(
            (placed.interior_time_s or 0.0) * op.executions for op, placed in opaque if placed
        )
        lines.append(
            f"library kernels hide their interior ({units.elided([op.name for op, _ in opaque])}): "
            f"{human_bytes(inside)} pass between the stages of their bodies if the library "
            f"materializes them in {memory}, {units.seconds(slowest)} at best for "
            f"{'it' if len(opaque) == 1 else 'the slowest'} then (the boundaries list them, inside)"
        )
    return lines
