"""Issue 24's classes of hostile input, through the window's public API: each
dump opens, its bad lines are listed as located problems while the rest shows
and is priced, nothing is raised from a slot, and a file emptied while shown
is listed once the half-written grace period is over."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hostile_cases import CASES, NAME, line_of

from xlaview.dump.files import SETTLE_SECONDS


@pytest.mark.parametrize("case", list(CASES))
def test_each_class_opens_and_is_listed(window, qtbot, tmp_path: Path, case: str) -> None:
    text, instruction, marker, warning = CASES[case]
    root = tmp_path / "dump"
    root.mkdir()
    (root / NAME).write_bytes(text)
    old = time.time() - 10 * SETTLE_SECONDS  # settled: problems are listed at once
    os.utime(root / NAME, (old, old))
    window.open_dump(root)
    assert window.wait_idle(60000)
    window.cost_panel.show()
    window.model.costing.want("test", True)
    window.select_instruction(instruction)
    assert window.wait_idle(60000)
    state = window.view_state()
    assert state["text_pass"] == "after" and state["selection"] == instruction, state
    assert window.model.costing.shown is not None, "the pass was priced"
    if marker is not None and warning:
        line = line_of(text, marker)
        listed = [p for p in window.problems.problems if p.line == line]
        assert listed and warning in listed[0].message, window.problems.problems


def test_a_file_emptied_while_shown_is_listed(window, qtbot, tmp_path: Path) -> None:
    from hostile import AFTER

    root = tmp_path / "dump"
    root.mkdir()
    final = root / NAME
    final.write_bytes(AFTER)
    old = time.time() - 10 * SETTLE_SECONDS
    os.utime(final, (old, old))
    window.open_dump(root)
    assert window.wait_idle(60000)
    assert not window.problems.problems
    final.write_bytes(b"")  # a program truncates it in place
    qtbot.waitUntil(
        lambda: any(p.path == NAME for p in window.problems.problems),
        timeout=int(SETTLE_SECONDS * 1000) + 10000,
    )
    messages = [p.message for p in window.problems.problems if p.path == NAME]
    assert any("empty" in m or "no HLO computation" in m for m in messages), messages
    assert window.wait_idle(60000)
    assert window.view_state()["text_pass"] == "after", "the emptied text is shown, as it is"
