"""The fast path: a computation exactly as XLA prints it, parsed in bulk.

XLA prints a computation as a header line ending in ``{``, one instruction
per line indented by two spaces, and a line holding ``}``. For such a
computation one regular expression run by ``findall`` over the whole body
(in C) splits every line into its parts, and checks over whole columns of
parts (in C too) find anything the careful parser would refuse: lines that
do not match, unbalanced braces, duplicate names, undefined operands, bad
shapes. The `Instruction` tuples are built from the parts when first asked
for (`ParsedComputation.instructions`): a 45 MB module is checked in full
before it is shown, and the tuples of a computation nobody looks at are
never built. Anything unusual (comments, multi-line instructions, old styles,
errors) makes `parse_fast_computation` return None, and the careful parser
(`xlaview.hlo.parser`) takes the computation, with located errors.
"""

from __future__ import annotations

import gc
import re
import threading
from itertools import compress
from operator import itemgetter, not_

from xlaview.hlo._gc import gc_paused
from xlaview.hlo.attributes import ValueSyntaxError, computation_names, scan_attributes
from xlaview.hlo.model import CALLED_COMPUTATION_ATTRIBUTES, Instruction, Span
from xlaview.hlo.shape import Shape, ShapeSyntaxError, parse_shape

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
    re.MULTILINE,
)
_INDEX_COMMENT = re.compile(r"/\*index=\d+\*/")
_INNER_BRACES = re.compile(r"\{[^{}]*\}")
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
_INLINE_AFTER_COMMA = re.compile(", " + INLINE_COMPUTATION.pattern[len(r"(?<![\w.\-])"):])
# Opcodes whose attributes name computations (checked to exist after parsing).
CALLING_OPCODES = frozenset(
    (
        "fusion", "call", "while", "conditional", "reduce", "reduce-window", "map", "sort",
        "scatter", "select-and-scatter", "all-reduce", "all-reduce-start", "reduce-scatter",
        "async-start", "async-update", "async-done", "custom-call", "scan", "topk",
    )
)  # fmt: skip
PAYLOAD_OPCODES = frozenset(("constant", "parameter"))
_ROOTS, _NAMES, _SHAPES, _OPCODES, _OPERANDS, _ATTRIBUTES = (itemgetter(k) for k in range(6))
Row = tuple[str, str, str, str, str, str]  # ROOT, name, shape, opcode, operands, attributes

# Shapes by their text, shared by every parse: a dump has a few thousand.
SHAPES: dict[str, Shape] = {}
_MAX_SHAPES = 1 << 16
# One string per opcode spelling, shared by every instruction.
_OPCODE_STRINGS: dict[str, str] = {}
_BUILD_LOCK = threading.Lock()

# Bytes a parsed instruction takes beside its text, measured with tracemalloc
# on real dumps (benchmarks/run.py scale prints the calibration): the
# Instruction and Span tuples, their integers, the operand tuple and names.
BYTES_PER_INSTRUCTION = 420
# Bytes per character of a computation's text held by its parse (names,
# attribute text and operands are copies of pieces of the text).
BYTES_PER_CHARACTER = 1.7


def estimate_bytes(instructions: int, characters: int) -> int:
    """Bytes a parse of ``instructions`` instructions from ``characters`` of text holds."""
    return int(instructions * BYTES_PER_INSTRUCTION + characters * BYTES_PER_CHARACTER)


