"""The window on a folder two processes wrote (a module id repeats): each
module listed apart and shown when asked for, by id, ref or the list."""

from __future__ import annotations

from pathlib import Path

import pytest
from programs.two_processes import GSPMD, copy_module


@pytest.fixture
def repeated_id(corpus: Path, tmp_path: Path) -> Path:
    """A ROCm dump's jit_gspmd (module_0011) written as module_0003 beside that
    dump's own module_0003, jit_broadcast_in_dim."""
    folder = tmp_path / "dump"
    copy_module(corpus / GSPMD, "module_0003.jit_broadcast_in_dim", folder)
    copy_module(corpus / GSPMD, "module_0011.jit_gspmd", folder, as_id=3)
    return folder


def test_the_window_shows_each_module_of_a_repeated_id(window, repeated_id: Path) -> None:
    window.open_dump(repeated_id)
    window.wait_idle()
    assert window.view_state()["module"] == "jit_gspmd", "the main module, the larger"
    window.select_module("0003.jit_broadcast_in_dim")
    window.wait_idle()
    assert window.view_state()["module"] == "jit_broadcast_in_dim"
    assert window.view_state()["pass"] == "after"
    said: list[str] = []
    window.model.notices.status.connect(said.append)
    window.select_module(3)  # an id both have: the larger, said
    window.wait_idle()
    assert window.view_state()["module"] == "jit_gspmd"
    assert any("2 modules match '3': using the largest, 0003.jit_gspmd" in s for s in said), said
    window.select_module("0003")
    window.wait_idle()
    assert window.view_state()["module"] == "jit_gspmd"
    assert window.model.module.ref == "0003.jit_gspmd"
    assert window.modules.module_count() == 2


def test_a_module_only_one_process_wrote_is_shown_by_its_id(window, repeated_id: Path) -> None:
    (repeated_id / "module_0003.jit_broadcast_in_dim.gfx942_gpu_after_optimizations.txt").rename(
        repeated_id / "module_0005.jit_broadcast_in_dim.gfx942_gpu_after_optimizations.txt"
    )
    window.open_dump(repeated_id)
    window.wait_idle()
    window.select_module("5")
    window.wait_idle()
    assert window.model.module.ref == "0005" and window.view_state()["pass"] == "after"
