"""The pass the user is likely to step to next, prepared while they read this one."""

from __future__ import annotations

from collections.abc import Callable

from xlaview.dump.modules import ModuleCache
from xlaview.dump.records import DumpFile
from xlaview.qt.model import tasks
from xlaview.qt.model.host import JobHost, Shown
from xlaview.qt.model.tasks import GraphResult, PreparedPass
from xlaview.qt.model.view_cache import ViewCache


class Prefetch:
    """Prepares the neighbour passes of the one shown (parse, text and the
    graph of the computation shown), one at a time, in the direction the user
    steps first; the view model takes them from its view cache. A step to the
    pass being prepared waits for it rather than reading it a second time:
    ``show_awaited`` is called when the pass it waits for lands."""

    def __init__(
        self,
        jobs: JobHost,
        shown: Shown,
        views: ViewCache,
        cache: ModuleCache,
        show_awaited: Callable[[], None],
    ) -> None:
        self._jobs, self._shown, self._views, self._cache = jobs, shown, views, cache
        self._show_awaited = show_awaited
        self.direction = 1
        self._flying: tuple[tuple[int, ...], str] | None = None  # stamp, file path
        self._awaiting: str | None = None  # the file the view model waits for
        self._left: str | None = None  # the pass just left: its reading is gone (not again)

    def awaited(self, dump_file: DumpFile) -> bool:
        """Whether ``dump_file`` is being prepared now; if so ``show_awaited``
        is called when it lands."""
        path = str(dump_file.path)
        if self._in_flight() != path:
            return False
        self._awaiting = path
        return True

    def _in_flight(self) -> str | None:
        flying = self._flying
        stamp = self._jobs.stamp("prefetch")
        return flying[1] if flying is not None and flying[0] == stamp else None

    def stepped(self, before: str | None, after: str) -> None:
        """The user went from pass ``before`` to ``after``."""
        keys = [p.key for p in self._shown.points]
        self._left = before
        if before in keys:
            self.direction = 1 if keys.index(after) >= keys.index(before) else -1

    def neighbours(self) -> None:
        """Prepare the next neighbour not prepared yet, if any."""
        model, views = self._shown, self._views
        if model.module is None or model.pass_key is None or self._in_flight() is not None:
            return
        keys = [p.key for p in model.points]
        i = keys.index(model.pass_key)
        wanted = [
            model.points[j].file
            for j in (i + self.direction, i - self.direction)
            if 0 <= j < len(keys)
            and keys[j] != self._left
            and not views.has_prepared(str(model.points[j].file.path))
        ][:1]
        if not wanted:
            return
        computation = model.graph_path[-1] if model.graph_path else None
        if computation and views.layout((str(wanted[0].path), computation)) is not None:
            computation = None  # laid out already (a step back)
        self._flying = (self._jobs.stamp("prefetch"), str(wanted[0].path))
        # Its own scope: a step does not drop it (the user may be stepping to it).
        self._jobs.submit(
            "prefetch",
            "prefetch",
            tasks.prefetch,
            self._cache,
            wanted,
            computation,
            views.shown_result(computation),
            on_done=self._prefetched,
            on_error=lambda _error: self._landed(),
        )

    def _prefetched(self, results: list[tuple[PreparedPass, GraphResult | None]]) -> None:
        views = self._views
        for prepared, graph in results:
            views.store_prepared(prepared)
            if graph is not None:
                views.store_layout((str(prepared.file.path), graph.graph.computation), graph)
        self._landed()
        self.neighbours()  # the other neighbour, if not ready yet

    def _landed(self) -> None:
        """(A failure is left for the view model's own reading to report.)"""
        self._flying = None
        awaiting, self._awaiting = self._awaiting, None
        model = self._shown
        if (
            awaiting is not None
            and model.text_pass is None
            and model.current_file_key() == awaiting
        ):
            self._show_awaited()
