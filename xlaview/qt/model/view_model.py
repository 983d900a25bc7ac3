"""The view model: the one owner of what the window shows.

It holds the folder, its index, the module, the pass, the computations open
in the graph and the selection, with the caches behind them, and runs the
work they need on the worker. Views never hold this state: they subscribe to
its signals and hand user input back as requests (`select_pass`, ...).

Every request bumps the *generation* of what it changes (the folder, the
module, the pass, the graph, the selection, ...); a job's result is dropped,
in one place (`xlaview.qt.model.jobs`), when any generation it was started for
moved on since: a late result never lands on a pass or a fusion the user has
left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from xlaview.analysis import navigation
from xlaview.analysis.kinds import kind_of
from xlaview.dump.index import DumpFile, DumpIndex, DumpModule, Problem, index_dump, index_file
from xlaview.dump.loader import LoadedModule, ModuleCache
from xlaview.dump.main_module import default_module
from xlaview.dump.points import ModulePoint
from xlaview.errors import XlaviewError
from xlaview.qt.model import tasks as jobs
from xlaview.qt.model.analyses.changes import Analyses
from xlaview.qt.model.analyses.costing import Costing
from xlaview.qt.model.tasks import GraphResult, PreparedPass
from xlaview.qt.model.jobs import Jobs
from xlaview.qt.model.prefetch import Prefetch
from xlaview.qt.model.release import Releaser
from xlaview.qt.model.records import GraphShown, Selection, TextShown
from xlaview.qt.model.view_cache import ViewCache
from xlaview.text.spans import lex_text


class ViewModel(QObject):
    """See the module docstring. Signals carry core objects (or the small
    records above); the window connects them to its views."""

    index_changed = Signal(object)  # DumpIndex | None
    module_changed = Signal(object, object)  # DumpModule | None, list[ModulePoint]
    pass_changed = Signal(str)  # the pass asked for (shown once pass_shown says so)
    pass_shown = Signal(object)  # TextShown
    spans_ready = Signal(object)  # LineSpans of the text shown
    graph_shown = Signal(object)  # GraphShown | None
    fusion_shown = Signal(object)  # GraphShown | None
    selection_changed = Signal(object)  # Selection | None
    selection_described = Signal(object)  # the same Selection, described again (its cost came)
    problems_reset = Signal(object)  # list[Problem]
    problems_added = Signal(object)  # list[Problem]
    line_requested = Signal(int)  # scroll the text to this line (a problem's)
    status = Signal(str)
    graph_note = Signal(str)  # a pass step laid the graph out afresh: why ("" when kept)
    progress = Signal(str, object)  # what, fraction or None

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = Jobs(self, on_failure=self.job_failed)
        self.cache = ModuleCache()
        self.index: DumpIndex | None = None
        self.module: DumpModule | None = None
        self.points: list[ModulePoint] = []
        self.pass_key: str | None = None  # asked for
        self.loaded: LoadedModule | None = None  # of the text shown
        self.text_pass: str | None = None  # the pass whose text is shown
        self.graph_pass: str | None = None
        self.graph_path: list[str] = []
        self.fusion_computation: str | None = None
        self.selection: Selection | None = None
        self._asked_selection: tuple[str, str | None, bool] | None = None  # name, computation, center
        self._reveal: tuple[str, int] | None = None  # pass key, line to scroll to once shown
        self.releaser = Releaser(self)
        self.views = ViewCache(self.releaser.release)
        self.prefetch = Prefetch(self)
        self.analyses = Analyses(self)
        self.costing = Costing(self)

    # ================================================================ jobs
    def submit(self, scope: str, slot: str, fn: Callable[..., Any], *args: Any,
               on_done: Callable[[Any], None], **options: Any) -> None:
        """Run ``fn(*args)`` off the GUI thread for what ``scope`` shows now
        (see `Jobs.submit`)."""
        self.jobs.submit(scope, slot, fn, *args, on_done=on_done, **options)

    def bump(self, scope: str) -> None:
        self.jobs.bump(scope)

    def job_failed(self, error: BaseException, path: str | None = None) -> None:
        """A background failure: listed as a problem, said in the status bar."""
        where = getattr(error, "path", None) or path or (self.module.key if self.module else "")
        message = str(getattr(error, "message", None) or error)
        self.problems_added.emit([Problem(str(where), message, getattr(error, "line", None))])
        self.status.emit(f"{where}: {message}")

    @property
    def busy(self) -> bool:
        return self.jobs.busy

    def wait_idle(self, timeout_ms: int = 120000) -> bool:
        """Process events until every job is done, work deferred until the
        window has painted included."""
        return self.jobs.wait_idle(timeout_ms, before=self.analyses.flush_timers)

    def shutdown(self) -> None:
        """Drop everything pending (the window closes)."""
        self.jobs.shutdown()

    # ================================================================ folder
    def open_dump(self, path: str | Path, module: str | None = None,
                  pass_: str | None = None) -> None:
        """Index a dump folder (or the folder of one HLO file) and show a module."""
        path = Path(path).expanduser()
        try:
            index = index_file(path) if path.is_file() else index_dump(path)
        except (OSError, XlaviewError) as err:
            self.status.emit(f"Cannot open {path}: {err}")
            self.problems_added.emit([Problem(str(path), f"cannot open: {err}")])
            return
        self.bump("folder")
        self.index = index
        self.cache.clear()
        self.views.clear()
        self.analyses.reset()
        self.index_changed.emit(index)
        self.problems_reset.emit(list(index.problems))
        self.analyses.sniff(index)
        if not index.modules:
            self._set_module(None)
            self.status.emit(f"{index.root}: no XLA module files found")
            return
        target = index.module_of(path) if path.is_file() else None
        point = None
        if target is not None:
            found = next((p for p in target.points() if p.file.path == path.absolute()), None)
            point = found.key if found else None
        elif module is not None:
            try:
                target = index.module(module)
                point = pass_ if pass_ is not None else None
            except KeyError:
                target = None
        self.select_module(target or default_module(index), point)
        n = len(index.modules)
        self.status.emit(f"{index.root}: {n} module{'s' * (n != 1)}, {len(index.dumps)} dump"
                         f"{'s' * (len(index.dumps) != 1)}")

    def reindexed(self, index: DumpIndex) -> None:
        """A re-index of the open folder (it is being written): keep the user's
        module, pass and selection where they still exist."""
        old = self.index
        if old is None or index.root != old.root:
            return
        self.index = index
        self.index_changed.emit(index)
        self.problems_added.emit(list(index.problems))
        self.analyses.sniff(index)
        current = self.module
        match = None if current is None else next(
            (m for m in index.modules if m.ref == current.ref and m.name == current.name), None)
        if match is None:
            if current is None and index.modules:
                self.select_module(default_module(index))
            return
        old_file = current.file_at(self.pass_key) if current and self.pass_key else None
        keys = [p.key for p in match.points()]
        keep = self.pass_key if self.pass_key in keys else (keys[-1] if keys else None)
        self.module = match
        self.points = match.points()
        self.module_changed.emit(match, self.points)
        self.analyses.module_shown(match)
        if keep is None:
            return
        new_file = match.file_at(keep)
        if keep != self.pass_key or old_file is None or (new_file.size, new_file.mtime_ns) != (
                old_file.size, old_file.mtime_ns):
            self.select_pass(keep)
        else:
            self.pass_changed.emit(keep)

    # ================================================================ module, pass
    def select_module(self, key: str | int | DumpModule, pass_: int | str | None = None) -> None:
        """Show a module (a name, an id, ``module_NNNN``) at ``pass_`` (default: after)."""
        if self.index is None:
            raise RuntimeError("no dump is open")
        module = key if isinstance(key, DumpModule) else self.index.module(key)
        self._set_module(module)
        if not self.points:
            return
        try:
            wanted = module.point(pass_).key if pass_ is not None else self.points[-1].key
        except KeyError:  # a pass this module does not have: its last
            wanted = self.points[-1].key
        self.select_pass(wanted)

    def _set_module(self, module: DumpModule | None) -> None:
        self.bump("module")
        self.module = module
        self.points = module.points() if module else []
        self.pass_key = self.text_pass = self.graph_pass = None
        self.loaded = None
        self.graph_path = []
        self._asked_selection = None
        self._set_selection(None)
        self.module_changed.emit(module, self.points)
        self.analyses.module_shown(module)

    def select_pass(self, key: int | str) -> None:
        """Show the module at a pass: a sequence number, ``before`` or ``after``."""
        if self.module is None:
            raise RuntimeError("no module is shown")
        key = self.module.point(key).key  # NoSuchPointError (a KeyError) says what there is
        self.prefetch.stepped(self.pass_key, key)
        self.bump("pass")
        self.pass_key = key
        self.text_pass = self.graph_pass = None
        self.pass_changed.emit(key)
        self.show_asked_pass()

    def show_asked_pass(self) -> None:
        """The asked pass: prepared already, on its way from the prefetch (which
        calls back), or read now."""
        assert self.module is not None and self.pass_key is not None
        dump_file = self.module.file_at(self.pass_key)
        prepared = self.views.take_prepared(str(dump_file.path))
        if prepared is not None:
            self._show_pass(prepared)
            return
        self.status.emit(f"reading {dump_file.rel} …")
        if not self.prefetch.awaited(dump_file):
            self.submit("pass", "pass", jobs.prepare_pass, self.cache, dump_file,
                        on_done=self._show_pass,
                        on_error=lambda err, f=dump_file: self._pass_failed(err, f))

    def _pass_failed(self, error: BaseException, dump_file: DumpFile) -> None:
        self.loaded = None
        self.graph_shown.emit(None)
        self.job_failed(error, dump_file.rel)

    def _show_pass(self, prepared: PreparedPass) -> None:
        loaded, module = prepared.loaded, prepared.loaded.module
        self.loaded = loaded
        self.text_pass = self.pass_key
        self.pass_shown.emit(TextShown(self.pass_key, prepared.file, module, prepared.source,
                                       prepared.document, prepared.line_owners))
        if prepared.document is not None:  # a big text is coloured window by window
            self.submit("pass", "lex", lex_text, module.text, "hlo",
                        on_done=self.spans_ready.emit,
                        on_progress=lambda f: self.progress.emit("highlighting", f),
                        process="view")
        self.analyses.report_parse_problems(loaded, prepared.file)
        if self._reveal is not None and self._reveal[0] == self.pass_key:
            self.line_requested.emit(self._reveal[1])
        self._reveal = None
        self.graph_path = navigation.carry_graph_path(self.graph_path, module)
        # The text paints first; then the selection is found in the new pass (tens
        # of milliseconds on a 45 MB pass); then the graph, before the analyses.
        if self._asked_selection is not None:
            self.jobs.after_paint("pass", "selection", lambda: self._reselect(prepared.file))
        else:
            self._then_graph(prepared.file)
        self.status.emit(f"{prepared.file.rel}: {len(module.computations)} computations, "
                         f"{module.instruction_count} instructions")

    def _reselect(self, dump_file: DumpFile) -> None:
        """The asked selection in the pass just shown (its graph asked first, so
        that the worker lays it out before pricing the selection)."""
        self._then_graph(dump_file)
        if self._asked_selection is not None:
            self._apply_selection(*self._asked_selection, request_graph=False)

    def _then_graph(self, dump_file: DumpFile) -> None:
        """The graph after the next paint, then the pass's diff and traffic."""
        self.jobs.after_paint("pass", "graph", self._show_graph)
        self.analyses.pass_shown(dump_file)

    def _show_graph(self) -> None:
        if self.graph_path:
            self._request_graph(keep_view=True)
        else:
            self.graph_shown.emit(None)

    def current_file_key(self) -> str:
        if self.module is None or self.pass_key is None:
            return ""
        return str(self.module.file_at(self.pass_key).path)

    # ================================================================ graph
    def _request_graph(self, keep_view: bool) -> None:
        if self.loaded is None or not self.graph_path:
            return
        computation = self.graph_path[-1]
        key = (self.current_file_key(), computation)
        path, for_pass = tuple(self.graph_path), self.pass_key

        def show(result: GraphResult) -> None:
            self.views.store_layout(key, result)
            self.graph_pass = for_pass
            self._layout_shown(computation, result)
            # Where the view looked means nothing in a graph laid out afresh.
            fresh = result.step is not None and result.step.fresh
            self.graph_shown.emit(GraphShown(for_pass, path, result, keep_view and not fresh))

        cached = self.views.layout(key) or self._unchanged_graph(computation)
        if cached is not None:
            show(cached)
            return
        self.submit("graph", "graph", jobs.graph_and_layout, self.loaded.module, computation,
                    self.views.shown_result(computation), on_done=show,
                    on_progress=lambda f: self.progress.emit("laying out the graph", f))

    def enter_computation(self, computation: str) -> None:
        """Open a called computation (a fusion's body, a loop's body) in the graph."""
        if self.loaded is None or not self.loaded.module.has_computation(computation):
            return
        self.bump("graph")
        self.graph_path = navigation.path_to(computation, self.graph_path, self.loaded.module)
        self._request_graph(keep_view=False)

    def open_path_prefix(self, depth: int) -> None:
        """Go back to the ``depth``-th computation of the graph path (breadcrumb)."""
        if 0 <= depth < len(self.graph_path) - 1:
            self.enter_computation(self.graph_path[depth])

    def back_to_entry(self) -> None:
        self.open_path_prefix(0)

    # ================================================================ selection
    def select_instruction(self, name: str, computation: str | None = None,
                           center: bool = True) -> None:
        """Select an instruction of the shown pass: text, graph and inspector follow.
        Asked before the pass shows, it applies once it does."""
        self.bump("selection")
        self._asked_selection = (name, computation, center)
        if self.loaded is not None and self.text_pass == self.pass_key:
            self._apply_selection(name, computation, center)

    def _apply_selection(self, name: str, computation: str | None, center: bool,
                         request_graph: bool = True) -> None:
        assert self.loaded is not None
        module = self.loaded.module
        found = navigation.locate(module, name, computation)
        if found is None:
            self._asked_selection = None
            self._set_selection(None)
            self.status.emit(f"{name} is not in this dump (pass {self.pass_key})")
            return
        comp, instr = found
        described = self.analyses.describe(module, instr.name, comp.name)
        self._set_selection(Selection(comp.name, instr.name, described, kind_of(instr), center))
        if not self.graph_path or self.graph_path[-1] != comp.name:
            self.bump("graph")
            self.graph_path = navigation.path_to(comp.name, self.graph_path, module)
            if request_graph:
                self._request_graph(keep_view=False)
        self._request_fusion(navigation.fused_computation(module, instr), instr)
        self.analyses.selection_shown(self.selection)

    def _set_selection(self, selection: Selection | None) -> None:
        self.selection = selection
        if selection is None:
            self.fusion_computation = None
            self.fusion_shown.emit(None)
        self.selection_changed.emit(selection)

    def _request_fusion(self, body: str | None, caller) -> None:
        self.fusion_computation = body
        if body is None or self.loaded is None:
            self.fusion_shown.emit(None)
            return
        key = (self.current_file_key(), body)
        pass_shown, kind = self.pass_key, caller.fusion_kind

        def show(result: GraphResult) -> None:
            self.views.store_layout(key, result)
            self._layout_shown(body, result)
            self.fusion_shown.emit(GraphShown(pass_shown, (body,), result, False, caller.name,
                                              kind))

        cached = self.views.layout(key) or self._unchanged_graph(body)
        if cached is not None:
            show(cached)
            return
        self.submit("selection", "fusion-graph", jobs.graph_and_layout, self.loaded.module,
                    body, self.views.shown_result(body), on_done=show)

    def _unchanged_graph(self, computation: str) -> GraphResult | None:
        """The graph shown for ``computation``, when this pass did not touch its
        text: shown again as it is (no layout, nothing moves)."""
        assert self.loaded is not None
        same = self.views.same_graph(computation,
                                     jobs.text_identity(self.loaded.module, computation))
        return None if same is None else replace(same, step=None, transition=None)

    def _layout_shown(self, computation: str, result: GraphResult) -> None:
        """The next step of ``computation`` starts from this layout; a step too
        large to keep the picture says so."""
        self.views.shown(computation, result)
        step = result.step
        self.graph_note.emit(f"{computation}: {step.reason}" if step is not None and step.reason
                             else "")

    def show_fusion(self, caller: str) -> None:
        """Show the body of fusion ``caller`` in the fused pane, whatever is selected."""
        found = navigation.locate(self.loaded.module, caller) if self.loaded else None
        body = found and navigation.fused_computation(self.loaded.module, found[1])
        if body and self.text_pass == self.pass_key:
            self._request_fusion(body, found[1])

    def reveal(self, module: DumpModule, key: str | None, line: int | None) -> None:
        """Show ``module`` at pass ``key`` with the text scrolled to ``line``
        (a problem the user picked)."""
        if key is not None and line:
            self._reveal = (key, line)
        if module is not self.module:
            self.select_module(module, key)
        elif key is not None and key != self.pass_key:
            self.select_pass(key)
        elif line:
            self.line_requested.emit(line)

    # ================================================================ state
    def view_state(self) -> dict[str, Any]:
        """What is on screen now (see `MainWindow.view_state`)."""
        diff = self.analyses.diff_range()
        return {
            "folder": str(self.index.root) if self.index else None,
            "module": self.module.key if self.module else None,
            "pass": _public_pass(self.pass_key),
            "computation": self.graph_path[-1] if self.graph_path else None,
            "selection": self.selection.name if self.selection else None,
            "fusion_computation": self.fusion_computation,
            "diff": None if diff is None else {"from": _public_pass(diff[0]),
                                               "to": _public_pass(diff[1])},
            "text_pass": _public_pass(self.text_pass),
            "graph_pass": _public_pass(self.graph_pass),
        }


def _public_pass(key: str | None) -> int | str | None:
    return int(key) if key is not None and key.isdigit() else key
