"""The levels of a module, top to bottom: the StableHLO XLA was given, the HLO
before optimizations, every pass, the HLO after, and the kernels XLA generated.
The selected instruction's kernel shows at each stage XLA dumped, in pipeline
order (its emitter's MLIR, Triton's IRs, LLVM IR before and after LLVM's
optimizations, PTX, its object file), with its arguments mapped back to HLO; an
instruction with no kernel of its own says why."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
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

from xlaview.analysis.op_kernels import OpKernel
from xlaview.dump.kernels import FAMILIES, FAMILY_TITLES, OBJECT, ModuleLevels
from xlaview.qt import theme
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.render.code import LoadedCode
from xlaview.qt.render.documents import build_document
from xlaview.qt.safe_text import SteadyLabel, esc, label, tooltip
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
        self.view.set_document(None, build_document(code.text), {})
        if code.jump_line:
            self.view.show_span(code.jump_line)
            jump = [(code.jump_line, code.jump_line)]
            self.view.set_highlights({"selection": (jump, theme.SELECTION)})


class KernelPanel(CodePanel):
    """The selected instruction's kernel: a tab per stage in pipeline order,
    its code, and its arguments; or why it has none."""

    stage_requested = Signal(str)  # a stage's level: "mlir_pre_optimization", "ir_no_opt", ...

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("kernelText", parent)
        self.setObjectName("kernel")
        # Top left: with no code below it (an op with no kernel), the header stays at the top.
        self.header.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.stages = QTabBar(self)
        self.stages.setObjectName("kernelStages")
        self.stages.setExpanding(False)
        self.stages.currentChanged.connect(
            lambda i: (
                self.stage_requested.emit(self._levels[i]) if 0 <= i < len(self._levels) else None
            )
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
        self.split = split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.view)
        split.addWidget(self.arguments)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        self.layout_.addWidget(split, 1)
        self.kernel: OpKernel | None = None
        self.instruction: str | None = None
        self._levels: list[str] = []  # of the tabs, in order
        self._header = ""
        self.set_kernel(None)

    @property
    def levels(self) -> tuple[str, ...]:
        """The stages offered, in pipeline order."""
        return tuple(self._levels)

    def set_kernel(self, kernel: OpKernel | None) -> None:
        self.kernel = kernel
        self.instruction = kernel.instruction if kernel is not None else None
        self.arguments.setRowCount(0)
        self.stages.blockSignals(True)
        while self.stages.count():
            self.stages.removeTab(0)
        self._levels = [s.level for s in kernel.stages] if kernel else []
        for stage in kernel.stages if kernel else ():
            i = self.stages.addTab(stage.title)
            self.stages.setTabToolTip(i, tooltip(stage.file.rel))
        self.stages.setVisible(bool(self._levels))
        self.split.setVisible(bool(kernel))  # no code to show: the header says why
        self.stages.blockSignals(False)
        self._header = kernel_header(kernel)
        self.header.setText(self._header)
        if not kernel:
            self.view.set_document(None, build_document(""), {})
            return
        self.stages.blockSignals(True)
        self.stages.setCurrentIndex(self._levels.index(_first_level(kernel)))
        self.stages.blockSignals(False)

    def show_code(self, code: LoadedCode) -> None:
        self.header.setText(self._header)  # the note is of this stage's file only
        super().show_code(code)

    def show_level(self, key: str) -> None:
        """Switch to one of the kernel's stages (its code is asked for)."""
        if key in self._levels:
            self.stages.setCurrentIndex(self._levels.index(key))

    def current_stage(self) -> str | None:
        i = self.stages.currentIndex()
        return self._levels[i] if 0 <= i < len(self._levels) else None

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


def _first_level(kernel: OpKernel) -> str:
    """The stage shown first: LLVM IR before LLVM's optimizations, what most
    readers of IR look for; else the first one there is to read."""
    levels = kernel.levels
    for key in ("ir_no_opt", "llir", "ttir"):
        if key in levels:
            return key
    return next((s.level for s in kernel.stages if s.shown), levels[0])


def kernel_header(kernel: OpKernel | None) -> str:
    """Rich text over the Kernel tab: whose kernel, what its stages are, or why none."""
    if kernel is None:
        return "Select an instruction to see its kernel."
    name = f"<b>{esc(kernel.instruction)}</b>"
    if kernel.pending:
        return f"{name}: {esc(kernel.reason or '')}"
    if not kernel:
        return f"{name} has no kernel of its own: {esc(kernel.reason or '')}."
    lines = [
        f"{name}: kernel <b>{esc(kernel.name or '?')}</b>, {len(kernel.stages)} "
        f"file{'s' if len(kernel.stages) != 1 else ''} in pipeline order"
    ]
    if kernel.shared_with:
        lines.append(
            f"compiled once for identical fusions: its files are named after "
            f"<b>{esc(kernel.shared_with)}</b>"
        )
    if kernel.note:
        lines.append(f"<i>{esc(kernel.note)}</i>")
    obj = kernel.stage(OBJECT)
    if obj is not None:
        lines.append(f"object file: {esc(obj.file.rel)} ({human_bytes(obj.file.size)}, not shown)")
    return "<br>".join(lines)


