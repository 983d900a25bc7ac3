"""Two dumps side by side, op by op: the open window and a second one on the
other dump, tiled on the screen, joined by a `CompareLink`.

Each window stays a whole window (its pass timeline, its text and graph, its
boundaries and cost one click away); the link follows a selection of one in
the other through the matches, and both mark the ops the other dump lacks,
the fusions split or merged, the ops matched but changed (graph fills, text
lines), and rank the changes in their Compare tab (a click selects on both).
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QByteArray, QObject, QRect
from PySide6.QtGui import QGuiApplication

from xlaview.qt import theme
from xlaview.qt.graph.pane import GraphPane
from xlaview.qt.model.compare_link import SIDES, CompareLink, LinkShown
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.panels.compare import CompareView
from xlaview.qt.safe_text import esc
from xlaview.units import signed_bytes, signed_seconds


class Side(Protocol):
    """What a side's window has (a `MainWindow`; named here so that this
    module does not import the window that imports it)."""

    model: ViewModel
    compare: CompareView
    graph_pane: GraphPane
    text: Any  # HloTextView

    def show_status(self, text: str) -> None: ...
    def show(self) -> None: ...
    def close(self) -> bool: ...
    def screen(self) -> Any: ...
    def geometry(self) -> QRect: ...
    def setGeometry(self, *rect: Any) -> None: ...  # noqa: N802
    def saveState(self) -> QByteArray: ...  # noqa: N802
    def restoreState(self, state: QByteArray) -> bool: ...  # noqa: N802


class SideBySide(QObject):
    """Window ``a`` (the open dump) beside window ``b`` (the other)."""

    def __init__(self, a: Side, b: Side) -> None:
        super().__init__()
        self.windows = {"a": a, "b": b}
        # The first window's geometry and docks before tiling.
        self._before: tuple[QRect, QByteArray] | None = None
        self.link = CompareLink(a.model, b.model, self)
        self.link.compared.connect(self._show)
        self.link.followed.connect(lambda side, text: self.windows[side].show_status(text))
        for side, window in self.windows.items():
            window.compare.change_clicked.connect(self.link.select_change)
            window.model.pass_changed.connect(lambda _key, side=side: self._clear(side))

    def tile(self) -> None:
        """The two windows side by side on the first window's screen."""
        a = self.windows["a"]
        self._before = (a.geometry(), a.saveState())
        screen = a.screen() or QGuiApplication.primaryScreen()
        area = screen.availableGeometry()
        half = area.width() // 2
        for k, side in enumerate(SIDES):
            window = self.windows[side]
            window.show()
            window.setGeometry(area.x() + k * half, area.y(), half, area.height())

    def dissolve(self) -> tuple[QRect, QByteArray] | None:
        """One window closes: the other loses the comparison's marks, and the
        first window is given back the place and docks it had before the two
        were tiled; returns them (what the first window saves for the next
        start, not its half of the screen)."""
        for side in SIDES:
            self._clear(side)
            self.windows[side].compare.set_changes("", [])
        if self._before is not None:
            geometry, docks = self._before
            first = self.windows["a"]
            first.setGeometry(geometry)
            first.restoreState(docks)
        self.link.deleteLater()
        return self._before

    def _clear(self, side: str) -> None:
        """A side steps to another pass: its marks wait for the new matching."""
        window = self.windows[side]
        window.graph_pane.set_compare_marks(None)
        window.text.set_highlights({f"compare-{kind}": ([], "") for kind in theme.COMPARE_LINES})

    def _show(self, shown: LinkShown) -> None:
        names = {side: self.link.sides[side].index for side in SIDES}
        roots = {side: (index.root.name if index else "?") for side, index in names.items()}
        rows = [
            (
                [
                    change.what,
                    signed_seconds(change.delta_time_s),
                    signed_bytes(change.delta_memory_bytes),
                    ", ".join(change.a) or "–",
                    ", ".join(change.b) or "–",
                ],
                [change.what, change.delta_time_s, change.delta_memory_bytes, change.a, change.b],
            )
            for change in shown.changes
        ]
        counts = shown.comparison.matching.counts()
        matching = shown.comparison.matching
        header = (
            f"<b>op by op</b>: {esc(roots['a'])} (first, pass {esc(shown.passes['a'])}) "
            f"and {esc(roots['b'])} (second, pass {esc(shown.passes['b'])}): "
            f"{len(matching.matches)} ops matched ({counts['name']} by name, "
            f"{counts['metadata']} by metadata, {counts['structure']} by structure), "
            f"{counts['changed']} changed; {len(matching.merges)} merged and "
            f"{len(matching.splits)} split fusions; {len(matching.only_a)} only in the first, "
            f"{len(matching.only_b)} only in the second. Changes ranked by their effect on "
            f"time and memory; a click selects them in both windows."
        )
        for side, window in self.windows.items():
            other = roots["b" if side == "a" else "a"]
            marks = shown.marks[side]
            window.compare.set_changes(header, rows)
            window.graph_pane.set_compare_marks(f"compared with {other}", marks)
            model = self.link.sides[side]
            loaded = model.loaded
            if loaded is None or model.text_pass != shown.passes[side]:
                continue
            if not shown.computations[side]:  # a module without an entry: nothing matched
                continue
            computation = loaded.module.computation(shown.computations[side])
            lines: dict[str, list[tuple[int, int]]] = {kind: [] for kind in theme.COMPARE_LINES}
            for name, kind in marks.items():
                line = computation.instruction(name).span.line
                lines[kind].append((line, line))
            window.text.set_highlights(
                {
                    f"compare-{kind}": (ranges, theme.COMPARE_LINES[kind])
                    for kind, ranges in lines.items()
                }
            )
