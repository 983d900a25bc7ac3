"""A code file (LLVM IR, PTX, MLIR) made ready to show, off the GUI thread:
the file, or for a long one the excerpt around the kernel shown (the view
builds its document)."""

from __future__ import annotations

from dataclasses import dataclass

from xlaview.dump.files import read_text
from xlaview.dump.kernels import function_line
from xlaview.dump.records import DumpFile
from xlaview.qt.render.documents import FULL_LINES
from xlaview.text.lines import count_newlines, line_offset

# A file longer than this shows an excerpt around the kernel: building and
# laying out a document costs the GUI thread time in proportion to its lines
# (as for a pass's text shown whole).
MAX_LINES_SHOWN = FULL_LINES
EXCERPT_CONTEXT = 500


@dataclass
class LoadedCode:
    """A code file read off the GUI thread (or the excerpt of it shown). Its
    colours come after, from `lex_text`, so the text shows first."""

    kind: str
    text: str  # what is shown
    jump_line: int | None  # in the text shown
    note: str = ""  # what part of the file is shown, when not all of it


def excerpt(text: str, line: int | None) -> tuple[str, int, str]:
    """(text shown, its first line in the file, a note) for a file too long to show whole."""
    total = count_newlines(text) + 1
    if total <= MAX_LINES_SHOWN:
        return text, 1, ""
    centre = line or 1
    first = max(1, min(centre - EXCERPT_CONTEXT, total - MAX_LINES_SHOWN + 1))
    last = first + MAX_LINES_SHOWN - 1
    start = line_offset(text, first)
    end = line_offset(text, last + 1, start, first) - 1 if last < total else len(text)
    note = (
        f"lines {first:,}–{last:,} of {total:,} shown (the file is {len(text) / 1e6:.0f} MB; "
        "the kernel is in this part)"
    )
    return text[start:end], first, note


def load_code(
    dump_file: DumpFile, kind: str, function: str | None, text: str | None = None
) -> LoadedCode:
    """``text``: the file's, if the caller has read it already."""
    if text is None:
        text = read_text(dump_file.path)
    line = function_line(text, function) if function else None
    shown, first, note = excerpt(text, line)
    jump = line - first + 1 if line else None
    return LoadedCode(kind, shown, jump, note)


def note_code(text: str) -> LoadedCode:
    """A few lines said in place of a file (an object file is not shown)."""
    return LoadedCode("mlir", text, None)
