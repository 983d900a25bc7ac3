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

Its parts (the analyses, the pricing, the prefetch) get narrow views of it
(`xlaview.qt.model.host`), never the model itself; the model wires them to
each other and to its steps. A request that cannot be met (a pass the module
lacks, a folder that cannot be read) is a status message and a listed
problem: requests are slots, and a slot never raises.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from xlaview.analysis import navigation
from xlaview.analysis.kinds import kind_of
from xlaview.dump.main_module import default_module, pick_module
from xlaview.dump.modules import LoadedModule, ModuleCache
from xlaview.dump.points import ModulePoint
from xlaview.dump.records import DumpFile, DumpIndex, DumpModule
from xlaview.errors import XlaviewError
from xlaview.hlo import Module
from xlaview.qt.model import reading, tasks
from xlaview.qt.model.analyses import description
from xlaview.qt.model.analyses.boundaries import BoundariesJob
from xlaview.qt.model.analyses.changes import PassChanges
from xlaview.qt.model.analyses.compare import Compare
from xlaview.qt.model.analyses.costing import Costing
from xlaview.qt.model.analyses.folder import Folder, Opened
from xlaview.qt.model.analyses.history import History
from xlaview.qt.model.analyses.kernels import Kernels
from xlaview.qt.model.analyses.module_info import ModuleInfo
from xlaview.qt.model.analyses.search import Search
from xlaview.qt.model.analyses.stablehlo import StableHlo
from xlaview.qt.model.graphs import Graphs
from xlaview.qt.model.jobs import Jobs
from xlaview.qt.model.notices import NoticeBoard
from xlaview.qt.model.prefetch import Prefetch
from xlaview.qt.model.records import ModuleEntry, Selection, TextShown, public_pass
from xlaview.qt.model.release import Releaser
from xlaview.qt.model.tasks import PreparedPass
from xlaview.qt.model.view_cache import ViewCache


