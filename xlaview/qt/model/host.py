"""What a part of the view model is given: not the view model itself, but
three narrow views of it.

- `JobHost`: run work for what a scope shows (`xlaview.qt.model.jobs.Jobs`);
- `Notices`: say something to the user (the status bar, the problems list,
  the progress bar);
- `Shown`: what the window shows now, read-only.

The view model satisfies `Notices` and `Shown`; its `Jobs` is the `JobHost`.
A part that needs a sibling gets a callable from the view model, which wires
them: no part reaches another through the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from xlaview.dump.modules import LoadedModule
from xlaview.dump.points import ModulePoint
from xlaview.dump.records import DumpIndex, DumpModule
from xlaview.errors import Problem
from xlaview.qt.model.records import Selection


class JobHost(Protocol):
    def submit(
        self,
        scope: str,
        slot: str,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None],
        on_progress: Callable[[float], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        process: str | None = None,
        urgency: int = 0,
    ) -> None: ...

    def release(self) -> None: ...

    def after_pause(self, scope: str, key: str, work: Callable[[], None]) -> None: ...

    def after_paint(self, scope: str, key: str, work: Callable[[], None]) -> None: ...

    def after_stay(self, scope: str, key: str, work: Callable[[], None]) -> None: ...

    def stamp(self, scope: str) -> tuple[int, ...]: ...

    def bump(self, scope: str) -> None: ...

    def deliver(
        self, scope: str, stamp: tuple[int, ...], handler: Callable[[Any], None], value: Any
    ) -> None: ...

    def cancel(self, slot: str) -> None: ...


class Notices(Protocol):
    def say(self, message: str) -> None:
        """A status-bar message."""

    def add_problems(self, problems: list[Problem]) -> None:
        """Listed in the Problems tab."""

    def report_progress(self, what: str, fraction: float | None) -> None: ...

    def job_failed(self, error: BaseException, path: str | None = None) -> None:
        """A job's failure: a listed problem and a status message."""


class Shown(Protocol):
    """What the window shows (the view model's state), read-only."""

    @property
    def index(self) -> DumpIndex | None: ...

    @property
    def module(self) -> DumpModule | None: ...

    @property
    def points(self) -> list[ModulePoint]: ...

    @property
    def pass_key(self) -> str | None:
        """The pass asked for."""

    @property
    def text_pass(self) -> str | None:
        """The pass whose text is shown (None while it loads)."""

    @property
    def loaded(self) -> LoadedModule | None:
        """The parse of the text shown."""

    @property
    def graph_path(self) -> list[str]: ...

    @property
    def selection(self) -> Selection | None: ...

    @property
    def fusion_computation(self) -> str | None: ...

    def current_file_key(self) -> str: ...
