"""What the shown pass's ops cost, and what a profile measured of them.

Part of the view model: it reads what is shown (`xlaview.qt.model.host.Shown`),
runs its work through the model's jobs (so that a result for a pass, module or
folder the user has left is dropped like any other), hears the model's steps
from the view model, and views subscribe to its signals.

The cost of a pass (`xlaview.analysis.cost.totals.module_cost`, ~0.5 s on a 45 MB
module) is computed only when a view needs it: the Cost tab is shown, the
graph is coloured by time, or an instruction is inspected. It is kept per
module file (a few, each holds its parsed module alive); a new device only
places the ops on another roofline. A trace (`xlaview.profile`) is found in
the dump's ``trace/`` folder or opened from elsewhere, read once, and joined
to the shown module; its figures are of the HLO that ran (the
after-optimizations dump), so they apply to that pass only.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.cost.cpu_device import calibration_cached
from xlaview.analysis.cost.devices import CPU, Device, DeviceChoice
from xlaview.analysis.cost.devices import device as device_named
from xlaview.analysis.cost.roofline import Roofline
from xlaview.analysis.cost.totals import ModuleCost
from xlaview.dump.modules import ModuleCache
from xlaview.dump.records import DumpFile, DumpIndex, DumpModule
from xlaview.errors import Problem
from xlaview.hlo import Module
from xlaview.profile import ModuleProfile, Trace, executed_file, read_trace
from xlaview.qt.model.analyses.cost_records import (
    CostShown,
    Measured,
    ProfileShown,
    measure,
    price,
    profile_of,
    read_found_trace,
)
from xlaview.qt.model.host import JobHost, Notices, Shown
from xlaview.units import seconds

COSTS_KEPT = 3  # priced module files kept: each holds its parsed module alive
HEAT_MODES = ("off", "estimate", "measured")


class Costing(QObject):
    cost_ready = Signal(object)  # CostShown | None
    device_changed = Signal(object, bool)  # Device | None (the dump's), chosen by the user
    profile_ready = Signal(object)  # ProfileShown | None
    heat_changed = Signal(object, object, object)  # title | None, values, label function
    heat_mode_changed = Signal(str)  # one of HEAT_MODES: what "Colour the graph by" shows
    # What the inspector says of an op may have changed: its cost or its
    # measured time came.
    described_changed = Signal()

    def __init__(
        self,
        jobs: JobHost,
        notices: Notices,
        shown: Shown,
        cache: ModuleCache,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._jobs, self._notices, self._shown, self._cache = jobs, notices, shown, cache
        self.shown: CostShown | None = None
        self.chosen: Device | None = None  # the user's device; None: the dump's
        self.heat_mode = "off"
        self._heat_on = False  # the graph is coloured by time
        self.trace: Trace | None = None
        self.measured: Measured | None = None
        self.profile: ModuleProfile | None = None
        self._profile_device: Device | None = None  # the profile's roofline
        self._kinds: dict[str, str] = {}
        self._wants: set[str] = set()
        self._costs: OrderedDict[DumpFile, tuple[Module, ModuleCost]] = OrderedDict()
        # Pricing asked for (the file, the device, the pass's generation) and not back yet.
        self._asked: tuple[DumpFile, str | None, tuple[int, ...]] | None = None
        self._root: Path | None = None

    # ================================================================ what views ask
    def want(self, reason: str, on: bool) -> None:
        """A view needs the cost of the shown pass (``on``) or no longer does."""
        if on:
            self._wants.add(reason)
            self.request()
        else:
            self._wants.discard(reason)

    def set_device(self, name: str | None) -> None:
        """Place the ops on another device's roofline (None: the one the dump
        names). ``cpu`` is measured off the GUI thread the first time (seconds)."""
        if name and name.strip().lower() == CPU and not calibration_cached():
            self._notices.say("measuring this machine's CPU (once; cached for later runs) …")
            self._jobs.submit("folder", "device", device_named, CPU, on_done=self._use_device)
            return
        self._use_device(device_named(name) if name else None)

    def _use_device(self, dev: Device | None) -> None:
        self.chosen = dev
        shown = self.shown
        self.device_changed.emit(
            self.chosen or (shown.detected.device if shown else None), self.chosen is not None
        )
        self._asked = None
        self.request()
        if self.measured is not None:
            self._combine()

    def set_heat(self, mode: str) -> None:
        """Colour the graph by estimated time, measured time, or not (``off``)."""
        if mode not in HEAT_MODES:
            raise ValueError(f"heat mode {mode!r}: one of {', '.join(HEAT_MODES)}")
        if mode != self.heat_mode:
            self.heat_mode = mode
            self.heat_mode_changed.emit(mode)
        self.want("heat", mode != "off")
        self.emit_heat()

    def open_trace(self, path: str | Path) -> None:
        """Read a trace taken elsewhere and join it to the dump (never writes)."""
        self._notices.say(f"reading the trace {path} …")
        self._jobs.submit("folder", "trace", read_trace, Path(path), on_done=self._trace_read)

    def priced(self, module: Module) -> tuple[ModuleCost | None, Roofline | None]:
        """The cost and roofline of ``module`` if it is the pass priced last."""
        shown = self.shown
        if shown is not None and shown.module is module:
            return shown.cost, shown.roof
        return None, None

    def measured_of(self, name: str) -> dict[str, Any] | None:
        """What the profile measured of an op of the shown pass, as the
        inspector shows it (None: nothing, or the shown pass is not the HLO
        that ran)."""
        if self.profile is None or not self._profile_applies():
            return None
        op = self.profile.op(name)
        if op is None:
            return None
        return {
            **op.to_json(),
            "self_s": op.self_s,
            "share": op.share,
            "device": self.profile.device,
            "runs": self.profile.runs,
        }

    # ================================================================ cost
    def _wanted(self) -> bool:
        return bool(self._wants) or self._shown.selection is not None

    def _shown_file(self) -> DumpFile | None:
        model = self._shown
        if (
            model.module is None
            or model.loaded is None
            or model.pass_key is None
            or model.text_pass != model.pass_key
        ):
            return None
        return model.module.file_at(model.pass_key)

    def request(self) -> None:
        """Price the shown pass if a view wants it and it is not priced yet
        (the view model asks once the pass's graph is drawn, or an op is
        selected: the worker lays the graph out first)."""
        dump_file = self._shown_file()
        if dump_file is None or not self._wanted():
            return
        shown, chosen = self.shown, self.chosen
        device = chosen.name if chosen else None
        if (
            shown is not None
            and shown.file == dump_file
            and shown.chosen == (chosen is not None)
            and (chosen is None or shown.device == chosen)
        ):
            return
        if self._asked == (dump_file, device, self._jobs.stamp("pass")):
            return
        loaded = self._shown.loaded
        assert loaded is not None  # (a shown file has its parse)
        module = loaded.module
        cached = self._costs.get(dump_file)
        if cached is not None and cached[0] is module:
            self._submit_price(dump_file, module, cached[1])
            return
        self._asked = (dump_file, device, self._jobs.stamp("pass"))
        self._jobs.after_paint("pass", "cost", lambda: self._submit_price(dump_file, module, None))

    def _submit_price(self, dump_file: DumpFile, module: Module, cost: ModuleCost | None) -> None:
        pass_key = self._shown.pass_key
        assert pass_key is not None
        self._asked = (
            dump_file,
            self.chosen.name if self.chosen else None,
            self._jobs.stamp("pass"),
        )
        # Reporting progress lets a step away stop it (half a second on a 45 MB pass).
        self._jobs.submit(
            "pass",
            "cost",
            price,
            module,
            dump_file.path,
            self.chosen,
            cost,
            on_done=lambda result: self._priced(pass_key, dump_file, module, *result),
            on_error=self._price_failed,
            on_progress=lambda _fraction: None,
        )

    def _price_failed(self, error: BaseException) -> None:
        self._asked = None
        self._notices.job_failed(error)

    def _priced(
        self,
        pass_key: str,
        dump_file: DumpFile,
        module: Module,
        cost: ModuleCost,
        detected: DeviceChoice,
        roof: Roofline,
        caveats: tuple[str, ...],
    ) -> None:
        self._asked = None
        if roof.device != (self.chosen or detected.device):
            self._submit_price(dump_file, module, cost)  # the device changed meanwhile
            return
        if dump_file not in self._costs and cost.problems:
            self._notices.add_problems(
                [replace(problem, path=dump_file.rel) for problem in cost.problems]
            )
        self._costs[dump_file] = (module, cost)
        self._costs.move_to_end(dump_file)
        while len(self._costs) > COSTS_KEPT:
            self._costs.popitem(last=False)
        first = self.shown is None or self.shown.detected != detected
        self.shown = CostShown(
            pass_key, dump_file, module, cost, roof, detected, self.chosen is not None, caveats
        )
        if first:
            self.device_changed.emit(roof.device, self.chosen is not None)
        self.cost_ready.emit(self.shown)
        self.emit_heat()
        self.described_changed.emit()

    # ================================================================ what the view model says
    def pass_shown(self) -> None:
        if self.measured is not None:
            self._emit_profile()
            if self.heat_mode == "measured":
                self.emit_heat()

    def index_changed(self, index: DumpIndex | None) -> None:
        root = index.root if index is not None else None
        if root == self._root:
            return  # the same folder indexed again (it is being written)
        self._root = root
        self._costs.clear()
        self.chosen = None
        self.trace = None
        self._set_measured(None)
        if self.heat_mode == "measured":  # another folder: no trace of it read yet
            self.set_heat("off")
        if root is not None and root.is_dir():
            self._jobs.submit("folder", "trace", read_found_trace, root, on_done=self._trace_read)

    def module_changed(self, module: DumpModule | None) -> None:
        self.shown = None
        self._asked = None
        self.cost_ready.emit(None)
        self._set_measured(None)
        self.emit_heat()
        if module is not None and self.trace is not None:
            self._measure()

    def _trace_read(self, trace: Trace | None) -> None:
        self.trace = trace
        if trace is None:
            return
        timed = len(trace.module_names)
        self._notices.say(
            f"trace {trace.path}: {trace.events:,} events, {timed} module{'s' * (timed != 1)} timed"
        )
        self._measure()

    def _measure(self) -> None:
        model, trace = self._shown, self.trace
        dump_module = model.module
        if trace is None or dump_module is None or model.index is None:
            return
        ran = executed_file(dump_module)
        if ran is None:
            self._say(f"{dump_module.title}: no HLO text in the dump to join the trace to")
            return
        cached = self._costs.get(ran)
        self._jobs.submit(
            "module",
            "measure",
            measure,
            self._cache,
            trace,
            model.index,
            dump_module,
            ran,
            cached[1] if cached else None,
            on_done=self._set_measured,
            on_progress=lambda _fraction: None,
        )

    def _set_measured(self, measured: Measured | None) -> None:
        self.measured = measured
        if measured is None:
            self.profile = None
            self.profile_ready.emit(None)
            return
        if measured.file not in self._costs:
            self._costs[measured.file] = (measured.module, measured.cost)
        self._combine()

    def _combine(self) -> None:
        measured = self.measured
        if measured is None:
            return
        device = self.chosen or (measured.detected.device if measured.detected.detected else None)
        self._profile_device = device
        self._jobs.submit("module", "profile", profile_of, measured, device, on_done=self._profiled)

    def _profiled(self, result: tuple[ModuleProfile, dict[str, str]]) -> None:
        profile, self._kinds = result
        self.profile = profile
        self._emit_profile()
        if self.heat_mode == "measured":
            self.emit_heat()
        if not profile.ops:
            timed = ", ".join(self.trace.module_names[:8]) if self.trace else ""
            self._say(
                f"the trace times no op of {profile.module} "
                f"(it timed: {timed or 'no HLO op at all'})",
                problem=True,
            )
        self.described_changed.emit()

    def _emit_profile(self) -> None:
        if self.trace is None or self.measured is None or self.profile is None:
            return  # nothing joined yet: what is shown stays until it is
        ran = self._ran_pass()
        device = self._profile_device
        assumed = None if device is not None else (self.chosen or self.measured.detected.device)
        self.profile_ready.emit(
            ProfileShown(
                self.trace,
                self.profile,
                ran,
                self._profile_applies(),
                self._notes(),
                self._kinds,
                device.title if device is not None else None,
                assumed.title if assumed is not None else None,
            )
        )

    def _ran_pass(self) -> str | None:
        measured, module = self.measured, self._shown.module
        if measured is None or module is None:
            return None
        return next((p.key for p in module.points() if p.file.path == measured.file.path), None)

    def _profile_applies(self) -> bool:
        measured = self.measured
        return measured is not None and self._shown_file() == measured.file

    def _notes(self) -> tuple[str, ...]:
        notes = list(self.trace.notes) if self.trace else []
        profile = self.profile
        if profile is None:
            return tuple(notes)
        if profile.shared_with:
            others = ", ".join(f"module_{i:04d}" for i in profile.shared_with)
            notes.append(f"some runs fit {others} as well (same op names) and count for each")
        if profile.device is None:
            notes.append(
                "no % of roofline: the dump names no accelerator; pick the device "
                "the trace ran on to compare with its peaks"
            )
        if profile.unmatched:
            notes.append(
                f"{len(profile.unmatched)} timed ops name no instruction of this "
                "module (listed last)"
            )
        return tuple(notes)

    def _say(self, message: str, problem: bool = False) -> None:
        self._notices.say(message)
        if problem:
            where = str(self.trace.path) if self.trace is not None else ""
            self._notices.add_problems([Problem(where, message)])

    # ================================================================ heat
    def emit_heat(self) -> None:
        """The graph's colours for what is shown (the fused body shown changed, say)."""
        mode = self.heat_mode
        if mode == "off":
            if self._heat_on:  # a graph recoloured for nothing repaints for nothing
                self._heat_on = False
                self.heat_changed.emit(None, {}, seconds)
            return
        self._heat_on = True
        if mode == "estimate":
            shown = self.shown
            title = f"estimated time on {shown.device.title}" if shown else "estimated time …"
            self.heat_changed.emit(title, self._estimated_times(), seconds)
        elif self.profile is not None and self._profile_applies():
            runs = self.profile.runs
            self.heat_changed.emit(
                f"measured self time, {runs} run{'s' * (runs != 1)}",
                {op.name: op.self_s for op in self.profile.ops},
                seconds,
            )
        else:
            title = (
                "measured time: no profile loaded"
                if self.profile is None
                else f"measured time: shown on the pass that ran ({self._ran_pass()})"
            )
            self.heat_changed.emit(title, {}, seconds)

    def _estimated_times(self) -> dict[str, float]:
        """Each top-level op's roofline time as often as it runs, and the
        instructions of the fusion shown (priced as XLA prices them alone)."""
        shown = self.shown
        if shown is None:
            return {}
        cost, roof = shown.cost, shown.roof
        values = {
            op.name: placed.time_s * op.executions
            for op, placed in zip(cost.ops, roof.ops, strict=True)
        }
        body = self._shown.fusion_computation
        if body and shown.module.has_computation(body):
            for instr in shown.module.computation(body).instructions:
                op, placed = cost.op(instr.name), roof.op(instr.name)
                if op is not None and placed is not None:
                    values[instr.name] = placed.time_s * op.executions
        return values
