"""The modules of the open dump: id, name, backend, pass count; with a filter."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from xlaview.dump.index import DumpIndex, DumpModule

_ROLE = Qt.ItemDataRole.UserRole


class ModuleListPanel(QWidget):
    module_selected = Signal(object)  # DumpModule

    def __init__(self, parent: QWidget | None = None) -> None:
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
        self.tree.currentItemChanged.connect(self._on_current_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.tree, 1)

    def set_index(self, index: DumpIndex | None) -> None:
        self.tree.blockSignals(True)
        self.tree.clear()
        if index is not None:
            several = len(index.dumps) > 1
            for module in index.modules:
                name = module.name or "(no name)"
                if several and module.dump:
                    name = f"{module.dump}/{name}"
                item = _Item([f"{module.id:04d}", name, module.backend or "?", str(len(module.passes))])
                item.setData(0, _ROLE, module)
                item.setToolTip(1, f"{module.title}\n{len(module.all_files())} files")
                self.tree.addTopLevelItem(item)
        for column in range(4):
            self.tree.resizeColumnToContents(column)
        self.tree.blockSignals(False)
        self._apply_filter(self.filter_edit.text())

    def select(self, module: DumpModule) -> None:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(0, _ROLE) is module:
                self.tree.blockSignals(True)
                self.tree.setCurrentItem(item)
                self.tree.blockSignals(False)
                return

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            haystack = " ".join(item.text(c) for c in range(4)).lower()
            item.setHidden(bool(needle) and needle not in haystack)

    def _on_current_changed(self, current: QTreeWidgetItem | None, _previous: object) -> None:
        if current is not None:
            self.module_selected.emit(current.data(0, _ROLE))


class _Item(QTreeWidgetItem):
    """Sorts the id and pass columns as numbers."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        column = self.treeWidget().sortColumn() if self.treeWidget() else 0
        if column in (0, 3):
            try:
                return int(self.text(column)) < int(other.text(column))
            except ValueError:
                pass
        return self.text(column) < other.text(column)
