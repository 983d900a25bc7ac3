"""The levels of a module, top to bottom: the StableHLO XLA was given, the HLO
before optimizations, every pass, the HLO after, and the kernels XLA generated.
The kernel of the selected instruction shows as LLVM IR (before and after
LLVM's optimizations) or PTX, with its arguments mapped back to HLO."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QSizePolicy,
    QSplitter,
    QTabBar,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from xlaview.dump.kernels import KERNEL_LEVELS, KernelFiles, ModuleLevels
from xlaview.qt import theme
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.render.code import LoadedCode
from xlaview.qt.render.documents import build_document
from xlaview.qt.safe_text import esc, label
from xlaview.qt.text.hlo_text import HloTextView
from xlaview.units import human_bytes


class CodePanel(QWidget):
    """A read-only code view (LLVM IR, PTX or MLIR), lazily coloured."""

    def __init__(self, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = label(self, rich=True)
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.view = HloTextView(self)
        self.view.setObjectName(object_name)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.setSpacing(2)
        self.layout_.addWidget(self.header)
        self.layout_.addWidget(self.view, 1)

    def show_code(self, code: LoadedCode) -> None:
        if code.note:
            self.header.setText(self.header.text() + f"<br><i>{esc(code.note)}</i>")
        self.view.set_document(None, code.document, {})
        if code.jump_line:
            self.view.show_span(code.jump_line)
            jump = [(code.jump_line, code.jump_line)]
            self.view.set_highlights({"selection": (jump, theme.SELECTION)})


class KernelPanel(CodePanel):
    """The selected instruction's kernel, a stage switch, and its arguments."""

    stage_requested = Signal(str)  # one of KERNEL_LEVELS: "ir_no_opt", "ptx", ...

    STAGES = KERNEL_LEVELS

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("kernelText", parent)
        self.setObjectName("kernel")
        self.stages = QTabBar(self)
        self.stages.setObjectName("kernelStages")
        for _, title in self.STAGES:
            self.stages.addTab(title)
        self.stages.currentChanged.connect(
            lambda i: self.stage_requested.emit(self.STAGES[i][0]) if i >= 0 else None
        )
        self.arguments = QTableWidget(0, 6, self)
        self.arguments.setObjectName("kernelArguments")
        self.arguments.setHorizontalHeaderLabels(
            ["arg", "HLO", "shape", "bytes", "LLVM dereferenceable", "buffer slice"]
        )
        self.arguments.verticalHeader().hide()
        self.arguments.horizontalHeader().setStretchLastSection(True)
        self.layout_.insertWidget(1, self.stages)
        self.layout_.removeWidget(self.view)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.view)
        split.addWidget(self.arguments)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        self.layout_.addWidget(split, 1)
        self.files: KernelFiles | None = None
        self.instruction: str | None = None
        self.function: str | None = None  # the kernel's name: shared_with for a twin
        self.set_files(None, None, None)

    def set_levels(self, levels: tuple[str, ...]) -> None:
        """Offer only the levels this module's kernels have (no PTX on CPU)."""
        for i, (key, _) in enumerate(self.STAGES):
            self.stages.setTabVisible(i, key in levels)

    def set_files(
        self, instruction: str | None, files: KernelFiles | None, shared_with: str | None
    ) -> None:
        self.instruction, self.files = instruction, files
        self.function = shared_with or instruction
        self.arguments.setRowCount(0)
        if instruction is None or not files:
            self.header.setText(
                "The selected instruction has no kernel in this dump (libraries "
                "such as Eigen or cuBLAS run dots and convolutions; XLA writes "
                "kernels only with --xla_dump_to)."
            )
            self.view.set_document(None, build_document(""), {})
            for i in range(len(self.STAGES)):
                self.stages.setTabEnabled(i, False)
            return
        shared = (
            (
                f" (compiled once for identical fusions: the files are named after "
                f"<b>{esc(shared_with)}</b>)"
            )
            if shared_with
            else ""
        )
        listed = [f"<b>{esc(instruction)}</b>{shared}"]
        if files.object:
            listed.append(
                f"object file: {esc(files.object.rel)} "
                f"({human_bytes(files.object.size)}, not shown)"
            )
        self.header.setText("<br>".join(listed))
        self.stages.blockSignals(True)
        for i, (key, _) in enumerate(self.STAGES):
            self.stages.setTabEnabled(i, files.level(key) is not None)
        first = next(
            (
                i
                for i, (key, _) in enumerate(self.STAGES)
                if files.level(key) and key.startswith("ir")
            ),
            None,
        )
        if first is None:
            first = next((i for i, (key, _) in enumerate(self.STAGES) if files.level(key)), 0)
        self.stages.setCurrentIndex(first)
        self.stages.blockSignals(False)

    def show_level(self, key: str) -> None:
        """Switch to one of `KERNEL_LEVELS` (its code is asked for)."""
        self.stages.setCurrentIndex([k for k, _ in self.STAGES].index(key))

    def current_stage(self) -> str:
        return self.STAGES[max(0, self.stages.currentIndex())][0]

    def set_arguments(self, rows: list[dict]) -> None:
        self.arguments.setRowCount(len(rows))
        for r, row in enumerate(rows):
            slice_ = row["allocation"]
            cells = [
                f"{row['argument']} ({row['value']})",
                f"{row['hlo']} — {row['role']}" if row["hlo"] else row["role"],
                row["shape"] or "",
                human_bytes(row["bytes"]) if row["bytes"] is not None else "",
                human_bytes(row["dereferenceable"]) if row["dereferenceable"] else "",
                (
                    f"allocation {slice_['index']} at {slice_['offset']:,}, "
                    f"{human_bytes(slice_['size'])}"
                    if slice_
                    else ""
                ),
            ]
            for c, value in enumerate(cells):
                self.arguments.setItem(r, c, QTableWidgetItem(value))
        self.arguments.resizeColumnsToContents()


