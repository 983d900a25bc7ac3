"""The records the view model hands its views: a pass's text, a graph, the
selection. Plain values (core objects, and the painter paths built for them
off the GUI thread), never live state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xlaview.dump.module_names import display_name
from xlaview.dump.records import DumpFile, DumpModule
from xlaview.qt.model.tasks import GraphResult, PreparedPass
from xlaview.units import whole_number


@dataclass(frozen=True, slots=True)
class TextShown:
    """A pass's HLO text, ready to show."""

    pass_key: str
    file: DumpFile
    module: Any  # xlaview.hlo.Module
    source: Any  # xlaview.qt.render.documents.TextSource
    line_owners: Any  # Mapping: line (1-based) -> (computation, instruction or None)

    @classmethod
    def of(cls, pass_key: str, prepared: PreparedPass) -> TextShown:
        return cls(
            pass_key,
            prepared.file,
            prepared.loaded.module,
            prepared.source,
            prepared.line_owners,
        )


@dataclass(frozen=True, slots=True)
class GraphShown:
    """A computation's graph, laid out, for the main graph or the fused pane."""

    pass_key: str
    path: tuple[str, ...]  # computations opened, entry first; the graph shows the last
    result: GraphResult
    keep_view: bool
    caller: str | None = None  # the fusion whose body this is (fused pane)
    caller_kind: str | None = None
    focus: str | None = None  # the path of the group just opened or folded: look at it


@dataclass(frozen=True, slots=True)
class Selection:
    """The selected instruction of the shown pass."""

    computation: str
    name: str
    described: dict[str, Any]
    kind: Any  # xlaview.analysis.kinds.Kind
    center: bool  # scroll the views to it


@dataclass(frozen=True, slots=True)
class ModuleEntry:
    """A module as the module list shows it: ``shown`` is the name its
    framework gave it (`xlaview.dump.module_names.display_name`: ``step``
    for TensorFlow's ``a_inference_step_90__XlaMustCompile_..._.5``), ``full``
    the whole HLO module name beside its id, for the tooltip."""

    module: DumpModule
    shown: str
    full: str

    @classmethod
    def of(cls, module: DumpModule) -> ModuleEntry:
        shown = display_name(module.name) or "(no name)"
        if module.plain_file:  # a lone HLO text: two files may hold one module name
            shown = f"{module.plain_file} ({shown})" if module.name else module.plain_file
        return cls(module, shown, module.title)


def public_pass(key: str | None) -> int | str | None:
    """A pass key as `view_state` says it: a pass number as a number."""
    number = whole_number(key) if key is not None else None
    return number if number is not None else key
