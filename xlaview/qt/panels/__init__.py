"""The analysis panels, one module each: Changes, Traffic, Memory, Search,
Compare and Problems. Each shows a core result and turns clicks into requests
(an instruction, a pass) that the window hands to the view model."""

from xlaview.qt.panels.changes import ChangesPanel
from xlaview.qt.panels.compare import CompareView
from xlaview.qt.panels.memory import MemoryPanel
from xlaview.qt.panels.problems import ProblemsView
from xlaview.qt.panels.search import SearchPanel
from xlaview.qt.panels.traffic import TrafficPanel

__all__ = ["ChangesPanel", "CompareView", "MemoryPanel", "ProblemsView", "SearchPanel",
           "TrafficPanel"]
