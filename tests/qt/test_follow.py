"""Following a folder while a program writes it, and folders of several dumps."""

from __future__ import annotations

import shutil
from pathlib import Path

from xlaview.resources import sample_dump


def copy_some(source: Path, target: Path, names: list[str]) -> None:
    for name in names:
        shutil.copy(source / name, target / name)


def test_modules_and_passes_appear_while_written(window, qtbot, tmp_path: Path) -> None:
    source = sample_dump()
    target = tmp_path / "live"
    target.mkdir()
    files = sorted(p.name for p in source.glob("module_0000.*.txt"))
    passes = [n for n in files if ".00" in n and "optimizations" not in n]
    window.open_dump(target)
    window.wait_idle()
    assert window.model.module is None and window.modules.module_count() == 0
    # A program starts writing: the module appears with its first passes.
    copy_some(source, target, ["module_0000.jit_attention.before_optimizations.txt", *passes[:5]])
    qtbot.waitUntil(lambda: window.model.module is not None, timeout=10000)
    qtbot.waitUntil(lambda: len(window.model.module.passes) == 5, timeout=10000)
    window.wait_idle()
    window.select_pass(passes and window.model.module.passes[2].seq)
    position = window.view_state()["pass"]
    # More passes, and a half-written one: the user's place in the timeline stays.
    copy_some(source, target, passes[5:12])
    half = target / passes[12]
    half.write_text((source / passes[12]).read_text()[:2000])
    qtbot.waitUntil(lambda: len(window.model.module.passes) == 13, timeout=10000)
    window.wait_idle()
    assert window.view_state()["pass"] == position
    assert not any(p.path == half.name for p in window.problems.problems), "reported too early"
    qtbot.waitUntil(lambda: len(window.timeline.unchanged) == 13, timeout=10000)  # marks kept
    # The writer finishes the file: it is read whole, and nothing was reported.
    shutil.copy(source / passes[12], half)
    window.select_pass(window.model.module.passes[-1].seq)
    qtbot.waitUntil(
        lambda: (
            window.model.loaded is not None and window.model.loaded.module.instruction_count > 10
        ),
        timeout=10000,
    )
    assert not window.model.loaded.problems
    # The program ends with the final module and its memory reports: the memory view fills.
    assert window.memory.chart.timeline is None
    copy_some(source, target, [p.name for p in source.iterdir() if "after_optimizations" in p.name])
    qtbot.waitUntil(lambda: window.memory.chart.timeline is not None, timeout=10000)


def test_folder_of_several_dumps_shows_each(window, qtbot, tmp_path: Path, zoo) -> None:
    root = tmp_path / "hosts"
    shutil.copytree(zoo["cond"], root / "host0")
    shutil.copytree(zoo["scan"], root / "host1")
    window.open_dump(root)
    window.wait_idle()
    tree = window.modules.tree
    groups = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert groups == ["host0", "host1"]
    assert all(tree.topLevelItem(i).childCount() >= 1 for i in range(2))
    assert {m.dump for m in window.model.index.modules} == {"host0", "host1"}
