"""A big text is shown through a window of lines that follows the scroll bar:
selection, search, highlights, colours and line numbers work on the whole
file, and no overlong line is laid out whole. (The window sizes are made
small here so that a real, small dump is 'big'.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QTextCursor

from xlaview.qt.render import documents as text_window


@pytest.fixture
def small_windows(monkeypatch):
    monkeypatch.setattr(text_window, "FULL_LINES", 200)
    monkeypatch.setattr(text_window, "WINDOW_LINES", 400)


def test_a_big_text_is_shown_by_windows(small_windows, window, qtbot, gpt_dump) -> None:
    window.open_dump(gpt_dump)
    window.wait_idle()
    view, module = window.text, window.model.loaded.module
    lines = module.text.count("\n") + 1
    assert lines > 2000, "a text several windows long"
    assert view.document().blockCount() <= 400
    assert view.file_scroll.isVisible() and view.file_scroll.maximum() > lines - 100
    assert view.spans is not None, "the window got its colours"
    # Selecting an instruction near the end moves the window to it.
    last = module.entry.instructions[-1]
    window.select_instruction(last.name)
    window.wait_idle()
    assert view.first < last.span.line <= view.first + view.document().blockCount()
    assert view.line_of_cursor(view.textCursor()) == last.span.line
    block = view.document().findBlockByNumber(last.span.line - 1 - view.first)
    assert last.name in block.text()
    # The outer scroll bar anywhere: the window follows, numbers are the file's.
    view.file_scroll.setValue(lines // 2)
    top = view.first + view.verticalScrollBar().value()
    assert abs(top - lines // 2) <= 1
    line = view.first + 1
    assert view.document().firstBlock().text() == module.text.split("\n")[line - 1][:4000]
    # A click on a line of the window selects that line's instruction.
    owner = next(
        (view.first + i + 1, o)
        for i in range(50)
        if (o := module.line_owner(view.first + i + 1)) and o[1]
    )
    window.select_instruction(owner[1][1], owner[1][0])
    window.wait_idle()
    assert window.view_state()["selection"] == owner[1][1]


def test_find_in_a_big_text(small_windows, window, qtbot, gpt_dump) -> None:
    window.open_dump(gpt_dump)
    window.wait_idle()
    view, module = window.text, window.model.loaded.module
    target = module.entry.root.name
    bar = window.code_tabs.text_panel.find_bar
    bar.open_bar()
    bar.edit.setText(f"ROOT %{target} ")
    assert view.textCursor().selectedText() == f"ROOT %{target} "
    assert view.line_of_cursor(view.textCursor()) == module.entry.root.span.line
    assert bar.count.text() == "1 matches"


def test_an_overlong_line_is_cut(window, qtbot, tmp_path: Path) -> None:
    """A hand-written edge case: a constant a million characters long."""
    folder = tmp_path / "dump"
    folder.mkdir()
    literal = ", ".join("1" for _ in range(330_000))
    (folder / "module_0000.long.cpu_after_optimizations.txt").write_text(
        "HloModule long\n\nENTRY %main () -> f32[330000] {\n"
        f"  ROOT %c = f32[330000]{{0}} constant({{{literal}}})\n}}\n"
    )
    window.open_dump(folder)
    window.wait_idle()
    line = window.text.document().findBlockByNumber(3).text()
    assert len(line) < text_window.MAX_LINE_CHARS + 100
    assert "more characters]" in line
    window.select_instruction("c")
    window.wait_idle()
    assert window.view_state()["selection"] == "c"


def test_the_lines_in_view_are_coloured_by_their_spans(window, qtbot, gpt_dump) -> None:
    """Each line in view carries its spans' formats, a token's colour the
    theme's, again after a step to another pass (the ranges are reused)."""
    from xlaview.qt import theme

    window.open_dump(gpt_dump)
    window.wait_idle()
    points = [p.key for p in window.model.points]
    for key in (points[1], points[2], points[1]):
        window.select_pass(key)
        window.wait_idle()
        view = window.text
        assert view.spans is not None
        block = view.firstVisibleBlock()
        for _ in range(10):
            spans = view.spans[block.blockNumber() + view.first]  # a small text: spans of it all
            formats = block.layout().formats()
            assert [(f.start, f.length) for f in formats] == [(c, n) for c, n, _ in spans]
            for f, (_, _, token) in zip(formats, spans, strict=True):
                colour = next((c for p, c, _ in theme.TOKEN_COLORS if token.startswith(p)), None)
                if colour is not None:
                    assert f.format.foreground().color().name() == QColor(colour).name()
            block = block.next()


def test_a_big_texts_window_shows_the_diff_marks_over_its_lines(
    small_windows, window, qtbot, gpt_dump
) -> None:
    """Only the diff's ranges over the window's lines are drawn, each of them,
    wherever the window moves."""
    from xlaview.qt import theme

    window.open_dump(gpt_dump)
    window.wait_idle()
    view = window.text
    marked = None
    for point in window.model.points[1:]:
        window.select_pass(point.key)
        window.wait_idle()
        marked = view.highlighted("diff-added") + view.highlighted("diff-changed")
        if len(marked) > 3:
            break
    assert marked, "a pass that changed lines"
    colours = {QColor(theme.ADDED_LINE).name(), QColor(theme.CHANGED_LINE).name()}
    for first_line, _ in marked[:: max(1, len(marked) // 3)]:
        view.ensure_line(first_line)
        shown = view.document().blockCount()
        over = [r for r in marked if r[1] > view.first and r[0] <= view.first + shown]
        drawn = [
            s for s in view.extraSelections() if s.format.background().color().name() in colours
        ]
        assert len(drawn) == len(over)
        starts = sorted(
            view.line_of_cursor(QTextCursor(view.document().findBlock(s.cursor.selectionStart())))
            for s in drawn
        )
        assert starts == sorted(max(first, view.first + 1) for first, _ in over)


def test_an_overlong_line_in_a_window_says_how_much_is_left_out(qapp) -> None:
    """A big text's window cuts an overlong line once, saying how many characters
    it left out (cut twice, it said 26: the first cut's own note)."""
    from xlaview.qt.render.documents import build_document, text_source

    text = "a\n" + "x" * (text_window.MAX_LINE_CHARS + 6000) + "\nb\n"
    document = build_document(text_source(text).excerpt(0, 3))
    line = document.findBlockByNumber(1).text()
    assert line == "x" * text_window.MAX_LINE_CHARS + " … [6,000 more characters]"
    assert document.findBlockByNumber(2).text() == "b"
