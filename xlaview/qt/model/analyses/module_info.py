"""What the shown module's files say beside its HLO: its memory reports and
the memory timeline drawn from them, its levels (StableHLO, kernels), which
pass dumps repeat the one before, and how much each pass changed."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, QTimer, Signal

from xlaview.analysis.memory import ModuleMemory, module_memory
from xlaview.analysis.passes import change_sizes
from xlaview.dump.kernels import ModuleLevels, module_levels
from xlaview.dump.records import DumpModule, unchanged_marks
from xlaview.dump.reports import ModuleReports
from xlaview.qt.model import tasks
from xlaview.qt.model.analyses.memory_shown import memory_shown
from xlaview.qt.model.host import JobHost, Notices, Shown

CHANGE_SIZES_DELAY_MS = 800  # after a module's first dump shows


class ModuleInfo(QObject):
    memory_ready = Signal(object)  # MemoryShown | None
    memory_shown = Signal(object)  # ModuleMemory | None, of the module shown
    unchanged_ready = Signal(object)  # pass key -> bool
    change_sizes_ready = Signal(object)  # pass key -> lines changed
    levels_changed = Signal(object, object)  # ModuleLevels | None, DumpModule | None
    reports_ready = Signal(object)  # ModuleReports of the module shown

    def __init__(
        self, jobs: JobHost, notices: Notices, shown: Shown, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._jobs, self._notices, self._shown = jobs, notices, shown
        self._reports: dict[tuple, ModuleReports] = {}
        self.levels: ModuleLevels | None = None
        self._known: tuple[DumpModule, ModuleLevels] | None = None  # (see `reset`)
        self.memory: ModuleMemory | None = None  # the module shown's (`module_memory`)
        self._sizes_timer = QTimer(self)
        self._sizes_timer.setSingleShot(True)
        self._sizes_timer.setInterval(CHANGE_SIZES_DELAY_MS)
        self._sizes_timer.timeout.connect(self._request_change_sizes)

    def reset(self, module: DumpModule | None = None, levels: ModuleLevels | None = None) -> None:
        """A new folder; ``levels``: those of its ``module`` about to show, found
        on the worker as the folder was indexed."""
        self._reports.clear()
        self._known = (module, levels) if module is not None and levels is not None else None

    def flush_timers(self) -> None:
        if self._sizes_timer.isActive():
            self._sizes_timer.stop()
            self._request_change_sizes()

    def module_shown(self, module: DumpModule | None) -> None:
        index = self._shown.index
        loose = index.unrecognized if index is not None else ()
        known = self._known
        if module is None:
            self.levels = None
        elif known is not None and known[0] is module:
            self.levels = known[1]
        else:
            self.levels = module_levels(module, loose)
        self.levels_changed.emit(self.levels, module)
        self._set_memory(None)
        if module is None:
            self.memory_ready.emit(None)
            return
        # Every pass file read (0.8 s on a 1 GB dump): in a helper process, so
        # that a step asked meanwhile does not wait for it on the worker thread.
        self._jobs.submit(
            "module",
            "unchanged",
            unchanged_marks,
            module,
            on_done=self.unchanged_ready.emit,
            process="background",
        )
        cached = self._reports.get(_reports_key(module))
        if cached is not None:
            self._reports_read(module, cached)
        else:
            self.memory_ready.emit(None)
            self._jobs.submit(
                "module",
                f"reports-{module.id}-{module.dump}",
                tasks.read_reports,
                module,
                on_done=partial(self._reports_read, module),
            )
        self._sizes_timer.start()

    def reports_for_pass(self) -> ModuleReports | None:
        """The reports describe the after-optimizations module only."""
        module = self._shown.module
        if module is None or self._shown.pass_key != "after":
            return None
        return self._reports.get(_reports_key(module))

    def _set_memory(self, memory: ModuleMemory | None) -> None:
        self.memory = memory
        self.memory_shown.emit(memory)

    def _reports_read(self, module: DumpModule, reports: ModuleReports) -> None:
        self._reports[_reports_key(module)] = reports
        # A sum over the allocations: cheap enough here, and the figures show at once.
        self._set_memory(module_memory(reports))
        if reports.problems:
            self._notices.add_problems(list(reports.problems))
        if reports.live_range is not None:
            self._jobs.submit(
                "module",
                "memory",
                memory_shown,
                reports.live_range,
                reports.buffer_assignment,
                on_done=self.memory_ready.emit,
            )
        else:
            self.memory_ready.emit(None)
        self.reports_ready.emit(reports)

    def _request_change_sizes(self) -> None:
        if self._shown.module is None:
            return
        files = [(p.key, p.file.path) for p in self._shown.points]
        notices = self._notices
        self._jobs.submit(
            "module",
            "change-sizes",
            change_sizes,
            files,
            on_done=self.change_sizes_ready.emit,
            on_progress=lambda f: notices.report_progress("measuring each pass's change", f),
            process="background",
        )


def _reports_key(module: DumpModule) -> tuple:
    """A module's reports as read: the module, and the state of its report files
    (a folder being followed gains them late)."""
    files = tuple(f and (f.rel, f.size, f.mtime_ns) for _, f in module.reports.items())
    return module.dump, module.id, files
