"""The modules of the open dump: id, name, backend, pass count; with a filter.

A module shows the name its framework gave it (`ModuleEntry`: TensorFlow's
``a_inference_step_90__XlaMustCompile_..._.5`` is ``step``), its whole HLO
module name in the tooltip.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from xlaview.dump.records import DumpIndex, DumpModule
from xlaview.qt.model.records import ModuleEntry
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.safe_text import tooltip

_ROLE = Qt.ItemDataRole.UserRole
_FULL_NAME = Qt.ItemDataRole.UserRole + 1  # the whole name: the filter finds it too


class ModuleListPanel(QWidget):
    module_selected = Signal(object)  # DumpModule

    def __init__(self, model: ViewModel, parent: QWidget | None = None) -> None:
        """The modules of the dump ``model`` shows; a pick asks it for the module."""
        super().__init__(parent)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("moduleFilter")
        self.filter_edit.setPlaceholderText("Filter modules")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._apply_filter)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("moduleList")
        self.tree.setHeaderLabels(["id", "name", "backend", "passes"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.tree.header()
        header.setStretchLastSection(False)
        for column in (0, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        # The name takes what is left, elided in the middle (the tooltip has it whole).
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.tree.currentItemChanged.connect(self._on_current_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.tree, 1)
        model.index_changed.connect(self.set_index)
        model.module_changed.connect(
            lambda module, _points: self.select(module) if module is not None else None
        )
        self.module_selected.connect(
            lambda module: model.select_module(module) if module is not model.module else None
        )

    def set_index(self, index: DumpIndex | None) -> None:
        """One row per module; a folder of several dumps (hosts, runs) groups
        them under one item per dump."""
        current = self.current_module()
        self.tree.blockSignals(True)
        self.tree.clear()
        several = index is not None and len(index.dumps) > 1
        self.tree.setRootIsDecorated(several)
        groups: dict[str, QTreeWidgetItem] = {}
        if index is not None:
            for module in index.modules:
                entry = ModuleEntry.of(module)
                name = entry.shown
                if module.process and not module.process_in_folder:  # its id repeats
                    name += f" ({module.process})"
                item = _Item(
                    [f"{module.id:04d}", name, module.backend or "?", str(len(module.passes))]
                )
                item.setData(0, _ROLE, module)
                item.setData(0, _FULL_NAME, entry.full)
                files = len(module.all_files())
                item.setToolTip(1, tooltip(f"{entry.full}\n{files} file{'s' * (files != 1)}"))
                if several:
                    group = groups.get(module.dump)
                    if group is None:
                        group = groups[module.dump] = QTreeWidgetItem(
                            [module.dump or ".", "", "", ""]
                        )
                        group.setFirstColumnSpanned(True)
                        group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                        self.tree.addTopLevelItem(group)
                        group.setExpanded(True)
                    group.addChild(item)
                else:
                    self.tree.addTopLevelItem(item)
        self.tree.blockSignals(False)
        if current is not None:
            self.select(current)
        self._apply_filter(self.filter_edit.text())

    def _items(self) -> Iterator[QTreeWidgetItem]:
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top is None:
                continue
            if top.data(0, _ROLE) is not None:
                yield top
            for j in range(top.childCount()):
                child = top.child(j)
                if child is not None:
                    yield child

    def current_module(self) -> DumpModule | None:
        item = self.tree.currentItem()
        return item.data(0, _ROLE) if item is not None else None

    def module_count(self) -> int:
        return sum(1 for _ in self._items())

    def select(self, module: DumpModule) -> None:
        for item in self._items():
            found = item.data(0, _ROLE)
            if found is module or (found is not None and found.identity == module.identity):
                self.tree.blockSignals(True)
                self.tree.setCurrentItem(item)
                self.tree.blockSignals(False)
                return

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for item in self._items():
            texts = [item.text(c) for c in range(4)] + [str(item.data(0, _FULL_NAME) or "")]
            haystack = " ".join(texts).lower()
            item.setHidden(bool(needle) and needle not in haystack)

    def _on_current_changed(self, current: QTreeWidgetItem | None, _previous: object) -> None:
        if current is not None and current.data(0, _ROLE) is not None:
            self.module_selected.emit(current.data(0, _ROLE))


class _Item(QTreeWidgetItem):
    """Sorts the id and pass columns as numbers."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        tree = self.treeWidget()
        column = tree.sortColumn() if tree is not None else 0
        if column in (0, 3):
            try:
                return int(self.text(column)) < int(other.text(column))
            except ValueError:
                pass
        return self.text(column) < other.text(column)
