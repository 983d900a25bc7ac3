"""A pygments lexer for XLA HLO text, as XLA prints it in ``--xla_dump_to`` dumps.

Registered as the pygments plugin ``hlo`` (``pygmentize -l hlo module.txt``).

Token types, which the GUI maps to colours:

========================  =====================================================
Keyword                   ``HloModule ENTRY ROOT FileNames FunctionNames ...``
Name.Namespace            the module name after ``HloModule``
Name.Function             a computation: its header, and ``calls=``/``to_apply=``
                          and the other attributes that name computations
Name.Variable             instructions (``%x``, and bare names where defined) and
                          the parameters of a computation signature
Name.Builtin              opcodes (``fusion``, ``get-tuple-element``)
Name.Attribute            attribute names before ``=`` (``metadata``, ``kind``)
Name.Constant             enum values (``kLoop``, ``LT``, ``DEFAULT``)
Keyword.Type              a shape: ``f32[16,32]{1,0:T(8,128)}``, one token
Keyword.Constant          ``true`` and ``false``
String, Number, Comment   as usual (``/*index=5*/`` is a comment)
Operator                  ``=``, ``->``, ``<=``
Punctuation               brackets, commas and the rest
Name                      any other word (operands printed without ``%``)
========================  =====================================================

Speed is the design constraint: the GUI lexes a whole dump (MBs, tens of
thousands of instructions) at once, and every trip round pygments' rule loop
costs more than a regex match. So each rule takes a whole line, and a callback
splits it with one compiled alternation (``_PIECE``) whose matched group gives
the token type: one trip round the loop per line, not per token. Only the
line-level context (an instruction's name and opcode, a computation header) is
in the rules; everything else is decided by the pieces.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar, cast

from pygments.lexer import RegexLexer
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
    _TokenType,
)

__all__ = ["HloLexer"]

# What get_tokens_unprocessed yields: (offset, token type, text).
LexedToken = tuple[int, _TokenType, str]

# Instruction and computation names: XLA allows '.' and '-' inside (``%reduce-window.1``),
# but a '-' must be followed by a name character so that ``b01f_01io->b01f`` stops at '->'.
NAME = r"[A-Za-z_][\w.]*(?:-[\w.]+)*"
PERCENT_NAME = r"%[\w.]+(?:-[\w.]+)*"
# Every primitive type XLA prints (pred, s4, u64, bf16, c128, f8e4m3fn, f4e2m1fn, token, ...).
ELEMENT_TYPE = r"(?:pred|token|opaque|bf16|[fsuc]\d+(?:e\d+m\d+[a-z]*)?)"
# One token for element type, dimensions (``<=8`` bounded, ``?`` unbounded) and the layout
# with its tiles and memory space (``{1,0:T(8,128)(2,1)S(1)}``): a layout never nests
# braces and is glued to the dimensions, which is what tells it from an attribute value.
SHAPE = ELEMENT_TYPE + r"\[[^\[\]\n]*\](?:\{[^{}\n]*\})?"
# An opcode is printed glued to its operand list: ``fusion(``, ``get-tuple-element(``.
OPCODE = r"[a-z]\w*(?:-\w+)*"
# Unrolled so that a long string is one fast scan. It stays on its line, which bounds the
# cost of a quote that never closes; the rare multi-line string (``origin_recovery_table``
# embeds a whole module) has a state of its own.
STRING = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
# Mesh axis names are single-quoted: ``replica_groups=mesh['x'=2,'y'=4] {'x'}``.
QUOTED_NAME = r"'[^'\n]*'"
# The tail keeps window and padding specs (``3x3``, ``1_1x0_-1``) and hex payloads in one token.
NUMBER = r"-?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d+)?(?:_-|[\w.])*|(?:inf|nan)(?![\w.]))"
KEYWORDS = r"(?:HloModule|ENTRY|ROOT|FileNames|FunctionNames|FileLocations|StackFrames)(?![\w.])"
# Attributes whose value is one computation, not an instruction.
# The leading ``(?<==)`` is a cheap guard: most positions fail it before trying the names.
CALLED_COMPUTATION = (
    "(?<==)(?:"
    + "|".join(
        f"(?<={attribute}=)"
        for attribute in (
            "calls",
            "to_apply",
            "condition",
            "body",
            "true_computation",
            "false_computation",
            "select",
            "scatter",
        )
    )
    + f")%?{NAME}"
)
# Attributes whose value is a list of computations: ``branch_computations={%a, %b}``.
COMPUTATION_LIST = r"(?:branch_computations|called_computations|calls)=\{[^{}\n]*\}"

# What a line holds, up to and including its newline: runs of it stop before a ``/*`` or a
# ``"`` that does not close on the line, which the rules then handle.
LINE_PART = rf"[^\"/\n]+|{STRING}|/\*.*?\*/|//.*|/(?![*/])"
REST_OF_LINE = rf"(?:{LINE_PART})*\n?"

# The token pieces, tried in order at each position like a rule list. Each piece is
# one group of ``_PIECE``, so ``match.lastindex`` names its token type.
_PIECES: tuple[tuple[_TokenType | None, str], ...] = (
    (Punctuation, r"[(),{}\[\]]"),
    (Whitespace, r"\s+"),
    # No type: the list is split again by _split_callees.
    (None, COMPUTATION_LIST),
    (Name.Function, CALLED_COMPUTATION),
    (Name.Variable, PERCENT_NAME),
    (Keyword.Type, SHAPE),
    (Name.Attribute, rf"{NAME}(?==)"),
    (Operator, r"->|<=|="),
    (String, STRING),
    (String, QUOTED_NAME),
    (Comment.Multiline, r"/\*.*?\*/"),
    (Comment.Single, r"//.*"),
    (Keyword, KEYWORDS),
    (Name.Namespace, rf"(?<=HloModule ){NAME}"),
    (Number, NUMBER),
    (Keyword.Constant, r"(?:true|false)(?![\w.])"),
    # Enum values: fusion kinds (kLoop), comparison directions (LT), precisions (DEFAULT).
    (Name.Constant, r"(?:k[A-Z]\w*|[A-Z][A-Z0-9_]*)(?![\w.])"),
    # After the instruction head this is the opcode of a tuple-shaped instruction.
    (Name.Builtin, rf"{OPCODE}(?=\()"),
    # A parameter in a computation signature: ``(p0: f32[4], ...)``.
    (Name.Variable, rf"{NAME}(?=:)"),
    (Name, NAME),
    (Punctuation, r"[:;@*|!?#$&+~^./\\<>-]"),
    (Error, r"[\s\S]"),
)
_PIECE = re.compile("|".join(f"({pattern})" for _, pattern in _PIECES))
# Indexed by match.lastindex; group 0, the whole match, is never a lastindex.
_PIECE_TOKENS = (None, *(token for token, _ in _PIECES))
_CALLEE = re.compile(rf"(%?{NAME})|(\s+)|([^\s%\w]+)")
_CALLEE_TOKENS = (Error, Name.Function, Whitespace, Punctuation)


def _split(text: str, offset: int) -> list[LexedToken]:
    """The tokens of ``text``, which starts at ``offset`` in the document."""
    # Every alternative of _PIECE is a group, so lastindex is never None.
    pieces = [
        (offset + m.start(), _PIECE_TOKENS[m.lastindex], m.group())  # type: ignore[index]
        for m in _PIECE.finditer(text)
    ]
    # Only a list of called computations comes out untyped (None). It is rare, so it is
    # split after the fact, which keeps the comprehension above lean.
    if "computations={" not in text and "calls={" not in text:
        return cast("list[LexedToken]", pieces)
    return [
        part
        for start, token, value in pieces
        for part in ([(start, token, value)] if token is not None else _split_callees(value, start))
    ]


def _split_callees(text: str, offset: int) -> list[LexedToken]:
    """``branch_computations={%a, %b}``: the attribute, then each computation as a function."""
    name, equals, rest = text.partition("=")
    rest_offset = offset + len(name) + 1
    callees = [
        (rest_offset + m.start(), _CALLEE_TOKENS[m.lastindex], m.group())  # type: ignore[index]
        for m in _CALLEE.finditer(rest)
    ]
    return [(offset, Name.Attribute, name), (offset + len(name), Operator, equals), *callees]


def _line(*head: _TokenType) -> Callable[[RegexLexer, re.Match[str]], list[LexedToken]]:
    """A rule callback: ``head`` types the first groups, the last group is split into pieces."""
    rest = len(head) + 1

    def callback(lexer: RegexLexer, match: re.Match[str]) -> list[LexedToken]:
        groups = match.groups()
        tokens = [
            (match.start(group), token, value)
            for group, (token, value) in enumerate(zip(head, groups, strict=False), start=1)
            if value
        ]
        tokens.extend(_split(groups[-1], match.start(rest)))
        return tokens

    return callback


class HloLexer(RegexLexer):  # type: ignore[misc]  # pygments has no type stubs: RegexLexer is Any
    """XLA HLO text: modules, computations, instructions, shapes and attributes."""

    name = "HLO"
    aliases: ClassVar[list[str]] = ["hlo"]
    filenames: ClassVar[list[str]] = ["*.hlo"]
    mimetypes: ClassVar[list[str]] = ["text/x-hlo"]
    url = "https://openxla.org/xla/operation_semantics"

    tokens: ClassVar[dict[str, list[tuple[object, ...]]]] = {
        "root": [
            # An instruction: ``  ROOT %name = f32[4]{0} add(`` and then its operands and
            # attributes. A tuple shape is left to the pieces, which find the opcode by its '('.
            (
                (
                    rf"^([ \t]*)(?:(ROOT)([ \t]+))?({PERCENT_NAME}|{NAME})([ \t]*)(=)([ \t]*)"
                    rf"(?:({SHAPE})([ \t]*))?(?:({OPCODE})(?=\())?({REST_OF_LINE})"
                ),
                _line(
                    Whitespace,
                    Keyword,
                    Whitespace,
                    Name.Variable,
                    Whitespace,
                    Operator,
                    Whitespace,
                    Keyword.Type,
                    Whitespace,
                    Name.Builtin,
                ),
            ),
            # A computation header: ``%fused_computation (p: f32[]) -> f32[] {``,
            # ``ENTRY %main.3 (...) -> ... {``, ShortParsable ``ENTRY main.4 {``.
            (
                (
                    rf"^([ \t]*)(?:(ENTRY)([ \t]+))?({PERCENT_NAME}|{NAME})(?=[ \t]*[({{])"
                    rf"({REST_OF_LINE})"
                ),
                _line(Whitespace, Keyword, Whitespace, Name.Function),
            ),
            # Any other line (or the rest of one, after a comment), one piece list.
            (rf"((?:{LINE_PART})+\n?|\n)", _line()),
            (r"/\*", Comment.Multiline, "comment"),
            (r'"', String, "string"),
        ],
        "string": [
            (r'[^"\\]+', String),
            (r"\\[\s\S]", String.Escape),
            (r'"', String, "#pop"),
        ],
        "comment": [
            (r"[^*]+", Comment.Multiline),
            (r"\*/", Comment.Multiline, "#pop"),
            (r"\*", Comment.Multiline),
        ],
    }
