"""The code of the selected instruction's kernel (LLVM IR, PTX, MLIR stages)
and the StableHLO XLA was given, read when a view asks for them."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.inspect import kernel_files_for
from xlaview.dump.kernels import KernelFiles, ModuleLevels
from xlaview.dump.reports import ModuleReports
from xlaview.qt.model import tasks
from xlaview.qt.model.host import JobHost, Shown
from xlaview.qt.model.records import Selection
from xlaview.qt.render.code import load_code


class Kernels(QObject):
    kernel_files = Signal(object, object, object)  # instruction, KernelFiles | None, shared with
    kernel_code = Signal(object, object)  # LoadedCode, argument rows
    stablehlo_code = Signal(object, str)  # LoadedCode | None, header

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
        self._kernel: tuple[str, KernelFiles | None, str | None] | None = None

    def module_shown(self) -> None:
        self._kernel = None
        self.kernel_files.emit(None, None, None)

    def selection_shown(self, selection: Selection) -> None:
        levels, loaded = self._levels(), self._shown.loaded
        if levels is None or loaded is None:
            return
        files, shared = kernel_files_for(loaded.module, selection.name, levels)
        kernel = (selection.name, files, shared)
        if kernel[:2] != (self._kernel or (None, None))[:2]:
            self._kernel = kernel
            self.kernel_files.emit(*kernel)

    def request_kernel_code(self, stage: str, function: str | None) -> None:
        """The selected instruction's kernel at ``stage`` (ir_no_opt, ir_with_opt, ptx)."""
        if self._kernel is None or not self._kernel[1]:
            return
        name, files, _shared = self._kernel
        assert files is not None
        dump_file = files.level(stage) or next((f for _, f in files.levels()), None)
        if dump_file is None:
            return
        kind = (
            "ptx"
            if dump_file.name.endswith("ptx")
            else "mlir"
            if dump_file.name.endswith(".mlir")
            else "ll"
        )
        loaded = self._shown.loaded
        module = loaded.module if loaded is not None else None
        self._jobs.submit(
            "kernel",
            "kernel-code",
            tasks.load_kernel,
            dump_file,
            kind,
            function,
            module,
            name,
            self._reports(),
            on_done=lambda result: self.kernel_code.emit(*result),
        )

    def request_stablehlo(self) -> None:
        """The StableHLO the framework handed XLA (``module.mlir``)."""
        levels = self._levels()
        if levels is None or levels.stablehlo is None:
            self.stablehlo_code.emit(
                None,
                "This dump has no module.mlir for the module "
                "(newer XLA writes it in module_NNNN.<name>/).",
            )
            return
        f = levels.stablehlo
        self._jobs.submit(
            "module",
            "stablehlo",
            load_code,
            f,
            "mlir",
            None,
            on_done=lambda code: self.stablehlo_code.emit(code, f"StableHLO given to XLA: {f.rel}"),
        )
