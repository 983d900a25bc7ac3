"""The main window: modules, pass timeline, HLO text beside its graph, inspector.

The window binds views to core objects and nothing more: parsing, layout,
lexing and report reading are pure functions run on worker threads or in a
helper process (`xlaview.qt.workers`), and every view is told what to show by
this class.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QFileSystemWatcher,
    QSettings,
    QSize,
    Qt,
    QTimer,
    QUrl,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QIcon,
    QKeySequence,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QTabWidget,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from xlaview import __version__
from xlaview.analysis.compare import compare_dumps
from xlaview.analysis.diff import ModuleDiff, diff_modules
from xlaview.analysis.graph import ComputationGraph, build_graph
from xlaview.analysis.history import change_sizes, instruction_history
from xlaview.analysis.memory import memory_timeline
from xlaview.analysis.search import search
from xlaview.analysis.traffic import Traffic, analyze_traffic
from xlaview.analysis.inspect import describe_instruction, kernel_argument_map, kernel_files_for
from xlaview.dump.kernels import ModuleLevels, module_levels
from xlaview.analysis.kinds import kind_of
from xlaview.analysis.layout import GraphLayout
from xlaview.dump.index import DumpFile, DumpIndex, DumpModule, Problem, index_dump, index_file
from xlaview.dump.loader import (
    LoadedModule,
    ModuleCache,
    ModuleReports,
    load_reports,
    read_text,
    sniff,
)
from xlaview.hlo import Module
from xlaview.qt import theme
from xlaview.qt.graph_view import CanvasParts, GraphView, Placed, compute_layout, prepare_canvas
from xlaview.qt.hlo_text import HloTextPanel, build_document
from xlaview.qt.inspector import InspectorView
from xlaview.qt.labels import steady_label
from xlaview.qt.levels import CodePanel, KernelPanel, LevelsBar, load_code
from xlaview.qt.module_list import ModuleListPanel
from xlaview.qt.panels import ChangesPanel, CompareView, MemoryPanel, SearchPanel, TrafficPanel
from xlaview.qt.problems import ProblemsView
from xlaview.qt.timeline import PassTimeline, points_of
from xlaview.qt.workers import Worker
from xlaview.text.spans import lex_text
from xlaview.resources import icon_path

MAX_RECENT = 10
REFRESH_DELAY_MS = 400  # gather a burst of file events into one re-index
CHANGE_SIZES_DELAY_MS = 800  # after a module's first dump shows
SETTLE_SECONDS = 2.0  # a file written this recently may be half-written: look again later
LAYOUT_CACHE = 24
AFTER_PAINT_AT_MOST_MS = 150  # when nothing needed painting


GraphResult = tuple[ComputationGraph, GraphLayout, CanvasParts]
PREPARED_POINTS = 4  # documents built ahead for the neighbouring passes


class ProgressBar(QProgressBar):
    """A progress bar that paints with the window's next paint, not at once.

    `QProgressBar.setValue` repaints on the spot, and in a status bar that
    paints every part of the window waiting to be painted (the graph, the
    text): a hundred milliseconds per progress report, on the GUI thread.
    """

    def set_fraction(self, fraction: float | None) -> None:
        """Show ``fraction`` done, or that work goes on (None)."""
        maximum, value = (100, int(fraction * 100)) if fraction is not None else (0, 0)
        if (maximum, value) == (self.maximum(), self.value()):
            return
        self.setUpdatesEnabled(False)  # setValue's repaint does nothing ...
        self.setRange(0, maximum)
        self.setValue(value)
        self.setUpdatesEnabled(True)  # ... and this asks for a paint later


def graph_and_layout(module: Module, computation: str, previous: dict[str, float] | None,
                     progress=None) -> GraphResult:
    graph = build_graph(module, computation)
    layout = compute_layout(graph, previous, progress)
    return graph, layout, prepare_canvas(graph, layout)


@dataclass
class PreparedPoint:
    """A pass dump made ready off the GUI thread: parsed, its text document
    built and moved to the GUI thread, its lines mapped to instructions."""

    loaded: LoadedModule
    document: QTextDocument
    line_owners: dict[int, tuple[str, str | None]]


def prepare_point(cache: ModuleCache, dump_file: DumpFile) -> PreparedPoint:
    loaded = cache.load(dump_file)
    document = build_document(loaded.module.text)
    document.moveToThread(QCoreApplication.instance().thread())
    return PreparedPoint(loaded, document, loaded.module.line_owners())


def prefetch(cache: ModuleCache, files: list[tuple[str, DumpFile]],
             computation: str | None, previous: dict[str, float] | None):
    """Prepare the neighbouring passes (and their graphs) before the user steps."""
    out = []
    for _label, dump_file in files:
        point = prepare_point(cache, dump_file)
        graph = None
        if computation and point.loaded.module.has_computation(computation):
            graph = graph_and_layout(point.loaded.module, computation, previous)
        out.append((dump_file, point, graph))
    return out


def load_kernel(dump_file: DumpFile, kind: str, function: str | None, module: Module | None,
                instruction: str, reports: ModuleReports | None):
    """A kernel's code and its arguments mapped to HLO (worker thread)."""
    text = read_text(dump_file.path)
    code = load_code(dump_file, kind, function, text)
    rows: list[dict] = []
    if module is not None and kind == "ll":
        try:
            rows = kernel_argument_map(module, instruction, text, reports, function=function)
        except KeyError:
            rows = []
    return code, rows


def diff_points(cache: ModuleCache, before: DumpFile, after: DumpFile) -> ModuleDiff:
    return diff_modules(cache.load(before).module, cache.load(after).module)


@dataclass
class _Selection:
    computation: str
    instruction: str


