"""The StableHLO XLA was given (``module.mlir``), linked to the shown pass
both ways through the origins both keep (XLA's ``op_name`` and stack frame,
MLIR's ``loc``): the selected instruction's StableHLO lines, and the
instruction a StableHLO line became."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from xlaview.analysis.navigation import hlo_ops_from, locate, stablehlo_lines
from xlaview.dump.files import read_text
from xlaview.dump.kernels import ModuleLevels
from xlaview.dump.records import DumpFile
from xlaview.hlo import Module
from xlaview.qt.model.host import JobHost, Shown
from xlaview.qt.render.code import LoadedCode, load_code
from xlaview.text.mlir_locations import MlirOrigin, mlir_origins

NO_MLIR = (
    "This dump has no module.mlir for the module (newer XLA writes it in module_NNNN.<name>/)."
)


class StableHlo(QObject):
    code_ready = Signal(object, str)  # LoadedCode | None, header
    lines_ready = Signal(object)  # list[int]: the selected instruction's StableHLO lines
    op_found = Signal(str)  # the instruction of the shown pass a StableHLO line became

    def __init__(
        self,
        jobs: JobHost,
        shown: Shown,
        levels: Callable[[], ModuleLevels | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._jobs, self._shown, self._levels = jobs, shown, levels
        self._file: DumpFile | None = None  # the module.mlir read, with its origins
        self.origins: tuple[MlirOrigin, ...] = ()
        self.lines: list[int] = []  # the selection's, as last said

    def module_shown(self) -> None:
        self._file, self.origins, self.lines = None, (), []
        self.lines_ready.emit([])

    def request(self) -> None:
        """Read the module's StableHLO (the StableHLO tab is shown)."""
        levels = self._levels()
        if levels is None or levels.stablehlo is None:
            self.code_ready.emit(None, NO_MLIR)
            return
        f = levels.stablehlo
        self._jobs.submit(
            "module", "stablehlo", _read, f, on_done=lambda read: self._read(f, *read)
        )

    def _read(self, f: DumpFile, code: LoadedCode, origins: tuple[MlirOrigin, ...]) -> None:
        levels = self._levels()
        if levels is None or levels.stablehlo is not f:
            return
        self._file, self.origins = f, origins
        self.code_ready.emit(code, f"StableHLO given to XLA: {f.rel}")
        self.selection_shown()

    def selection_shown(self) -> None:
        """Mark the selected instruction's StableHLO lines (once it is read)."""
        selection, loaded = self._shown.selection, self._shown.loaded
        if not self.origins or selection is None or loaded is None:
            self._say([])
            return
        self._jobs.submit(
            "kernel",
            "stablehlo-lines",
            _lines_of,
            self.origins,
            loaded.module,
            selection.name,
            selection.computation,
            on_done=self._say,
        )

    def _say(self, lines: list[int]) -> None:
        self.lines = lines
        self.lines_ready.emit(lines)

    def line_clicked(self, line: int) -> None:
        """Select what the StableHLO op at 1-based ``line`` became in the shown pass."""
        loaded = self._shown.loaded
        origin = next((o for o in self.origins if o.line == line), None)
        if origin is None or loaded is None:
            return
        self._jobs.submit(
            "kernel",
            "stablehlo-op",
            hlo_ops_from,
            origin,
            loaded.module,
            on_done=lambda names: self.op_found.emit(names[0]) if names else None,
        )


def _read(f: DumpFile) -> tuple[LoadedCode, tuple[MlirOrigin, ...]]:
    """The code shown (a long file's first lines) and the origins of its ops,
    read from the whole file (the locations' aliases are at its end)."""
    text = read_text(f.path)
    code = load_code(f, "mlir", None, text)
    shown = code.text.count("\n") + 1
    return code, tuple(o for o in mlir_origins(text) if o.line <= shown)


def _lines_of(
    origins: tuple[MlirOrigin, ...], module: Module, name: str, computation: str
) -> list[int]:
    found = locate(module, name, computation)
    return stablehlo_lines(origins, module, found[1]) if found else []
