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


@pytest.mark.parametrize("shown", ["whole", "by windows"])
def test_the_diff_marks_over_the_lines_in_view_are_drawn(
    shown, monkeypatch, window, qtbot, gpt_dump
) -> None:
    """Every diff range over the lines in view is drawn, wherever the text
    scrolls (a big text's window moves with it); none far from them is. Marks
    over a whole 5,000-line pass cost 190 ms of the GUI thread at each step."""
    from xlaview.qt import theme

    if shown == "by windows":
        monkeypatch.setattr(text_window, "FULL_LINES", 200)
        monkeypatch.setattr(text_window, "WINDOW_LINES", 400)
    window.open_dump(gpt_dump)
    window.wait_idle()
    view = window.text
    marked = None
    for point in window.model.points[1:]:
        window.select_pass(point.key)
        window.wait_idle()
        marked = sorted(view.highlighted("diff-added") + view.highlighted("diff-changed"))
        if len(marked) > 20:
            break
    assert marked, "a pass that changed lines"
    assert (view.source is not None and view.source.windowed) == (shown == "by windows")
    colours = {QColor(theme.ADDED_LINE).name(), QColor(theme.CHANGED_LINE).name()}
    document = view.document()

    def line(position: int) -> int:
        return view.line_of_cursor(QTextCursor(document.findBlock(position)))

    for first_line, _ in marked[:: max(1, len(marked) // 4)]:
        view.put_on_top(first_line)
        document = view.document()
        blocks = [b.blockNumber() for b in view.visible_blocks()]
        top, bottom = view.first + blocks[0] + 1, view.first + blocks[-1] + 1
        drawn = [
            (line(s.cursor.selectionStart()), line(s.cursor.selectionEnd()))
            for s in view.extraSelections()
            if s.format.background().color().name() in colours
        ]
        for first, last in marked:
            if first <= bottom and last >= top:
                lines = (max(first, top), min(last, bottom))
                assert any(a <= lines[0] and lines[1] <= b for a, b in drawn), lines
        screen = bottom - top + 1
        assert all(top - 3 * screen <= b and a <= bottom + 3 * screen for a, b in drawn)
    assert len(drawn) < len(marked), "not every mark of the pass"


def test_an_overlong_line_in_a_window_says_how_much_is_left_out(qapp) -> None:
    """A big text's window cuts an overlong line once, saying how many characters
    it left out (cut twice, it said 26: the first cut's own note)."""
    from xlaview.qt.render.documents import build_document, text_source

    text = "a\n" + "x" * (text_window.MAX_LINE_CHARS + 6000) + "\nb\n"
    document = build_document(text_source(text).excerpt(0, 3))
    line = document.findBlockByNumber(1).text()
    assert line == "x" * text_window.MAX_LINE_CHARS + " … [6,000 more characters]"
    assert document.findBlockByNumber(2).text() == "b"
