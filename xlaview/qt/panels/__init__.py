"""The analysis panels, one module each: Changes, Traffic, Cost (with its
roofline plot), Profile, Memory, Search, Compare and Problems. Each shows a core result and turns clicks into requests
(an instruction, a pass) that the window hands to the view model."""

from xlaview.qt.panels.changes import ChangesPanel
from xlaview.qt.panels.compare import CompareView
from xlaview.qt.panels.cost import CostPanel
from xlaview.qt.panels.memory import MemoryPanel
from xlaview.qt.panels.problems import ProblemsView
from xlaview.qt.panels.profile import ProfilePanel
from xlaview.qt.panels.search import SearchPanel
from xlaview.qt.panels.traffic import TrafficPanel

__all__ = ["ChangesPanel", "CompareView", "CostPanel", "MemoryPanel", "ProblemsView",
           "ProfilePanel", "SearchPanel", "TrafficPanel"]
