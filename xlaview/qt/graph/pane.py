"""The graph pane: a breadcrumb of the computations opened, the main graph,
and beside it the body of the selected fusion.

It shows what the view model says (graphs, the selection, the pass's changes,
its traffic) and hands clicks back to it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from functools import reduce

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from xlaview.analysis.drawing.pass_layout import instruction_positions
from xlaview.analysis.folding import group_marking, group_marks
from xlaview.analysis.heat import heat_scale
from xlaview.analysis.marks import DiffMarks, traffic_edge_widths
from xlaview.analysis.search import Hit
from xlaview.qt import theme
from xlaview.qt.graph.key import key_items
from xlaview.qt.graph.view import GraphView
from xlaview.qt.model.analyses.changes import DiffShown
from xlaview.qt.model.compare_link import MARK_KINDS
from xlaview.qt.model.records import GraphShown, Selection
from xlaview.qt.model.tasks import Folded
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.render.canvas_parts import Placed
from xlaview.qt.safe_text import esc, steady_label, tooltip

NAME_SHOWN = 48  # characters of a computation name in a title; the tooltip has it all
GROUP_SLICE_S = 0.005  # the GUI thread's time per slice of a diff's group marks


class Breadcrumb(QLabel):
    """``main.3 › fused_computation.2``: click a part to go back to it."""

    depth_requested = Signal(int)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("breadcrumb")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.linkActivated.connect(lambda link: self.depth_requested.emit(int(link)))
        self.setContentsMargins(6, 2, 6, 2)
        # A long name must not widen the pane (and squeeze the text beside it).
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def set_path(self, path: tuple[str, ...], folded: bool = False) -> None:
        links = []
        for i, name in enumerate(path):
            if i == len(path) - 1:
                links.append(f"<b>{esc(name, NAME_SHOWN)}</b>")
            else:
                links.append(
                    f"<a href='{i}' style='color:{theme.ACCENT};text-decoration:none'>"
                    f"{esc(name, NAME_SHOWN)}</a>"
                )
        hint = (
            f"  <span style='color:{theme.MUTED}'>"
            + (
                "folded: click a group to open it, an open group's header to fold it"
                if folded
                else "double-click a fusion, call or while to open it"
            )
            + "</span>"
        )
        self.setText(" › ".join(links) + (hint if len(path) == 1 or folded else ""))
        self.setToolTip(tooltip(" › ".join(path)) if path else "")


class GraphPane(QWidget):
    def __init__(self, model: ViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.breadcrumb = Breadcrumb(self)
        self.main = GraphView(self)
        self.fused = GraphView(self, object_name="fusionGraph")
        self.fusion_title = steady_label(self, margins=(6, 2), rich=True)
        self.fusion_box = QWidget(self)
        box_layout = QVBoxLayout(self.fusion_box)
        box_layout.setContentsMargins(0, 0, 0, 0)
        box_layout.setSpacing(0)
        box_layout.addWidget(self.fusion_title)
        box_layout.addWidget(self.fused, 1)
        self.split = QSplitter(Qt.Orientation.Vertical, self)
        self.split.setObjectName("graphSplit")
        self.split.addWidget(self.main)
        self.split.addWidget(self.fusion_box)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setChildrenCollapsible(False)
        self.main.setMinimumHeight(120)
        self.fused.setMinimumHeight(80)
        self.fusion_box.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.breadcrumb)
        layout.addWidget(self.split, 1)

        self._selection: Selection | None = None
        self._folded: Folded | None = None  # how the main graph is folded
        self.key = True  # the main graph shows its key (View › Show Graph Key)
        self._center_pending = False  # a selection asked to be centred before its graph came
        self._marks = DiffMarks()
        # The diff's marks with its folded groups', for the folding and marks
        # they were summed for (a pass's traffic landing redraws the marks).
        self._grouped: tuple[object, object, dict[str, str]] | None = None
        # Those being summed, a slice per turn of the event loop (`_group_some`).
        self._grouping: tuple[object, object, Generator[None, None, dict[str, str]]] | None = None
        self._traffic = None
        self._overlay = False
        self._heat: tuple[str, dict[str, float], Callable[[float], str]] | None = None
        # Another dump compared op by op: its legend's title, op -> mark kind.
        self._compared: tuple[str, dict[str, str]] | None = None
        self._emphasis: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        # Where each node of the graph shown before stood (its canvas's boxes):
        # removed ones are drawn faint there.
        self._previous_placed: dict[str, dict[str, Placed]] = {}

        for view in (self.main, self.fused):
            view.instruction_clicked.connect(
                lambda computation, name: model.select_instruction(name, computation)
            )
            view.computation_entered.connect(model.enter_computation)
        self.main.group_toggled.connect(model.graphs.toggle_group)
        self.breadcrumb.depth_requested.connect(model.open_path_prefix)
        model.graph_shown.connect(self._on_graph_shown)
        model.fusion_shown.connect(self._on_fusion_shown)
        model.selection_changed.connect(self._on_selection_changed)
        model.search.search_ready.connect(self._on_search)
        model.changes.diff_ready.connect(self._on_diff_ready)
        model.changes.traffic_ready.connect(self._on_traffic_ready)

    # -- what the model says --------------------------------------------------
    def _on_graph_shown(self, shown: GraphShown | None) -> None:
        old = self.main.canvas
        if old is not None:
            self._previous_placed[old.graph.computation] = old.placed
        if shown is None:
            self._folded = None
            self.main.set_graph(None, None)
            self.breadcrumb.set_path(())
            return
        result = shown.result
        self._folded = result.folded
        self.breadcrumb.set_path(shown.path, folded=result.folded is not None)
        self.main.set_graph(
            result.graph,
            result.layout,
            keep_view=shown.keep_view,
            parts=result.parts,
            transition=result.transition,
            frames=result.folded.frames if result.folded is not None else (),
        )
        if self.main.canvas is not None and result.folded is not None:
            self.main.canvas.bundle_labels = result.folded.labels
        self.main.set_key(key_items(result.graph, result.folded is not None) if self.key else [])
        self._apply_marks()
        self._apply_heat()
        if self.main.canvas is not None:
            self.main.canvas.set_emphasis(self._emphasis_of(self._emphasis[0]))
        if shown.focus is not None:
            self.main.look_at_group(shown.focus)
        self._apply_selection(self.main, center=not shown.keep_view or self._center_pending)

    def _on_fusion_shown(self, shown: GraphShown | None) -> None:
        if shown is None:
            self.fusion_box.hide()
            self.fused.set_graph(None, None)
            return
        body = shown.path[-1]
        self.fusion_title.setText(
            f"<b>{esc(body, NAME_SHOWN)}</b> <span style='color:{theme.MUTED}'>— body of "
            f"{esc(shown.caller, NAME_SHOWN)} ({esc(shown.caller_kind or 'fusion')})</span>"
        )
        self.fusion_title.setToolTip(tooltip(f"{body}\nbody of {shown.caller}"))
        if not self.fusion_box.isVisible():
            self.fusion_box.show()
            total = max(2, sum(self.split.sizes()))
            self.split.setSizes([total * 3 // 5, total * 2 // 5])
        result = shown.result
        same = self.fused.graph is not None and self.fused.graph.computation == body
        self.fused.set_graph(
            result.graph,
            result.layout,
            keep_view=same,
            parts=result.parts,
            transition=result.transition if same else None,
        )
        self._apply_heat()
        if self.fused.canvas is not None:
            self.fused.canvas.set_emphasis(self._emphasis[1])
        self._apply_selection(self.fused, center=False)
        self._center_on_emphasis()

    def _on_selection_changed(self, selection: Selection | None) -> None:
        self._selection = selection
        self._center_pending = bool(selection and selection.center)
        self._apply_selection(self.main, center=self._center_pending)
        self._apply_selection(self.fused, center=False)

    def _on_diff_ready(self, shown: DiffShown) -> None:
        self._marks = shown.marks
        self._apply_marks()

    def _on_traffic_ready(self, traffic) -> None:
        self._traffic = traffic
        self._apply_marks()

    def set_heat(
        self,
        title: str | None,
        values: dict[str, float] | None = None,
        label: Callable[[float], str] = str,
    ) -> None:
        """Colour the nodes by a figure per instruction (estimated or measured
        time) on a heat scale, with a legend titled ``title`` (``label`` writes
        a figure); None: the kinds' colours."""
        self._heat = (title, values or {}, label) if title else None
        self._apply_heat()

    def set_compare_marks(self, title: str | None, marks: dict[str, str] | None = None) -> None:
        """Colour the ops of the main graph by how they stand in another dump
        (``marks``: op -> ``only``, ``regrouped`` or ``changed``), over any
        heat, with a legend titled ``title``; None: no such colours."""
        self._compared = (title, marks or {}) if title else None
        self._apply_heat()

    def _on_search(self, _query: str, hits: list[Hit]) -> None:
        """The search's hits drawn like what a panel points at: on the main
        graph each hit and the op calling a hit's computation (a fusion, a
        loop), on a folded group when it holds one; in the fused pane, hits
        inside the body shown."""
        loaded = self.model.loaded
        names = {hit.name for hit in hits}
        callers: set[str] = set()
        if loaded is not None:
            module = loaded.module
            for computation in {hit.computation for hit in hits}:
                if module.has_computation(computation):
                    callers.update(i.name for i in module.callers(computation))
        self.set_emphasis(names | callers, names)

    def set_emphasis(self, main: set[str], fused: set[str] | frozenset[str] = frozenset()) -> None:
        """Instructions a panel points at, in the main graph and in the fused pane."""
        self._emphasis = (frozenset(main), frozenset(fused))
        for view, names in ((self.main, self._emphasis_of(main)), (self.fused, fused)):
            if view.canvas is not None:
                view.canvas.set_emphasis(names)
        self._center_on_emphasis()

    def _emphasis_of(self, names: set[str] | frozenset[str]) -> set[str]:
        """The main graph's instructions a panel points at, and the folded
        groups holding any of them."""
        folded = self._folded
        if folded is None or not names:
            return set(names)
        inside = group_marks(folded.folding, folded.paths, dict.fromkeys(names, True), max)
        return set(names) | set(inside)

    def _center_on_emphasis(self) -> None:
        """The fused pane shows the ops a panel points at inside it."""
        canvas = self.fused.canvas
        rects = (
            [r for r in map(canvas.rect_of, self._emphasis[1]) if r is not None] if canvas else []
        )
        if rects:
            self.fused.centerOn(reduce(QRectF.united, rects).center())

    def set_traffic_overlay(self, on: bool) -> None:
        """Draw the traffic as edge widths (the Traffic tab's switch)."""
        self._overlay = on
        self._apply_marks()

    # -- drawing --------------------------------------------------------------
    def _apply_marks(self) -> None:
        canvas = self.main.canvas
        if canvas is None:
            return
        computation = canvas.graph.computation
        previous = self._previous_placed.get(computation, {})
        # (Their boxes as placed: a rectangle in Qt is made for those painted
        # only, not for each of the thousands a fusion pass removes.)
        boxes = map(previous.get, self._marks.removed.get(computation, ()))
        ghosts = [box for box in boxes if box is not None and not box.node.is_copy]
        folded, status, bundles = self._folded, self._marks.status, None
        if folded is not None:  # a folded group is marked changed when a member is
            grouped = self._grouped
            if grouped is not None and grouped[0] is folded and grouped[1] is status:
                status = grouped[2]
            else:
                self._group(folded, status)  # its ops marked now, its groups once summed
            bundles = folded.bundles
        canvas.set_diff(status, ghosts)
        canvas.set_traffic(
            traffic_edge_widths(self._traffic, canvas.graph, bundles) if self._overlay else {}
        )

    def _group(self, folded: Folded, status: dict[str, str]) -> None:
        """Sum the folded groups' change marks for ``folded`` and ``status``, a
        slice at a time: summed once per folding and diff, but in one piece a
        fusion pass's 50,000 marks held the GUI thread 50-100 ms. A small diff's
        are summed here and now."""
        job = self._grouping
        if job is None or job[0] is not folded or job[1] is not status:
            steps = group_marking(folded.folding, folded.paths, status, _any_change)
            self._grouping = (folded, status, steps)
            self._group_some()

    def _group_some(self) -> None:
        job = self._grouping
        if job is None:
            return
        folded, status, steps = job
        if folded is not self._folded or status is not self._marks.status:
            self._grouping = None  # a step away: summed for nothing shown
            return
        until = time.perf_counter() + GROUP_SLICE_S
        try:
            next(steps)
            while time.perf_counter() < until:
                next(steps)
        except StopIteration as done:
            self._grouping = None
            self._grouped = (folded, status, status | done.value)
            self._apply_marks()
            return
        QTimer.singleShot(0, self._group_some)

    def _apply_heat(self) -> None:
        fills: dict[str, str] = {}
        stops: list[tuple[str, str]] = []
        if self._heat is not None:
            _, values, label = self._heat
            scale = heat_scale(values)
            steps = dict(scale.step)
            if self._folded is not None:  # a folded group: its hottest member's colour
                folded = self._folded
                steps |= group_marks(folded.folding, folded.paths, scale.step, max)
            fills = {name: theme.HEAT_COLORS[step] for name, step in steps.items()}
            stops = [
                (theme.HEAT_COLORS[i], f"≥ {label(edge)}")
                for i, edge in reversed(list(enumerate(scale.edges)))
            ]
        title = self._heat[0] if self._heat else None
        if self._compared is not None:
            title, marks = self._compared
            if self._folded is not None:  # a folded group: its strongest member's mark
                folded = self._folded
                marks = marks | group_marks(folded.folding, folded.paths, marks, _stronger)
            fills = {name: theme.COMPARE_FILLS[kind] for name, kind in marks.items()}
            stops = [(theme.COMPARE_FILLS[kind], COMPARE_LABELS[kind]) for kind in MARK_KINDS]
        for view in (self.main, self.fused):
            if view.canvas is not None:
                view.canvas.set_fills(fills)
        self.main.set_legend(title, stops)

    def _apply_selection(self, view: GraphView, center: bool) -> None:
        graph = view.graph
        if graph is None:
            return
        name = self._selection.name if self._selection else None
        if name is not None and name in graph.nodes_of and view.canvas is not None:
            operands, users = view.canvas.links_of(name)
            view.set_selection(name, operands, users, center=center)
            if center and view is self.main:
                self._center_pending = False
        else:
            view.set_selection(None, set(), set(), center=False)

    def show_key(self, on: bool) -> None:
        self.key = on
        graph = self.main.graph
        self.main.set_key(key_items(graph, self._folded is not None) if on and graph else [])

    def fit(self) -> None:
        self.main.fit()

    def reset_layout(self) -> None:
        total = max(2, sum(self.split.sizes()))
        self.split.setSizes([total * 3 // 5, total * 2 // 5])

    def on_screen(self) -> list[str]:
        """The instructions whose nodes the main graph shows now."""
        return self.main.on_screen()

    def positions(self) -> dict[str, tuple[float, float]]:
        """Instruction -> centre of its node in the main graph, as drawn once
        any transition ends (a value drawn as several copies: the copy whose
        user's name sorts first, whatever the order of the instructions)."""
        canvas = self.main.canvas
        if canvas is None:
            return {}
        return instruction_positions(canvas.graph, canvas.layout)


COMPARE_LABELS = {
    "only": "only in this dump",
    "regrouped": "fusion split or merged",
    "changed": "matched, changed",
}


def _stronger(a: str, b: str) -> str:
    """A group holding an op only this dump has is marked so, before a regrouped one."""
    return a if MARK_KINDS.index(a) <= MARK_KINDS.index(b) else b


def _any_change(a: str, b: str) -> str:
    """A group whose members were all added is added; any other change, changed."""
    return a if a == b else "changed"
