"""Measured time beside the static estimate, per op: the profile of a module.

The static side (FLOPs, bytes, roofline time of one execution on a device)
comes from the cost analysis; the measured side from `measure`. An op's
achieved rates divide its static work by its mean measured time, and the
fraction of the roofline reached is roofline time over mean measured time
(1.0: as fast as the device's peaks allow).

Ops inside a ``while`` body run once per iteration and are timed once per
iteration, so their rates are per iteration too. The ``while`` op itself (a
``call``, a ``conditional``) is timed over all it runs, and its static work is
what it runs: its body as many times as its known trip count says (once when
unknown), so its rates and fraction of the roofline compare like with like.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from xlaview.profile.measure import ModuleTime, OpTime


class StaticCost(Protocol):
    """What the cost analysis says of one execution of an op."""

    @property
    def flops(self) -> float: ...

    @property
    def bytes_accessed(self) -> float: ...

    @property
    def time_s(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class OpProfile:
    """One op: measured (``count`` events, ``measured_s`` in all, ``self_s``
    without the op events nested in it, ``share`` of the module's measured
    time) beside its static cost per execution (None where unknown)."""

    name: str
    count: int
    measured_s: float
    self_s: float
    share: float
    flops: float | None
    bytes_accessed: float | None
    time_s: float | None

    @property
    def mean_s(self) -> float:
        return self.measured_s / self.count if self.count else 0.0

    @property
    def achieved_flops_per_s(self) -> float | None:
        return _rate(self.flops, self.mean_s)

    @property
    def achieved_bytes_per_s(self) -> float | None:
        return _rate(self.bytes_accessed, self.mean_s)

    @property
    def roofline_fraction(self) -> float | None:
        """Roofline time over measured mean time (1.0: at the roofline)."""
        return _rate(self.time_s, self.mean_s)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "count": self.count,
            "measured_s": self.measured_s,
            "mean_s": self.mean_s,
            "flops": self.flops,
            "bytes_accessed": self.bytes_accessed,
            "time_s": self.time_s,
            "achieved_flops_per_s": self.achieved_flops_per_s,
            "achieved_bytes_per_s": self.achieved_bytes_per_s,
            "roofline_fraction": self.roofline_fraction,
        }


def _rate(amount: float | None, seconds: float) -> float | None:
    if amount is None or seconds <= 0:
        return None
    return amount / seconds


@dataclass(frozen=True, slots=True)
class ModuleProfile:
    """The profile of one module of a dump.

    ``device`` is the device of the roofline (None: no roofline),
    ``trace_device`` the device measured (None: every device, summed;
    ``devices`` lists those that ran the module). The rest is as in
    `ModuleTime`: ``measured_s`` sums the outermost op events, ``matched_s``
    those naming an instruction, ``unmatched`` lists the ops that name none.
    """

    module: str
    module_id: int | None
    device: str | None
    trace_device: str | None
    devices: tuple[str, ...]
    runs: int
    measured_s: float
    matched_s: float
    ops: tuple[OpProfile, ...]
    unmatched: tuple[OpTime, ...]
    matched_by: str
    shared_with: tuple[int, ...]

    def op(self, name: str) -> OpProfile | None:
        for op in self.ops:
            if op.name == name:
                return op
        return None

    def to_json(self) -> dict[str, object]:
        """The ``xlaview profile --json`` document."""
        return {
            "module": self.module,
            "device": self.device,
            "runs": self.runs,
            "measured_s": self.measured_s,
            "matched_s": self.matched_s,
            "unmatched": [
                {"name": t.name, "count": t.count, "measured_s": t.measured_s}
                for t in self.unmatched
            ],
            "ops": [op.to_json() for op in self.ops],
        }


def combine(
    measured: ModuleTime, costs: Mapping[str, StaticCost], device: str | None = None
) -> ModuleProfile:
    """The measured time of a module beside the static cost of its ops
    (``costs`` by instruction name, for roofline ``device``)."""
    total = measured.measured_s
    ops = []
    for t in measured.ops:
        cost = costs.get(t.name)
        ops.append(
            OpProfile(
                t.name,
                t.count,
                t.measured_s,
                t.self_s,
                t.measured_s / total if total else 0.0,
                cost.flops if cost is not None else None,
                cost.bytes_accessed if cost is not None else None,
                cost.time_s if cost is not None else None,
            )
        )
    return ModuleProfile(
        measured.module,
        measured.module_id,
        device,
        measured.device,
        measured.devices,
        measured.runs,
        measured.measured_s,
        measured.matched_s,
        tuple(ops),
        measured.unmatched,
        measured.matched_by,
        measured.shared_with,
    )
