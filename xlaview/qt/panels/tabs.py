"""The Analysis dock's tabs: Traffic, Cost, Profile, Memory, Search, Problems,
Compare.

Each panel shows a result of the view model's analyses and hands clicks back
to it (an instruction to select, a problem's file to open).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from xlaview.errors import Problem
from xlaview.qt.model.records import Selection
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.panels.compare import CompareView
from xlaview.qt.panels.cost import CostPanel
from xlaview.qt.panels.memory import MemoryPanel
from xlaview.qt.panels.problems import ProblemsView
from xlaview.qt.panels.profile import ProfilePanel
from xlaview.qt.panels.search import SearchPanel
from xlaview.qt.panels.traffic import TrafficPanel

__all__ = ["AnalysisTabs"]

COST_TAB_HEIGHT = 380  # the table's top rows and a readable roofline plot


class AnalysisTabs(QTabWidget):
    shown_wanted = Signal()  # something worth seeing arrived (the first problems)
    room_wanted = Signal(int)  # a tab needs this much height (the Cost tab's plot), once

    def __init__(self, model: ViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("analysisTabs")
        self.model = model
        self.traffic = TrafficPanel(self)
        self.cost = CostPanel(self)
        self.profile = ProfilePanel(self)
        self.memory = MemoryPanel(self)
        self.search = SearchPanel(self)
        self.problems = ProblemsView(self)
        self.compare = CompareView(self)
        for widget, title in (
            (self.traffic, "Traffic"),
            (self.cost, "Cost"),
            (self.profile, "Profile"),
            (self.memory, "Memory"),
            (self.search, "Search"),
            (self.problems, "Problems"),
            (self.compare, "Compare"),
        ):
            self.addTab(widget, title)
        self._problems_seen = False
        self._room_asked = False

        select = model.select_instruction
        model.changes.traffic_ready.connect(self.traffic.set_traffic)
        self.traffic.instruction_requested.connect(select)
        model.boundaries.boundaries_ready.connect(self.traffic.set_boundaries)
        self.traffic.wanted_changed.connect(model.boundaries.set_wanted)
        self.traffic.fusion_requested.connect(model.show_fusion)
        model.module_info.memory_ready.connect(self.memory.set_timeline)
        model.module_info.memory_shown.connect(self.memory.set_memory)
        self.memory.instruction_requested.connect(select)
        costing = model.costing
        costing.cost_ready.connect(self.cost.set_cost)
        costing.device_changed.connect(self.cost.set_device)
        costing.profile_ready.connect(self.cost.set_profile)
        costing.profile_ready.connect(self.profile.set_profile)
        self.cost.instruction_requested.connect(select)
        self.cost.device_requested.connect(costing.set_device)
        self.cost.heat_requested.connect(costing.set_heat)
        costing.heat_mode_changed.connect(self.cost.show_heat_mode)
        self.cost.shown_changed.connect(self._on_cost_shown)
        self.profile.instruction_requested.connect(select)
        model.selection_changed.connect(self._on_selection_changed)
        self.search.instruction_requested.connect(select)
        self.search.query_changed.connect(self.run_search)
        model.search.search_ready.connect(self.search.set_hits)
        model.compare.compare_ready.connect(self.compare.set_comparisons)
        model.problems_reset.connect(self._on_problems_reset)
        model.problems_added.connect(self._on_problems_added)
        self.problems.problem_activated.connect(self._on_problem_activated)

    def _on_cost_shown(self, on: bool) -> None:
        self.model.costing.want("cost tab", on)
        if on and not self._room_asked:
            self._room_asked = True
            self.room_wanted.emit(COST_TAB_HEIGHT)

    def run_search(self, query: str) -> None:
        """Find instructions of the shown pass (see `xlaview.analysis.search`)."""
        self.setCurrentWidget(self.search)
        self.search.show_query(query)
        self.model.search.search(query)

    def _on_selection_changed(self, selection: Selection | None) -> None:
        self.memory.chart.select(selection.name if selection else None)
        self.cost.select(selection.name if selection else None)

    def _on_problems_reset(self, problems: list[Problem]) -> None:
        self._problems_seen = False
        self.problems.set_problems(problems)
        self._update_problems_tab()

    def _on_problems_added(self, problems: list[Problem]) -> None:
        self.problems.add_problems(problems)
        self._update_problems_tab()

    def _update_problems_tab(self) -> None:
        count = len(self.problems.problems)
        index = self.indexOf(self.problems)
        self.setTabText(index, f"Problems ({count})" if count else "Problems")
        if count and not self._problems_seen:
            self._problems_seen = True  # shown once; the user decides after that
            self.setCurrentIndex(index)
            self.shown_wanted.emit()

    def _on_problem_activated(self, problem: Problem) -> None:
        index = self.model.index
        if index is None:
            return
        path = index.root / problem.path
        module = index.module_of(path)
        if module is not None:
            point = next((p for p in module.points() if p.file.path == path), None)
            self.model.reveal(module, point.key if point else None, problem.line)