class LevelsBar(QWidget):
    """StableHLO → HLO before → passes → HLO after → the selected op's kernel,
    stage by stage (or why it has none), for the module."""

    stablehlo_requested = Signal()
    point_requested = Signal(str)
    kernel_requested = Signal(str)  # an op with a kernel of its own, picked from the menu
    stage_requested = Signal(str)  # a stage of the selected op's kernel, by level

    def __init__(self, model: ViewModel, parent: QWidget | None = None) -> None:
        """The levels of the module ``model`` shows; a pass picked is asked of it."""
        super().__init__(parent)
        self.setObjectName("levels")
        self.model = model
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 0)
        layout.setSpacing(4)
        self.stablehlo = self._button("StableHLO", self.stablehlo_requested.emit)
        self.before = self._button("HLO before", lambda: self.point_requested.emit("before"))
        self.passes = QLabel(self)
        self.after = self._button("HLO after", lambda: self.point_requested.emit("after"))
        self.kernels = QToolButton(self)
        self.kernels.setObjectName("kernelsMenu")
        self.kernels.setText("Kernels")
        self.kernels.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        # One width whatever it names (the kernel count, an op): a step that
        # changes its text must not move the strip (no relayout per step).
        self.kernels.setFixedWidth(_OP_NAME_WIDTH + 3 * self.fontMetrics().horizontalAdvance("M"))
        self.menu = QMenu(self.kernels)
        self.kernels.setMenu(self.menu)
        self.menu.triggered.connect(
            lambda action: self.kernel_requested.emit(
                self.model.kernels.op_of_kernel(action.data())
            )
        )
        self._kernel_ops: list[str] = []  # what the menu lists
        self._menu_stale = False  # the menu is filled as it opens (`filled_menu`)
        self.menu.aboutToShow.connect(self.filled_menu)
        # The selected op's kernel, stage by stage.
        self.kernel_stages = QWidget(self)
        self.kernel_stages.setObjectName("kernelStagesStrip")
        self._stages_layout = QHBoxLayout(self.kernel_stages)
        self._stages_layout.setContentsMargins(0, 0, 0, 0)
        self._stages_layout.setSpacing(2)
        self.kernel_name = SteadyLabel(self.kernel_stages)
        self.kernel_name.setObjectName("kernelOfSelection")
        self.kernel_name.setMinimumWidth(80)
        self.kernel_name.setMaximumWidth(180)
        self._stages_layout.addWidget(self.kernel_name)
        self._stage_group = QButtonGroup(self)
        self._stage_group.setExclusive(True)
        self.stage_buttons: dict[str, QToolButton] = {}
        self._module_ir = 0  # files of many kernels the module has
        self._kernels_text = "Kernels"
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
            self.kernel_stages,
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
        model.kernels.kernels_listed.connect(self.set_kernel_ops)
        model.kernels.kernel_shown.connect(self.set_kernel)
        self.point_requested.connect(model.select_pass)
        self.set_kernel(None)

    def _button(self, text: str, slot) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def _arrow(self, parent: QWidget | None = None, text: str = "→") -> QLabel:
        arrow = QLabel(text, parent or self)
        arrow.setStyleSheet(f"color:{theme.MUTED}")
        return arrow

    def set_module(
        self, levels: ModuleLevels | None, passes: int, has_before: bool, has_after: bool
    ) -> None:
        self.stablehlo.setEnabled(levels is not None and levels.stablehlo is not None)
        self.before.setEnabled(has_before)
        self.after.setEnabled(has_after)
        self.passes.setText(f"{passes} passes")
        self.passes.setToolTip("the passes are on the timeline below")
        self._module_ir = len(levels.module_ir) if levels else 0
        # Until the shown pass's ops with kernels are listed, the kernels as files name them.
        self.set_kernel_ops(sorted(levels.kernels) if levels else [])

    def set_kernel_ops(self, names: list[str]) -> None:
        """The ops with kernels of their own, for the menu (`filled_menu`)."""
        if names != self._kernel_ops:
            self._kernel_ops = list(names)
            self._menu_stale = True
        module_ir = self._module_ir
        if module_ir and not names:
            self._kernels_text = f"Kernels: module IR ({module_ir} files)"
        else:
            self._kernels_text = f"Kernels ({len(names)})"
        self.kernels.setToolTip(f"{self._kernels_text}: pick an op to see its kernel")
        if not self.stage_buttons:  # else the button names the selected op
            self.kernels.setText(self._kernels_text)
        self.kernels.setEnabled(bool(names) or bool(module_ir))

    def filled_menu(self) -> QMenu:
        """The menu of ops with kernels, filled with the shown pass's as it
        opens: filled at each pass step that changed them, its thousands of
        actions on a U-Net took 100 ms of the GUI thread."""
        if self._menu_stale:
            self._menu_stale = False
            self.menu.clear()
            for name in self._kernel_ops:
                self.menu.addAction(name).setData(name)
        return self.menu

    def set_kernel(self, kernel: OpKernel | None) -> None:
        """The selected op's kernel stages as steps, or why it has none."""
        for button in self.stage_buttons.values():
            self._stage_group.removeButton(button)
        self.stage_buttons = {}
        while self._stages_layout.count() > 1:  # the stages and the arrows between them
            item = self._stages_layout.takeAt(1)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.kernel_stages.setVisible(kernel is not None)
        self.kernels.setText(self._kernels_text)
        self.kernel_name.setVisible(not kernel)
        if kernel is None:
            return
        if not kernel:
            why = _WHY_SHORT.get(kernel.reason_kind or "", "no kernel of its own")
            self.kernel_name.setText(
                f"{kernel.instruction}: "
                + ("reading the module's IR…" if kernel.pending else f"no kernel ({why})")
            )
            self.kernel_name.setMaximumWidth(420)
            self.kernel_name.setStyleSheet(f"color:{theme.MUTED}; font-style:italic")
            self.kernel_name.setToolTip(tooltip(kernel_header_plain(kernel)))
            return
        # The menu's button names the op whose stages follow (its menu: the others).
        shown = self.fontMetrics().elidedText(
            kernel.instruction, Qt.TextElideMode.ElideMiddle, _OP_NAME_WIDTH
        )
        self.kernels.setText(shown.replace("&", "&&"))
        self.kernels.setToolTip(tooltip(kernel_header_plain(kernel)))
        family = None
        for stage in kernel.stages:
            same = family is not None and FAMILIES.get(stage.level) == family
            family = FAMILIES.get(stage.level, stage.level)
            self._stages_layout.addWidget(self._arrow(self.kernel_stages, "·" if same else "→"))
            button = QToolButton(self.kernel_stages)
            button.setStyleSheet(_STAGE_STYLE)
            text = stage.short_title
            if not same and family in FAMILY_TITLES and text.islower():
                text = f"{FAMILY_TITLES[family]} {text}"  # the first of its family names it
            button.setText(text)
            button.setToolTip(tooltip(f"{stage.title}: {stage.file.rel}"))
            button.setAutoRaise(True)
            button.setCheckable(True)
            button.setObjectName(f"kernelStage_{stage.level}")
            button.clicked.connect(
                lambda _=False, level=stage.level: self.stage_requested.emit(level)
            )
            self._stage_group.addButton(button)
            self._stages_layout.addWidget(button)
            self.stage_buttons[stage.level] = button

    def mark_stage(self, level: str | None) -> None:
        """The stage the Kernel tab shows, checked in the strip."""
        button = self.stage_buttons.get(level or "")
        if button is not None:
            button.setChecked(True)


