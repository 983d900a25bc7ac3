"""Why each materialized intermediate of the shown pass is there (issue 17):
the boundaries of the traffic the analyses found, worked out while a view
wants them, cached per module file.

The view model tells it of pass steps (`pass_changed`) and of the traffic
found (`traffic_found`); it says what it has in ``boundaries_ready`` (a
`BoundariesShown`). Results for a pass the user has left are dropped by the
model's generations.
A big module's are worked out in the background helper process (see
`xlaview.analysis.boundaries.from_file`): on the window's worker, 5 seconds on a
330k-instruction module kept the next pass from showing that long (7.3 s
instead of 2.5 s); a small one's on the worker, sooner than a helper reads
the file again.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QTimer, Signal

from xlaview.analysis.boundaries.explain import Boundaries
from xlaview.analysis.boundaries.from_file import FileBoundaries, explained, file_boundaries
from xlaview.analysis.traffic import Traffic
from xlaview.hlo import Module
from xlaview.qt.model.host import JobHost, Notices, Shown

CACHED_FILES = 16  # a pass stepped back to shows its reasons at once
# Instructions above which the helper process works them out (~1 s of work on the worker).
IN_HELPER_ABOVE = 60_000
# ... and only once the user has stayed on the pass this long: scrubbing through
# the passes of a 45 MB module would otherwise read and parse each one again in
# the helper, taking a core (of two) from the steps.
SETTLE_MS = 1200


@dataclass(frozen=True, slots=True)
class BoundariesShown:
    """What the Traffic tab can say about the boundaries of the shown pass."""

    pass_key: str | None
    traffic: Traffic | None  # the traffic these explain (None: not found yet)
    boundaries: Boundaries | None  # None: not worked out yet (see ``message``)
    # Fused computations the evidence names -> the fusion whose body each is.
    callers: dict[str, str] = field(default_factory=dict)
    message: str = ""


class BoundariesJob(QObject):
    """Boundaries of the shown pass: asked once its traffic is known, worked
    out while a view wants them (`set_wanted`) or when asked (`request`)."""

    boundaries_ready = Signal(object)  # BoundariesShown

    def __init__(
        self, jobs: JobHost, notices: Notices, shown: Shown, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._jobs, self._notices, self._shown = jobs, notices, shown
        self.shown = BoundariesShown(None, None, None)
        self._cache: OrderedDict[tuple, FileBoundaries] = OrderedDict()
        self._wanted = False
        # What the shown pass's boundaries need: its file (path, size, mtime) and traffic.
        self._pending: tuple[tuple[str, int, int], Module, Traffic] | None = None
        self._running = False
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(lambda: self.request(settled=True))

    def set_wanted(self, wanted: bool) -> None:
        """A view shows the boundaries (the Traffic tab is visible) or no longer does."""
        self._wanted = wanted
        if wanted:
            self.request()

    def request(self, settled: bool = False) -> None:
        """Work out the shown pass's boundaries now, if they are not yet (a big
        module's once the user stays on the pass: ``settled``)."""
        if self._pending is None or self._running:
            return
        key, module, traffic = self._pending
        if module.instruction_count > IN_HELPER_ABOVE and not settled:
            self._say(
                BoundariesShown(
                    self._shown.pass_key,
                    traffic,
                    None,
                    message="Finding why each value is materialized once you stay on this pass …",
                )
            )
            self._settle.start()
            return
        self._running = True
        pass_key = self._shown.pass_key
        self._say(
            BoundariesShown(
                pass_key, traffic, None, message="Finding why each value is materialized …"
            )
        )

        def done(result):
            return self._explained(key, pass_key, traffic, result)

        notices = self._notices
        if module.instruction_count <= IN_HELPER_ABOVE:
            # (Its progress reports let a step away stop it: 3 s of a 40,000-value
            # pass, which the next pass's text and graph waited for.)
            self._jobs.submit(
                "pass",
                "boundaries",
                explained,
                module,
                traffic,
                on_done=done,
                on_error=self._failed,
                on_progress=lambda f: notices.report_progress(
                    "finding why each value is materialized", f
                ),
            )
            return
        self._jobs.submit(
            "pass",
            "boundaries",
            file_boundaries,
            key[0],
            key[1:],
            traffic,
            on_done=done,
            on_error=self._failed,
            process="background",
            on_progress=lambda f: notices.report_progress(
                "finding why each value is materialized", f
            ),
        )

    # -- what the view model says ---------------------------------------------
    def pass_changed(self, key: str) -> None:
        if key == self.shown.pass_key and self.shown.traffic is not None:
            return  # the same pass said again (a folder re-indexed, its file unchanged)
        self._settle.stop()
        if self._running:
            self._jobs.cancel("boundaries")  # stopped once its file is read, if not sooner
        self._pending, self._running = None, False
        self._say(BoundariesShown(key, None, None, message=f"Pass {key}: finding its traffic …"))

    def traffic_found(self, traffic: Traffic | None) -> None:
        shown = self._shown
        self._pending, self._running = None, False
        if (
            traffic is None
            or shown.loaded is None
            or shown.module is None
            or shown.pass_key is None
        ):
            self._say(BoundariesShown(shown.pass_key, None, None))
            return
        dump_file = shown.module.file_at(shown.pass_key)
        key = (str(dump_file.path), dump_file.size, dump_file.mtime_ns)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            self._say(BoundariesShown(shown.pass_key, traffic, cached.boundaries, cached.callers))
            return
        self._pending = (key, shown.loaded.module, traffic)
        if self._wanted:
            self.request()
        else:
            self._say(
                BoundariesShown(
                    shown.pass_key,
                    traffic,
                    None,
                    message="Reasons are found while the Traffic tab is shown.",
                )
            )

    def _explained(
        self,
        key: tuple[str, int, int],
        pass_key: str | None,
        traffic: Traffic,
        result: FileBoundaries,
    ) -> None:
        self._pending, self._running = None, False
        self._cache[key] = result
        while len(self._cache) > CACHED_FILES:
            self._cache.popitem(last=False)
        self._say(BoundariesShown(pass_key, traffic, result.boundaries, result.callers))

    def _failed(self, error: BaseException) -> None:
        self._pending, self._running = None, False
        self._say(
            BoundariesShown(
                self._shown.pass_key,
                self.shown.traffic,
                None,
                message=f"The boundaries could not be explained: {error}",
            )
        )
        self._notices.job_failed(error)

    def _say(self, shown: BoundariesShown) -> None:
        self.shown = shown
        self.boundaries_ready.emit(shown)