class ParsedComputation:
    """One computation parsed from its text, as found at ``span``.

    ``calls`` names the computations its instructions call, so that a module
    checks them without reading attributes. The closing line is
    ``closing_line`` lines below the header and starts ``closing_offset``
    characters after it. Its instructions are built on first access, from the
    parts of each line kept until then. Immutable to its users; shared between
    modules and threads.
    """

    __slots__ = (
        "_body",
        "_instructions",
        "_rows",
        "attribute_text",
        "calls",
        "closing_line",
        "closing_offset",
        "is_entry",
        "name",
        "nbytes",
        "signature",
        "span",
    )

    def __init__(
        self, name: str, is_entry: bool, signature: str, attribute_text: str, span: Span,
        calls: tuple[str, ...], rows: list[Row], body: int, closing_offset: int,
    ) -> None:
        self.name = name
        self.is_entry = is_entry
        self.signature = signature
        self.attribute_text = attribute_text
        self.span = span
        self.calls = calls
        self.closing_line = len(rows) + 1
        self.closing_offset = closing_offset
        self._body = body  # where the first instruction's line starts, from the header's
        self._rows: list[Row] | None = rows
        self._instructions: tuple[Instruction, ...] | None = None
        self.nbytes = estimate_bytes(len(rows), span.end - span.offset)

    @property
    def instructions(self) -> tuple[Instruction, ...]:
        """The instructions, with spans in the text this was parsed from."""
        instructions = self._instructions
        if instructions is None:
            with _BUILD_LOCK:  # one build, and one identity for each tuple
                instructions = self._instructions
                if instructions is None:
                    rows = self._rows
                    assert rows is not None
                    instructions = _build_paused(rows, self.name, self.span.line + 1,
                                                 self.span.offset + self._body)
                    self._instructions = instructions
                    self._rows = None
        return instructions

    @property
    def built(self) -> bool:
        return self._instructions is not None

    def __len__(self) -> int:
        rows = self._rows
        return len(rows) if rows is not None else len(self.instructions)

    def names(self) -> list[str] | tuple[str, ...]:
        """Instruction names in text order, building nothing."""
        rows = self._rows
        if rows is not None:
            return list(map(_NAMES, rows))
        return tuple(i[0] for i in self.instructions)

    def name_at(self, index: int) -> str:
        """The name of the ``index``-th instruction, building nothing."""
        rows = self._rows
        return rows[index][1] if rows is not None else self.instructions[index][0]

    def opcodes(self) -> list[str] | tuple[str, ...]:
        """Opcodes in text order, building nothing."""
        rows = self._rows
        if rows is not None:
            return list(map(_OPCODES, rows))
        return tuple(i[1] for i in self.instructions)

    def relocated(self, span: Span) -> tuple[Instruction, ...]:
        """The instructions with their spans moved to a copy of the text at ``span``."""
        dl = span.line - self.span.line
        do = span.offset - self.span.offset
        if not dl and not do:
            return self.instructions
        rows = self._rows
        if rows is not None:
            return _build_paused(rows, self.name, span.line + 1, span.offset + self._body)
        new = tuple.__new__
        with gc_paused():
            return tuple(
                new(Instruction, (i[0], i[1], i[2], i[3], i[4], i[5],
                                  new(Span, (s[0] + dl, s[1], s[2] + do, s[3] + do)), i[7], i[8]))
                for i in self.instructions
                for s in (i[6],)
            )




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
        nl = text.find("\n", close + 2)
        return close, len(text) if nl < 0 else nl

    def _close_after(self, pos: int) -> int:
        if self._found == -2 or pos < self._searched_from or 0 <= self._found < pos:
            self._searched_from = pos
            self._found = self.text.find("\n}", pos)
        return self._found


def parse_fast_computation(
    text: str, pos: int, close: int, end: int, line: int
) -> ParsedComputation | None:
    """The computation in ``text[pos:end]`` (``pos`` at a line start, on 1-based
    ``line``; its closing brace after the newline at ``close``, as
    `ComputationEnds` finds them), or None when it needs the careful parser.
    Reads nothing outside ``text[pos:end]``: the result depends on that text
    alone, and is shared by every module holding the same text (see
    `xlaview.hlo.store`)."""
    m = _HEADER.match(text, pos, end)
    if m is None:
        return None
    body = m.end()
    if body - 1 > close:
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
    # Braces that open on one line and close on another: an attribute value
    # going over lines, which the line pattern cannot see.
    if text.count("{", body, close) != text.count("}", body, close):
        return None
    rows = _LINE.findall(text, body, close)
    lines = text.count("\n", body, close) + 1 if close >= body else 0
    calls = _check(rows, lines) if len(rows) == lines else None
    if calls is None:
        return None
    signature = (m.group(3) or "").strip()
    return ParsedComputation(m.group(2), m.group(1) is not None, signature, attribute_text,
                             Span(line, 1, pos, span_end), calls, rows, body - pos, close + 1 - pos)


