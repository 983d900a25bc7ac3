"""The folder: indexed on the worker when it is opened (thousands of file
names; the window stays live), and its health while a program may still be
writing it: broken files sniffed in the helper process, parse problems
reported once a file has settled (a file being written is cut short, not
broken), and a re-index when something changed."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from xlaview.analysis.navigation import opened_at
from xlaview.dump.checks import sniff
from xlaview.dump.files import SETTLE_SECONDS, recently_written
from xlaview.dump.index import index_dump, index_file
from xlaview.dump.kernels import ModuleLevels, module_levels
from xlaview.dump.modules import LoadedModule, load_module
from xlaview.dump.records import DumpFile, DumpIndex, DumpModule
from xlaview.errors import Problem, XlaviewError
from xlaview.qt.model.host import JobHost, Notices, Shown
from xlaview.qt.model.workers import TEXT_FIRST

SNIFF_AGAIN_MS = 2000  # a file that looked broken while it was being written


class Folder(QObject):
    refresh_requested = Signal()  # the folder changed or a file settled: index it again
    reindexed = Signal(object)  # DumpIndex of the open folder, read again

    def __init__(
        self, jobs: JobHost, notices: Notices, shown: Shown, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._jobs, self._notices, self._shown = jobs, notices, shown
        self.refresh_requested.connect(self.reindex)
        self.opening = False  # a folder asked for is being indexed

    def open(
        self,
        path: Path,
        module: str | None,
        pass_: str | None,
        then: Callable[[Opened], None],
        cannot: Callable[[Exception], None],
    ) -> None:
        """Index ``path`` (a folder, or one HLO file of one) on the worker and
        find what to show there (``module`` at ``pass_``, else the main one),
        then ``then(opened)``; ``cannot(error)`` if it cannot be read. It goes
        before the jobs queued for the folder shown (which ``then`` makes
        stale); an open asked meanwhile replaces this one."""
        self.opening = True

        def done(opened: Opened) -> None:
            self.opening = False
            then(opened)

        def failed(err: BaseException) -> None:
            self.opening = False
            if isinstance(err, OSError | XlaviewError):
                cannot(err)
            else:  # a bug, listed as one
                self._notices.job_failed(err)

        self._jobs.submit(
            "folder", "open", open_folder, path, module, pass_,
            on_done=done, on_error=failed, urgency=TEXT_FIRST,
        )  # fmt: skip

    def wait_opened(self, timeout_ms: int) -> bool:
        """Process events until the folder asked for is shown (or cannot be)."""
        deadline = time.monotonic() + timeout_ms / 1000
        while self.opening and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.001)
        return not self.opening

    def sniff(self, index: DumpIndex) -> None:
        self._jobs.submit(
            "folder", "sniff", sniff, index, on_done=self._sniffed, process="background"
        )

    def _sniffed(self, problems: list[Problem]) -> None:
        index = self._shown.index
        root = index.root if index else Path()
        settling = [p for p in problems if recently_written(root / p.path)]
        if settling:  # half-written, most likely: look again once it settles
            QTimer.singleShot(SNIFF_AGAIN_MS, self, self.refresh_requested.emit)
        problems = [p for p in problems if p not in settling]
        if problems:
            self._notices.add_problems(problems)

    def reindex(self) -> None:
        index = self._shown.index
        if index is not None and index.root.is_dir():
            self._jobs.submit(
                "folder", "reindex", index_dump, index.root, on_done=self.reindexed.emit
            )

    def report_parse_problems(self, loaded: LoadedModule, dump_file: DumpFile) -> None:
        """A file's syntax errors (an empty file's too), once it has stopped
        changing: a file a program is still writing is cut short, not broken.
        Listed once per state of the file, whether the user stays on it or
        not: one emptied while shown is listed when the grace period ends."""
        if not loaded.problems:
            return
        if recently_written(dump_file.path):
            jobs = self._jobs
            stamp = jobs.stamp("folder")
            QTimer.singleShot(
                int(SETTLE_SECONDS * 1000) + 100,
                self,
                lambda: jobs.deliver(
                    "folder", stamp, lambda _: self._settled(loaded, dump_file), None
                ),
            )
            return
        self._notices.add_problems(
            [Problem(dump_file.rel, p.message, p.line) for p in loaded.problems]
        )

    def _settled(self, loaded: LoadedModule, dump_file: DumpFile) -> None:
        """The grace period is over: the file as read is listed if it has not
        changed since; a rewritten one is read again (the re-index shows it)."""
        self.refresh_requested.emit()
        try:
            st = dump_file.path.stat()
        except OSError as err:
            self._notices.add_problems([Problem(dump_file.rel, f"cannot read: {err.strerror}")])
            return
        if (st.st_size, st.st_mtime_ns) == (dump_file.size, dump_file.mtime_ns):
            self.report_parse_problems(loaded, dump_file)
            return
        changed = DumpFile(dump_file.path, dump_file.rel, st.st_size, st.st_mtime_ns)
        self._jobs.submit(
            "folder", f"settle-{dump_file.rel}", load_module, changed.path,
            on_done=lambda again: self.report_parse_problems(again, changed),
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Opened:
    """A folder indexed, and what to show of it: the ``module`` at ``point``
    (None: no module), ``missing`` why the module asked is not it, and the
    module's ``levels`` (its kernel files classified: 2,000 names took 20 ms
    of the GUI thread at open)."""

    index: DumpIndex
    module: DumpModule | None = None
    point: str | None = None
    missing: XlaviewError | None = None
    levels: ModuleLevels | None = None


def open_folder(path: Path, module: str | None, pass_: str | None) -> Opened:
    """The index of a dump folder (or of the folder of one HLO file) and what
    to show of it (`navigation.opened_at`): the worker's job."""
    index = index_file(path) if path.is_file() else index_dump(path)
    if not index.modules:
        return Opened(index)
    target, point, missing = opened_at(index, path, module, pass_)
    return Opened(index, target, point, missing, module_levels(target, index.unrecognized))
