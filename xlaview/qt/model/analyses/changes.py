"""What the shown pass changed and where its memory traffic goes: the diff
against the pass before and the traffic, asked once the window has painted
the pass's text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.marks import DiffMarks
from xlaview.analysis.passes import ModuleDiff
from xlaview.analysis.traffic import Traffic, analyze_traffic
from xlaview.dump.modules import ModuleCache
from xlaview.dump.points import previous_point
from xlaview.dump.records import DumpFile
from xlaview.qt.model import tasks
from xlaview.qt.model.host import JobHost, Shown


@dataclass(frozen=True, slots=True)
class DiffShown:
    """The diff of the shown pass against the dump before it."""

    diff: ModuleDiff | None
    title: str
    marks: DiffMarks
    before: str | None  # pass keys
    after: str | None


NO_DIFF = DiffShown(None, "", DiffMarks(), None, None)


# Instructions above which a pass's traffic waits for the user to stay on it.
TRAFFIC_AFTER_STAY = 20_000


class PassChanges(QObject):
    diff_ready = Signal(object)  # DiffShown
    traffic_ready = Signal(object)  # Traffic | None

    def __init__(
        self, jobs: JobHost, shown: Shown, cache: ModuleCache, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._jobs, self._shown, self._cache = jobs, shown, cache
        self.diff: DiffShown | None = None
        self.traffic: Traffic | None = None
        self._traffic_due: Callable[[], None] | None = None  # a big pass's, until its graph shows

    def module_shown(self) -> None:
        self.diff = None
        self.traffic = None
        self._traffic_due = None
        self.diff_ready.emit(NO_DIFF)
        self.traffic_ready.emit(None)

    def pass_shown(self, dump_file: DumpFile) -> None:
        """The diff and the traffic, after the window has painted the text."""
        jobs, shown = self._jobs, self._shown
        key = shown.pass_key
        before = previous_point(shown.points, key) if key is not None else None
        if before is None:
            self._set_diff(
                DiffShown(
                    None,
                    "The first dump: nothing before it to compare with.",
                    DiffMarks(),
                    None,
                    None,
                )
            )
        else:
            title = f"{before.key} → {key}"

            def request() -> None:
                # (Reporting progress lets a step away stop it, as the traffic below.)
                jobs.submit(
                    "pass",
                    "diff",
                    tasks.diff_files,
                    self._cache,
                    before.file,
                    dump_file,
                    on_done=lambda found: self._diff_read(
                        found[0], found[1], title, before.key, key
                    ),
                    on_progress=lambda _fraction: None,
                )

            jobs.after_paint("pass", "diff", request)
        module = shown.loaded.module if shown.loaded else None
        if module is None:
            return

        def traffic() -> None:
            # (Reporting progress lets a step away stop it: it takes a third of a
            # second on a 45 MB pass, and the next pass waits behind it.)
            jobs.submit(
                "pass",
                "traffic",
                analyze_traffic,
                module,
                None,
                None,
                on_done=self._traffic_read,
                on_progress=lambda _fraction: None,
            )

        if module.instruction_count <= TRAFFIC_AFTER_STAY or module.entry is None:
            jobs.after_paint("pass", "traffic", traffic)
        else:  # once its graph shows and the user stays on the pass (see `graph_shown`)
            self._traffic_due = traffic

    def graph_shown(self) -> None:
        """The shown pass's graph is on screen: a big module's traffic starts
        once the user stays on the pass (scrubbing, each step's pricing held
        up the next step's graph)."""
        due, self._traffic_due = self._traffic_due, None
        if due is not None:
            self._jobs.after_stay("pass", "traffic", due)

    def diff_range(self) -> tuple[str, str] | None:
        """(from, to) pass keys of the diff shown, if one is."""
        shown = self.diff
        if shown is None or shown.diff is None or shown.before is None or shown.after is None:
            return None
        return shown.before, shown.after

    def _diff_read(
        self, diff: ModuleDiff, marks: DiffMarks, title: str, before: str, after: str | None
    ) -> None:
        self._set_diff(DiffShown(diff, title, marks, before, after))

    def _set_diff(self, shown: DiffShown) -> None:
        self.diff = shown
        self.diff_ready.emit(shown)

    def _traffic_read(self, traffic: Traffic) -> None:
        self.traffic = traffic
        self.traffic_ready.emit(traffic)
