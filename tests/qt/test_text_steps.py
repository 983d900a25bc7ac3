"""The HLO text across pass steps: it keeps the instruction in view, or (the
default) shows the first line the pass changed."""

from __future__ import annotations

from xlaview.analysis.navigation import first_change_line
from xlaview.resources import sample_dump


def open_sample(window) -> list:
    window.open_dump(sample_dump())
    window.wait_idle()
    return window.model.module.passes


def test_a_step_shows_the_pass_first_change(window) -> None:
    passes = open_sample(window)
    assert window.follows_changes
    diffs: list = []
    window.model.changes.diff_ready.connect(diffs.append)
    followed = 0
    for step in passes[1:12]:
        window.select_pass(step.seq)
        window.wait_idle()
        shown = [d for d in diffs if d.after == str(window.view_state()["text_pass"])]
        line = first_change_line(shown[-1].marks) if shown else None
        if line is None:
            continue
        top = window.text_top_line()
        assert top <= line < top + 30, f"pass {step.seq}: first change at {line}, top {top}"
        followed += 1
    assert followed >= 3


def test_a_step_keeps_the_instruction_in_view(window) -> None:
    passes = open_sample(window)
    window.set_follow_changes(False)
    kept = 0
    for before, after in zip(passes[4:14], passes[5:15], strict=False):
        window.select_pass(before.seq)
        window.wait_idle()
        module = window.model.loaded.module
        # An instruction a quarter down the file (its line can be the top one).
        line = module.text.count("\n") // 4
        while module.line_owner(line) is None or module.line_owner(line)[1] is None:
            line += 1
        computation, name = module.line_owner(line)
        window.text.put_on_top(line)
        assert window.text_top_line() == line
        window.select_pass(after.seq)
        window.wait_idle()
        stepped = window.model.loaded.module
        if not stepped.has_computation(computation):
            continue
        comp = stepped.computation(computation)
        if name not in comp:
            continue
        assert window.text_top_line() == comp.instruction(name).span.line
        kept += 1
    assert kept >= 5
