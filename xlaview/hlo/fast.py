"""The fast path: a computation exactly as XLA prints it, parsed in bulk.

XLA prints a computation as a header line ending in ``{``, one instruction
per line indented by two spaces, and a line holding ``}``. For such a
computation one regular expression run by ``findall`` over the whole body
(in C) splits every line into its parts, a few searches over the body check
that nothing unusual hides in it, and a tight loop builds the instructions.
Anything else (comments, multi-line instructions, old styles, errors) makes
`parse_fast_computation` return None, and the careful parser
(`xlaview.hlo.parser`) takes the computation, with located errors.
"""

from __future__ import annotations

import re
from itertools import chain
from operator import itemgetter

from xlaview.hlo.attributes import ValueSyntaxError, computation_names, scan_attributes
from xlaview.hlo.model import CALLED_COMPUTATION_ATTRIBUTES, Instruction, Span
from xlaview.hlo.shape import Shape, ShapeSyntaxError, parse_shape
from xlaview.hlo.store import ParsedComputation

_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
# ``[ENTRY ]%name (p: f32[2]) -> f32[2] {`` (the signature may be left out; a
# layout's braces in it send the computation the careful way).
_HEADER = re.compile(
    rf"(ENTRY[ \t]+)?%?({_NAME})[ \t]*(?:(\([^\n{{}}]*\)[ \t]*->[^\n{{}}]*?)[ \t]*)?"
    r"\{[ \t]*\n"
)
SHAPE_PATTERN = (
    r"[a-z][a-z0-9]*\[[^\]\n]*\](?:\{[^{}\n]*\})?"
    r"|\((?:[^()\n]|\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\))*\)"
)
_STRING = r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'
# One instruction line: ROOT, %, name, shape, opcode, operands (no brackets,
# '#' or parentheses: operand shapes and compact GTEs go the careful way), the
# attributes. Fixed spacing, so that each part's length gives offsets. The
# attributes hold no comment outside strings (a comment may hide a brace or a
# line break), no tab or carriage return, and do not end in a comma or blank
# space (an attribute list going on to the next line): the careful path
# takes those.
_LINE = re.compile(
    rf"^  (ROOT )?%({_NAME}) = ({SHAPE_PATTERN}) ([a-z][a-z0-9\-]*)\(([^()\[\]#\n\t\r]*)\)"
    rf'((?:,[^\n\t\r"/]*+(?:(?:{_STRING}|/(?![/*]))[^\n\t\r"/]*+)*+)?)(?<![, ])$',
    re.M,
)
_INDEX_COMMENT = re.compile(r"/\*index=\d+\*/")
_INNER_BRACES = re.compile(r"\{[^{}]*\}")
_CALL_ATTRIBUTE = re.compile(
    r"(?<![\w.\-])(?:" + "|".join(CALLED_COMPUTATION_ATTRIBUTES) + r")=(%?[A-Za-z_][\w.\-]*|\{[^{}]*\})"
)
# Opcodes whose attributes name computations (checked to exist after parsing).
CALLING_OPCODES = frozenset(
    (
        "fusion", "call", "while", "conditional", "reduce", "reduce-window", "map", "sort",
        "scatter", "select-and-scatter", "all-reduce", "all-reduce-start", "reduce-scatter",
        "async-start", "async-update", "async-done", "custom-call", "scan", "topk",
    )
)  # fmt: skip
PAYLOAD_OPCODES = frozenset(("constant", "parameter"))
_FIRST = itemgetter(0)


class ComputationEnds:
    """Where computations laid out as XLA prints them end, found by searching
    forward only: the next closing line once found serves every header before
    it, so a text of many unclosed computations costs one pass, not one per
    computation."""

    __slots__ = ("text", "_searched_from", "_found")

    def __init__(self, text: str) -> None:
        self.text = text
        self._searched_from = 0
        self._found = -2  # not searched yet

    def end(self, pos: int) -> int | None:
        """After the closing line's ``}`` and attributes of the computation
        whose header line starts at ``pos``; None if it is not laid out so."""
        text = self.text
        header_end = text.find("\n", pos)
        if header_end < 1 or text[header_end - 1] != "{":
            return None
        close = self._close_after(header_end)
        if close < 0:
            return None
        nl = text.find("\n", close + 2)
        return len(text) if nl < 0 else nl

    def _close_after(self, pos: int) -> int:
        if self._found == -2 or pos < self._searched_from or 0 <= self._found < pos:
            self._searched_from = pos
            self._found = self.text.find("\n}", pos)
        return self._found


