"""The main window: modules, pass timeline, HLO text beside its graph, inspector.

The window only builds itself and wires views to the view model
(`xlaview.qt.model.view_model`), which owns what is shown and runs the work; its
public methods (`open_dump`, `select_pass`, ...) hand requests to the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QSize, Qt, QTimer, QUrl
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QIcon
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from xlaview.qt import theme
from xlaview.qt.actions import Menus
from xlaview.qt.graph.pane import GraphPane
from xlaview.qt.model.follower import FolderFollower
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.module_list import ModuleListPanel
from xlaview.qt.panels.changes import ChangesPanel
from xlaview.qt.panels.inspector import InspectorView
from xlaview.qt.panels.tabs import AnalysisTabs
from xlaview.qt.progress import ProgressBar
from xlaview.qt.safe_text import steady_label
from xlaview.qt.side_by_side import SideBySide
from xlaview.qt.text.code_tabs import CodeTabs
from xlaview.qt.text.levels import LevelsBar
from xlaview.qt.timeline import PassTimeline
from xlaview.resources import icon_path

BUSY_SHOWN_AFTER_MS = 150
MIN_PANE_WIDTH = 260


class MainWindow(QMainWindow):
    def __init__(self, settings: QSettings | None = None, persist: bool = True) -> None:
        """``persist=False`` (headless exports): no window state restored or saved,
        no recent folder recorded."""
        super().__init__()
        self.persist = persist
        self.setWindowTitle("xlaview")
        self.setWindowIcon(QIcon(str(icon_path("svg"))))
        self.setAcceptDrops(True)
        self.settings = settings or QSettings("xlaview", "xlaview")
        self.model = ViewModel(self)
        self.model.jobs.gate.watch(self)
        self._build()
        self._wire()
        self.follower = FolderFollower(self.model, self)
        self._restore_state()
        self.menus = Menus(self)
        # Compared op by op with another dump (`compare_with`): the pair of
        # windows, and the window that opened this one beside it, if it did.
        self.side_by_side: SideBySide | None = None
        self.opened_beside: MainWindow | None = None

    # ================================================================ building
    def _build(self) -> None:
        model = self.model
        self.modules = ModuleListPanel(model, self)
        self.timeline = PassTimeline(model, self)
        self.levels_bar = LevelsBar(model, self)
        self.code_tabs = CodeTabs(model, self)
        self.text = self.code_tabs.text
        self.graph_pane = GraphPane(model, self)
        self.inspector = InspectorView(model, self)
        self.changes = ChangesPanel(model, self)
        self.bottom_tabs = AnalysisTabs(model, self)
        # The panels, by the names the tests and the menus use.
        self.traffic_panel = self.bottom_tabs.traffic
        self.memory = self.bottom_tabs.memory
        self.search_panel = self.bottom_tabs.search
        self.problems = self.bottom_tabs.problems
        self.compare = self.bottom_tabs.compare
        self.cost_panel = self.bottom_tabs.cost
        self.profile_panel = self.bottom_tabs.profile

        self.main_split = QSplitter(Qt.Orientation.Horizontal, self)
        self.main_split.setObjectName("mainSplit")
        self.main_split.addWidget(self.code_tabs)
        self.main_split.addWidget(self.graph_pane)
        self.main_split.setStretchFactor(0, 1)
        self.main_split.setStretchFactor(1, 1)
        # Neither the text nor the graph can be squeezed away (a long name once
        # did it), and a dragged splitter never collapses one.
        self.main_split.setChildrenCollapsible(False)
        self.code_tabs.setMinimumWidth(MIN_PANE_WIDTH)
        self.graph_pane.setMinimumWidth(MIN_PANE_WIDTH)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.levels_bar)
        layout.addWidget(self.timeline)
        layout.addWidget(self.main_split, 1)
        self.setCentralWidget(central)

        self.module_dock = self._dock("Modules", self.modules, Qt.DockWidgetArea.LeftDockWidgetArea)
        # Tabs inside one dock per side: tabified docks leave stray tab bars behind.
        self.side_tabs = self._tabs(
            "sideTabs", ((self.inspector, "Inspector"), (self.changes, "Changes"))
        )
        self.inspector_dock = self._dock(
            "Selection", self.side_tabs, Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.problems_dock = self._dock(
            "Analysis", self.bottom_tabs, Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self._default_state = self.saveState()

        self.status = steady_label(self)
        self.progress = ProgressBar(self)
        self.progress.setMaximumWidth(180)
        # Showing and hiding it must not lay the window out again (and repaint
        # every view): its place in the status bar stays.
        policy = self.progress.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.progress.setSizePolicy(policy)
        self.progress.hide()
        self.graph_note = steady_label(self)  # a pass step laid the graph out afresh: why
        self.graph_note.setObjectName("graphNote")
        self.graph_note.setStyleSheet(f"color:{theme.NOTE}")
        self.statusBar().addWidget(self.status, 3)
        self.statusBar().addWidget(self.graph_note, 2)
        self.statusBar().addPermanentWidget(self.progress)

    def _tabs(self, name: str, pages) -> QTabWidget:
        tabs = QTabWidget(self)
        tabs.setObjectName(name)
        for widget, title in pages:
            tabs.addTab(widget, title)
        return tabs

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"{title.lower()}Dock")
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        self.addDockWidget(area, dock)
        return dock

    def docks(self) -> list[QDockWidget]:
        return [self.module_dock, self.inspector_dock, self.problems_dock]

    def _wire(self) -> None:
        """What joins one view to another, and the window's own bars: each view
        hears the model itself (it was given the model)."""
        model = self.model
        model.index_changed.connect(self._on_index_changed)
        model.status.connect(self.show_status)
        model.graph_note.connect(self.graph_note.setText)
        model.progress.connect(self._on_progress)
        model.jobs.worker.busy_changed.connect(self._on_busy_changed)
        self.bottom_tabs.shown_wanted.connect(self.problems_dock.show)
        self.bottom_tabs.room_wanted.connect(self._make_room)
        self.levels_bar.stablehlo_requested.connect(self.code_tabs.show_stablehlo)
        self.levels_bar.kernel_requested.connect(self._show_kernel_of)
        self.levels_bar.stage_requested.connect(self.code_tabs.show_kernel_stage)
        self.code_tabs.kernel_stage_shown.connect(self.levels_bar.mark_stage)
        self.traffic_panel.overlay_toggled.connect(self.graph_pane.set_traffic_overlay)
        self.traffic_panel.emphasis_requested.connect(self.graph_pane.set_emphasis)
        model.costing.heat_changed.connect(self.graph_pane.set_heat)
        self.profile_panel.open_requested.connect(lambda: self.menus.open_profile())

    # ================================================================ contract
    def open_dump(
        self, path: str | Path, *, module: str | None = None, point: str | None = None
    ) -> None:
        """Open a dump folder (or one HLO file of it) and show its main module
        (or ``module`` at pass ``point``); returns once it is shown. The folder
        is indexed on the worker, the window live meanwhile (the window's own
        menus ask the model, which returns at once)."""
        self.model.open_dump(path, module, point)
        self.model.wait_opened()

    def select_module(self, key: str | int, point: str | int | None = None) -> None:
        """Show a module by name, id or ``module_NNNN`` (at pass ``point``)."""
        self.model.select_module(key, point)

    def select_pass(self, point: int | str) -> None:
        """Show the module at a pass sequence number, ``before`` or ``after``."""
        self.model.select_pass(point)

    def select_instruction(self, name: str, computation: str | None = None) -> None:
        """Select an instruction: text, graph and inspector follow."""
        self.model.select_instruction(name, computation)

    def wait_idle(self, timeout_ms: int = 120000) -> bool:
        """Wait (processing events) until background work is done."""
        return self.model.wait_idle(timeout_ms)

    @property
    def busy(self) -> bool:
        """Whether background work runs or waits for the window to paint."""
        return self.model.busy

    def view_state(self) -> dict[str, Any]:
        """What is on screen now: ``folder``, ``module`` (name), ``pass`` (a sequence
        number, ``"before"`` or ``"after"``), ``computation`` (the main graph's),
        ``selection``, ``fusion_computation``, ``diff`` (None or ``{"from", "to"}``),
        ``text_pass`` and ``graph_pass`` (the pass whose text / graph is drawn;
        None while loading), ``memory`` (the module's, as ``summary --json`` gives
        it: `ModuleMemory.to_json`; None before its reports are read or without
        them), ``graph_grouping`` (asked by `set_graph_grouping`; None: by scope,
        for graphs of more than 300 nodes), ``graph_boxes`` (boxes the main graph
        draws: nodes and folded groups), ``graph_groups`` (its groups on screen,
        folded or open: ``{"name"`` (the group's path, what `open_group` takes),
        ``"kind"`` (``scope``/``repeat``), ``"open"``, ``"nodes"``, ``"repeats"}``;
        empty when it is not folded)."""
        return {**self.model.view_state(), "compare": self._compare_state()}

    def _compare_state(self) -> dict[str, Any] | None:
        if self.side_by_side is None:
            return None
        return self.side_by_side.link.state("b" if self.opened_beside is not None else "a")

    def set_graph_grouping(self, mode: str) -> None:
        """Fold the main graph by ``scope`` (op_name scopes, repeated blocks
        inside them), ``repeats`` (repeated blocks only) or ``none``, whatever
        its size (by default a graph of more than 300 nodes folds by scope)."""
        self.model.graphs.set_grouping(mode)
        self.menus.grouping_shown(mode)

    def set_graph_phases(self, phases: str) -> None:
        """Fold a JAX scope's forward and backward (``jvp(block_3)`` and
        ``transpose(jvp(block_3))``) ``"apart"`` (the default) or ``"together"``
        in one group (``view_state()["graph_phases"]``)."""
        self.model.graphs.set_phases(phases)
        self.menus.phases_shown(phases)

    def open_group(self, name: str) -> None:
        """Open a folded group of the main graph, and the groups around it: its
        path (``jit(step)/block_3``, as ``view_state()["graph_groups"]`` names
        it) or a name only it has."""
        self.model.graphs.toggle_group(name, opening=True)

    def close_group(self, name: str) -> None:
        """Fold an open group of the main graph back into one box."""
        self.model.graphs.toggle_group(name, opening=False)

    def graph_positions(self) -> dict[str, tuple[float, float]]:
        """Instruction -> scene position of its node's centre in the main graph."""
        return self.graph_pane.positions()

    def graph_on_screen(self) -> list[str]:
        """The instructions whose nodes the main graph view shows now (sorted)."""
        return self.graph_pane.on_screen()

    def search(self, query: str) -> None:
        """Find instructions of the shown pass (see `xlaview.analysis.search`)."""
        self.problems_dock.show()
        self.bottom_tabs.run_search(query)

    def compare_with(self, folder: str | Path, *, side_by_side: bool = True) -> None:
        """Compare the open dump with another dump of the same program: the
        modules both have, in totals (the Compare tab), and op by op: the other
        dump in a second window beside this one (`compared_window`), the
        selection of either followed in the other, the ops the other lacks or
        changed marked on each, the changes ranked in both Compare tabs."""
        self.problems_dock.show()
        self.bottom_tabs.setCurrentWidget(self.compare)
        self.model.compare.compare_with(folder)
        if side_by_side and self.model.index is not None:
            self._open_beside(folder)

    def _open_beside(self, folder: str | Path) -> None:
        if self.side_by_side is not None:
            self.side_by_side.windows["b"].close()
        other = MainWindow(self.settings, persist=False)
        other.set_animate(self.animates)
        other.opened_beside = self
        self.side_by_side = SideBySide(self, other)
        other.side_by_side = self.side_by_side
        other.open_dump(folder)
        other.problems_dock.show()
        other.bottom_tabs.setCurrentWidget(other.compare)
        self.side_by_side.tile()

    @property
    def compared_window(self) -> MainWindow | None:
        """The window of the dump this one is compared with op by op (None: none)."""
        return self.side_by_side.windows["b"] if self.side_by_side is not None else None  # type: ignore[return-value]

    def select_change(self, row: int) -> None:
        """Select the ops of the op-by-op comparison's change ``row`` (ranked
        as the Compare tab lists them) in both windows."""
        if self.side_by_side is not None:
            self.side_by_side.link.select_change(row)

    def open_profile(self, path: str | Path) -> None:
        """Read a ``jax.profiler`` trace taken elsewhere and join it to the dump."""
        self.bottom_tabs.setCurrentWidget(self.profile_panel)
        self.model.costing.open_trace(path)

    def focus_search(self) -> None:
        self.problems_dock.show()
        self.bottom_tabs.setCurrentWidget(self.search_panel)
        self.search_panel.edit.setFocus()
        self.search_panel.edit.selectAll()

    def reload(self) -> None:
        model = self.model
        if model.index is not None:
            module = model.module.key if model.module else None
            model.open_dump(model.index.root, module, model.pass_key)

    def recent_folders(self) -> list[str]:
        return self.menus.recent_folders()

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    # ================================================================ model -> views
    def _on_index_changed(self, index) -> None:
        self.modules.set_index(index)
        if index is not None:
            self.setWindowTitle(f"{index.root.name} — xlaview")
            self.menus.add_recent(index.root)

    def _show_kernel_of(self, name: str) -> None:
        self.model.select_instruction(name)
        self.code_tabs.show_kernel()

    def _make_room(self, height: int) -> None:
        """The Analysis dock at least ``height`` high, if the window can spare it."""
        if self.problems_dock.height() < height and self.height() >= 2.4 * height:
            self.resizeDocks([self.problems_dock], [height], Qt.Orientation.Vertical)

    def _on_busy_changed(self, busy: bool) -> None:
        if busy:
            QTimer.singleShot(BUSY_SHOWN_AFTER_MS, self, self._show_busy_if_still)
        else:
            self.progress.hide()

    def _show_busy_if_still(self) -> None:
        if self.model.jobs.worker.busy:
            self.progress.set_fraction(None)
            self.progress.show()

    def _on_progress(self, what: str, fraction: float | None) -> None:
        self.progress.set_fraction(fraction)
        self.progress.setToolTip(what)
        self.progress.show()

    # ================================================================ events
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls: list[QUrl] = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            self.model.open_dump(urls[0].toLocalFile())
            event.acceptProposedAction()

    @property
    def animates(self) -> bool:
        """Whether a pass step moves the graph's nodes to their new places (a
        setting, on by default)."""
        return self.graph_pane.main.animate

    def set_animate(self, on: bool) -> None:
        for view in (self.graph_pane.main, self.graph_pane.fused):
            view.animate = on
        if self.persist:
            self.settings.setValue("graph/animate", on)

    @property
    def shows_graph_key(self) -> bool:
        """Whether the main graph shows its key: kinds, dashed marks, groups (a setting)."""
        return self.graph_pane.key

    def set_graph_key(self, on: bool) -> None:
        self.graph_pane.show_key(on)
        if self.persist:
            self.settings.setValue("graph/key", on)

    @property
    def follows_changes(self) -> bool:
        """Whether a pass step scrolls the HLO text to the pass's first change
        (a setting, on by default); off, the text keeps what it showed."""
        return self.code_tabs.follow_changes

    def set_follow_changes(self, on: bool) -> None:
        self.code_tabs.set_follow_changes(on)
        if self.persist:
            self.settings.setValue("text/follow_changes", on)

    def text_top_line(self) -> int:
        """The 1-based line of the shown pass's file at the top of the HLO text."""
        return self.text.top_line()

    def reset_layout(self) -> None:
        """Docks where they start, text and graph sharing the width."""
        self.restoreState(self._default_state)
        for dock in self.docks():
            dock.show()
        self.resizeDocks(
            [self.module_dock, self.inspector_dock], [300, 330], Qt.Orientation.Horizontal
        )
        self.resizeDocks([self.problems_dock], [240], Qt.Orientation.Vertical)
        self.main_split.setSizes([10_000, 10_000])  # scaled down to the splitter's width
        self.graph_pane.reset_layout()

    def _restore_state(self) -> None:
        self.reset_layout()
        if not self.persist:  # headless exports show final pictures only
            self.set_animate(False)
            self.resize(QSize(1600, 1000))
            return
        geometry = self.settings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(QSize(1600, 1000))
        state = self.settings.value("windowState")
        if state is not None:
            self.restoreState(state)
        self.set_animate(bool(self.settings.value("graph/animate", True, type=bool)))
        self.set_graph_key(bool(self.settings.value("graph/key", True, type=bool)))
        self.set_follow_changes(bool(self.settings.value("text/follow_changes", True, type=bool)))
        split = self.settings.value("mainSplit")
        if split is not None:
            self.main_split.restoreState(split)

    def closeEvent(self, event: QCloseEvent) -> None:
        pair, self.side_by_side = self.side_by_side, None
        if pair is not None:  # the comparison ends; the window opened beside this one closes
            pair.dissolve()  # (this window as it was before the two were tiled)
            other = pair.windows["b"]
            if other is not self:
                other.side_by_side = None  # type: ignore[attr-defined]
                other.close()
            else:
                pair.windows["a"].side_by_side = None  # type: ignore[attr-defined]
        if self.persist:
            self.settings.setValue("geometry", self.saveGeometry())
            self.settings.setValue("windowState", self.saveState())
            self.settings.setValue("mainSplit", self.main_split.saveState())
            self.settings.sync()
        self.model.shutdown()
        super().closeEvent(event)
        # What the closed window's jobs left behind goes now, not at the next
        # turn of an event loop that may never come.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def main_window_for(path: str | Path | None) -> MainWindow:
    """A window showing ``path`` (default: the bundled sample dump)."""
    from xlaview.resources import sample_dump

    window = MainWindow()
    window.model.open_dump(path if path else sample_dump())
    return window
