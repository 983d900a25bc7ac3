"""Lex a whole file once into per-line coloured spans (for the text view).

The view applies a line's spans when the line scrolls into sight, so a
multi-megabyte dump is never re-lexed per block (the trap STYLE.md warns of).
"""

from __future__ import annotations

from collections.abc import Callable

from pygments.lexer import Lexer
from pygments.token import Text, Whitespace, _TokenType

Span = tuple[int, int, str]  # column, length, token type (e.g. "Token.Keyword.Type")

_PLAIN = (Text, Whitespace)


def line_spans(
    text: str, lexer: Lexer, progress: Callable[[float], None] | None = None
) -> list[list[Span]]:
    """Spans of every line of ``text`` (lines split on ``\\n``), plain text left out."""
    lines: list[list[Span]] = [[] for _ in range(text.count("\n") + 1)]
    line = 0
    line_start = 0
    names: dict[_TokenType, str] = {}
    total = max(len(text), 1)
    next_report = total // 20
    for offset, ttype, value in lexer.get_tokens_unprocessed(text):
        if progress is not None and offset > next_report:
            progress(offset / total)
            next_report += total // 20
        plain = ttype in _PLAIN or ttype.parent in _PLAIN
        if "\n" not in value:
            if not plain:
                key = names.get(ttype) or names.setdefault(ttype, str(ttype))
                lines[line].append((offset - line_start, len(value), key))
            continue
        # A token over several lines (whitespace, multi-line strings): split it.
        start = offset
        for part in value.split("\n")[:-1]:
            if part and not plain:
                lines[line].append((start - line_start, len(part), str(ttype)))
            start += len(part) + 1
            line += 1
            line_start = start
            if line == len(lines):  # a lexer that appends a final newline
                lines.append([])
        rest = value.rsplit("\n", 1)[1]
        if rest and not plain:
            lines[line].append((start - line_start, len(rest), str(ttype)))
    return lines
