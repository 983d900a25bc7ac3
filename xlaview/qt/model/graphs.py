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
from xlaview.analysis.folding import (
    APART,
    GROUPINGS,
    SMALL_GRAPH_NODES,
    TOGETHER,
    Grouping,
    Phases,
    shown_groups,
)
from xlaview.hlo import Instruction, Module
from xlaview.qt.model import tasks
from xlaview.qt.model.host import JobHost, Notices, Shown
from xlaview.qt.model.records import GraphShown
from xlaview.qt.model.tasks import NO_FOLD, Fold, GraphResult
from xlaview.qt.model.view_cache import ViewCache
from xlaview.qt.model.workers import GRAPH_FIRST, URGENT

# A large graph opens folded with groups open, outermost first, while it
# shows at most this many boxes: a few dozen read at a glance.
FIRST_BOXES = 60


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
        # How the main graph folds: asked (View › Graph Grouping), or None: by
        # scope when it has more than SMALL_GRAPH_NODES nodes.
        self.grouping: Grouping | None = None
        self.phases: Phases = APART  # a JAX scope's forward and backward: apart or together
        self._open: dict[str, frozenset[str]] = {}  # computation -> paths of its open groups
        self._reveal: str | None = None  # the selection: the groups holding it open
        self.main_result: GraphResult | None = None  # the main graph drawn
        # The graph of the pass asked, drawn from its text before its parse landed.
        self._early: GraphResult | None = None
        # The groups `groups_state` listed, and of which folding.
        self._groups_of: tuple[tasks.Folded, list[dict[str, object]]] | None = None

    # -- what the view model says -----------------------------------------------
    def module_shown(self) -> None:
        self.path = []
        self.graph_pass = None
        self._open.clear()
        self._reveal = None
        self.main_result = None

    def pass_changed(self) -> None:
        self.graph_pass = None
        self._early = None

    def pass_shown(self, module: Module) -> None:
        """The path carried over to the pass shown: as far as it still exists."""
        self.path = navigation.carry_graph_path(self.path, module)

    def early_request(self) -> tuple[str | None, GraphResult | None, Fold]:
        """What `tasks.early_graph` needs for the pass asked: the computation
        (None: the entry), the graph of it shown now, and how to fold it."""
        path = self.path
        target = path[-1] if len(path) > 1 else None
        shown = self._views.shown_result(path[-1]) if path else None
        return target, shown, self._fold_for(path[-1] if path else "")

    def laid_out_before(self, file_key: str) -> GraphResult | None:
        """The main graph of the pass at ``file_key`` as laid out before, when
        it is shown again as it was (a step back to a pass seen, its layout
        kept: `ViewCache.layout`) and still folds as asked; else None (drawn
        from its text: 150-1,000 ms for a big entry the pass edited)."""
        if not self.path:
            return None
        computation = self.path[-1]
        kept = self._views.layout((file_key, computation))
        return kept if kept is not None and kept.matches(self._fold_for(computation)) else None

    def show_early(self, result: GraphResult | None, file_key: str) -> None:
        """The main graph of the pass asked, from its text alone (None: it waits
        for the pass's parse); the module's own request later finds it laid out."""
        for_pass = self._shown.pass_key
        if result is None or for_pass is None:
            self._jobs.release()  # the graph waits for the pass's parse: let it start
            return
        computation = result.graph.computation
        path = self.path if len(self.path) > 1 and self.path[-1] == computation else [computation]
        self.path = path
        self._views.store_layout((file_key, computation), result)
        self._layout_shown(computation, result)
        self._early = result
        self._main_shown(for_pass, tuple(path), keep_view=True)(result)

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

        notices = self._notices
        self._lay_out(
            loaded.module, computation, self._main_shown(for_pass, path, keep_view),
            ("graph", "graph"), lambda f: notices.report_progress("laying out the graph", f),
            self._fold_for(computation), GRAPH_FIRST,
        )  # fmt: skip

    def _main_shown(
        self, for_pass: str, path: tuple[str, ...], keep_view: bool, focus: str | None = None
    ) -> Callable[[GraphResult], None]:
        def show(result: GraphResult) -> None:
            self.graph_pass = for_pass
            self.main_result = result
            if result.folded is not None:
                self._open[path[-1]] = result.folded.open_paths
            self._reveal = None
            # Where the view looked means nothing in a graph laid out afresh.
            # (A group opened or folded keeps it: the view then looks at the group.)
            fresh = result.step is not None and result.step.fresh and focus is None
            self.graph_shown.emit(
                GraphShown(for_pass, path, result, keep_view and not fresh, focus=focus)
            )

        return show

    # -- folding -----------------------------------------------------------------
    def _fold_for(self, computation: str) -> Fold:
        """How the main graph of ``computation`` is to fold now."""
        asked = self.grouping
        return Fold(
            asked or "scope",
            self._open.get(computation),
            self._reveal,
            SMALL_GRAPH_NODES if asked is None else 0,
            FIRST_BOXES,
            self.phases,
        )

    def set_grouping(self, mode: str) -> None:
        """Fold the main graph by ``mode`` (``scope``, ``repeats``, ``none``),
        whatever its size."""
        if mode not in GROUPINGS:
            raise ValueError(f"grouping {mode!r}: one of {', '.join(GROUPINGS)}")
        self.grouping = GROUPINGS[GROUPINGS.index(mode)]
        self._open.clear()
        if self.path:
            self._jobs.bump("graph")
            self.request(keep_view=False)

    def set_phases(self, phases: str) -> None:
        """Fold a JAX scope's forward and its backward (``jvp(block_3)``,
        ``transpose(jvp(block_3))``) as two groups (``apart``) or one (``together``)."""
        if phases not in (APART, TOGETHER):
            raise ValueError(f"phases {phases!r}: {APART!r} or {TOGETHER!r}")
        if phases == self.phases:
            return
        self.phases = APART if phases == APART else TOGETHER
        self._open.clear()
        if self.path:
            self._jobs.bump("graph")
            self.request(keep_view=False)

    def toggle_group(self, name: str, opening: bool) -> None:
        """Open (with the groups around it) or close the group ``name`` of the
        main graph: its path, or a name only it has."""
        result = self.main_result
        folded = result.folded if result is not None else None
        if result is None or folded is None:
            self._notices.say("the graph shown is not folded")
            return
        g = folded.find(name)
        if g is None:
            self._notices.say(f"no group {name!r} in the graph shown")
            return
        wanted = set(folded.open_paths)
        if opening:
            chain = [g]
            groups = folded.folding.groups
            while (parent := groups[chain[-1]].parent) is not None:
                chain.append(parent)
            wanted.update(folded.paths[c] for c in chain)
        else:
            wanted.discard(folded.paths[g])
        self._open[result.graph.computation] = frozenset(wanted)
        self._refold(result, folded.paths[g])

    def reveal(self, name: str, computation: str) -> None:
        """The groups holding instruction ``name`` open in the main graph (now if
        it is drawn folded with ``name`` hidden, else at its next layout)."""
        self._reveal = name
        result = self.main_result
        if (
            result is not None
            and result.folded is not None
            and result.graph.computation == computation
            and self.path
            and self.path[-1] == computation
            and name not in result.graph.nodes_of
            and name in result.full_graph.nodes_of
        ):
            self._refold(result)

    def _refold(self, result: GraphResult, focus: str | None = None) -> None:
        """The main graph drawn again with the groups now asked open, laid out
        on the worker from the one shown (the rest stays where it is); the view
        then looks at group ``focus``."""
        self._jobs.bump("graph")
        computation, for_pass = result.graph.computation, self.graph_pass
        if for_pass is None or for_pass != self._shown.pass_key or self._shown.loaded is None:
            self.request(keep_view=True)  # the pass's own layout is to come: with these
            return
        key = (self._shown.current_file_key(), computation)
        show = self._main_shown(for_pass, tuple(self.path), True, focus)

        def shown(new: GraphResult) -> None:
            self._views.store_layout(key, new)
            self._layout_shown(computation, new)
            show(new)

        notices = self._notices
        self._jobs.submit(
            "graph", "graph", tasks.refold, result, self._fold_for(computation),
            on_done=shown, on_progress=lambda f: notices.report_progress("opening groups", f),
            urgency=GRAPH_FIRST,
        )  # fmt: skip

    def groups_state(self) -> dict[str, object]:
        """``graph_grouping``, ``graph_phases``, the boxes the main graph draws (``graph_boxes``)
        and its groups shown, folded or open (``graph_groups``), for `view_state`."""
        result = self.main_result
        folded = result.folded if result is not None else None
        if folded is None:
            groups: list[dict[str, object]] = []
        elif self._groups_of is not None and self._groups_of[0] is folded:
            groups = self._groups_of[1]  # asked again and again (a test polls it)
        else:
            groups = shown_groups(folded.folding, folded.open_groups, folded.paths)
            self._groups_of = (folded, groups)
        return {
            "graph_grouping": self.grouping,
            "graph_phases": self.phases,
            "graph_boxes": len(result.graph.nodes) if result is not None else 0,
            "graph_groups": list(groups),
        }

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

        self._lay_out(loaded.module, body, show, ("selection", "fusion-graph"), None, NO_FOLD)

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
        progress: Callable[[float], None] | None,
        fold: Fold,
        urgency: int = URGENT,
    ) -> None:
        """``show`` the graph of ``computation``, folded as ``fold`` says: as
        laid out before where it can be (the cache, a pass that did not touch
        it), else laid out on the worker from the one shown (``job``: its
        scope and slot)."""
        key = (self._shown.current_file_key(), computation)

        def shown(result: GraphResult) -> None:
            self._views.store_layout(key, result)
            self._layout_shown(computation, result)
            show(result)

        cached = self._views.layout(key) or self._unchanged_graph(module, computation)
        if cached is not None and cached.matches(fold):
            if cached is self._early:  # on screen already: drawn again without moving
                cached = replace(cached, step=None, transition=None)
            shown(cached)
            return
        scope, slot = job
        self._jobs.submit(
            scope, slot, tasks.graph_and_layout, module, computation,
            self._views.shown_result(computation), fold, on_done=shown, on_progress=progress,
            urgency=urgency,
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
