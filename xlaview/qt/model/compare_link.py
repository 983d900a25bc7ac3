"""Two windows, one dump each, compared op by op: the passes each shows
matched (`xlaview.analysis.matching`), the selection of one followed in the
other through the matches, and the changes ranked for a table.

The link owns no window: it hears two view models and asks them to select.
Each time either side shows another pass, the pair is matched again off the
GUI thread (a stale result never lands: the first side's ``compare`` scope is
bumped with each request).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.cost.devices import Device, detect_device
from xlaview.analysis.cost.totals import ModuleCost, module_cost
from xlaview.analysis.matching import (
    Effect,
    InstructionComparison,
    PricedModule,
    compare_instructions,
    match_instructions,
)
from xlaview.dump.reports import load_reports
from xlaview.hlo import Module
from xlaview.qt.model.analyses.cost_records import CostShown
from xlaview.qt.model.view_model import ViewModel

SIDES = ("a", "b")
# How an op of one side stands in the other, as the graph and the text mark
# it: the strongest first (a folded group shows its strongest member's).
MARK_KINDS = ("only", "regrouped", "changed")


@dataclass(frozen=True, slots=True)
class LinkShown:
    """A comparison of the passes the two sides show: ``passes`` (side ->
    pass key), ``marks`` (side -> op -> one of `MARK_KINDS`; an op matched
    unchanged is not in it), ``computations`` (side -> the computation matched)."""

    comparison: InstructionComparison
    passes: dict[str, str]
    computations: dict[str, str]
    marks: dict[str, dict[str, str]]

    @property
    def changes(self) -> tuple[Effect, ...]:
        return self.comparison.summary


class CompareLink(QObject):
    compared = Signal(object)  # LinkShown | None
    followed = Signal(str, str)  # side that followed, what it says (an op only on the other side)

    def __init__(self, a: ViewModel, b: ViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.sides = {"a": a, "b": b}
        self.shown: LinkShown | None = None
        self._asked: tuple[Any, ...] | None = None
        self._driving = False  # a change's two selections are being made
        for side, model in self.sides.items():
            model.pass_shown.connect(lambda _shown: self.request())
            model.selection_changed.connect(
                lambda selection, side=side: self._follow(side, selection)
            )
        a.module_changed.connect(lambda module, _points: self._module_in_b(module))
        b.index_changed.connect(lambda _index: self._module_in_b(a.module))

    # ================================================================ matching
    def request(self) -> None:
        """Match the two passes on screen again (when both show one)."""
        a, b = self.sides["a"], self.sides["b"]
        if any(m.loaded is None or m.text_pass != m.pass_key for m in (a, b)):
            return
        assert a.loaded is not None and b.loaded is not None
        module_a, module_b = a.loaded.module, b.loaded.module
        asked = (module_a, module_b, a.costing.chosen)
        if asked == self._asked:
            return
        self._asked = asked
        passes = {"a": a.text_pass or "", "b": b.text_pass or ""}
        priced_a = _priced(a, module_a)
        device = a.costing.chosen or (priced_a.detected.device if priced_a else None)
        a.jobs.bump("compare")
        a.jobs.submit(
            "compare",
            "op-compare",
            compare_passes,
            (module_a, module_b),
            device,
            a.current_file_key(),
            tuple(_reports_of(m) for m in (a, b)),
            (priced_a.cost if priced_a else None, _cost_of(b, module_b)),
            on_done=lambda comparison: self._compared(comparison, passes),
            on_error=self._failed,
        )

    def _failed(self, error: BaseException) -> None:
        self._asked = None
        self.sides["a"].notices.job_failed(error)

    def _compared(self, comparison: InstructionComparison, passes: dict[str, str]) -> None:
        matching = comparison.matching
        marks: dict[str, dict[str, str]] = {"a": {}, "b": {}}
        for m in matching.matches:
            if m.changed:
                marks["a"][m.a] = marks["b"][m.b] = "changed"
        for group in (*matching.splits, *matching.merges):
            marks["a"].update(dict.fromkeys(group.a, "regrouped"))
            marks["b"].update(dict.fromkeys(group.b, "regrouped"))
        marks["a"].update(dict.fromkeys(matching.only_a, "only"))
        marks["b"].update(dict.fromkeys(matching.only_b, "only"))
        computations = {"a": matching.computation_a, "b": matching.computation_b}
        self.shown = LinkShown(comparison, passes, computations, marks)
        self.compared.emit(self.shown)
        a, b = self.sides["a"], self.sides["b"]
        if a.selection is not None and b.selection is None:  # chosen before the match came
            self._follow("a", a.selection)

    # ================================================================ selection
    def counterpart(self, side: str, name: str) -> str | None:
        """The op of the other side that op ``name`` of ``side`` is (its
        match, else the first op of its split or merge); None: only here."""
        if self.shown is None:
            return None
        matching = self.shown.comparison.matching
        match = matching.in_b(name) if side == "a" else matching.in_a(name)
        if match is not None:
            return match.b if side == "a" else match.a
        group = matching.group_in_b(name) if side == "a" else matching.group_in_a(name)
        if group is not None:
            return (group.b if side == "a" else group.a)[0]
        return None

    def _follow(self, side: str, selection: Any) -> None:
        if self._driving or selection is None or self.shown is None:
            return
        other = "b" if side == "a" else "a"
        target_model = self.sides[other]
        if selection.computation != self.shown.computations[side]:
            # Inside a called computation: the same name there, if it has one.
            loaded = target_model.loaded
            if loaded is not None and loaded.module.find(selection.name) is not None:
                self._select(other, selection.name, None)
            return
        target = self.counterpart(side, selection.name)
        if target is None:
            label = "first" if side == "a" else "second"
            self.followed.emit(other, f"{selection.name} is only in the {label} dump")
            return
        self._select(other, target, self.shown.computations[other])

    def _select(self, side: str, name: str, computation: str | None) -> None:
        model = self.sides[side]
        current = model.selection
        if current is not None and current.name == name:
            return
        self._driving = True
        try:
            model.select_instruction(name, computation)
        finally:
            self._driving = False

    def select_change(self, row: int) -> None:
        """Select the ops of change ``row`` of the ranked table on both sides."""
        if self.shown is None or not 0 <= row < len(self.shown.changes):
            return
        change = self.shown.changes[row]
        for side, names in (("a", change.a), ("b", change.b)):
            if names:
                self._select(side, names[0], self.shown.computations[side])

    def _module_in_b(self, module: Any) -> None:
        """The first side shows another module: the second its module of that name."""
        b = self.sides["b"]
        if module is None or module.name is None or b.index is None:
            return
        if b.module is not None and b.module.name == module.name:
            return
        if any(m.name == module.name for m in b.index.modules):
            b.select_module(module.name)

    def state(self, side: str = "a") -> dict[str, Any]:
        """What `MainWindow.view_state` of ``side``'s window says of the
        comparison: ``other`` is the other side's folder."""
        other = _root(self.sides["b" if side == "a" else "a"])
        shown = self.shown
        if shown is None:
            return {"other": other, "passes": None}
        matching = shown.comparison.matching
        return {
            "other": other,
            "passes": dict(shown.passes),
            "computations": dict(shown.computations),
            "matched": len(matching.matches),
            "counts": matching.counts(),
            "only_a": list(matching.only_a),
            "only_b": list(matching.only_b),
            "changes": [e.to_json() for e in shown.changes],
        }


