"""The fast path: a computation exactly as XLA prints it, parsed in bulk.

XLA prints a computation as a header line ending in ``{``, one instruction
per line indented by two spaces, and a line holding ``}``. For such a
computation one regular expression run by ``findall`` over the whole body
(in C) splits every line into its parts, and checks over whole columns of
parts (in C too) find anything the careful parser would refuse: lines that
do not match, unbalanced braces, duplicate names, undefined operands, bad
shapes. The `Instruction` tuples are built from the parts when first asked
for (`xlaview.hlo.parse.parsed`): a 45 MB module is checked in full
before it is shown, and the tuples of a computation nobody looks at are
never built. Anything unusual (comments, multi-line instructions, old styles,
errors) makes `parse_fast_computation` return None, and the careful parser
(`xlaview.hlo.parse.driver`) takes the computation, with located errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from itertools import compress
from operator import not_
from typing import Protocol

from xlaview.hlo.attributes import ValueSyntaxError, computation_names, scan_attributes
from xlaview.hlo.interpreted import bad_values
from xlaview.hlo.model import CALLED_COMPUTATION_ATTRIBUTES, Span
from xlaview.hlo.parse.parsed import (
    _ATTRIBUTES,
    _INDEX_COMMENT,
    _MAX_SHAPES,
    _NAMES,
    _OPCODES,
    _OPERANDS,
    _ROOTS,
    _SHAPES,
    PAYLOAD_OPCODES,
    SHAPES,
    ParsedComputation,
    Row,
)
from xlaview.hlo.parse.store import ComputationStore, text_key
from xlaview.hlo.scan import findall_by_lines
from xlaview.hlo.shape import ShapeSyntaxError, parse_shape
from xlaview.turns import CHUNK, find, listed

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
_PARAMETER_NUMBER = re.compile(r"\d{1,9}")
_IN_ORDER = [str(k) for k in range(64)]  # parameter numbers as printed, in order
_STRING = r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'
# One instruction line: ROOT, %, name, shape, opcode, operands (no brackets,
# '#' or parentheses: operand shapes and compact GTEs go the careful way), the
# attributes. Fixed spacing, so that each part's length gives offsets. The
# attributes hold no comment outside strings (a comment may hide a brace or a
# line break), no tab or carriage return, and do not end in a comma or blank
# space (an attribute list going on to the next line): the careful path
# takes those. The newline before the line starts the pattern, a literal the
# regex engine looks for in C (a header line thousands of characters long
# is passed over at once rather than a position at a time): read from the
# newline before the first line.
_LINE = re.compile(
    rf"\n  (ROOT )?%({_NAME}) = ({SHAPE_PATTERN}) ([a-z][a-z0-9\-]*)\(([^()\[\]#\n\t\r]*)\)"
    rf'((?:,[^\n\t\r"/]*+(?:(?:{_STRING}|/(?![/*]))[^\n\t\r"/]*+)*+)?)(?<![, ])$',
    re.MULTILINE,
)
_NOT_BRACE = re.compile(r"[^{}]+")
# A called computation in an attribute list as XLA prints it (", " before
# each attribute): a literal start, which the regex engine scans for fast.
_CALL_ATTRIBUTE = re.compile(
    r", (?:" + "|".join(CALLED_COMPUTATION_ATTRIBUTES) + r")=(%?[A-Za-z_][\w.\-]*|\{[^{}]*\})"
)
# A computation written inline as an attribute's value (``to_apply={ ... }``),
# not a list of names: the careful parser makes it a computation.
INLINE_COMPUTATION = re.compile(
    r"(?<![\w.\-])(?:" + "|".join(CALLED_COMPUTATION_ATTRIBUTES) + r")\s*=\s*\{"
    r"(?!\s*(?:%?[A-Za-z_][\w.\-]*\s*(?:,\s*%?[A-Za-z_][\w.\-]*\s*)*)?\})"
)
# The same after ", " as XLA prints attributes: a literal start, scanned for fast.
_INLINE_AFTER_COMMA = re.compile(", " + INLINE_COMPUTATION.pattern[len(r"(?<![\w.\-])") :])
# Opcodes whose attributes name computations (checked to exist after parsing).
CALLING_OPCODES = frozenset(
    (
        "fusion", "call", "while", "conditional", "reduce", "reduce-window", "map", "sort",
        "scatter", "select-and-scatter", "all-reduce", "all-reduce-start", "reduce-scatter",
        "async-start", "async-update", "async-done", "custom-call", "scan", "topk",
    )
)  # fmt: skip


class ComputationEnds:
    """Where computations laid out as XLA prints them end, found by searching
    forward only: the next closing line once found serves every header before
    it, so a text of many unclosed computations costs one pass, not one per
    computation."""

    __slots__ = ("_found", "_searched_from", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._searched_from = 0
        self._found = -2  # not searched yet

    def end(self, pos: int) -> tuple[int, int] | None:
        """(the newline before the closing ``}``, the end of the closing line)
        of the computation whose header line starts at ``pos``; None if it is
        not laid out so."""
        text = self.text
        header_end = text.find("\n", pos)
        if header_end < 1 or text[header_end - 1] != "{":
            return None
        close = self._close_after(header_end)
        if close < 0:
            return None
        return close, closing_line_end(text, close)

    def _close_after(self, pos: int) -> int:
        if self._found == -2 or pos < self._searched_from or 0 <= self._found < pos:
            self._searched_from = pos
            self._found = find(self.text, "\n}", pos)
        return self._found


def closing_line_end(text: str, close: int) -> int:
    """The end of the closing line after the newline at ``close``: where a
    computation's text ends, as the store keys it."""
    nl = text.find("\n", close + 2)
    return len(text) if nl < 0 else nl


