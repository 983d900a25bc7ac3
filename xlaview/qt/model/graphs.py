"""The graphs the window shows: the path of computations open in the main
graph (entry first, the one drawn last), the fused body of the selected op
beside it, and the laid-out graphs behind them (`xlaview.qt.model.view_cache`).

A graph the pass did not touch, or the layout a step back returns to, is shown
as it was; a changed one is laid out on the worker from the one shown, so that
what the pass did not touch stays in place."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject, Signal

from xlaview.analysis import navigation
from xlaview.hlo import Instruction, Module
from xlaview.qt.model import tasks
from xlaview.qt.model.host import JobHost, Notices, Shown
from xlaview.qt.model.records import GraphShown
from xlaview.qt.model.tasks import GraphResult
from xlaview.qt.model.view_cache import ViewCache


class Graphs(QObject):
    graph_shown = Signal(object)  # GraphShown | None
    fusion_shown = Signal(object)  # GraphShown | None
    graph_note = Signal(str)  # a pass step laid the graph out afresh: why ("" when kept)

    def __init__(
        self,
        jobs: JobHost,
        notices: Notices,
        shown: Shown,
        views: ViewCache,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._jobs, self._notices, self._shown, self._views = jobs, notices, shown, views
        self.path: list[str] = []  # computations open, entry first
        self.graph_pass: str | None = None  # the pass whose main graph is drawn
        self.fusion_computation: str | None = None  # the fused body shown beside it

    # -- what the view model says -----------------------------------------------
    def module_shown(self) -> None:
        self.path = []
        self.graph_pass = None

    def pass_changed(self) -> None:
        self.graph_pass = None

    def pass_shown(self, module: Module) -> None:
        """The path carried over to the pass shown: as far as it still exists."""
        self.path = navigation.carry_graph_path(self.path, module)

    def show_after_paint(self) -> None:
        """The pass's main graph, once its text is on screen."""
        if self.path:
            self.request(keep_view=True)
        else:
            self.graph_shown.emit(None)

    def follow(self, computation: str, module: Module, request: bool) -> None:
        """The main graph shows ``computation`` (the selection's), laid out now
        if ``request``."""
        if self.path and self.path[-1] == computation:
            return
        self._jobs.bump("graph")
        self.path = navigation.path_to(computation, self.path, module)
        if request:
            self.request(keep_view=False)

    # -- the main graph ----------------------------------------------------------
    def request(self, keep_view: bool) -> None:
        loaded = self._shown.loaded
        if loaded is None or not self.path:
            return
        computation = self.path[-1]
        path, for_pass = tuple(self.path), self._shown.pass_key
        assert for_pass is not None

        def show(result: GraphResult) -> None:
            self.graph_pass = for_pass
            # Where the view looked means nothing in a graph laid out afresh.
            fresh = result.step is not None and result.step.fresh
            self.graph_shown.emit(GraphShown(for_pass, path, result, keep_view and not fresh))

        notices = self._notices
        self._lay_out(
            loaded.module, computation, show, ("graph", "graph"),
            lambda f: notices.report_progress("laying out the graph", f),
        )  # fmt: skip

    def enter(self, computation: str) -> None:
        """Open a called computation (a fusion's body, a loop's body)."""
        loaded = self._shown.loaded
        if loaded is None or not loaded.module.has_computation(computation):
            return
        self._jobs.bump("graph")
        self.path = navigation.path_to(computation, self.path, loaded.module)
        self.request(keep_view=False)

    def open_prefix(self, depth: int) -> None:
        """Back to the ``depth``-th computation of the path (the breadcrumb)."""
        if 0 <= depth < len(self.path) - 1:
            self.enter(self.path[depth])

    # -- the fused body ----------------------------------------------------------
    def show_fused(self, body: str | None, caller: Instruction) -> None:
        """The body of fusion ``caller`` beside the main graph (None: none)."""
        self.fusion_computation = body
        loaded = self._shown.loaded
        if body is None or loaded is None:
            self.fusion_shown.emit(None)
            return
        pass_shown, kind = self._shown.pass_key, caller.fusion_kind
        assert pass_shown is not None

        def show(result: GraphResult) -> None:
            self.fusion_shown.emit(
                GraphShown(pass_shown, (body,), result, False, caller.name, kind)
            )

        self._lay_out(loaded.module, body, show, ("selection", "fusion-graph"))

    def clear_fused(self) -> None:
        self.fusion_computation = None
        self.fusion_shown.emit(None)

    def show_fused_of(self, caller: str) -> None:
        """The body of fusion ``caller``, whatever is selected."""
        shown, loaded = self._shown, self._shown.loaded
        if loaded is None or shown.text_pass != shown.pass_key:
            return
        found = navigation.locate(loaded.module, caller)
        body = navigation.fused_computation(loaded.module, found[1]) if found else None
        if body and found:
            self.show_fused(body, found[1])

    # -- both --------------------------------------------------------------------
    def _lay_out(
        self,
        module: Module,
        computation: str,
        show: Callable[[GraphResult], None],
        job: tuple[str, str],
        progress: Callable[[float], None] | None = None,
    ) -> None:
        """``show`` the graph of ``computation``: as laid out before where it
        can be (the cache, a pass that did not touch it), else laid out on the
        worker from the one shown (``job``: its scope and slot)."""
        key = (self._shown.current_file_key(), computation)

        def shown(result: GraphResult) -> None:
            self._views.store_layout(key, result)
            self._layout_shown(computation, result)
            show(result)

        cached = self._views.layout(key) or self._unchanged_graph(module, computation)
        if cached is not None:
            shown(cached)
            return
        scope, slot = job
        self._jobs.submit(
            scope, slot, tasks.graph_and_layout, module, computation,
            self._views.shown_result(computation), on_done=shown, on_progress=progress,
        )  # fmt: skip

    def _unchanged_graph(self, module: Module, computation: str) -> GraphResult | None:
        """The graph shown for ``computation``, when this pass did not touch its
        text: shown again as it is (no layout, nothing moves)."""
        same = self._views.same_graph(computation, tasks.text_identity(module, computation))
        return None if same is None else replace(same, step=None, transition=None)

    def _layout_shown(self, computation: str, result: GraphResult) -> None:
        """The next step of ``computation`` starts from this layout; a step too
        large to keep the picture says so."""
        self._views.shown(computation, result)
        step = result.step
        self.graph_note.emit(
            f"{computation}: {step.reason}" if step is not None and step.reason else ""
        )
