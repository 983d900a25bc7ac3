"""The open dump beside another dump of the same program (other flags,
another XLA): what each module both have differs in."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.compare import ModuleComparison, compare_dumps
from xlaview.dump.index import index_dump
from xlaview.dump.modules import ModuleCache
from xlaview.dump.records import DumpIndex
from xlaview.qt.model.host import JobHost, Shown


class Compare(QObject):
    compare_ready = Signal(str, str, object)  # left root, right root, results

    def __init__(
        self, jobs: JobHost, shown: Shown, cache: ModuleCache, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._jobs, self._shown, self._cache = jobs, shown, cache

    def compare_with(self, folder: str | Path) -> None:
        """Compare the open dump's modules with another dump of the same program."""
        left = self._shown.index
        if left is None:
            return
        self._jobs.bump("compare")
        self._jobs.submit(
            "compare",
            "compare",
            compare_with_folder,
            left,
            Path(folder),
            self._cache,
            on_done=lambda done: self.compare_ready.emit(str(left.root), *done),
        )


def compare_with_folder(
    left: DumpIndex, folder: Path, cache: ModuleCache
) -> tuple[str, list[ModuleComparison]]:
    """The other folder's root and `compare_dumps` of ``left`` with it, indexed
    here (the worker's job: thousands of file names)."""
    right = index_dump(folder)
    return str(right.root), compare_dumps(left, right, cache)