def stored_computation(
    text: str,
    pos: int,
    close: int,
    end: int,
    line: int,
    store: ComputationStore | None,
    check: Callable[[], None] | None = None,
    edit: Callable[[], ParsedComputation | None] | None = None,
    key: bytes | None = None,
) -> tuple[ParsedComputation, Span] | None:
    """`parse_fast_computation`, through ``store`` (the computation's text
    parsed once, whichever module or pass asks), and where the computation
    stands in this ``text`` (a stored parse may come from elsewhere in another).
    ``edit``, if given, is tried first on a text the store lacks: the same
    parse, from an earlier version of the computation. ``key``: the text's
    `text_key`, when the caller made it already."""
    if key is None:
        key = text_key(text, pos, end) if store is not None else b""
    parsed = store.get(key) if store is not None else None
    if parsed is None:
        parsed = edit() if edit is not None else None
        if parsed is None:
            parsed = parse_fast_computation(text, pos, close, end, line, check)
        if parsed is None:
            return None
        if store is not None:
            store.put(key, parsed)
    span = parsed.span
    if span.offset != pos or span.line != line:
        span = Span(line, 1, pos, pos + span.end - span.offset)
    return parsed, span


def parse_fast_computation(
    text: str, pos: int, close: int, end: int, line: int, check: Callable[[], None] | None = None
) -> ParsedComputation | None:
    """The computation in ``text[pos:end]`` (``pos`` at a line start, on 1-based
    ``line``; its closing brace after the newline at ``close``, as
    `ComputationEnds` finds them), or None when it needs the careful parser.
    Reads nothing outside ``text[pos:end]``: the result depends on that text
    alone, and is shared by every module holding the same text (see
    `xlaview.hlo.parse.store`)."""
    framed = frame(text, pos, close, end)
    if framed is None:
        return None
    m, body, attribute_text, span_end = framed
    # Braces that open on one line and close on another: an attribute value
    # going over lines, which the line pattern cannot see.
    if text.count("{", body, close) != text.count("}", body, close):
        return None
    rows = findall_by_lines(_LINE, text, body - 1, close, check)
    lines = text.count("\n", body, close) + 1 if close >= body else 0
    calls = _check(rows, lines, check) if len(rows) == lines else None
    if calls is None or bad_values(text, body, close):
        return None
    return framed_computation(
        m, attribute_text, Span(line, 1, pos, span_end), calls, rows, body, close
    )


def framed_computation(
    header: re.Match[str],
    attribute_text: str,
    span: Span,
    calls: tuple[str, ...],
    rows: list[Row],
    body: int,
    close: int,
) -> ParsedComputation:
    """The computation whose header line ``header`` matched (`_HEADER`, at
    ``span``'s offset), its body from ``body``, its closing brace after the
    newline at ``close``, as `frame` frames it: calling ``calls``, of ``rows``."""
    pos = span.offset
    return ParsedComputation(
        header.group(2),
        header.group(1) is not None,
        (header.group(3) or "").strip(),
        attribute_text,
        span,
        calls,
        rows,
        body - pos,
        close + 1 - pos,
    )