class LevelsBar(QWidget):
    """StableHLO → HLO before → passes → HLO after → kernels, for the module."""

    stablehlo_requested = Signal()
    point_requested = Signal(str)
    kernel_requested = Signal(str)

    def __init__(self, model: ViewModel, parent: QWidget | None = None) -> None:
        """The levels of the module ``model`` shows; a pass picked is asked of it."""
        super().__init__(parent)
        self.setObjectName("levels")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 0)
        layout.setSpacing(4)
        self.stablehlo = self._button("StableHLO", self.stablehlo_requested.emit)
        self.before = self._button("HLO before", lambda: self.point_requested.emit("before"))
        self.passes = QLabel(self)
        self.after = self._button("HLO after", lambda: self.point_requested.emit("after"))
        self.kernels = QToolButton(self)
        self.kernels.setText("Kernels")
        self.kernels.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self.kernels)
        self.kernels.setMenu(self.menu)
        for widget in (
            QLabel("Levels:", self),
            self.stablehlo,
            self._arrow(),
            self.before,
            self._arrow(),
            self.passes,
            self._arrow(),
            self.after,
            self._arrow(),
            self.kernels,
        ):
            layout.addWidget(widget)
        layout.addStretch(1)
        # A narrow window clips the strip rather than growing to fit it.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(self.sizeHint().height())
        model.module_info.levels_changed.connect(
            lambda levels, module: self.set_module(
                levels,
                len(module.passes) if module else 0,
                bool(module and module.before_optimizations),
                bool(module and module.after_optimizations),
            )
        )
        self.point_requested.connect(model.select_pass)

    def _button(self, text: str, slot) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def _arrow(self) -> QLabel:
        arrow = QLabel("→", self)
        arrow.setStyleSheet(f"color:{theme.MUTED}")
        return arrow

    def set_module(
        self, levels: ModuleLevels | None, passes: int, has_before: bool, has_after: bool
    ) -> None:
        self.stablehlo.setEnabled(levels is not None and levels.stablehlo is not None)
        self.before.setEnabled(has_before)
        self.after.setEnabled(has_after)
        self.passes.setText(f"{passes} pass dumps (the timeline below)")
        self.menu.clear()
        names = sorted(levels.kernels) if levels else []
        for name in names:
            action = QAction(name, self.menu)
            action.triggered.connect(lambda _=False, n=name: self.kernel_requested.emit(n))
            self.menu.addAction(action)
        module_ir = len(levels.module_ir) if levels else 0
        if module_ir and not names:
            self.kernels.setText(f"Kernels: module IR ({module_ir} files)")
        else:
            self.kernels.setText(f"Kernels ({len(names)})")
        self.kernels.setEnabled(bool(names) or bool(module_ir))
