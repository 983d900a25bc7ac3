"""The records the view model hands its views: a pass's text, a graph, the
selection. Plain values (core objects, and the Qt objects built for them off
the GUI thread), never live state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xlaview.dump.records import DumpFile
from xlaview.qt.model.tasks import GraphResult


@dataclass(frozen=True, slots=True)
class TextShown:
    """A pass's HLO text, ready to show."""

    pass_key: str
    file: DumpFile
    module: Any  # xlaview.hlo.Module
    source: Any  # xlaview.qt.render.documents.TextSource
    document: Any  # QTextDocument of a small text; None: the view shows windows of it
    line_owners: Any  # Mapping: line (1-based) -> (computation, instruction or None)


@dataclass(frozen=True, slots=True)
class GraphShown:
    """A computation's graph, laid out, for the main graph or the fused pane."""

    pass_key: str
    path: tuple[str, ...]  # computations opened, entry first; the graph shows the last
    result: GraphResult
    keep_view: bool
    caller: str | None = None  # the fusion whose body this is (fused pane)
    caller_kind: str | None = None


@dataclass(frozen=True, slots=True)
class Selection:
    """The selected instruction of the shown pass."""

    computation: str
    name: str
    described: dict[str, Any]
    kind: Any  # xlaview.analysis.kinds.Kind
    center: bool  # scroll the views to it