class Deferral(Protocol):
    """Which computations a parse leaves unread, and who vouches for them.

    The parse frames each computation laid out as XLA prints it (its header,
    its closing line) and, where `defers` says so, keeps its body unread
    (`defer_computation`). At the end it asks `settle` what the
    deferred ones call, given their (offset, name) in text order: another
    process that read them answers with the calls of each, in that order,
    or None when it cannot; on None the parse reads them itself, and parses
    the whole text again if the fast path refuses one. The module is then
    the one a plain parse gives, its deferred bodies read on first use.
    """

    def defers(self, offset: int) -> bool: ...

    def settle(self, deferred: list[tuple[int, str]]) -> list[tuple[str, ...]] | None: ...


def defer_computation(
    text: str, pos: int, close: int, end: int, line: int
) -> ParsedComputation | None:
    """The computation `parse_fast_computation` would parse, framed (its
    header, its closing line) and its body left unread until first needed;
    None when its frame needs the careful parser. Whoever defers a body
    vouches that the fast path takes it (`ParsedComputation.read` says
    whether it does): another process has read it (`xlaview.analysis.cost.two_processes`)."""
    framed = frame(text, pos, close, end)
    if framed is None:
        return None
    m, body, attribute_text, span_end = framed
    parsed = framed_computation(
        m, attribute_text, Span(line, 1, pos, span_end), (), [], body, close
    )
    lines = text.count("\n", body, close) + 1 if close >= body else 0
    parsed.leave_unread(
        lines, text, close, lambda: parse_fast_computation(text, pos, close, end, line)
    )
    return parsed


def settle(deferred: list[ParsedComputation], deferral: Deferral) -> str | None:
    """Give the ``deferred`` computations what they call, as the process that
    read them says, or read them here when it cannot say: the name of the
    first one the fast path refuses, if any (the text then needs a plain parse)."""
    calls = deferral.settle([(p.span.offset, p.name) for p in deferred])
    if calls is None or len(calls) != len(deferred):
        return next((p.name for p in deferred if not p.read()), None)
    for parsed, called in zip(deferred, calls, strict=False):
        parsed.calls = called
    return None


def frame(text: str, pos: int, close: int, end: int) -> tuple[re.Match[str], int, str, int] | None:
    """(the header's match, where the body starts, the attributes after the
    closing brace, where they end) of the computation at ``pos``; None when
    the careful parser must frame it."""
    m = _HEADER.match(text, pos, end)
    if m is None:
        return None
    body = m.end()
    if body - 1 > close:
        return None
    rest = close + 2
    if not text[rest:end].strip():
        return m, body, "", rest
    trailer = text[rest:end]
    try:
        _, attr_end = scan_attributes(trailer, 0)
    except ValueSyntaxError:
        return None
    if not attr_end or trailer[attr_end:].strip():
        return None
    return m, body, trailer[:attr_end], rest + attr_end


def _check(
    rows: list[Row], lines: int, check: Callable[[], None] | None = None
) -> tuple[str, ...] | None:
    """What the careful parser would check, over columns of parts (in C): the
    computations the instructions call, or None if anything is wrong.
    ``check`` is called between columns (it may raise to stop: 20 ms of a
    30,000-line body went on after the user had stepped away)."""
    if not rows:
        return ()
    roots: Sequence[str]
    names: Sequence[str]
    shapes: Sequence[str]
    opcodes: Sequence[str]
    operand_texts: Sequence[str]
    if len(rows) <= CHUNK:
        # One turn's worth (most of a module's computations: 7-24 lines on a
        # mixture of experts or a U-Net): every column in one call, and no
        # stop asked (it is checked in less time than a report takes).
        check = _nothing
        roots, names, shapes, opcodes, operand_texts, _ = zip(*rows, strict=True)
    else:
        check = check or _nothing
        roots, names, shapes = (listed(map(get, rows)) for get in (_ROOTS, _NAMES, _SHAPES))
        opcodes, operand_texts = listed(map(_OPCODES, rows)), listed(map(_OPERANDS, rows))
    if lines - roots.count("") > 1:
        return None  # two ROOTs
    defined = set(names)
    if len(defined) != lines:
        return None  # a name defined twice
    check()
    if not shapes_read(shapes):
        return None
    check()
    payload_rows = list(map(PAYLOAD_OPCODES.__contains__, opcodes))
    if not payloads_read(compress(operand_texts, payload_rows)):
        return None
    numbers = list(compress(operand_texts, map("parameter".__eq__, opcodes)))
    if numbers and not numbered_from_zero(numbers):
        return None
    used_texts = list(filter(None, compress(operand_texts, map(not_, payload_rows))))
    if not operands_defined(defined, used_texts, check):
        return None
    return calls_of(compress(map(_ATTRIBUTES, rows), map(CALLING_OPCODES.__contains__, opcodes)))


