"""The selected instruction's life over the module's pass timeline: where it
appeared, changed and disappeared (read from every pass file in the helper
process, as the user reads)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.passes import instruction_history
from xlaview.qt.model.host import JobHost, Notices, Shown
from xlaview.qt.model.records import Selection


class History(QObject):
    history_ready = Signal(object, object, object)  # name | None, events, titles by pass key

    def __init__(
        self, jobs: JobHost, notices: Notices, shown: Shown, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._jobs, self._notices, self._shown = jobs, notices, shown
        self._for: tuple[int, str] | None = None  # (id of the module, instruction)

    def module_shown(self) -> None:
        self._for = None
        self.history_ready.emit(None, [], {})

    def selection_shown(self, selection: Selection) -> None:
        shown, jobs, notices = self._shown, self._jobs, self._notices
        target = (id(shown.module), selection.name)
        if self._for == target:
            return
        self._for = target
        jobs.bump("history")
        files = [(p.key, p.file.path) for p in shown.points]
        titles = {p.key: p.title for p in shown.points}
        name = selection.name
        jobs.submit(
            "history",
            "history",
            instruction_history,
            files,
            name,
            on_done=lambda events: self.history_ready.emit(name, events, titles),
            on_progress=lambda f: notices.report_progress("finding passes that changed it", f),
            process="background",
        )
