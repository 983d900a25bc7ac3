"""Instructions of the shown pass found by name, opcode, shape, op_name or
source line."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.search import search
from xlaview.qt.model.host import JobHost, Shown


class Search(QObject):
    search_ready = Signal(str, object)  # the query, its hits (list[Hit])

    def __init__(self, jobs: JobHost, shown: Shown, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs, self._shown = jobs, shown

    def search(self, query: str) -> None:
        loaded = self._shown.loaded
        if loaded is None:
            return
        self._jobs.bump("search")
        self._jobs.submit(
            "search",
            "search",
            search,
            loaded.module,
            query,
            on_done=lambda hits: self.search_ready.emit(query, hits),
        )
