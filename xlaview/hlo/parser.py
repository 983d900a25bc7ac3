"""HLO text -> `Module`.

Two paths over the same grammar. The fast path matches a whole one-line
instruction with one regular expression (that is how XLA prints almost every
instruction); anything else (multi-line instructions, comments, old styles with
operand shapes, malformed text) goes through a careful scanner that also knows
where and why text is wrong. Attributes are kept as raw text and decoded on
demand (`xlaview.hlo.attributes`), so the parser never pays for what nobody
reads.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from xlaview.hlo._gc import gc_paused
from xlaview.hlo.attributes import (
    ValueSyntaxError,
    computation_names,
    scan_attributes,
    scan_balanced,
    unquote,
)
from xlaview.hlo.errors import HloSyntaxError, LineLocator
from xlaview.hlo.fast import (
    CALLING_OPCODES,
    INLINE_COMPUTATION,
    PAYLOAD_OPCODES,
    SHAPE_PATTERN,
    ComputationEnds,
    balanced_braces,
    parse_fast_computation,
)
from xlaview.hlo.model import (
    CALLED_COMPUTATION_ATTRIBUTES,
    Computation,
    Instruction,
    Module,
    Span,
    StackFrames,
)
from xlaview.hlo.names import NameUniquer
from xlaview.hlo.reuse import PreviousModule
from xlaview.hlo.shape import UNKNOWN_SHAPE, Shape, ShapeSyntaxError, parse_shape, scan_shape
from xlaview.hlo.store import ComputationStore, text_key

__all__ = ["ParseResult", "parse_module", "parse_module_tolerant"]

# Whitespace and comments between tokens.
_SKIP = re.compile(r"(?:[ \t\r\n]+|//[^\n]*|/\*.*?\*/)*", re.S)
_NAME = re.compile(r"%?([A-Za-z_][A-Za-z0-9_.\-]*)")
_OPCODE = re.compile(r"[A-Za-z][A-Za-z0-9\-_]*")
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_.\-]")
_SHAPE_START = re.compile(r"[a-z][a-z0-9]*\[|\(")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_COMPACT_GTE = re.compile(r"#(-?\d+)")
_DEFINED_NAME = re.compile(r"^[ \t]*(?:ROOT[ \t]+)?%?([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*=", re.M)
_INLINE_COMMENT = re.compile(r"/\*.*?\*/")

# One whole instruction on one line, as XLA prints it, after blank space,
# inside a computation the fast path (`xlaview.hlo.fast`) left to this parser.
# Groups: its start, ROOT, name,
# shape, opcode, operands (no parentheses inside), attributes (the rest of the
# line, starting with a comma). The loop in `parse_body` then checks that the
# attributes end on this line; anything else takes the careful path.
_FAST_INSTRUCTION = re.compile(
    r"[ \t\r\n]*()(ROOT[ \t]+)?%?([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*=[ \t]*"
    rf"({SHAPE_PATTERN})[ \t]+"
    r"([a-z][a-z0-9\-]*)\(([^()\n]*)\)((?:[ \t]*,[^\n]*[^\s])?)[ \t\r]*$",
    re.M,
)


# ``(p: f32[2], q: s32[]) -> f32[2] {`` on one line, no comment.
_FAST_HEADER = re.compile(r"(\([^\n/{}]*\)[ \t]*->[ \t]*[^\n/{}]*?)[ \t]*(?=\{[ \t\r]*$)", re.M)
_SECTION_KEYWORDS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_SECTION_ENTRY = re.compile(r'(\d+)[ \t]+("(?:[^"\\\n]|\\.)*"|\{[^}\n]*\})')
_BRACED_FIELD = re.compile(r"(\w+)=(-?\d+)")
_CALL_ATTRIBUTE = re.compile(
    r"(?<![\w.\-])(?:" + "|".join(CALLED_COMPUTATION_ATTRIBUTES) + r")=(%?[A-Za-z_][\w.\-]*|\{[^{}]*\})"
)
_MAX_DIAGNOSTICS = 200
# Instructions written inside operand lists and computations inside attributes
# nest by recursion here; deeper text gets an error, not a RecursionError.
_MAX_NESTING = 64
_BOM = "\ufeff"
# Lines longer than this (characters) are parsed the careful way only.
_LONG_LINE = 1 << 16


class ParseResult(NamedTuple):
    """A tolerant parse: the module (possibly partial) and what went wrong."""

    module: Module
    diagnostics: tuple[HloSyntaxError, ...]


def parse_module(
    text: str, store: ComputationStore | None = None, previous: Module | None = None
) -> Module:
    """Parse HLO text; raise `HloSyntaxError` (with line and column) if malformed.

    With a ``store``, a computation whose text the store has seen is taken
    from it instead of parsed, and the ones parsed here are added to it. With
    a ``previous`` module (another pass of the same program, say), the
    computations this text repeats from it are taken from it.
    """
    with gc_paused():
        return _Parser(text, tolerant=False, store=store, previous=previous).parse()


def parse_module_tolerant(
    text: str, store: ComputationStore | None = None, previous: Module | None = None
) -> ParseResult:
    """Parse what can be parsed; every error becomes a located diagnostic.

    A truncated file yields everything before the cut; a bad instruction is
    skipped and the rest of its computation still opens. ``store`` and
    ``previous`` as in `parse_module`.
    """
    with gc_paused():
        module = _Parser(text, tolerant=True, store=store, previous=previous).parse()
    return ParseResult(module, module.diagnostics)


class _Abort(Exception):
    """Too many errors to be worth going on."""


class _Parser:
    __slots__ = (
        "text",
        "tolerant",
        "diagnostics",
        "shapes",
        "nested",
        "inline",
        "names",
        "computation_names",
        "single",
        "store",
        "previous",
        "ends",
        "lines",
        "depth",
    )

    def __init__(self, text: str, tolerant: bool, store: ComputationStore | None = None,
                 previous: Module | None = None) -> None:
        self.text = text
        self.tolerant = tolerant
        self.store = store
        self.previous = PreviousModule(text, previous) if previous is not None else None
        self.ends = ComputationEnds(text)
        self.lines = LineLocator(text)
        self.depth = 0
        self.diagnostics: list[HloSyntaxError] = []
        self.shapes: dict[str, Shape] = {}
        # Instructions written inline as operands (``add(f32[] parameter(0), ...)``)
        # and computations written inline as attribute values (``to_apply={...}``):
        # XLA turns both into ordinary instructions and computations.
        self.nested: list[Instruction] = []
        self.inline: list[Computation] = []
        self.names: NameUniquer | None = None
        self.computation_names = NameUniquer()
        self.single: _SingleInstruction | None = None

    # -- errors and positions -------------------------------------------------
    def error(self, offset: int, message: str) -> HloSyntaxError:
        line, column, offset = self.lines.locate(offset)
        return HloSyntaxError(message, line, column, offset)

    def report(self, err: HloSyntaxError) -> None:
        """Raise in strict mode; record (and go on) in tolerant mode."""
        if not self.tolerant:
            raise err
        self.diagnostics.append(err)
        if len(self.diagnostics) >= _MAX_DIAGNOSTICS:
            self.diagnostics.append(
                HloSyntaxError(
                    f"too many errors ({_MAX_DIAGNOSTICS}); the rest of the text was not read",
                    err.line,
                    err.column,
                    err.offset,
                )
            )
            raise _Abort

    def span(self, start: int, end: int) -> Span:
        line, column, _ = self.lines.locate(start)
        return Span(line, column, start, end)

    def name_uniquer(self) -> NameUniquer:
        """For names the parser invents; knows every instruction name of the text.

        Only hand-written tests need it, so it is built on first use.
        """
        if self.names is None:
            self.names = NameUniquer()
            for name in _DEFINED_NAME.findall(self.text):
                self.names.unique(name)
        return self.names

    def skip(self, pos: int) -> int:
        return _SKIP.match(self.text, pos).end()  # type: ignore[union-attr]

    def next_line(self, pos: int) -> int:
        nl = self.text.find("\n", pos)
        return len(self.text) if nl < 0 else nl + 1

    # -- module ---------------------------------------------------------------
    def parse(self) -> Module:
        text = self.text
        name, attribute_text = "", ""
        has_header = False
        computations: list[Computation] = []
        frames = StackFrames({}, {}, {}, {})
        names: set[str] = set()
        # A byte order mark, as some editors write: not part of the HLO.
        pos = self.skip(1 if text.startswith(_BOM) else 0)
        try:
            if "\0" in text:
                nul = text.index("\0")
                self.report(self.error(nul, "binary data (a NUL byte) in HLO text"))
                text = self.text = text[:nul]
            n = len(text)
            if text.startswith("HloModule", pos) and not self._ident_continues(pos + 9):
                has_header = True
                pos, name, attribute_text = self.parse_header(pos)
            elif self._is_single_instruction(pos):
                return self.parse_single_instruction(pos)
            entry_seen = False
            while True:
                pos = self.skip(pos)
                if pos >= n:
                    break
                keyword = self._section_keyword(pos)
                if keyword:
                    pos = self.parse_section(pos, keyword, frames)
                    continue
                if text[pos] == "}":
                    self.report(self.error(pos, "unexpected '}': no computation is open here"))
                    pos += 1
                    continue
                start = pos
                try:
                    comp, pos = self.parse_computation(pos)
                except HloSyntaxError as err:
                    self.report(err)
                    pos = max(self.next_line(start), start + 1)
                    continue
                finally:
                    # Inline computations come before the one that calls them.
                    for inline in self.inline:
                        names.add(inline.name)
                        computations.append(inline)
                    self.inline.clear()
                if comp.name in names:
                    self.report(
                        self.error(comp.span.offset, f"computation {comp.name!r} is defined twice")
                    )
                    continue
                if comp.is_entry:
                    if entry_seen:
                        self.report(
                            self.error(comp.span.offset, "expects only one ENTRY computation")
                        )
                        comp = Computation(comp.name, False, comp.instructions, comp.span,
                                           comp.signature, comp.attribute_text)
                    entry_seen = True
                names.add(comp.name)
                computations.append(comp)
        except _Abort:
            pass
        if not computations and not self.tolerant:
            raise self.error(pos, "expects at least one computation")
        try:
            self.check_called_computations(computations, names)
        except _Abort:
            pass
        if not has_header:
            entry = next((c for c in computations if c.is_entry), None)
            entry = entry or (computations[-1] if computations else None)
            name = f"module_{entry.name}" if entry else ""
        return Module(
            name,
            attribute_text,
            tuple(computations),
            frames,
            self.text,
            tuple(self.diagnostics),
            has_header,
        )

    def _is_single_instruction(self, pos: int) -> bool:
        """Text that is one instruction (``[name =] shape opcode(...)``), no computation."""
        m = _NAME.match(self.text, pos)
        if m and self.text.startswith("ROOT", pos):
            m = _NAME.match(self.text, self.skip(pos + 4))
        if m and self.skip(m.end()) < len(self.text) and self.text[self.skip(m.end())] == "=":
            return True
        return bool(_SHAPE_START.match(self.text, pos))

    def parse_single_instruction(self, pos: int) -> Module:
        """XLA's single-instruction form: one computation ``_`` whose undefined
        operands become parameters."""
        self.single = _SingleInstruction()
        self.computation_names.unique("_")
        start = pos
        try:
            instr, pos = self.parse_instruction(pos, "_", name_optional=True)
        except HloSyntaxError as err:
            self.report(err)
            return Module("", "", (), StackFrames({}, {}, {}, {}), self.text,
                          tuple(self.diagnostics), False)
        pos = self.skip(pos)
        if pos < len(self.text):
            self.report(self.error(pos, "expects the end of the text after a single instruction"))
        instructions = (*self.single.parameters, *self.nested, instr._replace(is_root=True))
        self.nested.clear()
        comp = Computation("_", True, instructions, self.span(start, pos))
        computations = [*self.inline, comp]
        try:
            self.check_called_computations(computations, {c.name for c in computations})
        except _Abort:
            pass
        return Module("_", "", tuple(computations), StackFrames({}, {}, {}, {}), self.text,
                      tuple(self.diagnostics), False)

    def _ident_continues(self, pos: int) -> bool:
        return pos < len(self.text) and bool(_IDENT_CHAR.match(self.text, pos))

    def _section_keyword(self, pos: int) -> str | None:
        text = self.text
        if text[pos] not in "FS":
            return None
        for keyword in _SECTION_KEYWORDS:
            if text.startswith(keyword, pos) and not self._ident_continues(pos + len(keyword)):
                return keyword
        return None

    def parse_header(self, pos: int) -> tuple[int, str, str]:
        text = self.text
        pos = self.skip(pos + len("HloModule"))
        m = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s,]+').match(text, pos)
        if not m:
            self.report(self.error(pos, "expects a module name after HloModule"))
            return pos, "", ""
        name = unquote(m.group()) if m.group().startswith('"') else m.group().rstrip(":")
        attr_start = m.end()
        try:
            _, end = scan_attributes(text, attr_start)
        except ValueSyntaxError as err:
            self.report(self.error(err.offset, f"in the HloModule line: {err}"))
            return self.next_line(attr_start), name, ""
        return end, name, text[attr_start:end]

    def parse_section(self, pos: int, keyword: str, frames: StackFrames) -> int:
        text = self.text
        pos += len(keyword)
        while True:
            p = self.skip(pos)
            m = _SECTION_ENTRY.match(text, p)
            if not m:
                return pos
            key, value = int(m.group(1)), m.group(2)
            if keyword == "FileNames":
                frames.file_names[key] = unquote(value)
            elif keyword == "FunctionNames":
                frames.function_names[key] = unquote(value)
            else:
                fields = {k: int(v) for k, v in _BRACED_FIELD.findall(value)}
                if keyword == "FileLocations":
                    frames.file_locations[key] = fields
                else:
                    # XLA prints parent_frame_id one above the parent's id
                    # (1 means "no parent").
                    parent = fields.get("parent_frame_id", 0) - 1
                    frames.frames[key] = (fields.get("file_location_id", 0), max(parent, 0))
            pos = m.end()

    # -- computations ---------------------------------------------------------
    def parse_computation(self, pos: int) -> tuple[Computation, int]:
        text = self.text
        if pos == 0 or text[pos - 1] == "\n":
            fast = self.fast_computation(pos)
            if fast is not None:
                return fast
        n = len(text)
        start = pos
        is_entry = False
        if text.startswith("ENTRY", pos) and not self._ident_continues(pos + 5):
            is_entry = True
            pos = self.skip(pos + 5)
        m = _NAME.match(text, pos)
        if not m:
            raise self.error(pos, "expects a computation name")
        name = m.group(1)
        pos = self.skip(m.end())
        sig_start = pos
        header = _FAST_HEADER.match(text, pos)
        if header:
            pos = header.end()
        elif pos < n and text[pos] == "(":
            try:
                pos = scan_balanced(text, pos)
            except ValueSyntaxError as err:
                raise self.error(err.offset, f"in the parameters of {name}: {err}") from None
            pos = self.skip(pos)
            if text.startswith("->", pos):
                pos = self.skip(pos + 2)
                try:
                    _, pos = scan_shape(text, pos)
                except ShapeSyntaxError as err:
                    raise self.error(pos, f"in the result shape of {name}: {err}") from None
                pos = self.skip(pos)
        signature = text[sig_start:pos].strip()
        if pos >= n or text[pos] != "{":
            if pos < n and text[pos] == "=":
                raise self.error(start, "expects a computation, but this is an instruction "
                                 "outside of any computation")
            raise self.error(pos, f"expects '{{' to start computation {name}")
        header_end = pos + 1
        head = self.span(start, header_end)
        instructions, pos, closed = self.parse_body(header_end, name)
        attribute_text = ""
        if closed:
            try:
                _, end = scan_attributes(text, pos)
                attribute_text, pos = text[pos:end], end
            except ValueSyntaxError as err:
                self.report(self.error(err.offset, str(err)))
        comp = Computation(
            name,
            is_entry,
            tuple(instructions),
            head._replace(end=pos),
            signature,
            attribute_text,
        )
        self.check_computation(comp)
        return comp, pos

    def fast_computation(self, pos: int) -> tuple[Computation, int] | None:
        """The computation at ``pos`` from the previous module, the store or
        the fast path, if it is laid out as XLA prints it (None: parse it
        carefully)."""
        line = self.lines.locate(pos).line
        if self.previous is not None:
            comp = self.previous.computation_at(pos, line)
            if comp is not None:
                parsed = comp.parsed
                assert parsed is not None
                self.lines.note(pos + parsed.closing_offset, line + parsed.closing_line)
                return comp, comp.span.end
        found = self.ends.end(pos)
        if found is None:
            return None
        close, end = found
        store = self.store
        key = text_key(self.text, pos, end) if store is not None else b""
        parsed = store.get(key) if store is not None else None
        if parsed is None:
            parsed = parse_fast_computation(self.text, pos, close, end, line)
            if parsed is None:
                return None
            if store is not None:
                store.put(key, parsed)
        span = parsed.span
        if span.offset != pos or span.line != line:
            span = Span(line, 1, pos, pos + span.end - span.offset)
        self.lines.note(pos + parsed.closing_offset, line + parsed.closing_line)
        return Computation.from_parsed(parsed, span), span.end

    def parse_body(self, pos: int, comp_name: str) -> tuple[list[Instruction], int, bool]:
        """Instructions up to the closing brace: (instructions, end, closed)."""
        text = self.text
        n = len(text)
        instructions: list[Instruction] = []
        append = instructions.append
        fast = _FAST_INSTRUCTION.match
        new_tuple = tuple.__new__
        shapes = self.shapes
        skip = _SKIP.match
        locate = self.lines.locate
        newline = -1
        while True:
            # The one-line pattern runs to the end of the line: on a text
            # written on one line, that is the rest of the text, for every
            # instruction. It is tried only where the line is of sane length
            # (the next newline found once per line, not once per instruction).
            if newline < pos:
                newline = text.find("\n", pos)
                if newline < 0:
                    newline = n
            m = fast(text, pos) if newline - pos < _LONG_LINE else None
            if m is not None:
                _, root, name, shape_text, opcode, ops, tail = m.groups()
                shape = shapes.get(shape_text)
                if shape is None:
                    try:
                        shape = shapes[shape_text] = parse_shape(shape_text)
                    except ShapeSyntaxError:
                        shape = None  # the careful path says what is wrong
                operands: tuple[str, ...] | None = ()
                payload = None
                if shape is None or (
                    tail
                    and (
                        tail[-1] == ","
                        or tail.count("{") != tail.count("}")
                        or tail.count('"') & 1
                        or "/" in tail
                        and ("//" in tail or "/*" in tail)
                        or "{" in tail
                        and INLINE_COMPUTATION.search(tail)
                    )
                ):
                    # An attribute list that goes on past this line (XLA never
                    # breaks one; hand-written text does: a trailing comma or an
                    # open brace), or a comment in it. Quotes are only counted: a
                    # string holding a brace goes the careful way, which is
                    # right, only slower.
                    operands = None
                elif opcode in PAYLOAD_OPCODES:
                    payload = ops.strip()
                    if ("{" in payload or "}" in payload) and not balanced_braces(payload):
                        operands = None  # the careful path says where it goes wrong
                elif ops and not ops.isspace():
                    if "/*" in ops:  # XLA numbers long operand lists: /*index=5*/
                        ops = _INLINE_COMMENT.sub("", ops)
                    if "[" in ops or "/" in ops or "#" in ops:
                        operands = None  # operand shapes or compact GTEs: careful path
                    else:
                        operands = tuple(ops.replace("%", "").replace(" ", "").split(","))
                if operands is not None:
                    start = m.start(1)
                    end = m.end(7)
                    # tuple.__new__ skips the named tuples' Python-level __new__.
                    line, column, _ = locate(start)
                    span = new_tuple(Span, (line, column, start, end))
                    append(
                        new_tuple(
                            Instruction,
                            (name, opcode, shape, operands, root is not None, comp_name, span,
                             tail, payload),
                        )
                    )
                    pos = end
                    continue
            pos = skip(text, pos).end()  # type: ignore[union-attr]
            if pos >= n:
                self.report(
                    self.error(n, f"expects '}}' at the end of computation {comp_name}; "
                               "the text ends first")
                )
                return instructions, n, False
            if text[pos] == "}":
                return instructions, pos + 1, True
            if self._looks_like_computation_header(pos):
                self.report(
                    self.error(pos, f"expects '}}' to close computation {comp_name} before "
                               "the next computation starts")
                )
                return instructions, pos, False
            try:
                instr, pos = self.parse_instruction(pos, comp_name)
            except HloSyntaxError as err:
                self.nested.clear()
                self.report(err)
                # Resume on the next line: an unclosed bracket must not swallow the
                # rest of the computation.
                pos = max(self.next_line(pos), pos + 1)
                continue
            if self.nested:
                instructions.extend(i._replace(computation=comp_name) for i in self.nested)
                self.nested.clear()
            append(instr)

    def _looks_like_computation_header(self, pos: int) -> bool:
        """An unindented ``name (...) -> shape {`` line inside a body (a missing '}')."""
        text = self.text
        if pos and text[pos - 1] != "\n":
            return False
        line = text[pos : self.next_line(pos)].rstrip()
        return line.endswith("{") and "=" not in line.split("(", 1)[0]

    # -- instructions (careful path) ------------------------------------------
    def parse_instruction(
        self, pos: int, comp_name: str, name_optional: bool = False
    ) -> tuple[Instruction, int]:
        text = self.text
        n = len(text)
        start = pos
        is_root = False
        if text.startswith("ROOT", pos) and not self._ident_continues(pos + 4):
            is_root = True
            pos = self.skip(pos + 4)
        m = _NAME.match(text, pos)
        if m and self.skip(m.end()) < n and text[self.skip(m.end())] == "=":
            name = m.group(1)
            pos = self.skip(self.skip(m.end()) + 1)
        elif name_optional and _SHAPE_START.match(text, pos):
            name = "_"
        elif m:
            raise self.error(self.skip(m.end()), f"expects '=' in instruction {m.group(1)}")
        else:
            raise self.error(pos, "expects an instruction name")
        return self.parse_rhs(start, pos, name, is_root, comp_name)

    def parse_rhs(
        self, start: int, pos: int, name: str, is_root: bool, comp_name: str,
        allow_attributes: bool = True,
    ) -> tuple[Instruction, int]:
        """``shape opcode(operands), attributes`` (the shape may be left out)."""
        if self.depth >= _MAX_NESTING:
            raise self.error(start, f"instructions and computations nested more than "
                             f"{_MAX_NESTING} deep")
        self.depth += 1
        try:
            return self._parse_rhs(start, pos, name, is_root, comp_name, allow_attributes)
        finally:
            self.depth -= 1

    def _parse_rhs(
        self, start: int, pos: int, name: str, is_root: bool, comp_name: str,
        allow_attributes: bool,
    ) -> tuple[Instruction, int]:
        text = self.text
        n = len(text)
        m = _OPCODE.match(text, pos)
        if m and self.skip(m.end()) < n and text[self.skip(m.end())] == "(" and not (
            _SHAPE_START.match(text, pos)
        ):
            shape = UNKNOWN_SHAPE  # XLA infers it; hand-written tests leave it out
        else:
            try:
                shape, pos = scan_shape(text, pos)
            except ShapeSyntaxError as err:
                raise self.error(err.offset if err.offset >= pos else pos,
                                 f"expects the shape of {name}: {err}") from None
            pos = self.skip(pos)
            m = _OPCODE.match(text, pos)
            if not m:
                raise self.error(pos, f"expects an opcode in instruction {name}")
        opcode = m.group()
        pos = self.skip(m.end())
        if pos >= n or text[pos] != "(":
            raise self.error(pos, f"expects '(' after opcode {opcode}")
        payload = None
        operands: tuple[str, ...] = ()
        if opcode in PAYLOAD_OPCODES:
            try:
                close = scan_balanced(text, pos)
            except ValueSyntaxError as err:
                raise self.error(err.offset, f"in {opcode} of {name}: {err}") from None
            payload = " ".join(text[pos + 1 : close - 1].split())
            pos = close
        else:
            operands, pos = self.parse_operands(pos + 1, name)
        attr_start = pos
        if not allow_attributes:
            return Instruction(name, opcode, shape, operands, is_root, comp_name,
                               self.span(start, pos), "", payload), pos
        try:
            items, end = scan_attributes(text, pos)
        except ValueSyntaxError as err:
            raise self.error(err.offset, f"in the attributes of {name}: {err}") from None
        attribute_text = text[attr_start:end]
        if any(k in CALLED_COMPUTATION_ATTRIBUTES and v.startswith("{") for k, v, _ in items):
            attribute_text = self.replace_inline_computations(items, attr_start, end)
        if "\n" in attribute_text:
            attribute_text = " ".join(attribute_text.split())
        instr = Instruction(name, opcode, shape, operands, is_root, comp_name,
                            self.span(start, end), attribute_text, payload)
        return instr, end

    def replace_inline_computations(
        self, items: list[tuple[str, str, int]], attr_start: int, end: int
    ) -> str:
        """Parse ``to_apply={ p = ... }`` bodies as computations; name them in the text."""
        text = self.text
        pieces: list[str] = []
        last = attr_start
        for key, value, offset in items:
            if key not in CALLED_COMPUTATION_ATTRIBUTES or not value.startswith("{"):
                continue
            inner = self.skip(offset + 1)
            if text.startswith("{", inner):  # a list of inline computations
                names = []
                p = inner
                while p < offset + len(value) - 1 and text.startswith("{", p):
                    comp_name, p = self.parse_inline_computation(p)
                    names.append(comp_name)
                    p = self.skip(p)
                    if text.startswith(",", p):
                        p = self.skip(p + 1)
                replacement = "{" + ", ".join(f"%{c}" for c in names) + "}"
            elif _computation_reference(value):
                continue
            else:
                comp_name, _ = self.parse_inline_computation(offset)
                replacement = f"%{comp_name}"
            pieces.append(text[last:offset])
            pieces.append(replacement)
            last = offset + len(value)
        pieces.append(text[last:end])
        return "".join(pieces)

    def parse_inline_computation(self, pos: int) -> tuple[str, int]:
        saved_nested, self.nested = self.nested, []
        saved_single, self.single = self.single, None
        try:
            instructions, end, closed = self.parse_body(pos + 1, "_")
        finally:
            self.nested, self.single = saved_nested, saved_single
        if not closed:
            raise self.error(end, "expects '}' at the end of an inline computation")
        # Named when complete, as XLA does: inner computations get the lower numbers.
        name = self.computation_names.unique("_")
        instructions = [i._replace(computation=name) for i in instructions]
        comp = Computation(name, False, tuple(instructions), self.span(pos, end))
        self.check_computation(comp)
        self.inline.append(comp)
        return name, end

    def parse_operands(self, pos: int, name: str) -> tuple[tuple[str, ...], int]:
        """Operands after '(' up to and including ')': names, old-style shapes allowed."""
        text = self.text
        n = len(text)
        operands: list[str] = []
        pos = self.skip(pos)
        if pos < n and text[pos] == ")":
            return (), pos + 1
        while True:
            pos = self.skip(pos)
            operand_start = pos
            shape: Shape | None = None
            if _SHAPE_START.match(text, pos):
                try:
                    shape, pos = scan_shape(text, pos)
                except ShapeSyntaxError as err:
                    raise self.error(pos, f"in the operands of {name}: {err}") from None
                pos = self.skip(pos)
            m = _NAME.match(text, pos)
            if m and not m.group().startswith("%") and self.skip(m.end()) < n and (
                text[self.skip(m.end())] == "("
            ):
                # A nested instruction: ``add(f32[] parameter(0), ...)``.
                nested_name = self.name_uniquer().unique(f"{m.group(1)}.anon")
                nested, pos = self.parse_rhs(operand_start, operand_start, nested_name, False,
                                             "", allow_attributes=False)
                self.nested.append(nested)
                operands.append(nested_name)
            elif m:
                operand = m.group(1)
                pos = m.end()
                gte = _COMPACT_GTE.match(text, pos)
                if gte:
                    pos = gte.end()
                if self.single is not None:
                    self.single.declare(operand, shape)
                operands.append(operand)
            elif shape is not None and self.single is not None:
                operands.append(self.single.declare(None, shape))
            else:
                raise self.error(pos, f"expects an operand name in the operands of {name}")
            pos = self.skip(pos)
            if pos < n and text[pos] == ",":
                pos += 1
                continue
            if pos < n and text[pos] == ")":
                return tuple(operands), pos + 1
            raise self.error(pos, f"expects ',' or ')' in the operands of {name}")

    # -- checks ---------------------------------------------------------------
    def check_computation(self, comp: Computation) -> None:
        defined: dict[str, Instruction] = {}
        root: Instruction | None = None
        for instr in comp.instructions:
            if instr.name in defined:
                self.report(
                    self.error(instr.span.offset, f"instruction {instr.name!r} is defined twice "
                               f"in computation {comp.name}")
                )
            defined[instr.name] = instr
            if instr.is_root:
                if root is not None:
                    self.report(
                        self.error(instr.span.offset, f"one computation should have only one "
                                   f"ROOT; {comp.name} already has {root.name}")
                    )
                root = instr
        for instr in comp.instructions:
            for operand in instr.operand_names:
                if operand not in defined:
                    offset = self.text.find(operand, instr.span.offset, instr.span.end)
                    self.report(
                        self.error(
                            offset if offset >= 0 else instr.span.offset,
                            f"operand {operand!r} of {instr.name} is not defined in "
                            f"computation {comp.name}",
                        )
                    )

    def check_called_computations(self, computations: list[Computation], names: set[str]) -> None:
        for comp in computations:
            if comp.parsed is not None and names.issuperset(comp.parsed.calls):
                continue  # the fast path listed them: all defined
            for instr in comp.instructions:
                text = instr.attribute_text
                if not text or instr.opcode not in CALLING_OPCODES:
                    continue
                for value in _CALL_ATTRIBUTE.findall(text):
                    for called in computation_names(value):
                        if called not in names:
                            offset = self.text.find(called, instr.span.offset, instr.span.end)
                            self.report(
                                self.error(
                                    offset if offset >= 0 else instr.span.offset,
                                    f"computation {called!r} called by {instr.name} "
                                    "is not defined",
                                )
                            )


def _computation_reference(value: str) -> bool:
    """``{%a, %b}``: a list of computation names, not an inline body."""
    return re.fullmatch(r"\{\s*(?:%?[A-Za-z_][\w.\-]*\s*(?:,\s*%?[A-Za-z_][\w.\-]*\s*)*)?\}",
                        value) is not None


class _SingleInstruction:
    """Parameters XLA creates for the operands of a lone instruction."""

    __slots__ = ("parameters", "_by_name")

    def __init__(self) -> None:
        self.parameters: list[Instruction] = []
        self._by_name: dict[str, Instruction] = {}

    def declare(self, name: str | None, shape: Shape | None) -> str:
        if name is not None and name in self._by_name:
            return name
        number = len(self.parameters)
        name = name or f"_{number}"
        param = Instruction(name, "parameter", shape or UNKNOWN_SHAPE, (), False, "_",
                            Span(1, 1, 0, 0), "", str(number))
        self.parameters.append(param)
        self._by_name[name] = param
        return name