def parse_fast_computation(
    text: str, pos: int, end: int, line: int, shapes: dict[str, Shape]
) -> ParsedComputation | None:
    """The computation in ``text[pos:end]`` (``pos`` at a line start, on 1-based
    ``line``), or None when it needs the careful parser. Reads nothing outside
    ``text[pos:end]``: the result depends on that text alone, and is shared by
    every module holding the same text (see `xlaview.hlo.store`)."""
    m = _HEADER.match(text, pos, end)
    if m is None:
        return None
    body = m.end()
    close = text.find("\n}", body - 1, end)
    if close < 0:
        return None
    attribute_text = ""
    rest = close + 2
    span_end = rest
    if text[rest:end].strip():
        trailer = text[rest:end]
        try:
            _, attr_end = scan_attributes(trailer, 0)
        except ValueSyntaxError:
            return None
        if not attr_end or trailer[attr_end:].strip():
            return None
        attribute_text = trailer[:attr_end]
        span_end = rest + attr_end
    lines = text.count("\n", body, close) + 1 if close >= body else 0
    if lines:
        # Braces that open on one line and close on another: an attribute
        # value going over lines, which the line pattern cannot see.
        if text.count("{", body, close) != text.count("}", body, close):
            return None
        rows = _LINE.findall(text, body, close)
        if len(rows) != lines:
            return None
        built = _instructions(rows, m.group(2), line + 1, body, shapes)
        if built is None:
            return None
        instructions, calls = built
    else:
        instructions, calls = (), ()
    signature = (m.group(3) or "").strip()
    return ParsedComputation(m.group(2), m.group(1) is not None, signature, attribute_text,
                             instructions, Span(line, 1, pos, span_end), calls, lines + 1,
                             close + 1 - pos)


def _instructions(
    rows: list[tuple[str, str, str, str, str, str]], comp: str, line: int, offset: int,
    shapes: dict[str, Shape],
) -> tuple[tuple[Instruction, ...], tuple[tuple[int, str], ...]] | None:
    """Instructions from the parts of each line (the line of the first at
    ``line``, its indentation at ``offset``), and the computations they call;
    None if anything needs the careful path."""
    # The loop runs once per instruction of a dump: names are local, and
    # tuple.__new__ skips the named tuples' Python-level __new__.
    new = tuple.__new__
    length = len
    payload_opcodes, calling_opcodes = PAYLOAD_OPCODES, CALLING_OPCODES
    out: list[Instruction] = []
    append = out.append
    operand_lists: list[tuple[str, ...]] = []
    add_operands = operand_lists.append
    calls: list[tuple[int, str]] = []
    roots = 0
    offset += 2  # the indentation
    get_shape = shapes.get
    for root, name, shape_text, opcode, ops, tail in rows:
        shape = get_shape(shape_text)
        if shape is None:
            try:
                shape = shapes[shape_text] = parse_shape(shape_text)
            except ShapeSyntaxError:
                return None
        # "%", " = ", " ", "(" and ")" besides the parts.
        end = offset + length(name) + length(shape_text) + length(opcode) + length(ops) + (
            length(tail) + 7)
        if root:
            roots += 1
            end += 5
        operands: tuple[str, ...] = ()
        if opcode in payload_opcodes:
            payload: str | None = ops.strip()
            if ("{" in payload or "}" in payload) and not balanced_braces(payload):
                return None  # XLA: "unexpected '}'" and the like; the careful path says where
        else:
            payload = None
            if ops:
                if "/" in ops:  # XLA numbers long operand lists: /*index=5*/
                    ops = _INDEX_COMMENT.sub("", ops)
                # Any other spacing leaves a name that is not defined, checked below.
                operands = tuple(ops.replace("%", "").split(", "))
                add_operands(operands)
            if tail and opcode in calling_opcodes:
                for value in _CALL_ATTRIBUTE.findall(tail):
                    for called in computation_names(value):
                        calls.append((length(out), called))
        append(new(Instruction, (name, opcode, shape, operands, root != "", comp,
                                 new(Span, (line, 3, offset, end)), tail, payload)))
        line += 1
        offset = end + 3  # the newline and the next line's indentation
    defined = set(map(_FIRST, out))
    if roots > 1 or length(defined) != length(out) or not defined.issuperset(
        chain.from_iterable(operand_lists)
    ):
        return None  # the careful path reports it
    return tuple(out), tuple(calls)


def balanced_braces(payload: str) -> bool:
    """Braces that open before they close and all close (a literal's nesting)."""
    previous = None
    while previous != payload:
        previous, payload = payload, _INNER_BRACES.sub("", payload)
    return "{" not in payload and "}" not in payload