# A stage in the strip: its text and little else (seven of them share the strip).
_STAGE_STYLE = (
    "QToolButton { padding: 0px 2px; border: 1px solid transparent; border-radius: 3px; }"
    f"QToolButton:hover {{ border-color: {theme.BORDER}; }}"
    f"QToolButton:checked {{ background: {theme.SELECTION}; "
    f"border-color: {theme.SELECTION_BORDER}; }}"
)
_OP_NAME_WIDTH = 200  # pixels of the selected op's name, at most, on the menu's button
# Why an op has no kernel, in a few words (`xlaview.analysis.op_kernels.REASON_KINDS`).
_WHY_SHORT = {
    "library-call": "a library call",
    "inside-caller": "in its caller's kernel",
    "no-op": "no code runs",
    "control-flow": "control flow",
    "runtime": "the runtime's work",
    "not-dumped": "none in the dump",
}


def kernel_header_plain(kernel: OpKernel) -> str:
    """The kernel in one plain line or two, for a tooltip."""
    if not kernel:
        return f"{kernel.instruction}: {kernel.reason or ''}"
    stages = "\n".join(f"{s.title}: {s.file.rel}" for s in kernel.stages)
    shared = f" (named after {kernel.shared_with})" if kernel.shared_with else ""
    return f"{kernel.instruction}: kernel {kernel.name}{shared}\n{stages}"
