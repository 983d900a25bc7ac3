"""The open folder's health while a program may still be writing it: broken
files sniffed in the helper process, parse problems reported once a file has
settled (a file being written is cut short, not broken), and a re-index when
something changed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from xlaview.dump.checks import sniff
from xlaview.dump.files import SETTLE_SECONDS, recently_written
from xlaview.dump.index import index_dump
from xlaview.dump.modules import LoadedModule
from xlaview.dump.records import DumpFile, DumpIndex
from xlaview.errors import Problem
from xlaview.qt.model.host import JobHost, Notices, Shown

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
        """A file's syntax errors, once it has stopped changing: a file a
        program is still writing is cut short, not broken."""
        if not loaded.problems:
            return
        if recently_written(dump_file.path):

            def again(_: object) -> None:
                self.refresh_requested.emit()  # a rewritten file is read again ...
                self.report_parse_problems(loaded, dump_file)  # ... an unchanged one reported

            jobs = self._jobs
            stamp = jobs.stamp("pass")
            QTimer.singleShot(
                int(SETTLE_SECONDS * 1000) + 100,
                self,
                lambda: jobs.deliver("pass", stamp, again, None),
            )
            return
        self._notices.add_problems(
            [Problem(dump_file.rel, p.message, p.line) for p in loaded.problems]
        )