def shapes_read(shapes: Iterable[str]) -> bool:
    """Whether every shape text reads (each new one parsed once, into `SHAPES`)."""
    for shape_text in set(shapes).difference(SHAPES):
        try:
            shape = parse_shape(shape_text)
        except ShapeSyntaxError:
            return False
        if len(SHAPES) >= _MAX_SHAPES:
            SHAPES.clear()
        SHAPES[shape_text] = shape
    return True


def payloads_read(payloads: Iterable[str]) -> bool:
    """Whether the braces of constants' and parameters' payloads balance."""
    for payload in payloads:
        if ("{" in payload or "}" in payload) and not balanced_braces(payload):
            return False  # XLA: "unexpected '}'" and the like; the careful path says where
    return True


def operands_defined(
    defined: set[str], used_texts: list[str], check: Callable[[], None] = lambda: None
) -> bool:
    """Whether the operand lists (as printed, none empty) name only ``defined`` names."""
    # Operands as XLA prints them, "%a, %b": joined, a list that starts
    # otherwise leaves a name with ", " in it, which is not defined.
    # (A chunk of lines at a time: the interpreter changes hands between them.)
    for k in range(0, len(used_texts), CHUNK):
        check()
        used = ", ".join(used_texts[k : k + CHUNK])
        if "/" in used:  # XLA numbers long operand lists: /*index=5*/
            used = _INDEX_COMMENT.sub("", used)
        if used[0] != "%" or not defined.issuperset(used[1:].split(", %")):
            return False
    return True


def calls_of(attribute_texts: Iterable[str]) -> tuple[str, ...] | None:
    """The computations the attribute lists of calling instructions name, in
    order; None if one writes a computation inline (the careful path's)."""
    calling = "\n".join(attribute_texts)
    if not calling:
        return ()
    if "={" in calling and _INLINE_AFTER_COMMA.search(calling):
        return None
    return tuple(named_calls(calling))


def _nothing() -> None:
    pass


def numbered_from_zero(numbers: list[str]) -> bool:
    """Whether parameter numbers as printed are 0 to n - 1, each once."""
    if numbers == _IN_ORDER[: len(numbers)]:
        return True  # as XLA mostly prints them
    if not all(map(_PARAMETER_NUMBER.fullmatch, numbers)):
        return False
    return sorted(map(int, numbers)) == list(range(len(numbers)))


def named_calls(attribute_text: str) -> list[str]:
    """The computations an attribute list names as XLA prints them (``,
    calls=%f``), found in C: cheaper than splitting the attributes. A value
    the pattern took as one name (``%f``, as most are: every fusion's) is
    that name, not searched again (20 ms of reading a U-Net's entry)."""
    names: list[str] = []
    for value in _CALL_ATTRIBUTE.findall(attribute_text):
        if value[0] == "{":
            names += computation_names(value)
        else:
            names.append(value[1:] if value[0] == "%" else value)
    return names


def balanced_braces(payload: str) -> bool:
    """Braces that open before they close and all close (a literal's
    nesting), in one pass over the braces alone (a regex pass per level was
    quadratic: 40,000 levels took 21 s)."""
    braces = _NOT_BRACE.sub("", payload)
    if len(braces) & 1 or braces.count("{") * 2 != len(braces):
        return False
    depth = 0
    for brace in braces:
        depth += 1 if brace == "{" else -1
        if depth < 0:
            return False
    return True
