"""The analyses of what the view model shows: the pass's diff and traffic,
the module's reports and memory, the selected instruction's history, kernel
and description, the timeline's marks, search, compare, and broken files.

Part of the view model (it reads the model's state and submits through it,
so that its results are dropped the same way when the user moves on); views
subscribe to its signals.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from xlaview.analysis.compare import compare_dumps
from xlaview.analysis.passes.diff import ModuleDiff
from xlaview.analysis.passes.history import change_sizes, instruction_history
from xlaview.analysis.inspect import describe_instruction, kernel_files_for
from xlaview.analysis.marks import DiffMarks, diff_marks
from xlaview.analysis.memory import memory_timeline
from xlaview.analysis.search import search
from xlaview.analysis.traffic import analyze_traffic
from xlaview.dump.index import DumpFile, DumpIndex, DumpModule, Problem, index_dump
from xlaview.dump.kernels import ModuleLevels, module_levels
from xlaview.dump.loader import (
    SETTLE_SECONDS,
    LoadedModule,
    ModuleReports,
    recently_written,
    sniff,
)
from xlaview.dump.points import previous_point
from xlaview.hlo import Module
from xlaview.qt.model import tasks as jobs
from xlaview.qt.model.analyses.boundaries import BoundariesJob
from xlaview.qt.text.levels import load_code

if TYPE_CHECKING:
    from xlaview.qt.model.records import Selection
    from xlaview.qt.model.view_model import ViewModel

CHANGE_SIZES_DELAY_MS = 800  # after a module's first dump shows


@dataclass(frozen=True, slots=True)
class DiffShown:
    """The diff of the shown pass against the dump before it."""

    diff: ModuleDiff | None
    title: str
    marks: DiffMarks
    before: str | None  # pass keys
    after: str | None


class Analyses(QObject):
    diff_ready = Signal(object)  # DiffShown
    traffic_ready = Signal(object)  # Traffic | None
    memory_ready = Signal(object)  # MemoryTimeline | None
    history_ready = Signal(object, object, object)  # name | None, events, titles by pass key
    unchanged_ready = Signal(object)  # pass key -> bool
    change_sizes_ready = Signal(object)  # pass key -> lines changed
    levels_changed = Signal(object, object)  # ModuleLevels | None, DumpModule | None
    kernel_files = Signal(object, object, object)  # instruction, KernelFiles | None, shared with
    kernel_code = Signal(object, object)  # LoadedCode, argument rows
    stablehlo_code = Signal(object, str)  # LoadedCode | None, header
    search_ready = Signal(object)  # list[Hit]
    compare_ready = Signal(str, str, object)  # left root, right root, results
    refresh_requested = Signal()  # the folder changed or a file settled: index it again

    def __init__(self, model: ViewModel) -> None:
        super().__init__(model)
        self.model = model
        self.reports: dict[tuple, ModuleReports] = {}
        self.levels: ModuleLevels | None = None
        self.diff: DiffShown | None = None
        self.traffic = None
        self._history_for: tuple[int, str] | None = None
        self._kernel: tuple[str, Any, str | None] | None = None  # instruction, files, shared
        self._sizes_timer = QTimer(self)
        self._sizes_timer.setSingleShot(True)
        self._sizes_timer.setInterval(CHANGE_SIZES_DELAY_MS)
        self._sizes_timer.timeout.connect(self._request_change_sizes)
        self.boundaries = BoundariesJob(model, self.traffic_ready)  # after the traffic, when wanted

    def reset(self) -> None:
        """A new folder."""
        self.reports.clear()

    def flush_timers(self) -> None:
        if self._sizes_timer.isActive():
            self._sizes_timer.stop()
            self._request_change_sizes()

    # ================================================================ module
    def module_shown(self, module: DumpModule | None) -> None:
        self.diff = None
        self.traffic = None
        self._history_for = None
        self._kernel = None
        self.levels = module_levels(module) if module is not None else None
        self.levels_changed.emit(self.levels, module)
        self.kernel_files.emit(None, None, None)
        self.history_ready.emit(None, [], {})
        self.diff_ready.emit(DiffShown(None, "", DiffMarks(), None, None))
        self.traffic_ready.emit(None)
        if module is None:
            self.memory_ready.emit(None)
            return
        self.model.submit("module", "unchanged", jobs.unchanged_marks, module,
                          on_done=self.unchanged_ready.emit)
        cached = self.reports.get(_reports_key(module))
        if cached is not None:
            self._reports_read(module, cached)
        else:
            self.memory_ready.emit(None)
            self.model.submit("module", f"reports-{module.id}-{module.dump}", jobs.read_reports,
                              module, on_done=lambda r, m=module: self._reports_read(m, r))
        self._sizes_timer.start()

    def _reports_read(self, module: DumpModule, reports: ModuleReports) -> None:
        self.reports[_reports_key(module)] = reports
        if reports.problems:
            self.model.problems_added.emit(list(reports.problems))
        if reports.live_range is not None:
            self.model.submit("module", "memory", memory_timeline, reports.live_range,
                              reports.buffer_assignment, on_done=self.memory_ready.emit)
        else:
            self.memory_ready.emit(None)
        if self.model.pass_key == "after" and self.model.selection is not None:
            selection = self.model.selection
            self.model.select_instruction(selection.name, selection.computation, center=False)

    def reports_for_pass(self) -> ModuleReports | None:
        """The reports describe the after-optimizations module only."""
        module = self.model.module
        if module is None or self.model.pass_key != "after":
            return None
        return self.reports.get(_reports_key(module))

    def _request_change_sizes(self) -> None:
        module = self.model.module
        if module is None:
            return
        files = [(p.key, p.file.path) for p in self.model.points]
        self.model.submit(
            "module", "change-sizes", change_sizes, files, on_done=self.change_sizes_ready.emit,
            on_progress=lambda f: self.model.progress.emit("measuring each pass's change", f),
            process="background")

    # ================================================================ pass
    def report_parse_problems(self, loaded: LoadedModule, dump_file: DumpFile) -> None:
        """A file's syntax errors, once it has stopped changing: a file a
        program is still writing is cut short, not broken."""
        if not loaded.problems:
            return
        if recently_written(dump_file.path):
            def again(_: object) -> None:
                self.refresh_requested.emit()  # a rewritten file is read again ...
                self.report_parse_problems(loaded, dump_file)  # ... an unchanged one reported

            jobs = self.model.jobs
            QTimer.singleShot(int(SETTLE_SECONDS * 1000) + 100, self,
                              lambda s=jobs.stamp("pass"): jobs.deliver("pass", s, again, None))
            return
        self.model.problems_added.emit([Problem(dump_file.rel, p.message, p.line)
                                        for p in loaded.problems])

    def pass_shown(self, dump_file: DumpFile) -> None:
        """The diff and the traffic, after the window has painted the text;
        then (in `_traffic_read`) the neighbouring passes."""
        model = self.model
        key = model.pass_key
        before = previous_point(model.points, key) if key is not None else None
        if before is None:
            self._set_diff(DiffShown(None, "The first dump: nothing before it to compare with.",
                                     DiffMarks(), None, None))
        else:
            title = f"{before.key} → {key}"

            def request() -> None:
                # (Reporting progress lets a step away stop it, as the traffic below.)
                model.submit("pass", "diff", jobs.diff_files, model.cache, before.file, dump_file,
                             on_done=lambda diff: self._diff_read(diff, title, before.key, key),
                             on_progress=lambda _fraction: None)

            model.jobs.after_paint("pass", "diff", request)
        module = model.loaded.module if model.loaded else None
        if module is not None:
            # (Reporting progress lets a step away stop it: it takes a third of a
            # second on a 45 MB pass, and the next pass waits behind it.)
            model.jobs.after_paint("pass", "traffic", lambda: model.submit(
                "pass", "traffic", analyze_traffic, module, None, None,
                on_done=self._traffic_read, on_progress=lambda _fraction: None))

    def _diff_read(self, diff: ModuleDiff, title: str, before: str, after: str) -> None:
        module = self.model.loaded.module if self.model.loaded else None
        marks = diff_marks(diff, module) if module is not None else DiffMarks()
        self._set_diff(DiffShown(diff, title, marks, before, after))

    def _set_diff(self, shown: DiffShown) -> None:
        self.diff = shown
        self.diff_ready.emit(shown)

    def diff_range(self) -> tuple[str, str] | None:
        """(from, to) pass keys of the diff shown, if one is."""
        shown = self.diff
        if shown is None or shown.diff is None or shown.before is None or shown.after is None:
            return None
        return shown.before, shown.after

    def _traffic_read(self, traffic) -> None:
        self.traffic = traffic
        self.traffic_ready.emit(traffic)
        self.model.jobs.after_paint("pass", "prefetch", self.model.prefetch.neighbours)

    # ================================================================ selection
    def describe(self, module: Module, name: str, computation: str) -> dict[str, Any]:
        """What the inspector shows for an instruction of the shown pass."""
        cost, roof = self.model.costing.priced(module)
        described = describe_instruction(module, name, self.reports_for_pass(), self.levels,
                                         cost=cost, roof=roof)
        described["computation"] = computation
        described["measured"] = self.model.costing.measured_of(name)
        return described

    def selection_shown(self, selection: Selection | None) -> None:
        model = self.model
        if selection is None or model.loaded is None:
            return
        if self.levels is not None:
            files, shared = kernel_files_for(model.loaded.module, selection.name, self.levels)
            kernel = (selection.name, files, shared)
            if kernel[:2] != (self._kernel or (None, None))[:2]:
                self._kernel = kernel
                self.kernel_files.emit(*kernel)
        target = (id(model.module), selection.name)
        if self._history_for != target:
            self._history_for = target
            model.bump("history")
            files = [(p.key, p.file.path) for p in model.points]
            titles = {p.key: p.title for p in model.points}
            name = selection.name
            model.submit(
                "history", "history", instruction_history, files, name,
                on_done=lambda events: self.history_ready.emit(name, events, titles),
                on_progress=lambda f: model.progress.emit("finding passes that changed it", f),
                process="background")

    def request_kernel_code(self, stage: str, function: str | None) -> None:
        """The selected instruction's kernel at ``stage`` (ir_no_opt, ir_with_opt, ptx)."""
        model = self.model
        if self._kernel is None or not self._kernel[1]:
            return
        name, files, _shared = self._kernel
        dump_file = files.level(stage) or next((f for _, f in files.levels()), None)
        if dump_file is None:
            return
        kind = ("ptx" if dump_file.name.endswith("ptx") else
                "mlir" if dump_file.name.endswith(".mlir") else "ll")
        module = model.loaded.module if model.loaded is not None else None
        model.submit("kernel", "kernel-code", jobs.load_kernel, dump_file, kind, function,
                     module, name, self.reports_for_pass(),
                     on_done=lambda result: self.kernel_code.emit(*result))

    def request_stablehlo(self) -> None:
        """The StableHLO the framework handed XLA (``module.mlir``)."""
        if self.levels is None or self.levels.stablehlo is None:
            self.stablehlo_code.emit(None, "This dump has no module.mlir for the module "
                                           "(newer XLA writes it in module_NNNN.<name>/).")
            return
        f = self.levels.stablehlo
        self.model.submit("module", "stablehlo", load_code, f, "mlir", None,
                          on_done=lambda code: self.stablehlo_code.emit(
                              code, f"StableHLO given to XLA: {f.rel}"))

    # ================================================================ folder
    def sniff(self, index: DumpIndex) -> None:
        self.model.submit("folder", "sniff", sniff, index, on_done=self._sniffed,
                          process="background")

    def _sniffed(self, problems) -> None:
        root = self.model.index.root if self.model.index else Path()
        settling = [p for p in problems if recently_written(root / p.path)]
        if settling:  # half-written, most likely: look again once it settles
            QTimer.singleShot(2000, self, self.refresh_requested.emit)
        problems = [p for p in problems if p not in settling]
        if problems:
            self.model.problems_added.emit(problems)

    def reindex(self) -> None:
        index = self.model.index
        if index is not None and index.root.is_dir():
            self.model.submit("folder", "reindex", index_dump, index.root,
                              on_done=self.model.reindexed)

    def search(self, query: str) -> None:
        model = self.model
        if model.loaded is None:
            return
        model.bump("search")
        model.submit("search", "search", search, model.loaded.module, query,
                     on_done=self.search_ready.emit)

    def compare_with(self, folder: str | Path) -> None:
        """Compare the open dump's modules with another dump of the same program."""
        left = self.model.index
        if left is None:
            return
        other = index_dump(folder)
        self.model.bump("compare")
        self.model.submit("compare", "compare", compare_dumps, left, other, self.model.cache,
                          on_done=lambda results: self.compare_ready.emit(
                              str(left.root), str(other.root), results))


def _reports_key(module: DumpModule) -> tuple:
    """A module's reports as read: the module, and the state of its report files
    (a folder being followed gains them late)."""
    files = tuple(f and (f.rel, f.size, f.mtime_ns) for _, f in module.reports.items())
    return module.dump, module.id, files
