"""A text as the HLO view shows it: whole when it is small, a window of a few
thousand lines when it is big, and no line longer than a few thousand
characters.

Qt lays out every block of a document it is given, on the GUI thread: a 45 MB
pass of 350,000 lines is a third of a second of layout per step and hundreds
of megabytes per document, and one 50 MB line is a minute. So a big text is
indexed by line (off the GUI thread) and the view holds only the lines around
what it shows; an overlong line is cut, saying how much is left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QTextDocument

from xlaview.text.lines import LineStarts

MAX_LINE_CHARS = 4000  # a longer line is cut in the view (messages and search see it whole)
# Lines of a big text in the view's document at once: ten screens. A window
# is built on the GUI thread when a step shows it (and when a scroll leaves
# it), 2.5 us a line and more while the worker holds the interpreter: 4,000
# lines took 10 ms a step, up to 70 ms with a graph drawn meanwhile, and
# 1,200 lines 9 ms of a 47 ms step on the remat (600: 6 ms).
WINDOW_LINES = 600
# A text of at most this many lines (and FULL_CHARS) is shown whole: its
# document is built, and Qt lays it all out, on the GUI thread (a
# 35,000-line pass: 95 ms and 20-40 ms of each step).
FULL_LINES = 8000
FULL_CHARS = 2 << 20


@dataclass(frozen=True, slots=True)
class TextSource:
    """A text and where each of its lines starts (0-based line i starts at
    ``starts[i]``)."""

    starts: LineStarts

    @property
    def text(self) -> str:
        return self.starts.text

    @property
    def lines(self) -> int:
        return len(self.starts)

    @property
    def windowed(self) -> bool:
        """Whether the view shows a window of it rather than all of it."""
        return self.lines > FULL_LINES or len(self.text) > FULL_CHARS

    def line_of(self, offset: int) -> int:
        """The 0-based line holding character ``offset``."""
        return self.starts.line_of(offset)

    def excerpt(self, first: int, count: int) -> str:
        """Lines ``first`` .. ``first + count - 1`` (0-based), as the text has
        them: `build_document` cuts an overlong one (cut here too, it said how
        much the first cut left out: "[26 more characters]")."""
        last = min(self.lines, first + count)
        if first >= last:
            return ""
        start = self.starts[first]
        end = self.starts[last] - 1 if last < self.lines else len(self.text)
        return self.text[start:end]


def _cut(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]} … [{len(line) - MAX_LINE_CHARS:,} more characters]"


def text_source(text: str) -> TextSource:
    """Index ``text`` by line (its newlines counted a block at a time: 7 ms for
    a 45 MB text; each block's lines listed when first asked)."""
    return TextSource(LineStarts(text))


def build_document(text: str) -> QTextDocument:
    """A plain-text document for a view, built on the GUI thread, in one Qt
    call (8,000 lines: 12 ms; in chunks of a hundred, 23 ms). It gets its
    font and layout when shown.

    Never on a worker: a QObject a worker makes has to be moved to the GUI
    thread, and PySide moves it with the GIL held while Qt takes the
    object's signal-slot lock (a pool of locks keyed by address), so a GUI
    thread holding the same lock while it waits for the GIL (disconnecting a
    Python slot) deadlocks with it."""
    document = QTextDocument()
    document.setUndoRedoEnabled(False)
    lines = text.split("\n")
    if max(map(len, lines)) > MAX_LINE_CHARS:
        text = "\n".join(map(_cut, lines))
    document.setPlainText(text)
    return document
