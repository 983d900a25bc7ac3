"""The selected instruction's kernel, at each stage XLA dumped it (its
emitter's MLIR, LLVM IR, PTX...), or why it has none; the ops of the shown
module that have kernels. Read when a view asks for them."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.op_kernels import OpKernel, op_kernel, op_of_kernel, ops_with_kernels
from xlaview.dump.kernels import KernelStage, ModuleFunctions, ModuleLevels, module_functions
from xlaview.dump.kernels import level_kind as stage_kind
from xlaview.dump.reports import ModuleReports
from xlaview.hlo import Module
from xlaview.qt.model import tasks
from xlaview.qt.model.host import JobHost, Shown
from xlaview.qt.model.records import Selection
from xlaview.qt.render.code import note_code
from xlaview.units import human_bytes


class Kernels(QObject):
    kernel_shown = Signal(object)  # OpKernel | None (nothing selected)
    kernels_listed = Signal(object)  # list[str]: the shown pass's ops with kernels of their own
    kernel_code = Signal(object, object)  # LoadedCode, argument rows

    def __init__(
        self,
        jobs: JobHost,
        shown: Shown,
        levels: Callable[[], ModuleLevels | None],
        reports: Callable[[], ModuleReports | None],
        parent: QObject | None = None,
    ) -> None:
        """``levels`` and ``reports``: the shown module's levels and the shown
        pass's reports (`ModuleInfo` reads them)."""
        super().__init__(parent)
        self._jobs, self._shown = jobs, shown
        self._levels, self._reports = levels, reports
        self.kernel: OpKernel | None = None  # the selected op's
        # What the module's files of many kernels define (GPU module IR,
        # XLA:CPU's parts), read once per module on the worker: None until then.
        self._functions: ModuleFunctions | None = None
        self._functions_of: ModuleLevels | None = None
        self._listed_for: tuple[int, int, bool] | None = None

    def module_shown(self) -> None:
        self.kernel = None
        self._functions = self._functions_of = self._listed_for = None
        self.kernel_shown.emit(None)
        self.kernels_listed.emit([])

    def pass_shown(self) -> None:
        """List the pass's ops with kernels (the levels strip's menu)."""
        levels, loaded = self._levels(), self._shown.loaded
        if levels is None or loaded is None:
            return
        self._read_functions(levels)
        self._list(levels)

    def selection_shown(self, selection: Selection) -> None:
        levels, loaded = self._levels(), self._shown.loaded
        if levels is None or loaded is None:
            return
        self._read_functions(levels)
        # On the worker: the first question about a big module indexes its callers.
        self._jobs.submit(
            "kernel",
            "op-kernel",
            _op_kernel,
            loaded.module,
            selection.name,
            levels,
            self._functions,
            self._final(),
            on_done=self._kernel_found,
        )

    def _kernel_found(self, kernel: OpKernel | None) -> None:
        if kernel != self.kernel:
            self.kernel = kernel
            self.kernel_shown.emit(kernel)

    def op_of_kernel(self, name: str) -> str:
        """The op of the shown pass a kernel (as the levels strip lists it) is of."""
        loaded = self._shown.loaded
        if loaded is None:
            return name
        return op_of_kernel(loaded.module, name) or name

    def _final(self) -> bool:
        """Whether the shown pass is the module XLA compiled (its kernels' own)."""
        module = self._shown.module
        return self._shown.pass_key == "after" or module is None or not module.after_optimizations

    def _read_functions(self, levels: ModuleLevels) -> None:
        if self._functions_of is levels:
            return
        self._functions_of = levels
        self._functions = None
        if not any(levels.module_ir):
            self._functions = {}
            return
        self._jobs.submit(
            "module",
            "kernel-functions",
            module_functions,
            levels,
            on_done=lambda functions: self._functions_read(levels, functions),
        )

    def _functions_read(self, levels: ModuleLevels, functions: ModuleFunctions) -> None:
        if levels is not self._levels():
            return
        self._functions = functions
        self._list(levels)
        selection = self._shown.selection
        if selection is not None:
            self.selection_shown(selection)

    def _list(self, levels: ModuleLevels) -> None:
        loaded = self._shown.loaded
        if loaded is None:
            return
        key = (id(levels), id(loaded.module), self._functions is not None)
        if key == self._listed_for:
            return
        self._listed_for = key
        self._jobs.submit(
            "pass",
            "kernel-list",
            ops_with_kernels,
            loaded.module,
            levels,
            self._functions,
            on_done=self.kernels_listed.emit,
        )

    def request_kernel_code(self, level: str) -> None:
        """The selected instruction's kernel at one of its stages (its first if it has not that)."""
        kernel = self.kernel
        if not kernel:
            return
        stage = kernel.stage(level) or kernel.stages[0]
        if not stage.shown:
            self._jobs.submit(
                "kernel",
                "kernel-code",
                note_code,
                _object_note(stage),
                on_done=lambda code: self.kernel_code.emit(code, []),
            )
            return
        loaded = self._shown.loaded
        module = loaded.module if loaded is not None else None
        self._jobs.submit(
            "kernel",
            "kernel-code",
            tasks.load_kernel,
            stage.file,
            stage_kind(stage.level),
            stage.function,
            module,
            kernel.instruction,
            self._reports(),
            on_done=lambda result: self.kernel_code.emit(*result),
        )


def _op_kernel(
    module: Module,
    name: str,
    levels: ModuleLevels,
    functions: ModuleFunctions | None,
    final: bool,
) -> OpKernel | None:
    try:
        return op_kernel(module, name, levels, functions, final=final)
    except KeyError:
        return None


def _object_note(stage: KernelStage) -> str:
    return (
        f"; {stage.file.rel}\n"
        f"; the kernel's object file: {human_bytes(stage.file.size)} of machine code, not shown.\n"
        f"; Read it with: objdump -d --no-show-raw-insn {stage.file.path}\n"
    )