def _check(rows: list[Row], lines: int) -> tuple[str, ...] | None:
    """What the careful parser would check, over columns of parts (in C): the
    computations the instructions call, or None if anything is wrong."""
    roots = list(map(_ROOTS, rows))
    if lines - roots.count("") > 1:
        return None  # two ROOTs
    defined = set(map(_NAMES, rows))
    if len(defined) != lines:
        return None  # a name defined twice
    for shape_text in set(map(_SHAPES, rows)).difference(SHAPES):
        try:
            shape = parse_shape(shape_text)
        except ShapeSyntaxError:
            return None
        if len(SHAPES) >= _MAX_SHAPES:
            SHAPES.clear()
        SHAPES[shape_text] = shape
    opcodes = list(map(_OPCODES, rows))
    operand_texts = list(map(_OPERANDS, rows))
    payload_rows = list(map(PAYLOAD_OPCODES.__contains__, opcodes))
    for payload in compress(operand_texts, payload_rows):
        if ("{" in payload or "}" in payload) and not balanced_braces(payload):
            return None  # XLA: "unexpected '}'" and the like; the careful path says where
    # Operands as XLA prints them, "%a, %b": joined, a list that starts
    # otherwise leaves a name with ", " in it, which is not defined.
    used = ", ".join(filter(None, compress(operand_texts, map(not_, payload_rows))))
    if used:
        if "/" in used:  # XLA numbers long operand lists: /*index=5*/
            used = _INDEX_COMMENT.sub("", used)
        if used[0] != "%" or not defined.issuperset(used[1:].split(", %")):
            return None
    calls: list[str] = []
    calling = "\n".join(compress(map(_ATTRIBUTES, rows), map(CALLING_OPCODES.__contains__, opcodes)))
    if calling:
        if "={" in calling and _INLINE_AFTER_COMMA.search(calling):
            return None
        for value in _CALL_ATTRIBUTE.findall(calling):
            calls.extend(computation_names(value))
    return tuple(calls)


def _build_paused(rows: list[Row], comp: str, line: int, offset: int) -> tuple[Instruction, ...]:
    """`_build` without the garbage collector (see `gc_paused`: collections
    that a build triggers walk every object of every module held)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _build(rows, comp, line, offset)
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()


def _build(rows: list[Row], comp: str, line: int, offset: int) -> tuple[Instruction, ...]:
    """Instructions from the parts of each line (checked by `_check`), the
    first line numbered ``line`` and starting at ``offset``."""
    # The loop runs once per instruction of a dump: names are local, and
    # tuple.__new__ skips the named tuples' Python-level __new__.
    new = tuple.__new__
    length = len
    payload_opcodes = PAYLOAD_OPCODES
    get_shape = SHAPES.get
    index_comment = _INDEX_COMMENT
    # One string per opcode (18 MB fewer on a 45 MB module; sharing the
    # operands' strings with the names they repeat would save twice that, and
    # make this loop half as slow again).
    opcode_of = _OPCODE_STRINGS.setdefault
    out: list[Instruction] = []
    append = out.append
    offset += 2  # the indentation
    for root, name, shape_text, opcode, ops, tail in rows:
        shape = get_shape(shape_text) or parse_shape(shape_text)
        # "%", " = ", " ", "(" and ")" besides the parts.
        end = offset + length(name) + length(shape_text) + length(opcode) + length(ops) + (
            length(tail) + 7)
        if root:
            end += 5
        opcode = opcode_of(opcode, opcode)
        if opcode in payload_opcodes:
            operands: tuple[str, ...] = ()
            payload: str | None = ops.strip()
        else:
            payload = None
            if ops:
                if "/" in ops:
                    ops = index_comment.sub("", ops)
                operands = tuple(ops[1:].split(", %"))
            else:
                operands = ()
        append(new(Instruction, (name, opcode, shape, operands, root != "", comp,
                                 new(Span, (line, 3, offset, end)), tail, payload)))
        line += 1
        offset = end + 3  # the newline and the next line's indentation
    return tuple(out)


def balanced_braces(payload: str) -> bool:
    """Braces that open before they close and all close (a literal's nesting)."""
    previous = None
    while previous != payload:
        previous, payload = payload, _INNER_BRACES.sub("", payload)
    return "{" not in payload and "}" not in payload
