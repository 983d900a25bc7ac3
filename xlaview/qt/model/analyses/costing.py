"""What the shown pass's ops cost, and what a profile measured of them.

Part of the view model, like `xlaview.qt.model.analyses.changes.Analyses`: it reads the
model's state, runs its work through ``model.submit`` (so that a result for a
pass, module or folder the user has left is dropped like any other), and
views subscribe to its signals.

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
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.cost.totals import ModuleCost
from xlaview.analysis.cost.devices import Device, DeviceChoice
from xlaview.analysis.cost.devices import device as device_named
from xlaview.analysis.cost.roofline import Roofline
from xlaview.dump.index import DumpFile, DumpIndex, DumpModule, Problem
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
from xlaview.qt.figures import seconds

if TYPE_CHECKING:
    from xlaview.qt.model.view_model import ViewModel

COSTS_KEPT = 3  # priced module files kept: each holds its parsed module alive
HEAT_MODES = ("off", "estimate", "measured")


class Costing(QObject):
    cost_ready = Signal(object)  # CostShown | None
    device_changed = Signal(object, bool)  # Device | None (the dump's), chosen by the user
    profile_ready = Signal(object)  # ProfileShown | None
    heat_changed = Signal(object, object, object)  # title | None, values, label function

    def __init__(self, model: ViewModel) -> None:
        super().__init__(model)
        self.model = model
        self.shown: CostShown | None = None
        self.chosen: Device | None = None  # the user's device; None: the dump's
        self.heat_mode = "off"
        self._heat_on = False  # the graph is coloured by time
        self.trace: Trace | None = None
        self.measured: Measured | None = None
        self.profile: ModuleProfile | None = None
        self._kinds: dict[str, str] = {}
        self._wants: set[str] = set()
        self._costs: OrderedDict[DumpFile, tuple[Module, ModuleCost]] = OrderedDict()
        # Pricing asked for (the file, the device, the pass's generation) and not back yet.
        self._asked: tuple[DumpFile, str | None, tuple[int, ...]] | None = None
        self._root: Path | None = None
        model.index_changed.connect(self._on_index_changed)
        model.module_changed.connect(self._on_module_changed)
        model.pass_shown.connect(self._on_pass_shown)
        # Priced once the pass's graph is drawn: the worker lays that out first.
        model.graph_shown.connect(lambda _shown: self._request())
        model.selection_changed.connect(lambda selection: selection and self._request())
        model.fusion_shown.connect(lambda _shown: self._emit_heat())

    # ================================================================ what views ask
    def want(self, reason: str, on: bool) -> None:
        """A view needs the cost of the shown pass (``on``) or no longer does."""
        if on:
            self._wants.add(reason)
            self._request()
        else:
            self._wants.discard(reason)

    def set_device(self, name: str | None) -> None:
        """Place the ops on another device's roofline (None: the one the dump names)."""
        self.chosen = device_named(name) if name else None
        shown = self.shown
        self.device_changed.emit(self.chosen or (shown.detected.device if shown else None),
                                 self.chosen is not None)
        self._asked = None
        self._request()
        if self.measured is not None:
            self._combine()

    def set_heat(self, mode: str) -> None:
        """Colour the graph by estimated time, measured time, or not (``off``)."""
        if mode not in HEAT_MODES:
            raise ValueError(f"heat mode {mode!r}: one of {', '.join(HEAT_MODES)}")
        self.heat_mode = mode
        self.want("heat", mode != "off")
        self._emit_heat()

    def open_trace(self, path: str | Path) -> None:
        """Read a trace taken elsewhere and join it to the dump (never writes)."""
        self.model.status.emit(f"reading the trace {path} …")
        self.model.submit("folder", "trace", read_trace, Path(path), on_done=self._trace_read)

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
        return {**op.to_json(), "self_s": op.self_s, "share": op.share,
                "device": self.profile.device, "runs": self.profile.runs}

    # ================================================================ cost
    def _wanted(self) -> bool:
        return bool(self._wants) or self.model.selection is not None

    def _shown_file(self) -> DumpFile | None:
        model = self.model
        if model.module is None or model.loaded is None or model.pass_key is None \
                or model.text_pass != model.pass_key:
            return None
        return model.module.file_at(model.pass_key)

    def _request(self) -> None:
        """Price the shown pass if a view wants it and it is not priced yet."""
        dump_file = self._shown_file()
        if dump_file is None or not self._wanted():
            return
        shown, chosen = self.shown, self.chosen
        device = chosen.name if chosen else None
        if shown is not None and shown.file == dump_file and shown.chosen == (chosen is not None) \
                and (chosen is None or shown.device == chosen):
            return
        if self._asked == (dump_file, device, self.model.jobs.stamp("pass")):
            return
        module = self.model.loaded.module
        cached = self._costs.get(dump_file)
        if cached is not None and cached[0] is module:
            self._submit_price(dump_file, module, cached[1])
            return
        self._asked = (dump_file, device, self.model.jobs.stamp("pass"))
        self.model.jobs.after_paint(
            "pass", "cost", lambda: self._submit_price(dump_file, module, None))

    def _submit_price(self, dump_file: DumpFile, module: Module, cost: ModuleCost | None) -> None:
        pass_key = self.model.pass_key
        self._asked = (dump_file, self.chosen.name if self.chosen else None,
                       self.model.jobs.stamp("pass"))
        # Reporting progress lets a step away stop it (half a second on a 45 MB pass).
        self.model.submit(
            "pass", "cost", price, module, dump_file.path, self.chosen, cost,
            on_done=lambda result: self._priced(pass_key, dump_file, module, *result),
            on_error=self._price_failed, on_progress=lambda _fraction: None)

    def _price_failed(self, error: BaseException) -> None:
        self._asked = None
        self.model.job_failed(error)

    def _priced(self, pass_key: str, dump_file: DumpFile, module: Module, cost: ModuleCost,
                detected: DeviceChoice, roof: Roofline) -> None:
        self._asked = None
        if roof.device != (self.chosen or detected.device):
            self._submit_price(dump_file, module, cost)  # the device changed meanwhile
            return
        self._costs[dump_file] = (module, cost)
        self._costs.move_to_end(dump_file)
        while len(self._costs) > COSTS_KEPT:
            self._costs.popitem(last=False)
        first = self.shown is None or self.shown.detected != detected
        self.shown = CostShown(pass_key, dump_file, module, cost, roof, detected,
                               self.chosen is not None)
        if first:
            self.device_changed.emit(roof.device, self.chosen is not None)
        self.cost_ready.emit(self.shown)
        self._emit_heat()
        self._redescribe()

    def _redescribe(self) -> None:
        """The selection described again with what came (its cost, its measured
        time): the inspector shows it; nothing else moves."""
        model = self.model
        selection, loaded = model.selection, model.loaded
        if selection is None or loaded is None or model.text_pass != model.pass_key:
            return
        described = model.analyses.describe(loaded.module, selection.name, selection.computation)
        model.selection = replace(selection, described=described, center=False)
        model.selection_described.emit(model.selection)

    # ================================================================ profile
    def _on_pass_shown(self, _shown: object) -> None:
        if self.measured is not None:
            self._emit_profile()
            if self.heat_mode == "measured":
                self._emit_heat()

    def _on_index_changed(self, index: DumpIndex | None) -> None:
        root = index.root if index is not None else None
        if root == self._root:
            return  # the same folder indexed again (it is being written)
        self._root = root
        self._costs.clear()
        self.chosen = None
        self.trace = None
        self._set_measured(None)
        if root is not None and root.is_dir():
            self.model.submit("folder", "trace", read_found_trace, root, on_done=self._trace_read)

    def _on_module_changed(self, module: DumpModule | None, _points: Any) -> None:
        self.shown = None
        self._asked = None
        self.cost_ready.emit(None)
        self._set_measured(None)
        self._emit_heat()
        if module is not None and self.trace is not None:
            self._measure()

    def _trace_read(self, trace: Trace | None) -> None:
        self.trace = trace
        if trace is None:
            return
        timed = len(trace.module_names)
        self.model.status.emit(f"trace {trace.path}: {trace.events:,} events, {timed} "
                               f"module{'s' * (timed != 1)} timed")
        self._measure()

    def _measure(self) -> None:
        model, trace = self.model, self.trace
        dump_module = model.module
        if trace is None or dump_module is None or model.index is None:
            return
        ran = executed_file(dump_module)
        if ran is None:
            self._say(f"{dump_module.title}: no HLO text in the dump to join the trace to")
            return
        cached = self._costs.get(ran)
        model.submit("module", "measure", measure, model.cache, trace, model.index,
                     dump_module, ran, cached[1] if cached else None, on_done=self._set_measured,
                     on_progress=lambda _fraction: None)

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
        self.model.submit("module", "profile", profile_of, measured, device,
                          on_done=self._profiled)

    def _profiled(self, result: tuple[ModuleProfile, dict[str, str]]) -> None:
        profile, self._kinds = result
        self.profile = profile
        self._emit_profile()
        if self.heat_mode == "measured":
            self._emit_heat()
        if not profile.ops:
            timed = ", ".join(self.trace.module_names[:8]) if self.trace else ""
            self._say(f"the trace times no op of {profile.module} "
                      f"(it timed: {timed or 'no HLO op at all'})", problem=True)
        self._redescribe()

    def _emit_profile(self) -> None:
        if self.trace is None or self.measured is None or self.profile is None:
            return  # nothing joined yet: what is shown stays until it is
        ran = self._ran_pass()
        self.profile_ready.emit(ProfileShown(self.trace, self.profile, ran,
                                             self._profile_applies(), self._notes(), self._kinds))

    def _ran_pass(self) -> str | None:
        measured, module = self.measured, self.model.module
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
            notes.append("no % of roofline: the dump names no accelerator; pick the device "
                         "the trace ran on to compare with its peaks")
        if profile.unmatched:
            notes.append(f"{len(profile.unmatched)} timed ops name no instruction of this "
                         "module (listed last)")
        return tuple(notes)

    def _say(self, message: str, problem: bool = False) -> None:
        self.model.status.emit(message)
        if problem:
            where = str(self.trace.path) if self.trace is not None else ""
            self.model.problems_added.emit([Problem(where, message)])

    # ================================================================ heat
    def _emit_heat(self) -> None:
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
            self.heat_changed.emit(f"measured self time, {runs} run{'s' * (runs != 1)}",
                                   {op.name: op.self_s for op in self.profile.ops}, seconds)
        else:
            title = ("measured time: no profile loaded" if self.profile is None else
                     f"measured time: shown on the pass that ran ({self._ran_pass()})")
            self.heat_changed.emit(title, {}, seconds)

    def _estimated_times(self) -> dict[str, float]:
        """Each top-level op's roofline time as often as it runs, and the
        instructions of the fusion shown (priced as XLA prices them alone)."""
        shown = self.shown
        if shown is None:
            return {}
        cost, roof = shown.cost, shown.roof
        values = {op.name: placed.time_s * op.executions
                  for op, placed in zip(cost.ops, roof.ops, strict=True)}
        body = self.model.fusion_computation
        if body and shown.module.has_computation(body):
            for instr in shown.module.computation(body).instructions:
                op, placed = cost.op(instr.name), roof.op(instr.name)
                if op is not None and placed is not None:
                    values[instr.name] = placed.time_s * op.executions
        return values