class Breadcrumb(QLabel):
    """``main.3 › fused_computation.2``: click a part to go back to it."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.setObjectName("breadcrumb")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.linkActivated.connect(window.show_computation_from_breadcrumb)
        self.setContentsMargins(6, 2, 6, 2)

    def set_path(self, path: list[str]) -> None:
        links = []
        for i, name in enumerate(path):
            if i == len(path) - 1:
                links.append(f"<b>{name}</b>")
            else:
                links.append(f"<a href='{i}' style='color:{theme.ACCENT};text-decoration:none'>{name}</a>")
        hint = "  <span style='color:#868e96'>double-click a fusion, call or while to open it</span>"
        self.setText(" › ".join(links) + (hint if len(path) == 1 else ""))


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
        self.worker = Worker(self)
        self.cache = ModuleCache()
        self.index: DumpIndex | None = None
        self.dump_module: DumpModule | None = None
        self.point: str | None = None
        self.loaded: LoadedModule | None = None
        self.reports: dict[tuple, ModuleReports] = {}  # by _reports_key
        self.graph_path: list[str] = []  # computations opened in the graph, entry first
        self.selection: _Selection | None = None
        self._layouts: OrderedDict[tuple[str, str], GraphResult] = OrderedDict()
        self._prepared: OrderedDict[str, PreparedPoint] = OrderedDict()  # by file path
        self._last_x: dict[str, dict[str, float]] = {}  # computation -> node x, for stability
        self._build_ui()
        self._build_menus()
        self.worker.busy_changed.connect(self._on_busy_changed)
        # Follow the open folder while a program writes it.
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(lambda _path: self._refresh_timer.start())
        self.watcher.fileChanged.connect(lambda _path: self._refresh_timer.start())
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_DELAY_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        # Each pass's change size reads every pass file: asked for once the
        # module's first dump is on screen.
        self._sizes_timer = QTimer(self)
        self._sizes_timer.setSingleShot(True)
        self._sizes_timer.setInterval(CHANGE_SIZES_DELAY_MS)
        self._sizes_timer.timeout.connect(lambda: self._request_change_sizes(self.dump_module))
        # Work for what is not on screen yet (the next pass, the diff, the
        # traffic) starts once the window has painted what is: a job running
        # meanwhile would take the GIL from the paint half the time.
        self._after_paint_work: dict[str, Callable[[], None]] = {}
        self._after_paint_timer = QTimer(self)
        self._after_paint_timer.setSingleShot(True)
        self._after_paint_timer.timeout.connect(self._run_after_paint)
        self._restore_state()

    # ======================================================================== UI
    def _build_ui(self) -> None:
        self.modules = ModuleListPanel(self)
        self.modules.module_selected.connect(self._on_module_selected)
        self.timeline = PassTimeline(self)
        self.timeline.point_selected.connect(self._on_point_selected)
        self.text_panel = HloTextPanel(self)
        self.text = self.text_panel.view
        self.text.instruction_clicked.connect(lambda c, i: self.select_instruction(i, c))
        self.text.computation_clicked.connect(self._on_computation_clicked)
        self.graph = GraphView(self)
        self.graph.instruction_clicked.connect(lambda c, i: self.select_instruction(i, c))
        self.graph.computation_entered.connect(self.enter_computation)
        self.fusion_graph = GraphView(self, object_name="fusionGraph")
        self.fusion_graph.instruction_clicked.connect(lambda c, i: self.select_instruction(i, c))
        self.fusion_graph.computation_entered.connect(self.enter_computation)
        self.fusion_title = steady_label(self, margins=(6, 2))
        self.breadcrumb = Breadcrumb(self)
        self.inspector = InspectorView(self)
        self.inspector.instruction_requested.connect(lambda name: self.select_instruction(name))
        self.inspector.computation_requested.connect(self.enter_computation)
        self.problems = ProblemsView(self)
        self.problems.problem_activated.connect(self._on_problem_activated)
        self.changes = ChangesPanel(self)
        self.changes.instruction_requested.connect(self._select_if_present)
        self.changes.point_requested.connect(self._on_history_point)
        self.traffic_panel = TrafficPanel(self)
        self.traffic_panel.instruction_requested.connect(self._select_if_present)
        self.traffic_panel.overlay_toggled.connect(lambda _on: self._apply_traffic_overlay())
        self.memory = MemoryPanel(self)
        self.memory.instruction_requested.connect(self._select_if_present)
        self.search_panel = SearchPanel(self)
        self.search_panel.instruction_requested.connect(self._select_if_present)
        self.search_panel.query_changed.connect(self.search)
        self.compare = CompareView(self)
        self.traffic: Traffic | None = None
        self.diff: ModuleDiff | None = None
        self._history_for: tuple[int, str] | None = None
        self.levels: ModuleLevels | None = None
        self._stablehlo_shown = False
        self._kernel_shown: tuple[str, str] | None = None
        self._problems_seen = False
        self._step_direction = 1
        self._previous_nodes: dict[str, dict[str, Placed]] = {}  # computation -> nodes shown

        graph_box = QWidget(self)
        graph_layout = QVBoxLayout(graph_box)
        graph_layout.setContentsMargins(0, 0, 0, 0)
        graph_layout.setSpacing(0)
        graph_layout.addWidget(self.breadcrumb)
        self.graph_split = QSplitter(Qt.Orientation.Vertical, graph_box)
        self.graph_split.addWidget(self.graph)
        fusion_box = QWidget(self.graph_split)
        fusion_layout = QVBoxLayout(fusion_box)
        fusion_layout.setContentsMargins(0, 0, 0, 0)
        fusion_layout.setSpacing(0)
        fusion_layout.addWidget(self.fusion_title)
        fusion_layout.addWidget(self.fusion_graph, 1)
        self.fusion_box = fusion_box
        self.graph_split.addWidget(fusion_box)
        self.graph_split.setStretchFactor(0, 3)
        self.graph_split.setStretchFactor(1, 2)
        fusion_box.hide()
        graph_layout.addWidget(self.graph_split, 1)

        self.kernel = KernelPanel(self)
        self.kernel.stage_requested.connect(lambda _stage: self._load_kernel_code())
        self.stablehlo = CodePanel("stablehloText", self)
        self.code_tabs = QTabWidget(self)
        self.code_tabs.setObjectName("codeTabs")
        self.code_tabs.addTab(self.text_panel, "HLO")
        self.code_tabs.addTab(self.kernel, "Kernel")
        self.code_tabs.addTab(self.stablehlo, "StableHLO")
        self.code_tabs.currentChanged.connect(lambda _i: self._on_code_tab())
        self.levels_bar = LevelsBar(self)
        self.levels_bar.stablehlo_requested.connect(self.show_stablehlo)
        self.levels_bar.point_requested.connect(self.select_pass)
        self.levels_bar.kernel_requested.connect(self.show_kernel)
        self.main_split = QSplitter(Qt.Orientation.Horizontal, self)
        self.main_split.setObjectName("mainSplit")
        self.main_split.addWidget(self.code_tabs)
        self.main_split.addWidget(graph_box)
        self.main_split.setStretchFactor(0, 1)
        self.main_split.setStretchFactor(1, 1)

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
        self.side_tabs = QTabWidget(self)
        self.side_tabs.setObjectName("sideTabs")
        self.side_tabs.addTab(self.inspector, "Inspector")
        self.side_tabs.addTab(self.changes, "Changes")
        self.inspector_dock = self._dock("Selection", self.side_tabs, Qt.DockWidgetArea.RightDockWidgetArea)
        self.bottom_tabs = QTabWidget(self)
        self.bottom_tabs.setObjectName("analysisTabs")
        for widget, title in ((self.traffic_panel, "Traffic"), (self.memory, "Memory"),
                              (self.search_panel, "Search"), (self.problems, "Problems"),
                              (self.compare, "Compare")):
            self.bottom_tabs.addTab(widget, title)
        self.problems_dock = self._dock("Analysis", self.bottom_tabs, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.resizeDocks([self.module_dock, self.inspector_dock], [250, 330],
                         Qt.Orientation.Horizontal)
        self.resizeDocks([self.problems_dock], [240], Qt.Orientation.Vertical)

        self.status = steady_label(self)
        self.progress = ProgressBar(self)
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(False)
        # Showing and hiding it must not lay the window out again (and repaint
        # every view): its place in the status bar stays.
        policy = self.progress.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.progress.setSizePolicy(policy)
        self.progress.hide()
        self.statusBar().addWidget(self.status, 1)
        self.statusBar().addPermanentWidget(self.progress)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"{title.lower()}Dock")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        return dock

    def _build_menus(self) -> None:
        from xlaview.qt import export

        def action(menu, text: str, slot, shortcut=None) -> QAction:
            act = QAction(text, self)
            if shortcut:
                act.setShortcut(QKeySequence(shortcut))
            act.triggered.connect(slot)
            menu.addAction(act)
            return act

        file_menu = self.menuBar().addMenu("&File")
        action(file_menu, "&Open Folder…", self._on_open_folder, QKeySequence.StandardKey.Open)
        action(file_menu, "Open HLO &File…", self._on_open_file)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        action(file_menu, "&Reload", self.reload, QKeySequence.StandardKey.Refresh)
        action(file_menu, "Compare &With Folder…", self._on_compare_folder)
        file_menu.addSeparator()
        action(file_menu, "Export Window as &PNG…", lambda: self._export("window-png"), "Ctrl+E")
        action(file_menu, "Export &Graph as PNG (2x)…", lambda: self._export("graph-png"))
        action(file_menu, "Export Graph as &SVG…", lambda: self._export("graph-svg"))
        action(file_menu, "&Copy Screenshot", lambda: export.copy_window(self), "Ctrl+Shift+C")
        file_menu.addSeparator()
        action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        view_menu = self.menuBar().addMenu("&View")
        action(view_menu, "&Fit Graph", self.graph.fit, "Ctrl+0")
        action(view_menu, "Next Pass", lambda: self.timeline.step(+1), "Ctrl+Right")
        action(view_menu, "Previous Pass", lambda: self.timeline.step(-1), "Ctrl+Left")
        action(view_menu, "Back to Entry Computation", self.back_to_entry, "Backspace")
        action(view_menu, "&Search Instructions", self._focus_search, "Ctrl+Shift+F")
        view_menu.addSeparator()
        for dock in (self.module_dock, self.inspector_dock, self.problems_dock):
            view_menu.addAction(dock.toggleViewAction())

        help_menu = self.menuBar().addMenu("&Help")
        action(help_menu, "&Keyboard Shortcuts", self._show_shortcuts)
        action(help_menu, "&About xlaview", self._show_about)

    # ================================================================ contract
    def open_dump(self, path: str | Path, *, module: str | None = None,
                  point: str | None = None) -> None:
        """Open a dump folder (or one HLO file of it) and show its first module
        (or ``module`` at ``point``, if the folder has them)."""
        path = Path(path).expanduser()
        try:
            index = index_file(path) if path.is_file() else index_dump(path)
        except OSError as err:
            self.show_error(f"Cannot open {path}", str(err))
            return
        self.index = index
        self.reports.clear()
        self.cache.clear()
        self._layouts.clear()
        self._prepared.clear()
        self._last_x.clear()
        self._add_recent(index.root)
        self.setWindowTitle(f"{index.root.name} — xlaview")
        self.modules.set_index(index)
        self.problems.set_problems(list(index.problems))
        self._problems_seen = False
        self._update_problems_dock()
        self.worker.submit("sniff", sniff, index, on_done=self._on_sniffed)
        self._watch(index)
        if not index.modules:
            self.status.setText(f"{index.root}: no XLA module files found")
            self.dump_module = None
            self.timeline.set_points([])
            self.text.set_text("")
            self.graph.set_graph(None, None)
            return
        target = index.module_of(path) if path.is_file() else None
        if target is not None:
            self.select_module(target, point=_label_of(target, path.absolute()))
        else:
            try:
                target = index.module(module) if module is not None else None
            except KeyError:
                target = None
            if target is None:
                self.select_module(self._default_module(index))
            else:
                self.select_module(target, point=point)
        n = len(index.modules)
        self.status.setText(f"{index.root}: {n} module{'s' * (n != 1)}, {len(index.dumps)} dump"
                            f"{'s' * (len(index.dumps) != 1)}")

    # ================================================================= following
    def _watch(self, index: DumpIndex) -> None:
        old = self.watcher.directories() + self.watcher.files()
        if old:
            self.watcher.removePaths(old)
        if index.root.is_dir():
            folders = {str(index.root)} | {str(index.root / d) for d in index.dumps if d}
            self.watcher.addPaths(sorted(folders))

    def refresh(self) -> None:
        """Re-index the open folder (new modules, passes, reports) keeping the
        user's module, pass and selection."""
        if self.index is None or not self.index.root.is_dir():
            return
        self.worker.submit("reindex", index_dump, self.index.root, on_done=self._on_reindexed,
                           on_error=self._on_job_error)

    def _on_reindexed(self, index: DumpIndex) -> None:
        old = self.index
        if old is None or index.root != old.root:
            return
        current = self.dump_module
        point = self.point
        current_file = current.file_at(point) if current is not None and point else None
        self.index = index
        self.modules.set_index(index)
        self._watch(index)
        self.problems.add_problems(index.problems)
        self.worker.submit("sniff", sniff, index, on_done=self._on_sniffed)
        match = None
        if current is not None:
            match = next((m for m in index.modules if (m.dump, m.id, m.name) ==
                          (current.dump, current.id, current.name)), None)
        if match is None:
            if current is None and index.modules:
                self.select_module(self._default_module(index))
            self.status.setText(f"{index.root}: {len(index.modules)} modules")
            return
        self.dump_module = match
        self.modules.select(match)
        labels = [p.label for p in points_of(match)]
        keep = point if point in labels else (labels[-1] if labels else None)
        self.timeline.set_points(points_of(match), current=keep)  # clears the pass marks...
        self._request_reports(match)
        self._request_pass_marks(match)  # ...which are asked for again
        self._request_change_sizes(match)
        if keep is None:
            return
        new_file = match.file_at(keep)
        if keep != point or current_file is None or (new_file.size, new_file.mtime_ns) != (
                current_file.size, current_file.mtime_ns):
            self._load_point(keep)
        self.status.setText(f"{index.root}: {len(index.modules)} modules (following the folder)")

    def _report_parse_problems(self, loaded: LoadedModule, dump_file: DumpFile) -> None:
        """List a file's syntax errors, once it has stopped changing: a file a
        program is still writing is cut short, not broken."""
        if not loaded.problems:
            return
        if self._settling(dump_file.rel):
            def again() -> None:
                if self.loaded is loaded:
                    self.refresh()  # a rewritten file is re-read; an unchanged one...
                    self._report_parse_problems(loaded, dump_file)  # ...is reported

            QTimer.singleShot(int(SETTLE_SECONDS * 1000) + 100, self, again)
            return
        self.problems.add_problems([Problem(dump_file.rel, p.message, p.line)
                                    for p in loaded.problems])
        self._update_problems_dock()

    def _request_change_sizes(self, module: DumpModule | None) -> None:
        if module is None or module is not self.dump_module:
            return
        files = [(label, f.path) for label, f in module.timeline()]
        self.worker.submit(
            "change-sizes", change_sizes, files, on_done=self.timeline.set_change_sizes,
            on_progress=lambda f: self._progress("measuring each pass's change", f),
            process="background")

    def _settling(self, rel_path: str) -> bool:
        """Whether a file changed so recently that it may still be being written."""
        if self.index is None:
            return False
        try:
            age = time.time() - (self.index.root / rel_path).stat().st_mtime
        except OSError:
            return False
        return age < SETTLE_SECONDS

    def select_module(self, key: str | int | DumpModule, point: str | None = None) -> None:
        """Show a module by name, id, ``module_NNNN``: its dump at ``point`` (a pass
        label as in :meth:`select_pass`; default: after optimizations)."""
        if self.index is None:
            raise RuntimeError("no dump is open")
        module = key if isinstance(key, DumpModule) else self.index.module(key)
        self.dump_module = module
        self.modules.select(module)
        points = points_of(module)
        self.graph_path = []
        self.selection = None
        self.timeline.set_points(points, current=_normal_label(point) if point else None)
        self.levels = module_levels(module)
        self.levels_bar.set_module(self.levels, len(module.passes),
                                   module.before_optimizations is not None,
                                   module.after_optimizations is not None)
        self._stablehlo_shown = False
        self.kernel.set_files(None, None, None)
        if self.code_tabs.currentWidget() is self.stablehlo:
            self.show_stablehlo()
        cached = self.reports.get(_reports_key(module))
        if cached is not None:
            QTimer.singleShot(0, self, lambda m=module: self._on_reports(m, cached))
        else:
            self.memory.set_timeline(None)
            self._request_reports(module)
        self._request_pass_marks(module)
        self._sizes_timer.start()
        self.changes.set_history(None, [], {})
        if points:
            self._load_point(self.timeline.current_label)

    def _request_reports(self, module: DumpModule) -> None:
        """Read the module's memory reports, unless read in the state they are in."""
        if _reports_key(module) not in self.reports:
            self.worker.submit(f"reports-{module.id}-{module.dump}", load_reports, module,
                               on_done=lambda r, m=module: self._on_reports(m, r),
                               on_error=self._on_job_error)

    def _request_pass_marks(self, module: DumpModule) -> None:
        """The timeline's marks: passes that changed nothing, and the passes
        that changed the selected instruction."""
        self.worker.submit("unchanged", _unchanged_of, module,
                           on_done=self.timeline.set_unchanged)
        self._history_for = None
        if self.selection is not None:
            self._follow_history(self.selection.instruction)

    def select_pass(self, point: int | str) -> None:
        """Show the module at a pass sequence number, ``before`` or ``after``."""
        label = _normal_label(point)
        self.timeline.select_label(label, emit=False)
        self._load_point(label)

    def select_instruction(self, name: str, computation: str | None = None) -> None:
        """Select an instruction: text, graph and inspector follow."""
        self.worker.wait_for("point")
        if self.loaded is None:
            raise RuntimeError("no module is loaded")
        module = self.loaded.module
        try:
            if computation and module.has_computation(computation) and name in module.computation(computation):
                comp = module.computation(computation)
                instr = comp.instruction(name)
            else:
                comp, instr = module.find(name)
        except KeyError:
            self.status.setText(f"no instruction {name!r} in this dump")
            raise
        self.selection = _Selection(comp.name, instr.name)
        self._show_selection(center=True)

    # =========================================================== loading points
    def _default_module(self, index: DumpIndex) -> DumpModule:
        # The module with the most passes is the one the user compiled on purpose.
        return max(index.modules, key=lambda m: (len(m.passes), m.after_optimizations is not None))

    def _on_module_selected(self, module: DumpModule) -> None:
        if module is not self.dump_module:
            self.select_module(module)

    def _on_point_selected(self, label: str) -> None:
        self._load_point(label)

    def _load_point(self, label: str | None) -> None:
        if label is None or self.dump_module is None:
            return
        labels = [p.label for p in self.timeline.points]
        if self.point in labels and label in labels:
            self._step_direction = 1 if labels.index(label) >= labels.index(self.point) else -1
        self.point = label
        dump_file = self.dump_module.file_at(label)
        prepared = self._prepared.pop(str(dump_file.path), None)
        if prepared is not None:
            self.worker.cancel("point")
            self._on_point_loaded(prepared, dump_file)
            return
        self.status.setText(f"reading {dump_file.rel} …")
        self.worker.submit("point", prepare_point, self.cache, dump_file,
                           on_done=lambda point, f=dump_file: self._on_point_loaded(point, f),
                           on_error=lambda err, trace, f=dump_file: self._on_point_failed(err, f))

    def _on_point_failed(self, error: BaseException, dump_file) -> None:
        self.loaded = None
        self.text.set_text(f"// {dump_file.rel}: {error}")
        self.graph.set_graph(None, None)
        self.problems.add_problems([Problem(dump_file.rel, str(getattr(error, "message", error)),
                                            getattr(error, "line", None))])
        self._update_problems_dock()
        self.status.setText(f"{dump_file.rel}: {error}")

    def _on_point_loaded(self, point: PreparedPoint, dump_file) -> None:
        loaded = point.loaded
        self.loaded = loaded
        module = loaded.module
        self.text.set_document(module, point.document, point.line_owners)
        self.worker.submit("lex", lex_text, module.text, "hlo", on_done=self.text.set_spans,
                           on_progress=lambda f: self._progress("highlighting", f), process="view")
        self._report_parse_problems(loaded, dump_file)
        # Keep showing the same computation while stepping, when it still exists.
        path = [c for c in self.graph_path if module.has_computation(c)]
        entry = module.entry.name if module.entry else None
        if not path or (entry and path[0] != entry):
            path = [entry] if entry else []
        self.graph_path = path
        if path:
            # The text paints first, the graph in the next pass of the event loop.
            self._after_paint("graph", lambda c=path[-1]: self._show_graph(c, keep_view=True))
        else:
            self.graph.set_graph(None, None)
        # The diff and the traffic, then (in _on_traffic) the neighbouring
        # passes: each result is handled while no other job runs.
        self._request_diff(dump_file)
        self._after_paint("traffic", lambda: self.worker.submit(
            "traffic", analyze_traffic, module, on_done=self._on_traffic))
        if self.selection and self._selection_exists():
            self._show_selection(center=False)
        else:
            self.selection = None
            self.fusion_box.hide()
            self.inspector.show_message("Select an instruction in the text or the graph.")
        n = module.instruction_count
        self.status.setText(f"{dump_file.rel}: {len(module.computations)} computations, "
                            f"{n} instructions")

    def _prefetch_neighbours(self) -> None:
        if self.dump_module is None or self.timeline.current is None:
            return
        i = self.timeline.current
        points = self.dump_module.timeline()
        # The neighbours, the one in the direction the user steps first, one job
        # at a time: parallel jobs crowd the window out of the GIL.
        step = self._step_direction
        wanted = [points[j] for j in (i + step, i - step) if 0 <= j < len(points)
                  and str(points[j][1].path) not in self._prepared][:1]
        if not wanted:
            return
        computation = self.graph_path[-1] if self.graph_path else None
        self.worker.submit("prefetch", prefetch, self.cache, wanted,
                           computation, self._last_x.get(computation or ""),
                           on_done=self._on_prefetched)

    def _on_prefetched(self, results) -> None:
        for dump_file, point, graph in results:
            self._prepared[str(dump_file.path)] = point
            if graph is not None:
                self._layouts[(str(dump_file.path), graph[0].computation)] = graph
        while len(self._prepared) > PREPARED_POINTS:
            _, old = self._prepared.popitem(last=False)
            old.document.deleteLater()
        self._prefetch_neighbours()  # the other neighbour, if not ready yet

    # =================================================================== levels
    def _set_kernel_for(self, name: str) -> None:
        if self.levels is None or self.loaded is None:
            return
        files, shared = kernel_files_for(self.loaded.module, name, self.levels)
        if files is self.kernel.files and name == self.kernel.instruction:
            return
        self.kernel.set_files(name, files, shared)
        self._kernel_shown = None
        if self.code_tabs.currentWidget() is self.kernel:
            self._load_kernel_code()

    def _on_code_tab(self) -> None:
        current = self.code_tabs.currentWidget()
        if current is self.kernel:
            self._load_kernel_code()
        elif current is self.stablehlo and not self._stablehlo_shown:
            self.show_stablehlo()

    def show_kernel(self, name: str) -> None:
        """Select an instruction and show its kernel."""
        self._select_if_present(name)
        self.code_tabs.setCurrentWidget(self.kernel)

    def _load_kernel_code(self) -> None:
        files, name = self.kernel.files, self.kernel.instruction
        if not files or name is None:
            return
        stage = self.kernel.current_stage()
        dump_file = getattr(files, stage) or files.ir_no_opt or files.ir_with_opt or files.ptx
        if dump_file is None or self._kernel_shown == (str(dump_file.path), name):
            return
        self._kernel_shown = (str(dump_file.path), name)
        kind = "ptx" if dump_file.name.endswith("ptx") else "ll"
        module = self.loaded.module if self.loaded is not None else None
        self.worker.submit("kernel-code", load_kernel, dump_file, kind, self.kernel.function,
                           module, name, self._reports_for_point(),
                           on_done=self._on_kernel_code, on_error=self._on_job_error)

    def _on_kernel_code(self, result) -> None:
        code, rows = result
        self.kernel.show_code(code)
        self.kernel.set_arguments(rows)
        self._colour(self.kernel, code)

    def _colour(self, panel: CodePanel, code) -> None:
        view = panel.view
        self.worker.submit(f"colour-{panel.objectName()}", lex_text, code.text, code.kind,
                           on_done=lambda spans, d=code.document: (
                               view.set_spans(spans) if view.document() is d else None),
                           on_progress=lambda f: self._progress("colouring", f), process="view")

    def show_stablehlo(self) -> None:
        """The StableHLO the framework handed XLA (``module.mlir``)."""
        if self.levels is None or self.levels.stablehlo is None:
            self.stablehlo.header.setText("This dump has no module.mlir for the module "
                                          "(newer XLA writes it in module_NNNN.<name>/).")
            return
        self._stablehlo_shown = True
        self.code_tabs.setCurrentWidget(self.stablehlo)
        f = self.levels.stablehlo
        self.stablehlo.header.setText(f"<b>StableHLO</b> given to XLA: {f.rel}")
        self.worker.submit("stablehlo", load_code, f, "mlir", None,
                           on_done=lambda code: (self.stablehlo.show_code(code),
                                                 self._colour(self.stablehlo, code)),
                           on_error=self._on_job_error)

    # ================================================================= analyses
    def _request_diff(self, dump_file: DumpFile) -> None:
        self.diff = None
        points = self.dump_module.timeline() if self.dump_module else []
        labels = [label for label, _ in points]
        if self.point not in labels or labels.index(self.point) == 0:
            self.changes.set_diff(None, "The first dump: nothing before it to compare with.")
            self._show_diff_marks()
            return
        before_label, before = points[labels.index(self.point) - 1]
        title = f"{before_label} → {self.point}"
        self._after_paint("diff", lambda: self.worker.submit(
            "diff", diff_points, self.cache, before, dump_file,
            on_done=lambda diff, t=title: self._on_diff(diff, t), on_error=self._on_job_error))

    def _on_diff(self, diff: ModuleDiff, title: str) -> None:
        self.diff = diff
        self.changes.set_diff(diff, title)
        self._show_diff_marks()

    def _show_diff_marks(self) -> None:
        """Added and changed instructions coloured in the text and the graph;
        removed ones ghosted where they stood in the previous pass's graph."""
        diff, module = self.diff, self.loaded.module if self.loaded else None
        added: list[tuple[int, int]] = []
        changed: list[tuple[int, int]] = []
        status: dict[str, str] = {}
        if diff is not None and module is not None:
            for items, out, kind in ((diff.added, added, "added"), (diff.changed, changed, "changed")):
                for item in items:
                    if module.has_computation(item.computation) and item.name in module.computation(
                            item.computation):
                        line = module.computation(item.computation).instruction(item.name).span.line
                        out.append((line, line))
                        status[item.name] = kind
            for name in diff.computations_added:
                if module.has_computation(name):
                    comp = module.computation(name)
                    end = module.last_line(comp.span)
                    added.append((comp.span.line, end))
        self.text.set_highlights("diff-added", added, "#ebfbee")
        self.text.set_highlights("diff-changed", changed, "#fff9db")
        canvas = self.graph.canvas
        if canvas is not None:
            canvas.diff = status
            canvas.ghosts = []
            previous = self._previous_nodes.get(canvas.graph.computation, {})
            if diff is not None:
                for r in diff.removed:
                    if r.computation == canvas.graph.computation and r.name in previous:
                        canvas.ghosts.append((r.name, previous[r.name].rect))
            canvas.update()

    def _on_traffic(self, traffic: Traffic) -> None:
        self.traffic = traffic
        self.traffic_panel.set_traffic(traffic)
        self._apply_traffic_overlay()
        self._after_paint("prefetch", self._prefetch_neighbours)

    def _apply_traffic_overlay(self) -> None:
        canvas = self.graph.canvas
        if canvas is None:
            return
        canvas.traffic = {}
        if self.traffic is not None and self.traffic_panel.overlay.isChecked():
            by_edge: dict[tuple[str, str], int] = {}
            for i in self.traffic.intermediates:
                producer = i.producer_instruction
                for consumer in i.consumers:
                    by_edge[(producer, consumer)] = max(by_edge.get((producer, consumer), 0), i.bytes)
            largest = max(by_edge.values(), default=1)
            nodes = {n.key: n.instruction for n in canvas.graph.nodes}
            for route in canvas.layout.edges:
                size = by_edge.get((nodes[route.source], nodes[route.target]))
                if size:
                    # Widths by the log of the bytes: 1 MiB and 1 GiB must both show.
                    canvas.traffic[(route.source, route.target)] = 2 + 14 * (
                        math.log2(1 + size) / math.log2(1 + largest))
        canvas.update()

    def search(self, query: str) -> None:
        """Find instructions of the current dump (see `xlaview.analysis.search`)."""
        if self.loaded is None:
            return
        self.problems_dock.show()
        self.bottom_tabs.setCurrentWidget(self.search_panel)
        self.worker.submit("search", search, self.loaded.module, query,
                           on_done=self.search_panel.set_hits)

    def _focus_search(self) -> None:
        self.problems_dock.show()
        self.bottom_tabs.setCurrentWidget(self.search_panel)
        self.search_panel.edit.setFocus()
        self.search_panel.edit.selectAll()

    def compare_with(self, folder: str | Path) -> None:
        """Compare the open dump's modules with another dump of the same program."""
        if self.index is None:
            return
        other = index_dump(folder)
        left = self.index
        self.problems_dock.show()
        self.bottom_tabs.setCurrentWidget(self.compare)
        self.worker.submit("compare", compare_dumps, left, other, self.cache,
                           on_done=lambda results: self.compare.set_comparisons(
                               str(left.root), str(other.root), results),
                           on_error=self._on_job_error)

    def _on_compare_folder(self) -> None:
        start = str(self.index.root.parent) if self.index else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Compare with another dump folder", start)
        if folder:
            self.compare_with(folder)

    def _select_if_present(self, name: str) -> None:
        if self.loaded is None:
            return
        if not self._has(name):
            self.status.setText(f"{name} is not in this dump (pass {self.point})")
            return
        self.select_instruction(name)

    def _on_history_point(self, label: str) -> None:
        if self.dump_module is None or not label:
            return
        name = self.selection.instruction if self.selection else None
        self.select_pass(label)
        self.worker.wait_for("point")
        if name and self.loaded and self._has(name):
            self.select_instruction(name)

    def _has(self, name: str) -> bool:
        try:
            self.loaded.module.find(name)  # type: ignore[union-attr]
        except KeyError:
            return False
        return True

    def _selection_exists(self) -> bool:
        if self.selection is None or self.loaded is None:
            return False
        module = self.loaded.module
        return module.has_computation(self.selection.computation) and (
            self.selection.instruction in module.computation(self.selection.computation)
        )

    # ==================================================================== graph
    def _show_graph(self, computation: str, keep_view: bool = False,
                    then_select: bool = False) -> None:
        if self.loaded is None:
            return
        self.breadcrumb.set_path(self.graph_path)
        key = (self._current_file_key(), computation)
        cached = self._layouts.get(key)
        if cached is not None:
            self._set_graph(self.graph, *cached, keep_view=keep_view)
            return
        self.worker.submit(
            "graph", graph_and_layout, self.loaded.module, computation,
            self._last_x.get(computation),
            on_done=lambda result, k=key: self._on_layout(k, result, keep_view),
            on_progress=lambda f: self._progress("laying out the graph", f),
            on_error=self._on_job_error,
        )

    def _current_file_key(self) -> str:
        return str(self.dump_module.file_at(self.point).path) if self.dump_module and self.point else ""

    def _on_layout(self, key, result, keep_view: bool) -> None:
        self._layouts[key] = result
        while len(self._layouts) > LAYOUT_CACHE:
            self._layouts.popitem(last=False)
        if key[0] != self._current_file_key() or not self.graph_path or key[1] != self.graph_path[-1]:
            return  # the user moved on
        self._set_graph(self.graph, *result, keep_view=keep_view)

    def _set_graph(self, view: GraphView, graph: ComputationGraph, layout: GraphLayout,
                   parts: CanvasParts, keep_view: bool) -> None:
        if view is self.graph and view.canvas is not None:
            old = view.canvas
            self._previous_nodes[old.graph.computation] = {
                p.node.instruction: p for p in old.placed.values() if not p.node.is_copy}
        view.set_graph(graph, layout, keep_view=keep_view, parts=parts)
        if view is self.graph:
            self._show_diff_marks()
            self._apply_traffic_overlay()
            self._last_x[graph.computation] = {k: p[0] for k, p in layout.positions.items()}
        if self.selection:
            self._select_in_graph(view, center=not keep_view)

    def enter_computation(self, computation: str) -> None:
        """Open a called computation (fusion body, while body, ...) in the graph."""
        if self.loaded is None or not self.loaded.module.has_computation(computation):
            return
        if computation in self.graph_path:
            self.graph_path = self.graph_path[: self.graph_path.index(computation) + 1]
        else:
            self.graph_path.append(computation)
        self._show_graph(computation)
        comp = self.loaded.module.computation(computation)
        self.text.show_span(comp.span.line)

    def show_computation_from_breadcrumb(self, link: str) -> None:
        i = int(link)
        self.graph_path = self.graph_path[: i + 1]
        self._show_graph(self.graph_path[-1])

    def back_to_entry(self) -> None:
        if len(self.graph_path) > 1:
            self.show_computation_from_breadcrumb("0")

    def _on_computation_clicked(self, computation: str) -> None:
        if self.loaded is None:
            return
        comp = self.loaded.module.computation(computation)
        self.text.show_span(comp.span.line)
        self.enter_computation(computation)

    # ================================================================ selection
    def _show_selection(self, center: bool) -> None:
        assert self.selection is not None and self.loaded is not None
        module = self.loaded.module
        comp = module.computation(self.selection.computation)
        instr = comp.instruction(self.selection.instruction)
        # Text: the line, its fused computation, its operands and users.
        last = module.last_line(instr.span)
        self.text.set_highlights("selection", [(instr.span.line, last)], theme.SELECTION)
        blocks = []
        for called in instr.called_computations:
            if module.has_computation(called):
                c = module.computation(called)
                blocks.append((c.span.line, module.last_line(c.span)))
        self.text.set_highlights("block", blocks, theme.FUSED_BLOCK)
        operands = set(instr.operand_names)
        users = {i.name for i in comp.instructions if instr.name in i.operand_names}
        self.text.set_highlights("operands", [(comp.instruction(o).span.line,) * 2 for o in operands
                                              if o in comp], theme.OPERAND)
        self.text.set_highlights("users", [(comp.instruction(u).span.line,) * 2 for u in users],
                                 theme.USER)
        if center:
            self.text.show_span(instr.span.line)
        # Graph: follow the instruction into its computation.
        if not self.graph_path or self.graph_path[-1] != comp.name:
            if comp.name in self.graph_path:
                self.graph_path = self.graph_path[: self.graph_path.index(comp.name) + 1]
            elif module.entry and comp.name == module.entry.name:
                self.graph_path = [comp.name]
            else:
                self.graph_path = [module.entry.name, comp.name] if module.entry else [comp.name]
            self._show_graph(comp.name)
        else:
            self._select_in_graph(self.graph, center=center)
        # The body of a fusion, beside the graph.
        fused = instr.called_computations[0] if instr.opcode == "fusion" and instr.called_computations else None
        if fused and module.has_computation(fused):
            self.fusion_title.setText(f"<b>{fused}</b> <span style='color:#868e96'>— body of "
                                      f"{instr.name} ({instr.fusion_kind or 'fusion'})</span>")
            if not self.fusion_box.isVisible():
                self.fusion_box.show()
                total = max(2, sum(self.graph_split.sizes()))
                self.graph_split.setSizes([total * 3 // 5, total * 2 // 5])
            key = (self._current_file_key(), fused)
            cached = self._layouts.get(key)
            if cached:
                self._set_graph(self.fusion_graph, *cached, keep_view=False)
            else:
                self.worker.submit("fusion-graph", graph_and_layout, module, fused, None,
                                   on_done=lambda r, k=key: self._on_fusion_layout(k, r),
                                   on_error=self._on_job_error)
        else:
            self.fusion_box.hide()
        # Inspector.
        reports = self._reports_for_point()
        try:
            described = describe_instruction(module, instr.name, reports)
        except KeyError:
            described = None
        if described is not None:
            described["computation"] = comp.name
            self.inspector.show_instruction(described, kind_of(instr))
        self.memory.chart.select(instr.name)
        self._set_kernel_for(instr.name)
        self._follow_history(instr.name)

    def _follow_history(self, name: str) -> None:
        """Ask which passes changed ``name``, unless already asked for this module."""
        if self._history_for != (id(self.dump_module), name):
            self._history_for = (id(self.dump_module), name)
            self._request_history(name)

    def _on_fusion_layout(self, key, result) -> None:
        self._layouts[key] = result
        if key[0] == self._current_file_key():
            self._set_graph(self.fusion_graph, *result, keep_view=False)

    def _select_in_graph(self, view: GraphView, center: bool) -> None:
        if self.selection is None or view.graph is None:
            return
        name = self.selection.instruction
        graph = view.graph
        if name in graph.nodes_of:
            view.set_selection(name, graph.operands_of(name), graph.users_of(name), center=center)
        else:
            view.set_selection(None, set(), set(), center=False)

    def _reports_for_point(self) -> ModuleReports | None:
        if self.dump_module is None or self.point != "after":
            return None
        return self.reports.get(_reports_key(self.dump_module))

    def _on_reports(self, module: DumpModule, reports: ModuleReports) -> None:
        self.reports[_reports_key(module)] = reports
        if module is self.dump_module and reports.live_range is not None:
            self.worker.submit("memory", memory_timeline, reports.live_range,
                               reports.buffer_assignment,
                               on_done=lambda timeline, m=module: (
                                   self.memory.set_timeline(timeline)
                                   if m is self.dump_module else None))
        elif module is self.dump_module:
            self.memory.set_timeline(None)
        if reports.problems:
            self.problems.add_problems(list(reports.problems))
            self._update_problems_dock()
        if module is self.dump_module and self.selection and self.point == "after":
            self._show_selection(center=False)

    def _request_history(self, name: str) -> None:
        if self.dump_module is None:
            return
        files = [(label, f.path) for label, f in self.dump_module.timeline()]
        titles = {p.label: p.title for p in self.timeline.points}
        self.worker.submit(
            "history", instruction_history, files, name,
            on_done=lambda events, n=name: self._on_history(n, events, titles),
            on_progress=lambda f: self._progress("finding passes that changed it", f),
            process="background")

    def _on_history(self, name: str, events, titles: dict[str, str]) -> None:
        self.timeline.set_changed_marks({e.point for e in events})
        self.changes.set_history(name, events, titles)

    # ================================================================= problems
    def _on_sniffed(self, problems: list[Problem]) -> None:
        settling = [p for p in problems if self._settling(p.path)]
        if settling:  # half-written, most likely: look again once it settles
            QTimer.singleShot(int(SETTLE_SECONDS * 1000), self, self.refresh)
        problems = [p for p in problems if p not in settling]
        if problems:
            self.problems.add_problems(problems)
            self._update_problems_dock()

    def _update_problems_dock(self) -> None:
        count = len(self.problems.problems)
        index = self.bottom_tabs.indexOf(self.problems)
        self.bottom_tabs.setTabText(index, f"Problems ({count})" if count else "Problems")
        if count and not self._problems_seen:
            self._problems_seen = True  # show them once; the user decides after that
            self.problems_dock.show()
            self.bottom_tabs.setCurrentIndex(index)

    def _on_problem_activated(self, problem: Problem) -> None:
        if self.index is None:
            return
        path = self.index.root / problem.path
        module = self.index.module_of(path)
        if module is None:
            return
        label = _label_of(module, path)
        self.select_module(module, point=label)
        if label is not None:
            self.worker.wait_for("point")
            if problem.line:
                self.text.show_span(problem.line)

    def _on_job_error(self, error: BaseException, trace: str) -> None:
        self.show_error("A background task failed", f"{error}\n\n{trace}")

    def show_error(self, title: str, detail: str) -> None:
        self.status.setText(title)
        if QGuiApplication.platformName() == "offscreen":
            print(f"xlaview: {title}: {detail}")
            return
        box = QMessageBox(QMessageBox.Icon.Warning, title, title, parent=self)
        box.setDetailedText(detail)
        box.exec()

    # ============================================================ status, busy
    def _on_busy_changed(self, busy: bool) -> None:
        if busy:
            QTimer.singleShot(150, self, self._show_busy_if_still)
        else:
            self.progress.hide()

    def _show_busy_if_still(self) -> None:
        if self.worker.busy:
            self.progress.set_fraction(None)
            self.progress.show()

    def _progress(self, what: str, fraction: float) -> None:
        self.progress.set_fraction(fraction)
        self.progress.setToolTip(what)
        self.progress.show()

    @property
    def busy(self) -> bool:
        """Whether background work runs or waits for the window to paint."""
        return self.worker.busy or bool(self._after_paint_work)

    def wait_idle(self, timeout_ms: int = 120000) -> bool:
        """Wait (processing events) until background work is done, work
        deferred until the window has shown a dump included."""
        while True:
            self._run_after_paint()
            if self._sizes_timer.isActive():
                self._sizes_timer.stop()
                self._request_change_sizes(self.dump_module)
            done = self.worker.wait(timeout_ms)
            if not done or not (self._after_paint_work or self._sizes_timer.isActive()):
                return done

    def _after_paint(self, key: str, work: Callable[[], None]) -> None:
        """Run ``work`` once the window has painted (the newest of each ``key``)."""
        self._after_paint_work.pop(key, None)
        self._after_paint_work[key] = work
        if not self._after_paint_timer.isActive():
            self._after_paint_timer.start(AFTER_PAINT_AT_MOST_MS)

    def _run_after_paint(self) -> None:
        self._after_paint_timer.stop()
        work, self._after_paint_work = self._after_paint_work, {}
        for run in work.values():
            run()

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.UpdateRequest and self._after_paint_work:
            self._after_paint_timer.start(0)  # just after this paint
        return handled

    # ============================================================ file actions
    def _on_open_folder(self) -> None:
        start = str(self.index.root) if self.index else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Open an XLA dump folder", start)
        if folder:
            self.open_dump(folder)

    def _on_open_file(self) -> None:
        start = str(self.index.root) if self.index else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Open an HLO text", start,
                                              "HLO text (*.txt *.hlo);;All files (*)")
        if path:
            self.open_dump(path)

    def reload(self) -> None:
        if self.index is None:
            return
        module = self.dump_module
        point = self.point
        self.open_dump(self.index.root, module=module.key if module else None, point=point)

    def _export(self, kind: str) -> None:
        from xlaview.qt import export

        suffix = ".svg" if kind == "graph-svg" else ".png"
        name = (self.dump_module.key if self.dump_module else "xlaview") + suffix
        path, _ = QFileDialog.getSaveFileName(self, "Export", str(Path.home() / name))
        if not path:
            return
        if kind == "window-png":
            export.window_png(self, path)
        elif kind == "graph-png":
            export.graph_png(self.graph, path, scale=2.0)
        else:
            export.graph_svg(self.graph, path)
        self.status.setText(f"exported {path}")

    def _add_recent(self, folder: Path) -> None:
        if not self.persist:
            return
        recent = [str(folder)] + [f for f in self.recent_folders() if f != str(folder)]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self._update_recent_menu()

    def recent_folders(self) -> list[str]:
        if not self.persist:
            return []
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        for folder in self.recent_folders():
            act = self.recent_menu.addAction(folder)
            act.triggered.connect(lambda _=False, f=folder: self.open_dump(f))
        self.recent_menu.setEnabled(bool(self.recent_folders()))

    # ================================================================== events
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls: list[QUrl] = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            self.open_dump(urls[0].toLocalFile())
            event.acceptProposedAction()

    def _restore_state(self) -> None:
        self._update_recent_menu()
        # Text and graph share the width at first (scaled down to the splitter's).
        self.main_split.setSizes([10_000, 10_000])
        if not self.persist:
            self.resize(QSize(1600, 1000))
            return
        geometry = self.settings.value("geometry")
        state = self.settings.value("windowState")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(QSize(1600, 1000))
        if state is not None:
            self.restoreState(state)
        split = self.settings.value("mainSplit")
        if split is not None:
            self.main_split.restoreState(split)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.persist:
            super().closeEvent(event)
            return
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("windowState", self.saveState())
        self.settings.setValue("mainSplit", self.main_split.saveState())
        super().closeEvent(event)

    def _show_about(self) -> None:
        QMessageBox.about(self, "About xlaview",
                          f"<b>xlaview {__version__}</b><br>An explorer for XLA compiler dumps.")

    def _show_shortcuts(self) -> None:
        QMessageBox.information(self, "Keyboard shortcuts", (
            "Pass timeline: Left / Right step, Home / End jump (click the timeline first)\n"
            "Ctrl+Left / Ctrl+Right: previous / next pass from anywhere\n"
            "Ctrl+F: find in the HLO text;  Ctrl+click a name: go to its definition\n"
            "Graph: wheel zooms, drag pans, F fits, double-click opens a fusion or loop body\n"
            "Backspace: back to the entry computation\n"
            "Ctrl+E: export the window as PNG;  Ctrl+Shift+C: copy a screenshot"))


def _reports_key(module: DumpModule) -> tuple:
    """A module's reports as read: the module, and the state of its report files
    (a folder being followed gains them late)."""
    files = tuple(f and (f.rel, f.size, f.mtime_ns) for _, f in module.reports.items())
    return module.dump, module.id, files


def _normal_label(point: int | str) -> str:
    label = str(point)
    return str(int(label)) if label.isdigit() else label


def _label_of(module: DumpModule, path: Path) -> str | None:
    """The timeline label of one of the module's HLO files."""
    return next((label for label, f in module.timeline() if f.path == path), None)


def _unchanged_of(module: DumpModule) -> dict[str, bool]:
    return {str(seq): same for seq, same in module.unchanged_passes().items()}


def main_window_for(path: str | Path | None) -> MainWindow:
    """A window showing ``path`` (default: the bundled sample dump)."""
    from xlaview.resources import sample_dump

    window = MainWindow()
    window.open_dump(path if path else sample_dump())
    return window

