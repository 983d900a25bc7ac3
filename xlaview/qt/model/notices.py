"""What the window says to the user: status messages, the problems listed,
the progress of long work, and a job's failure turned into a problem
(`xlaview.qt.model.host.Notices`)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from xlaview.errors import LocatedError, Problem, XlaviewError


class NoticeBoard(QObject):
    status = Signal(str)
    problems_reset = Signal(object)  # list[Problem]: all there are now
    problems_added = Signal(object)  # list[Problem]
    progress = Signal(str, object)  # what, fraction or None

    def __init__(self, where: Callable[[], str], parent: QObject | None = None) -> None:
        """``where``: what a failure that names no file is about (the module shown)."""
        super().__init__(parent)
        self._where = where

    def say(self, message: str) -> None:
        """A status-bar message."""
        self.status.emit(message)

    def add_problems(self, problems: list[Problem]) -> None:
        self.problems_added.emit(problems)

    def report_progress(self, what: str, fraction: float | None) -> None:
        self.progress.emit(what, fraction)

    def cannot(self, message: str, path: str = "") -> None:
        """A request that cannot be met: said, and listed."""
        self.say(message)
        self.add_problems([Problem(path, message)])

    def job_failed(self, error: BaseException, path: str | None = None) -> None:
        """A background failure on the input: listed as a problem, said in the
        status bar. Any other failure is a bug, raised again here (on the GUI
        thread: the application's exception hook shows it; a test fails)."""
        if not isinstance(error, XlaviewError):
            raise error
        where = path or self._where()
        if isinstance(error, LocatedError):
            problem = error.to_problem(where)
        else:
            problem = Problem(where, str(error))
        self.add_problems([problem])
        self.say(f"{problem.path}: {problem.message}" if problem.path else problem.message)
