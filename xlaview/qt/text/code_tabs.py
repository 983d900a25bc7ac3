"""The code tabs: the pass's HLO text, the selected instruction's kernel, and
the StableHLO XLA was given. Each shows what the view model says and hands
clicks back to it."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from xlaview.analysis.marks import selection_lines
from xlaview.analysis.navigation import carried_line, carried_text_line, first_change_line
from xlaview.analysis.op_kernels import OpKernel
from xlaview.qt import theme
from xlaview.qt.model.analyses.changes import DiffShown
from xlaview.qt.model.records import Selection, TextShown
from xlaview.qt.model.tasks import ReadText
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.render.code import LoadedCode
from xlaview.qt.safe_text import esc
from xlaview.qt.text.hlo_text import HloTextPanel
from xlaview.qt.text.levels import CodePanel, KernelPanel
from xlaview.text.spans import lex_text


class CodeTabs(QTabWidget):
    kernel_stage_shown = Signal(str)  # the stage of the selected op's kernel the Kernel tab shows

    def __init__(self, model: ViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeTabs")
        self.model = model
        self.text_panel = HloTextPanel(self)
        self.text = self.text_panel.view
        self.kernel = KernelPanel(self)
        self.stablehlo = CodePanel("stablehloText", self)
        self.addTab(self.text_panel, "HLO")
        self.addTab(self.kernel, "Kernel")
        self.addTab(self.stablehlo, "StableHLO")
        self._stablehlo_asked = False
        self._kernel_asked: tuple[str | None, str | None] | None = None  # op, stage
        self.follow_changes = True
        self._text_pass: str | None = None
        self._diff: DiffShown | None = None
        self._first_change_due = False  # a step waits for its diff to show its first change
        # The text shown ahead of its parse, and the line that was on top before it.
        self._read_ahead: tuple[object, int | None] = (None, None)

        self.text.instruction_clicked.connect(
            lambda computation, name: model.select_instruction(name, computation)
        )
        self.text.computation_clicked.connect(self._on_computation_clicked)
        self.text.window_moved.connect(self._colour_window)
        self.kernel.stage_requested.connect(self._on_stage_requested)
        self.currentChanged.connect(lambda _i: self._on_tab_changed())
        model.text_read.connect(self._on_text_read)
        model.pass_shown.connect(self._on_pass_shown)
        model.spans_ready.connect(self.text.set_spans)
        model.selection_changed.connect(self._on_selection_changed)
        model.line_requested.connect(self.text.show_span)
        model.changes.diff_ready.connect(self._on_diff_ready)
        model.module_info.levels_changed.connect(
            lambda levels, _module: self._on_module_changed(levels)
        )
        kernels = model.kernels
        kernels.kernel_shown.connect(self._on_kernel_shown)
        kernels.kernel_code.connect(self._on_kernel_code)
        stablehlo = model.stablehlo
        stablehlo.code_ready.connect(self._on_stablehlo_code)
        stablehlo.lines_ready.connect(self._on_stablehlo_lines)
        stablehlo.op_found.connect(lambda name: model.select_instruction(name))
        self.stablehlo.view.line_clicked.connect(stablehlo.line_clicked)

    # -- HLO text -------------------------------------------------------------
    def _on_text_read(self, read: ReadText) -> None:
        """A pass's text, shown while it is parsed: what was on top stays on
        top (found in the raw text), and its parse attaches to it later."""
        text, before = self.text, self.text.module
        top = text.top_line() if before is not None else None
        text.set_source(None, read.source, {})
        if before is not None and top is not None:
            line = carried_text_line(before, top, read.source.starts)
            if line is not None:
                text.put_on_top(line)
        self._read_ahead = (read.source, top)

    def _on_pass_shown(self, shown: TextShown) -> None:
        """A step keeps in view what was (the same instruction, else its
        computation, at the top); with `follow_changes`, the pass's first
        change is shown once its diff is known."""
        text, before = self.text, self.text.module
        read_source, read_top = self._read_ahead
        self._read_ahead = (None, None)
        if read_source is shown.source and text.source is shown.source:
            text.attach(shown.module, shown.line_owners)  # shown, and carried, already
            top = read_top
        else:
            top = text.top_line() if before is not None else None
            text.set_source(shown.module, shown.source, shown.line_owners)
            if before is not None and top is not None and shown.module not in (None, before):
                line = carried_line(before, top, shown.module)
                if line is not None:
                    text.put_on_top(line)
        self._text_pass = shown.pass_key
        self._first_change_due = self.follow_changes and top is not None
        self._show_first_change()

    def set_follow_changes(self, on: bool) -> None:
        """Whether a pass step shows the pass's first change (on by default)."""
        self.follow_changes = on

    def _show_first_change(self) -> None:
        diff = self._diff
        if not self._first_change_due or diff is None or diff.after != self._text_pass:
            return
        self._first_change_due = False
        line = first_change_line(diff.marks)
        if line is not None:
            self.text.show_span(line)

    def _colour_window(self, first: int, text: str) -> None:
        """Colours for the window of a big text the view moved to."""
        view, source = self.text, self.text.source
        self.model.jobs.submit(
            "pass",
            "lex-window",
            lex_text,
            text,
            "hlo",
            process="view",
            on_done=lambda spans: (
                view.set_spans(spans, first)
                if view.source is source and view.first == first
                else None
            ),
        )

    def _on_diff_ready(self, shown: DiffShown) -> None:
        self._diff = shown
        self._show_first_change()
        # Its marks once the window has painted the move: with the move, the
        # changes listed and the graph's marks in the one event that delivers
        # the diff, a U-Net pass's took 86 ms alone and kept the window from
        # painting for 135 ms beside the worker.
        self.model.jobs.after_paint("pass", "diff-marks", lambda: self._mark_diff(shown))

    def _mark_diff(self, shown: DiffShown) -> None:
        if self._diff is not shown:
            return
        self.text.set_highlights(
            {
                "diff-added": (shown.marks.added_lines, theme.ADDED_LINE),
                "diff-changed": (shown.marks.changed_lines, theme.CHANGED_LINE),
            },
            merged=True,
        )

    def _on_selection_changed(self, selection: Selection | None) -> None:
        module = self.text.module
        if selection is None or module is None or not module.has_computation(selection.computation):
            self.text.set_highlights(
                {
                    kind: ([], theme.SELECTION)
                    for kind in ("selection", "block", "operands", "users")
                }
            )
            return
        lines = selection_lines(module, selection.computation, selection.name)
        self.text.set_highlights(
            {
                "selection": (list(lines.selection), theme.SELECTION),
                "block": (list(lines.blocks), theme.FUSED_BLOCK),
                "operands": (list(lines.operands), theme.OPERAND),
                "users": (list(lines.users), theme.USER),
            }
        )
        if selection.center:
            self.text.show_span(lines.selection[0][0])
        if self.currentWidget() is self.kernel:
            self._request_kernel()

    def _on_computation_clicked(self, computation: str) -> None:
        module = self.text.module
        if module is not None and module.has_computation(computation):
            self.text.show_span(module.computation(computation).span.line)
            self.model.enter_computation(computation)

    # -- kernel and StableHLO ---------------------------------------------------
    def _on_module_changed(self, _levels) -> None:
        self._stablehlo_asked = False
        self._kernel_asked = None
        self.kernel.set_kernel(None)
        if self.currentWidget() is self.stablehlo:
            self.show_stablehlo()

    def _on_tab_changed(self) -> None:
        current = self.currentWidget()
        if current is self.kernel:
            self._request_kernel()
        elif current is self.stablehlo and not self._stablehlo_asked:
            self.show_stablehlo()

    def _on_kernel_shown(self, kernel: OpKernel | None) -> None:
        self.kernel.set_kernel(kernel)
        self._kernel_asked = None
        if self.currentWidget() is self.kernel:
            self._request_kernel()

    def _on_stage_requested(self, _level: str) -> None:
        self._request_kernel()

    def _request_kernel(self) -> None:
        stage = self.kernel.current_stage()
        asked = (self.kernel.instruction, stage)
        if not self.kernel.kernel or stage is None or asked == self._kernel_asked:
            return
        self._kernel_asked = asked
        self.kernel_stage_shown.emit(stage)
        self.model.kernels.request_kernel_code(stage)

    def _on_kernel_code(self, code: LoadedCode, rows: list[dict]) -> None:
        self.kernel.show_code(code)
        self.kernel.set_arguments(rows)
        self._colour(self.kernel, code)

    def show_kernel(self) -> None:
        self.setCurrentWidget(self.kernel)

    def show_kernel_stage(self, level: str) -> None:
        """The Kernel tab at one stage of the selected op's kernel."""
        self.kernel.show_level(level)
        self.setCurrentWidget(self.kernel)
        self._request_kernel()

    def show_stablehlo(self) -> None:
        """The StableHLO the framework handed XLA (``module.mlir``)."""
        self._stablehlo_asked = True
        self.setCurrentWidget(self.stablehlo)
        self.model.stablehlo.request()

    def _on_stablehlo_code(self, code: LoadedCode | None, header: str) -> None:
        self.stablehlo.header.setText(
            f"<b>{esc(header)}</b>"
            + (
                " <span class='muted'>· the selected op's lines marked; click a line to "
                "select what it became</span>"
                if code is not None
                else ""
            )
        )
        if code is not None:
            self.stablehlo.show_code(code)
            self._colour(self.stablehlo, code)

    def _on_stablehlo_lines(self, lines: list[int]) -> None:
        """The selected instruction's StableHLO lines marked, the first in view."""
        view = self.stablehlo.view
        view.set_highlights({"selection": ([(line, line) for line in lines], theme.SELECTION)})
        if lines:
            view.show_span(lines[0])

    def _colour(self, panel: CodePanel, code: LoadedCode) -> None:
        view = panel.view
        document = view.document()  # (`show_code` just built it)
        self.model.jobs.submit(
            "kernel" if panel is self.kernel else "module",
            f"colour-{panel.objectName()}",
            lex_text,
            code.text,
            code.kind,
            on_done=lambda spans: view.set_spans(spans) if view.document() is document else None,
            on_progress=lambda f: self.model.progress.emit("colouring", f),
            process="view",
        )
