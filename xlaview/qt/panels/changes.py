"""The Changes tab: what the shown pass changed, and the history of the
selected instruction over the module's timeline."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHeaderView,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from xlaview.analysis.passes.diff import ModuleDiff
from xlaview.analysis.passes.history import Event
from xlaview.qt import theme
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.safe_text import esc, steady_label, tooltip

_ROLE = Qt.ItemDataRole.UserRole
# Ops listed per kind of change (and absorbed ops per fusion): a U-Net's fusion
# pass changes 23,000, and 70,000 tree items took half a second on the GUI
# thread at each step there; the text and the graph mark every one. Each item
# is a few calls into Qt, each of which waits its turn for the interpreter
# while a worker runs (a held key on unet: 12-28 ms of the GUI thread here).
LISTED = 200


class ChangesPanel(QWidget):
    """The diff of the current pass against the dump before it, and the history
    of the selected instruction over the whole timeline."""

    instruction_requested = Signal(str)
    point_requested = Signal(str)

    def __init__(self, model: ViewModel, parent: QWidget | None = None) -> None:
        """What the pass ``model`` shows changed, and the selection's history."""
        super().__init__(parent)
        self.setObjectName("changes")
        self.title = steady_label(self, lines=2, rich=True)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("diffTree")
        self.tree.setHeaderLabels(["instruction", "what"])
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self._absorbed: dict[str, tuple[str, ...]] = {}  # added fusion -> the ops it took in
        self.tree.itemExpanded.connect(self._list_absorbed)
        self.tree.itemActivated.connect(self._on_item)
        self.tree.itemClicked.connect(self._on_item)
        self.history_title = steady_label(self, rich=True)
        self.history = QTreeWidget(self)
        self.history.setObjectName("historyList")
        self.history.setHeaderLabels(["pass", "event"])
        self.history.setRootIsDecorated(False)
        self.history.itemClicked.connect(
            lambda item, _c: self.point_requested.emit(item.data(0, _ROLE))
        )
        split = QSplitter(Qt.Orientation.Vertical, self)
        top = QWidget(split)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.title)
        top_layout.addWidget(self.tree, 1)
        bottom = QWidget(split)
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(self.history_title)
        bottom_layout.addWidget(self.history, 1)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)
        self.set_diff(None, "")
        self.set_history(None, [], {})
        # (Listed once the window has painted: in the event that delivers a big
        # diff, with the text's move to its first change and the graph's marks,
        # a U-Net pass's took 79 ms alone.)
        model.changes.diff_ready.connect(
            lambda shown: model.jobs.after_paint(
                "pass", "diff-list", lambda: self.set_diff(shown.diff, shown.title)
            )
        )
        model.history.history_ready.connect(self.set_history)
        self.instruction_requested.connect(model.select_instruction)
        self.point_requested.connect(model.select_pass)

    def set_diff(self, diff: ModuleDiff | None, title: str) -> None:
        self.tree.clear()
        self._absorbed = {}
        if diff is None:
            self.title.setText(esc(title or "No pass selected."))
            return
        if diff.empty:
            self.title.setText(f"<b>{esc(title)}</b>: no change")
            return
        self.title.setText(
            f"<b>{esc(title)}</b>: "
            f"<span style='color:{theme.ADDED}'>{len(diff.added)} added</span>, "
            f"<span style='color:{theme.REMOVED}'>{len(diff.removed)} removed</span>, "
            f"<span style='color:{theme.CHANGED}'>{len(diff.changed)} changed</span>"
            + (
                f", {len(diff.computations_added)} new computations"
                if diff.computations_added
                else ""
            )
        )
        groups = [("Added", theme.ADDED), ("Removed", theme.REMOVED), ("Changed", theme.CHANGED)]
        parents = {}
        for name, colour in groups:
            item = QTreeWidgetItem([name, ""])
            item.setForeground(0, QColor(colour))
            parents[name] = item
            self.tree.addTopLevelItem(item)
        added: list[QTreeWidgetItem] = []
        removed: list[QTreeWidgetItem] = []
        changed: list[QTreeWidgetItem] = []
        for a in diff.added[:LISTED]:
            what = f"{a.opcode} {a.shape}"
            child = QTreeWidgetItem([a.name, what])
            child.setData(0, _ROLE, a.name)
            if a.absorbed:
                # Listed when the fusion is opened: 200 fusions of a few
                # dozen ops each were thousands of items made at each step.
                self._absorbed[a.name] = a.absorbed
                child.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
                child.setText(1, f"{what} — took in {len(a.absorbed)}")
            added.append(child)
        for r in diff.removed[:LISTED]:
            child = QTreeWidgetItem(
                [r.name, f"into {r.absorbed_into}" if r.absorbed_into else f"{r.opcode} {r.shape}"]
            )
            if r.absorbed_into:
                child.setData(0, _ROLE, r.absorbed_into)
            removed.append(child)
        for c in diff.changed[:LISTED]:
            child = QTreeWidgetItem(
                [c.name, ", ".join(c.aspects) + (f" (was {c.old_name})" if c.old_name else "")]
            )
            child.setToolTip(1, tooltip(f"before: {c.before}\nafter:  {c.after}"))
            child.setData(0, _ROLE, c.name)
            changed.append(child)
        for name, items in zip(parents, (added, removed, changed), strict=True):
            parents[name].addChildren(items)
        counts = dict(zip(parents, map(len, (diff.added, diff.removed, diff.changed)), strict=True))
        for name, count in counts.items():
            if count > LISTED:
                more = QTreeWidgetItem(["…", f"{count - LISTED:,} more, marked in text and graph"])
                more.setForeground(0, QColor(theme.MUTED))
                parents[name].addChild(more)
        for name, _ in groups:
            item = parents[name]
            item.setText(1, str(counts[name]))
            item.setExpanded(item.childCount() <= 40)
        self.tree.resizeColumnToContents(0)

    def set_history(self, name: str | None, events: list[Event], titles: dict[str, str]) -> None:
        self.history.clear()
        if name is None:
            self.history_title.setText("Select an instruction to see the passes that made it.")
            return
        self.history_title.setText(f"History of <b>{esc(name)}</b>")
        for event in events:
            item = QTreeWidgetItem([titles.get(event.point, event.point), event.what])
            item.setData(0, _ROLE, event.point)
            self.history.addTopLevelItem(item)
        if not events:
            self.history.addTopLevelItem(QTreeWidgetItem(["", "unchanged over every dump"]))

    def _list_absorbed(self, item: QTreeWidgetItem) -> None:
        """An added fusion opened: the ops it took in, as its children."""
        absorbed = self._absorbed.pop(item.data(0, _ROLE) or "", None)
        if absorbed is not None and item.childCount() == 0:
            item.addChildren([QTreeWidgetItem([n, "absorbed"]) for n in absorbed[:LISTED]])

    def _on_item(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        name = item.data(0, _ROLE)
        if name:
            self.instruction_requested.emit(name)
