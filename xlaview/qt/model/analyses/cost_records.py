"""What the Cost and Profile views are handed, and the pure work behind it
(run off the GUI thread by `xlaview.qt.model.analyses.costing.Costing`): a pass priced on a
device's roofline, a trace joined to a module of the dump.

Pricing a 45 MB module builds some million records; they are frozen out of
the cyclic collector's sight as the job ends (`xlaview.qt.model.workers.settle`,
while collection is still paused), or the next collection walks them all on
the GUI thread: 0.8 s measured on gpt48."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xlaview.analysis.cost.cpu_device import caveats_on
from xlaview.analysis.cost.devices import Device, DeviceChoice, detect_device
from xlaview.analysis.cost.roofline import Roofline, roofline
from xlaview.analysis.cost.totals import ModuleCost, module_cost
from xlaview.dump.modules import ModuleCache
from xlaview.dump.records import DumpFile, DumpIndex, DumpModule
from xlaview.hlo import Module
from xlaview.profile import (
    ModuleProfile,
    Trace,
    combine,
    find_trace,
    measure_dump_module,
    read_trace,
    static_costs,
)
from xlaview.profile.measure import ModuleTime
from xlaview.qt.model.workers import settle


@dataclass(frozen=True, slots=True)
class CostShown:
    """The shown pass's ops priced and placed on a device's roofline.
    ``detected`` is what the dump says of its device; ``chosen`` whether the
    user picked the device instead; ``caveats`` what an XLA:CPU module priced
    on an accelerator leaves out (`cpu_device.caveats_on`)."""

    pass_key: str
    file: DumpFile
    module: Module
    cost: ModuleCost
    roof: Roofline
    detected: DeviceChoice
    chosen: bool
    caveats: tuple[str, ...] = ()

    @property
    def device(self) -> Device:
        return self.roof.device


@dataclass(frozen=True, slots=True)
class Measured:
    """A trace joined to a module of the dump: what it measured of the HLO
    that ran (``file``), with that HLO's cost."""

    dump_module: DumpModule
    file: DumpFile
    module: Module
    cost: ModuleCost
    detected: DeviceChoice
    time: ModuleTime


@dataclass(frozen=True, slots=True)
class ProfileShown:
    """A trace and what it measured of the shown module (``profile`` None: it
    timed nothing of it). ``applies`` says the shown pass is the HLO that ran,
    ``ran_pass`` which pass that is; ``notes`` what the join noticed."""

    trace: Trace
    profile: ModuleProfile | None
    ran_pass: str | None
    applies: bool
    notes: tuple[str, ...]
    kinds: dict[str, str]  # timed op -> its kind as the cost tables name it
    # The roofline's device as the Cost tab names it (None: no roofline), and
    # the one the Cost tab assumes when the dump names none.
    device_title: str | None = None
    assumed: str | None = None


def price(
    module: Module,
    path: Path,
    device: Device | None,
    cost: ModuleCost | None = None,
    progress: Callable[[float], None] | None = None,
) -> tuple[ModuleCost, DeviceChoice, Roofline, tuple[str, ...]]:
    """A module's cost (unless given), the device its dump names, the
    roofline on ``device`` (None: that one) and the caveats of pricing it
    there. Run off the GUI thread (a CPU dump may calibrate this machine's
    CPU, seconds, once); ``progress`` may stop it (see `module_cost`)."""
    if cost is None:
        cost = module_cost(module, progress=progress)
        settle()
    detected = detect_device(module, path, cost.platform)
    chosen = device or detected.device
    return cost, detected, roofline(cost, chosen), tuple(caveats_on(chosen, module, path))


def read_found_trace(root: Path) -> Trace | None:
    """The trace `xlaview.collect(profile=N)` left in a dump folder, read (None: none)."""
    found = find_trace(root)
    return read_trace(found) if found is not None else None


def measure(
    cache: ModuleCache,
    trace: Trace,
    index: DumpIndex,
    dump_module: DumpModule,
    dump_file: DumpFile,
    cost: ModuleCost | None,
    progress: Callable[[float], None] | None = None,
) -> Measured:
    """What ``trace`` measured of ``dump_module`` (whose executed HLO is
    ``dump_file``), with that HLO's cost. Run off the GUI thread."""
    module = cache.load(dump_file).module
    if cost is None:
        cost = module_cost(module, progress=progress)
        settle()
    time = measure_dump_module(
        trace, index, dump_module, module, load=lambda f: cache.load(f).module
    )
    return Measured(
        dump_module,
        dump_file,
        module,
        cost,
        detect_device(module, dump_file.path, cost.platform),
        time,
    )


def profile_of(measured: Measured, device: Device | None) -> tuple[ModuleProfile, dict[str, str]]:
    """The measured time beside the static cost on ``device`` (None: no
    roofline), as `xlaview.profile.profile_dump_module` joins them; and the
    kind of each timed op."""
    costs = static_costs(measured.module, device, measured.cost)
    profile = combine(measured.time, costs, device.name if device is not None else None)
    kinds = {}
    for op in profile.ops:
        priced = measured.cost.op(op.name)
        kinds[op.name] = priced.kind if priced is not None else ""
    return profile, kinds