class ViewModel(QObject):
    """See the module docstring. Signals carry core objects (or the small
    records above); the window connects them to its views."""

    index_changed = Signal(object)  # DumpIndex | None
    module_changed = Signal(object, object)  # DumpModule | None, list[ModulePoint]
    pass_changed = Signal(str)  # the pass asked for (shown once pass_shown says so)
    text_read = Signal(object)  # ReadText: the asked pass's text, shown while it is parsed
    pass_shown = Signal(object)  # TextShown
    spans_ready = Signal(object)  # LineSpans of the text shown
    selection_changed = Signal(object)  # Selection | None
    selection_described = Signal(object)  # the same Selection, described again (its cost came)
    line_requested = Signal(int)  # scroll the text to this line (a problem's)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.notices = NoticeBoard(lambda: self.module.key if self.module else "", self)
        # What the window says, as the model's signals: the views hear the model.
        notices = self.notices
        self.status, self.progress = notices.status, notices.progress
        self.problems_reset, self.problems_added = notices.problems_reset, notices.problems_added
        self.jobs = Jobs(self, on_failure=notices.job_failed)
        self.cache = ModuleCache()
        self.index: DumpIndex | None = None
        self.module: DumpModule | None = None
        self.points: list[ModulePoint] = []
        self.pass_key: str | None = None  # asked for
        self.loaded: LoadedModule | None = None  # of the text shown
        self.text_pass: str | None = None  # the pass whose parsed text is shown
        self.text_drawn: str | None = None  # the pass whose text is on screen (parsed or not)
        self._drawn_source: object = None  # the TextSource on screen
        self._rushed = False  # the pass asked, before the one asked before it showed
        self.selection: Selection | None = None
        self._asked_selection: tuple[str, str | None, bool] | None = (
            None  # name, computation, center
        )
        self._reveal: tuple[str, int] | None = None  # pass key, line to scroll to once shown
        self.releaser = Releaser(self)
        self.views = ViewCache(self.releaser.release)
        jobs, cache = self.jobs, self.cache
        self.graphs = Graphs(jobs, notices, self, self.views, self)
        # The graphs' signals, as the model's: the views hear the model.
        self.graph_shown = self.graphs.graph_shown
        self.fusion_shown = self.graphs.fusion_shown
        self.graph_note = self.graphs.graph_note
        self.prefetch = Prefetch(jobs, self, self.views, cache, self.show_asked_pass)
        self.changes = PassChanges(jobs, self, cache, self)
        self.module_info = ModuleInfo(jobs, notices, self, self)
        self.kernels = Kernels(
            jobs, self, lambda: self.module_info.levels, self.module_info.reports_for_pass, self
        )
        self.history = History(jobs, notices, self, self)
        self.stablehlo = StableHlo(jobs, self, lambda: self.module_info.levels, self)
        self.folder = Folder(jobs, notices, self, self)
        self.search = Search(jobs, self, self)
        self.compare = Compare(jobs, self, cache, self)
        self.boundaries = BoundariesJob(jobs, notices, self, self)
        self.costing = Costing(jobs, notices, self, cache, self)
        self._wire()

    def _wire(self) -> None:
        """The parts hear the model's steps and each other through here."""
        costing, changes, boundaries = self.costing, self.changes, self.boundaries
        self.index_changed.connect(costing.index_changed)
        self.pass_changed.connect(boundaries.pass_changed)
        self.pass_shown.connect(lambda _shown: costing.pass_shown())
        self.pass_shown.connect(lambda _shown: self.kernels.pass_shown())
        # A step is on screen once its graph is: the jobs held start unless the next comes at once.
        self.graph_shown.connect(lambda _shown: self.jobs.release_after_stay())
        self.graph_shown.connect(lambda _shown: self.changes.graph_shown())
        # Priced once the pass's graph is drawn: the worker lays that out first.
        self.graph_shown.connect(lambda _shown: costing.request())
        self.selection_changed.connect(lambda selection: costing.request() if selection else None)
        self.fusion_shown.connect(lambda _shown: costing.emit_heat())
        costing.described_changed.connect(self._describe_again)
        changes.traffic_ready.connect(boundaries.traffic_found)
        # Once the pass's traffic is known, the neighbouring passes are prepared.
        changes.traffic_ready.connect(
            lambda traffic: (
                self.jobs.after_paint("pass", "prefetch", self.prefetch.neighbours)
                if traffic is not None
                else None
            )
        )
        self.module_info.reports_ready.connect(self._reports_ready)
        self.folder.reindexed.connect(self.reindexed)

    # -- what the graphs hold, as `xlaview.qt.model.host.Shown` reads it ----------
    @property
    def graph_path(self) -> list[str]:
        return self.graphs.path

    @property
    def graph_pass(self) -> str | None:
        return self.graphs.graph_pass

    @property
    def fusion_computation(self) -> str | None:
        return self.graphs.fusion_computation

    # ================================================================ jobs
    @property
    def busy(self) -> bool:
        return self.jobs.busy

    def wait_idle(self, timeout_ms: int = 120000) -> bool:
        """Process events until every job is done, work deferred until the
        window has painted included."""
        return self.jobs.wait_idle(timeout_ms, before=self.module_info.flush_timers)

    def shutdown(self) -> None:
        """Drop everything pending (the window closes)."""
        self.jobs.shutdown()

    # ================================================================ folder
    def open_dump(
        self, path: str | Path, module: str | None = None, pass_: str | None = None
    ) -> None:
        """Index a dump folder (or the folder of one HLO file) and show a
        module. The index is made on the worker (thousands of file names:
        the window stays live); `wait_opened` waits for it."""
        path = Path(path).expanduser()
        self.folder.open(
            path,
            module,
            pass_,
            self._opened,
            lambda err: self.notices.cannot(f"cannot open {path}: {err}", str(path)),
        )

    def wait_opened(self, timeout_ms: int = 120000) -> bool:
        """Process events until the folder asked for is shown (or cannot be)."""
        return self.folder.wait_opened(timeout_ms)

    def _opened(self, opened: Opened) -> None:
        index = opened.index
        self.jobs.bump("folder")
        self.index = index
        self.cache.clear()
        self.views.clear()
        self.module_info.reset(opened.module, opened.levels)
        self.index_changed.emit(index)
        self.problems_reset.emit(list(index.problems))
        self.folder.sniff(index)
        if opened.module is None:
            self._set_module(None)
            self.notices.say(f"{index.root}: no XLA module files found")
            return
        if opened.missing is not None:
            self.notices.cannot(f"{opened.missing}: showing the main module", str(index.root))
        self.select_module(opened.module, opened.point)
        self.notices.say(index.summary())

    def module_entries(self) -> list[ModuleEntry]:
        """The modules of the open folder as the module list shows them."""
        return [ModuleEntry.of(m) for m in self.index.modules] if self.index else []

    def reindexed(self, index: DumpIndex) -> None:
        """A re-index of the open folder (it is being written): keep the user's
        module, pass and selection where they still exist."""
        old = self.index
        if old is None or index.root != old.root:
            return
        self.index = index
        self.index_changed.emit(index)
        self.notices.add_problems(list(index.problems))
        self.folder.sniff(index)
        match, keep, reread = navigation.follow_reindex(self.module, self.pass_key, index)
        if match is None:
            if self.module is None and index.modules:
                self.select_module(default_module(index))
            return
        self.module = match
        self.points = match.points()
        self.module_changed.emit(match, self.points)
        self._module_shown(match)
        if keep is not None and reread:
            self.select_pass(keep)
        elif keep is not None:
            self.pass_changed.emit(keep)

    # ================================================================ module, pass
    def select_module(self, key: str | int | DumpModule, pass_: int | str | None = None) -> None:
        """Show a module (a name, an id, ``module_NNNN``) at ``pass_`` (default:
        after; a pass the module lacks: its last, said)."""
        if self.index is None:
            self.notices.cannot(f"no dump is open to show module {key}")
            return
        try:
            module, several = (
                (key, None) if isinstance(key, DumpModule) else pick_module(self.index, key)
            )
        except XlaviewError as err:
            self.notices.cannot(str(err), str(self.index.root))
            return
        self._set_module(module)
        if several:  # an id two processes used, a name compiled twice: the largest, said
            self.notices.say(several)
        if not self.points:
            return
        try:
            wanted = module.point(pass_).key if pass_ is not None else self.points[-1].key
        except XlaviewError as err:  # a pass this module does not have: its last
            self.notices.cannot(f"{err}: showing its last", module.key)
            wanted = self.points[-1].key
        self.select_pass(wanted)

    def _set_module(self, module: DumpModule | None) -> None:
        self.jobs.bump("module")
        self.module = module
        self.points = module.points() if module else []
        # The module's own jobs (its reports, ...) wait for its first pass to show.
        if self.points:
            self.jobs.hold()
        else:
            self.jobs.release()
        self.pass_key = self.text_pass = self.text_drawn = None
        self.loaded = None
        self.graphs.module_shown()
        self._asked_selection = None
        self._set_selection(None)
        self.module_changed.emit(module, self.points)
        self._module_shown(module)

    def _module_shown(self, module: DumpModule | None) -> None:
        self.changes.module_shown()
        self.history.module_shown()
        self.kernels.module_shown()
        self.stablehlo.module_shown()
        self.module_info.module_shown(module)
        self.costing.module_changed(module)

    def select_pass(self, key: int | str) -> None:
        """Show the module at a pass: a sequence number, ``before`` or ``after``
        (one it lacks is said, and listed, with what there is)."""
        if self.module is None:
            self.notices.cannot(f"no module is shown to show pass {key} of")
            return
        try:
            key = self.module.point(key).key
        except XlaviewError as err:
            self.notices.cannot(str(err), self.module.key)
            return
        self.prefetch.stepped(self.pass_key, key)
        # Asked before the step before it showed: steps come faster than they show.
        self._rushed = self.pass_key is not None and self.graph_pass is None
        self.jobs.bump("pass")
        self.jobs.hold()
        self.pass_key = key
        self.text_pass = self.text_drawn = None
        self.graphs.pass_changed()
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
        self.notices.say(f"reading {dump_file.rel} …")
        if not self.prefetch.awaited(dump_file):
            reading.read_pass(
                self.jobs,
                self.cache,
                self.graphs,
                dump_file,
                self._text_read,
                self._show_pass,
                partial(self._pass_failed, dump_file=dump_file),
                self._rushed,
            )

    def _text_read(self, read: tasks.ReadText) -> None:
        """The asked pass's text, on screen before its parse lands."""
        if self.text_pass is not None:
            return
        self.text_drawn = self.pass_key
        self._drawn_source = read.source
        self.text_read.emit(read)
        if not read.source.windowed:  # a big text is coloured window by window
            reading.colour(self.jobs, self.notices, read.source.text, self.spans_ready.emit)

    def _pass_failed(self, error: BaseException, dump_file: DumpFile) -> None:
        self.loaded = None
        self.graph_shown.emit(None)
        self.notices.job_failed(error, dump_file.rel)

    def _show_pass(self, prepared: PreparedPass) -> None:
        loaded, module = prepared.loaded, prepared.loaded.module
        key = self.pass_key
        assert key is not None  # (a pass is asked before it is shown)
        self.loaded = loaded
        self.text_pass = self.text_drawn = key
        coloured = prepared.source is self._drawn_source  # shown, and its colours asked, ahead
        self._drawn_source = prepared.source
        self.pass_shown.emit(TextShown.of(key, prepared))
        if not prepared.source.windowed and not coloured:  # a big one: window by window
            reading.colour(self.jobs, self.notices, module.text, self.spans_ready.emit)
        self.folder.report_parse_problems(loaded, prepared.file)
        if self._reveal is not None and self._reveal[0] == self.pass_key:
            self.line_requested.emit(self._reveal[1])
        self._reveal = None
        self.graphs.pass_shown(module)
        # The text paints first; then the selection is found in the new pass (tens
        # of milliseconds on a 45 MB pass); then the graph, before the analyses.
        if self._asked_selection is not None:
            self.jobs.after_paint("pass", "selection", lambda: self._reselect(prepared.file))
        else:
            self._then_graph(prepared.file)
        self.notices.say(
            f"{prepared.file.rel}: {len(module.computations)} computations, "
            f"{module.instruction_count} instructions"
        )

    def _reselect(self, dump_file: DumpFile) -> None:
        """The asked selection in the pass just shown (its graph asked first, so
        that the worker lays it out before pricing the selection)."""
        self._then_graph(dump_file)
        if self._asked_selection is not None:
            self._apply_selection(*self._asked_selection, request_graph=False)

    def _then_graph(self, dump_file: DumpFile) -> None:
        """The graph after the next paint, then the pass's diff and traffic."""
        self.jobs.after_paint("pass", "graph", self.graphs.show_after_paint)
        self.changes.pass_shown(dump_file)

    def current_file_key(self) -> str:
        if self.module is None or self.pass_key is None:
            return ""
        return str(self.module.file_at(self.pass_key).path)

    # ================================================================ graph
    def enter_computation(self, computation: str) -> None:
        """Open a called computation (a fusion's body, a loop's body) in the graph."""
        self.graphs.enter(computation)

    def open_path_prefix(self, depth: int) -> None:
        """Go back to the ``depth``-th computation of the graph path (breadcrumb)."""
        self.graphs.open_prefix(depth)

    def back_to_entry(self) -> None:
        self.graphs.open_prefix(0)

    def show_fusion(self, caller: str) -> None:
        """Show the body of fusion ``caller`` in the fused pane, whatever is selected."""
        self.graphs.show_fused_of(caller)

    # ================================================================ selection
    def select_instruction(
        self, name: str, computation: str | None = None, center: bool = True
    ) -> None:
        """Select an instruction of the shown pass: text, graph and inspector follow.
        Asked before the pass shows, it applies once it does."""
        self.jobs.bump("selection")
        self._asked_selection = (name, computation, center)
        if self.loaded is not None and self.text_pass == self.pass_key:
            self._apply_selection(name, computation, center)

    def _apply_selection(
        self, name: str, computation: str | None, center: bool, request_graph: bool = True
    ) -> None:
        assert self.loaded is not None
        module = self.loaded.module
        found = navigation.locate(module, name, computation)
        if found is None:
            self._asked_selection = None
            self._set_selection(None)
            self.notices.say(f"{name} is not in this dump (pass {self.pass_key})")
            return
        comp, instr = found
        described = self.describe(module, instr.name, comp.name)
        self._set_selection(Selection(comp.name, instr.name, described, kind_of(instr), center))
        self.graphs.reveal(instr.name, comp.name)
        self.graphs.follow(comp.name, module, request=request_graph)
        self.graphs.show_fused(navigation.fused_computation(module, instr), instr)
        assert self.selection is not None
        self.kernels.selection_shown(self.selection)
        self.stablehlo.selection_shown()
        self.history.selection_shown(self.selection)

    def describe(self, module: Module, name: str, computation: str) -> dict[str, Any]:
        """What the inspector shows for an instruction of the shown pass."""
        return description.describe(module, name, computation, self.module_info, self.costing)

    def _describe_again(self) -> None:
        """The selection described again with what came (its cost, its measured
        time): the inspector shows it; nothing else moves."""
        selection, loaded = self.selection, self.loaded
        if selection is None or loaded is None or self.text_pass != self.pass_key:
            return
        described = self.describe(loaded.module, selection.name, selection.computation)
        self.selection = replace(selection, described=described, center=False)
        self.selection_described.emit(self.selection)

    def _reports_ready(self, _reports: object) -> None:
        """The reports describe the final pass: its selection gains buffers."""
        if self.pass_key == "after" and self.selection is not None:
            selection = self.selection
            self.select_instruction(selection.name, selection.computation, center=False)

    def _set_selection(self, selection: Selection | None) -> None:
        self.selection = selection
        if selection is None:
            self.graphs.clear_fused()
        self.selection_changed.emit(selection)

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
        diff = self.changes.diff_range()
        return {
            "folder": str(self.index.root) if self.index else None,
            "module": self.module.key if self.module else None,
            "pass": public_pass(self.pass_key),
            "computation": self.graph_path[-1] if self.graph_path else None,
            "selection": self.selection.name if self.selection else None,
            "fusion_computation": self.fusion_computation,
            "diff": None
            if diff is None
            else {"from": public_pass(diff[0]), "to": public_pass(diff[1])},
            "text_pass": public_pass(self.text_drawn),
            "graph_pass": public_pass(self.graph_pass),
            "memory": memory.to_json() if (memory := self.module_info.memory) else None,
            **self.graphs.groups_state(),
        }
