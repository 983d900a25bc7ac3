"""The window's menus: File, View, Help, and the recent folders."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from xlaview.qt import export
from xlaview.version import __version__

if TYPE_CHECKING:
    from xlaview.qt.main_window import MainWindow

MAX_RECENT = 10
GROUPING_ITEMS = (
    ("scope", "By &Scope (large graphs fold by default)"),
    ("repeats", "By &Repeated Blocks"),
    ("none", "&None: every node"),
)

SHORTCUTS = (
    "Pass timeline: Left / Right step, Home / End jump (click the timeline first)\n"
    "Ctrl+Left / Ctrl+Right: previous / next pass from anywhere\n"
    "Ctrl+F: find in the HLO text;  Ctrl+click a name: go to its definition\n"
    "Graph: wheel zooms, drag pans, F fits the whole graph, R a readable zoom at the top,\n"
    "  double-click opens a fusion or loop body; a click opens a folded group,\n"
    "  a click on an open group's header folds it again (View › Graph Grouping)\n"
    "Backspace: back to the entry computation\n"
    "Ctrl+E: export the window as PNG;  Ctrl+Shift+C: copy a screenshot"
)


class Menus:
    """Builds the menu bar of ``window`` and runs what its actions ask."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        bar = window.menuBar()
        file_menu = bar.addMenu("&File")
        self._add(file_menu, "&Open Folder…", self.open_folder, QKeySequence.StandardKey.Open)
        self._add(file_menu, "Open HLO &File…", self.open_file)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self._add(file_menu, "&Reload", window.reload, QKeySequence.StandardKey.Refresh)
        self._add(file_menu, "Compare &With Folder…", self.compare_folder)
        self._add(file_menu, "Open &Profile…", self.open_profile)
        file_menu.addSeparator()
        self._add(file_menu, "Export Window as &PNG…", lambda: self.export("window-png"), "Ctrl+E")
        self._add(file_menu, "Export &Graph as PNG (2x)…", lambda: self.export("graph-png"))
        self._add(file_menu, "Export &Whole Graph as PNG…", lambda: self.export("whole-png"))
        self._add(file_menu, "Export Graph as &SVG…", lambda: self.export("graph-svg"))
        self._add(file_menu, "&Copy Screenshot", lambda: export.copy_window(window), "Ctrl+Shift+C")
        file_menu.addSeparator()
        self._add(file_menu, "&Quit", window.close, QKeySequence.StandardKey.Quit)

        view_menu = bar.addMenu("&View")
        self._add(view_menu, "&Fit Graph", window.graph_pane.fit, "Ctrl+0")
        self._add(view_menu, "Next Pass", lambda: window.timeline.step(+1), "Ctrl+Right")
        self._add(view_menu, "Previous Pass", lambda: window.timeline.step(-1), "Ctrl+Left")
        self._add(view_menu, "Back to Entry Computation", window.model.back_to_entry, "Backspace")
        self._add(view_menu, "&Search Instructions", window.focus_search, "Ctrl+Shift+F")
        self._add(view_menu, "&Reset Layout", window.reset_layout)
        animate = self._add(view_menu, "&Animate Pass Steps", window.set_animate)
        animate.setCheckable(True)
        animate.setChecked(window.animates)
        key = self._add(view_menu, "Show Graph &Key", window.set_graph_key)
        key.setCheckable(True)
        key.setChecked(window.shows_graph_key)
        follow = self._add(view_menu, "Show Each Pass's &First Change", window.set_follow_changes)
        follow.setCheckable(True)
        follow.setChecked(window.follows_changes)
        grouping_menu = view_menu.addMenu("Graph &Grouping")
        self.groupings = QActionGroup(window)
        for mode, text in GROUPING_ITEMS:
            act = self._add(grouping_menu, text, lambda _on, m=mode: window.set_graph_grouping(m))
            act.setCheckable(True)
            act.setData(mode)
            act.setChecked(mode == "scope")
            self.groupings.addAction(act)
        grouping_menu.addSeparator()
        self.together = self._add(
            grouping_menu,
            "Forward and Backward &Together",
            lambda on: window.set_graph_phases("together" if on else "apart"),
        )
        self.together.setCheckable(True)
        view_menu.addSeparator()
        for dock in window.docks():
            view_menu.addAction(dock.toggleViewAction())

        help_menu = bar.addMenu("&Help")
        self._add(
            help_menu,
            "&Keyboard Shortcuts",
            lambda: QMessageBox.information(window, "Keyboard shortcuts", SHORTCUTS),
        )
        self._add(
            help_menu,
            "&About xlaview",
            lambda: QMessageBox.about(
                window,
                "About xlaview",
                f"<b>xlaview {__version__}</b><br>An explorer for XLA compiler dumps.",
            ),
        )
        self.update_recent()

    def phases_shown(self, phases: str) -> None:
        """Tick Forward and Backward Together when they fold together."""
        self.together.blockSignals(True)
        self.together.setChecked(phases == "together")
        self.together.blockSignals(False)

    def grouping_shown(self, mode: str) -> None:
        """Tick the grouping the graph folds by."""
        for act in self.groupings.actions():
            act.setChecked(act.data() == mode)

    def _add(self, menu: QMenu, text: str, slot: Callable[..., object], shortcut=None) -> QAction:
        act = QAction(text, self.window)
        if shortcut:
            act.setShortcut(QKeySequence(shortcut))
        act.triggered.connect(lambda checked=False: slot(checked) if act.isCheckable() else slot())
        menu.addAction(act)
        return act

    def _start(self) -> str:
        index = self.window.model.index
        return str(index.root) if index else str(Path.home())

    def open_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self.window, "Open an XLA dump folder", self._start()
        )
        if folder:
            self.window.model.open_dump(folder)

    def open_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open an HLO text", self._start(), "HLO text (*.txt *.hlo);;All files (*)"
        )
        if path:
            self.window.model.open_dump(path)

    def compare_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self.window, "Compare with another dump folder", str(Path(self._start()).parent)
        )
        if folder:
            self.window.compare_with(folder)

    def open_profile(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window,
            "Open a jax.profiler trace (in plugins/profile/<run>/)",
            self._start(),
            "Traces (*.xplane.pb *.trace.json.gz *.json.gz *.json);;All files (*)",
        )
        if path:
            self.window.open_profile(path)

    def export(self, kind: str) -> None:
        window = self.window
        suffix = ".svg" if kind == "graph-svg" else ".png"
        module = window.model.module
        name = (module.key if module else "xlaview") + suffix
        path, _ = QFileDialog.getSaveFileName(window, "Export", str(Path.home() / name))
        if not path:
            return
        if kind == "window-png":
            export.window_png(window, path)
        elif kind == "graph-png":
            export.graph_png(window.graph_pane.main, path, scale=2.0)
        elif kind == "whole-png":
            export.whole_graph_png(window.graph_pane.main, path)
        else:
            export.graph_svg(window.graph_pane.main, path)
        window.show_status(f"exported {path}")

    # -- recent folders -----------------------------------------------------------
    def add_recent(self, folder: Path) -> None:
        if not self.window.persist:
            return
        recent = [str(folder)] + [f for f in self.recent_folders() if f != str(folder)]
        self.window.settings.setValue("recent", recent[:MAX_RECENT])
        self.update_recent()

    def recent_folders(self) -> list[str]:
        if not self.window.persist:
            return []
        value = self.window.settings.value("recent", [])
        if isinstance(value, str):  # QSettings gives a one-item list back as its item
            value = [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def update_recent(self) -> None:
        self.recent_menu.clear()
        for folder in self.recent_folders():
            act = self.recent_menu.addAction(folder)
            act.triggered.connect(lambda _=False, f=folder: self.window.model.open_dump(f))
        self.recent_menu.setEnabled(bool(self.recent_folders()))
