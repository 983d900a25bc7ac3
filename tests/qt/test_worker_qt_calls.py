"""What the worker thread runs for a pass step and for a code tab calls no
method of a QObject. PySide calls Qt with the GIL held, and a QObject made on
the worker has to be moved to the GUI thread (`moveToThread` takes the
object's signal-slot lock): a GUI thread holding that lock while it waited
for the GIL (a disconnect of a Python slot) hung the window, and twice the
test run. On a real XLA:CPU dump: the pass texts (small enough to show
whole, whose documents were built on the worker), an op's kernel stage by
stage (an object file among them) and the StableHLO the module came from."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject

from xlaview.analysis.op_kernels import op_kernel
from xlaview.dump.index import index_dump
from xlaview.dump.kernels import OBJECT, level_kind, module_functions, module_levels
from xlaview.dump.modules import ModuleCache
from xlaview.qt.model import tasks
from xlaview.qt.render.code import load_code, note_code


def qobject_calls(work: Callable[[], object]) -> list[str]:
    """The QObject methods ``work`` calls, run on a thread of its own as the
    worker runs it."""
    calls: list[str] = []
    failed: list[BaseException] = []

    def hook(_frame, event, arg) -> None:
        if event == "c_call" and isinstance(getattr(arg, "__self__", None), QObject):
            calls.append(f"{type(arg.__self__).__name__}.{arg.__name__}")

    def run() -> None:
        sys.setprofile(hook)
        try:
            work()
        except BaseException as err:  # handed to the test
            failed.append(err)
        finally:
            sys.setprofile(None)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return calls


def test_the_worker_side_of_steps_and_code_tabs_calls_no_qobject(qapp, kernel_dumps) -> None:
    folder: Path = kernel_dumps["default"]
    module = index_dump(folder).module("jit_program")
    levels = module_levels(module)
    assert levels.stablehlo is not None
    cache = ModuleCache()
    files = [p.file for p in module.passes[:3]]
    assert module.after_optimizations is not None
    files.append(module.after_optimizations)
    shown = []

    def steps() -> None:
        for f in files:
            ahead = tasks.TextAhead()
            read = tasks.read_pass_text(cache, f, ahead)
            prepared = tasks.prepare_pass(cache, f, ahead)
            assert not read.source.windowed and prepared.source is read.source
            shown.append(prepared)

    assert qobject_calls(steps) == []
    hlo = shown[-1].loaded.module
    scatter = next(i.name for i in hlo.entry.instructions if i.name.startswith("wrapped_scatter"))
    kernel = op_kernel(hlo, scatter, levels, module_functions(levels))
    assert kernel and OBJECT in kernel.levels
    codes = []

    def code() -> None:
        codes.append(load_code(levels.stablehlo, "mlir", None))
        for stage in kernel.stages:
            if stage.shown:
                kind = level_kind(stage.level)
                codes.append(
                    tasks.load_kernel(stage.file, kind, stage.function, hlo, scatter, None)[0]
                )
            else:
                codes.append(note_code(f"{stage.file.rel}: an object file"))

    assert qobject_calls(code) == []
    assert len(codes) == 1 + len(kernel.stages)
    assert all(c.text for c in codes)