def _root(model: ViewModel) -> str | None:
    return str(model.index.root) if model.index is not None else None


def _reports_of(model: ViewModel) -> Callable[[], Any] | None:
    """The module's reports, for its final pass (which they describe)."""
    module = model.module
    if module is None or model.text_pass != "after":
        return None
    return lambda: load_reports(module)


def _priced(model: ViewModel, module: Module) -> CostShown | None:
    """The side's pricing of ``module``, if its Cost tab has it already."""
    shown = model.costing.shown
    return shown if shown is not None and shown.module is module else None


def _cost_of(model: ViewModel, module: Module) -> ModuleCost | None:
    priced = _priced(model, module)
    return priced.cost if priced is not None else None


def compare_passes(
    modules: tuple[Module, Module],
    device: Device | None,
    path_a: str,
    reports: tuple[Callable[[], Any] | None, Callable[[], Any] | None],
    costs: tuple[ModuleCost | None, ModuleCost | None] = (None, None),
) -> InstructionComparison:
    """The two modules matched op by op and priced on ``device`` (None: the
    one the first was compiled for, read from ``path_a``); ``costs``: a
    side's cost already made (None: made here)."""
    made = tuple(
        c if c is not None else module_cost(m) for m, c in zip(modules, costs, strict=True)
    )
    if device is None:
        device = detect_device(modules[0], path_a or None, made[0].platform).device
    priced = [
        PricedModule.priced(module, cost, device, report)
        for module, cost, report in zip(modules, made, reports, strict=True)
    ]
    return compare_instructions(match_instructions(*modules), *priced)
