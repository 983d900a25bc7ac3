"""Lex a whole file once into per-line coloured spans (for the text view).

The view applies a line's spans when the line scrolls into sight, so a
multi-megabyte dump is never re-lexed per block (the trap STYLE.md warns of).
The spans of a file are packed in two integer arrays: small, and cheap to send
from the process that lexes to the window (no per-span objects to rebuild).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable

from pygments.lexer import Lexer
from pygments.lexers import LlvmLexer, PtxLexer
from pygments.token import Text, Whitespace, _TokenType

from xlaview.text.lexer import HloLexer
from xlaview.text.mlir import MlirLexer

Span = tuple[int, int, str]  # column, length, token type (e.g. "Token.Keyword.Type")

LEXERS: dict[str, type[Lexer]] = {
    "hlo": HloLexer,
    "ll": LlvmLexer,
    "ptx": PtxLexer,
    "mlir": MlirLexer,
}

_PLAIN = (Text, Whitespace)


class LineSpans:
    """The spans of each line: ``spans[line]`` is a list of `Span`.

    ``data`` holds (column, length, token number) triples in text order and
    ``starts[line]`` the number of triples before that line.
    """

    __slots__ = ("tokens", "starts", "data")

    def __init__(self, tokens: list[str], starts: array[int], data: array[int]) -> None:
        self.tokens, self.starts, self.data = tokens, starts, data

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, line: int) -> list[Span]:
        d, tokens = self.data, self.tokens
        return [
            (d[i], d[i + 1], tokens[d[i + 2]])
            for i in range(3 * self.starts[line], 3 * self.starts[line + 1], 3)
        ]


def line_spans(
    text: str, lexer: Lexer, progress: Callable[[float], None] | None = None
) -> LineSpans:
    """Spans of every line of ``text`` (lines split on ``\\n``), plain text left out."""
    line_count = text.count("\n") + 1
    starts = array("I", [0])
    data = array("I")
    numbers: dict[_TokenType, int] = {}
    tokens: list[str] = []

    def number(ttype: _TokenType) -> int:
        n = numbers.get(ttype)
        if n is None:
            n = numbers[ttype] = len(tokens)
            tokens.append(str(ttype))
        return n

    line = 0
    line_start = 0
    total = max(len(text), 1)
    next_report = total // 20
    for offset, ttype, value in lexer.get_tokens_unprocessed(text):
        if progress is not None and offset > next_report:
            progress(offset / total)
            next_report += total // 20
        plain = ttype in _PLAIN or ttype.parent in _PLAIN
        if "\n" not in value:
            if not plain:
                data.extend((offset - line_start, len(value), number(ttype)))
            continue
        # A token over several lines (whitespace, multi-line strings): split it.
        start = offset
        for part in value.split("\n")[:-1]:
            if part and not plain:
                data.extend((start - line_start, len(part), number(ttype)))
            start += len(part) + 1
            line += 1
            line_start = start
            starts.append(len(data) // 3)
        rest = value.rsplit("\n", 1)[1]
        if rest and not plain:
            data.extend((start - line_start, len(rest), number(ttype)))
    # Close the last line, and the lines after it that had no token.
    starts.extend([len(data) // 3] * (max(line_count, line + 1) + 1 - len(starts)))
    return LineSpans(tokens, starts, data)


def lex_text(text: str, kind: str, progress: Callable[[float], None] | None = None) -> LineSpans:
    """Colour spans of each line of ``text``, in a language of `LEXERS`."""
    return line_spans(text, LEXERS[kind](stripnl=False, ensurenl=False), progress)
