"""The static side of a profile: each op's cost and roofline time on a device
(`xlaview.analysis.cost.totals`, `xlaview.analysis.cost.roofline`), and the one call that
joins a trace to a dump module."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from xlaview.analysis.cost.devices import Device, detect_device
from xlaview.analysis.cost.devices import device as device_named
from xlaview.analysis.cost.roofline import Roofline, roofline
from xlaview.analysis.cost.totals import ModuleCost, module_cost
from xlaview.dump.records import DumpIndex, DumpModule
from xlaview.hlo import Module
from xlaview.profile.join import LoadModule, executed_file, measure_dump_module, parse_dump_file
from xlaview.profile.report import ModuleProfile, combine
from xlaview.profile.trace import Trace


@dataclass(frozen=True, slots=True)
class StaticOp:
    """One execution of an op as the cost analysis prices it: XLA's FLOPs
    (transcendentals apart, as in ``xlaview cost``), bytes accessed, and the
    roofline time (None without a roofline device). For a ``while``, ``call``
    or ``conditional``, what one run of it executes: its body as many times as
    the loop's trip count says, so that its achieved rates are of that work."""

    flops: float
    bytes_accessed: float
    time_s: float | None


class StaticCosts(Mapping[str, StaticOp]):
    """The static cost of any instruction of a module by name, priced on demand
    (a trace names a few hundred ops of a module of hundreds of thousands)."""

    def __init__(self, cost: ModuleCost, line: Roofline | None) -> None:
        self._cost = cost
        self._roofline = line
        self._found: dict[str, StaticOp | None] = {}

    def _price(self, name: str) -> StaticOp | None:
        if name not in self._found:
            run = self._cost.run_totals(name)
            if run is not None:  # a loop, call or conditional: what one run of it executes
                line = self._roofline
                self._found[name] = StaticOp(
                    run.flops, run.bytes_accessed, line.run_time(name) if line else None
                )
                return self._found[name]
            op = self._cost.op(name)
            placed = self._roofline.op(name) if self._roofline is not None and op else None
            self._found[name] = (
                None
                if op is None or not op.known
                else StaticOp(
                    op.flops, op.bytes_accessed, placed.time_s if placed is not None else None
                )
            )
        return self._found[name]

    def __getitem__(self, name: str) -> StaticOp:
        found = self._price(name)
        if found is None:
            raise KeyError(name)
        return found

    def get(self, name: str, default: object = None) -> StaticOp | None:  # type: ignore[override]
        found = self._price(name)
        return found if found is not None else default  # type: ignore[return-value]

    def __iter__(self) -> Iterator[str]:
        return iter(op.name for op in self._cost.ops)

    def __len__(self) -> int:
        return len(self._cost.ops)


def roofline_device(module: Module, path: str | Path | None, name: str | None) -> Device | None:
    """The device of the roofline: ``name`` if given (`UnknownDeviceError` if
    unknown), else the one the dump was compiled for (an XLA:CPU dump: this
    machine's CPU, measured), else None: a measured time against the peaks of
    a chip the dump does not name would mean nothing."""
    if name is not None:
        return device_named(name)
    choice = detect_device(module, path)
    return choice.device if choice.detected else None


def static_costs(
    module: Module, device: Device | None, cost: ModuleCost | None = None
) -> StaticCosts:
    """The static cost of ``module``'s instructions, on ``device``'s roofline
    (None: FLOPs and bytes only). ``cost`` if the caller has it already."""
    cost = cost if cost is not None else module_cost(module)
    return StaticCosts(cost, roofline(cost, device) if device is not None else None)


def profile_dump_module(
    trace: Trace,
    index: DumpIndex,
    dump_module: DumpModule,
    module: Module | None = None,
    device: str | None = None,
    trace_device: str | None = None,
    load: LoadModule = parse_dump_file,
    cost: ModuleCost | None = None,
) -> ModuleProfile:
    """The profile of ``dump_module``: its measured time on ``trace_device``
    (None: all devices, summed) beside the static cost of its ops, with the
    roofline of ``device`` (a name of `xlaview.analysis.cost.devices.DEVICES`;
    None: the accelerator the dump was compiled for, or no roofline for a CPU
    dump).

    ``module`` is the parsed executed HLO and ``cost`` its `module_cost` if
    the caller has them already. Pure and possibly slow (it parses and prices
    HLO): run it off the GUI thread. Raises `UnknownDeviceError` for an
    unknown ``device``, KeyError for a module with no HLO text.
    """
    dump_file = executed_file(dump_module)
    if module is None:
        if dump_file is None:
            raise KeyError(f"{dump_module.key} has no HLO text to join the trace to")
        module = load(dump_file)
    roof = roofline_device(module, dump_file.path if dump_file else None, device)
    measured = measure_dump_module(trace, index, dump_module, module, trace_device, load)
    return combine(measured, static_costs(module, roof, cost), roof.name if roof else None)
