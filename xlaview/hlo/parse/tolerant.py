"""The careful path of the HLO parser: text that is not laid out as XLA
prints it (multi-line instructions, comments, old styles with operand shapes,
inline computations, single instructions, malformed text), read token by
token, with located errors. Linear in the text whatever its line structure:
positions come from a `LineLocator`, and the one-line pattern is tried only
where lines are of sane length.
"""

from __future__ import annotations

import re

from xlaview.hlo.attributes import STRING, ValueSyntaxError, scan_attributes, scan_balanced
from xlaview.hlo.errors import HloSyntaxError, LineLocator
from xlaview.hlo.interpreted import check_attributes, check_items, names_checked
from xlaview.hlo.model import (
    CALLED_COMPUTATION_ATTRIBUTES,
    Computation,
    Instruction,
    Span,
)
from xlaview.hlo.parse.names import NameUniquer
from xlaview.hlo.parse.parsed import PAYLOAD_OPCODES
from xlaview.hlo.parse.printed import INLINE_COMPUTATION, SHAPE_PATTERN, balanced_braces
from xlaview.hlo.shape import UNKNOWN_SHAPE, Shape, ShapeSyntaxError, parse_shape, scan_shape

# Whitespace and comments between tokens.
_SKIP = re.compile(r"(?:[ \t\r\n]+|//[^\n]*|/\*.*?\*/)*", re.S)
NAME = re.compile(r"%?([A-Za-z_][A-Za-z0-9_.\-]*)")
_OPCODE = re.compile(r"[A-Za-z][A-Za-z0-9\-_]*")
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_.\-]")
SHAPE_START = re.compile(r"[a-z][a-z0-9]*\[|\(")
PARAMETER_NUMBER = re.compile(r"\d{1,9}")
_COMPACT_GTE = re.compile(r"#(-?\d{1,19})")
_DEFINED_NAME = re.compile(r"^[ \t]*(?:ROOT[ \t]+)?%?([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*=", re.M)
_INLINE_COMMENT = re.compile(r"/\*.*?\*/")
# What follows an instruction on its line: blanks and comments, then the next thing.
_LINE_REST = re.compile(r"(?:[ \t\r]+|/\*.*?\*/|//[^\n]*)*(.?)", re.S)
_QUOTE = re.compile(r"[\"']")

# One whole instruction on one line, as XLA prints it, after blank space,
# inside a computation the fast path (`xlaview.hlo.parse.printed`) left to this parser.
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
_MAX_DIAGNOSTICS = 200
# Instructions written inside operand lists and computations inside attributes
# nest by recursion here; deeper text gets an error, not a RecursionError.
_MAX_NESTING = 64
# Lines longer than this (characters) are parsed the careful way only.
_LONG_LINE = 1 << 16


class Abort(Exception):
    """Too many errors to be worth going on."""


class CarefulParser:
    """The parser's state, its errors and positions, and the careful path:
    bodies and instructions token by token, wherever the fast path
    (`xlaview.hlo.parse.printed`) does not apply. `xlaview.hlo.parse.driver` adds the module."""

    __slots__ = (
        "text",
        "tolerant",
        "diagnostics",
        "shapes",
        "nested",
        "inline",
        "names",
        "names_read",
        "computation_names",
        "single",
        "lines",
        "depth",
        "unshaped",
    )

    def __init__(self, text: str, tolerant: bool) -> None:
        self.text = text
        self.tolerant = tolerant
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
        self.names_read = 0  # where the text was read up to for the names
        self.computation_names = NameUniquer()
        self.single: SingleInstruction | None = None
        # Whether an instruction went without its shape: the module's shapes
        # are then inferred once it is read (`xlaview.hlo.parse.inference`).
        self.unshaped = False

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
            raise Abort

    def span(self, start: int, end: int) -> Span:
        line, column, _ = self.lines.locate(start)
        return Span(line, column, start, end)

    def name_uniquer(self, pos: int) -> NameUniquer:
        """For names the parser invents at ``pos``: knows every instruction
        name defined in the text before it, as XLA's uniquer knows the names
        it has parsed so far (a nested instruction is ``negate.anon`` even if
        a later computation defines that name; XLA then renames that one
        ``negate.anon.1`` across the module, where our model keeps names per
        computation).

        Only hand-written tests need it, so it is built on first use, and
        reads the text up to ``pos`` once.
        """
        if self.names is None:
            self.names = NameUniquer()
            self.names_read = 0
        if pos > self.names_read:
            for name in _DEFINED_NAME.findall(self.text, self.names_read, pos):
                self.names.unique(name)
            self.names_read = pos
        return self.names

    def skip(self, pos: int) -> int:
        return _SKIP.match(self.text, pos).end()  # type: ignore[union-attr]

    def next_line(self, pos: int) -> int:
        nl = self.text.find("\n", pos)
        return len(self.text) if nl < 0 else nl + 1

    def _ident_continues(self, pos: int) -> bool:
        return pos < len(self.text) and bool(_IDENT_CHAR.match(self.text, pos))

    # -- bodies and instructions ----------------------------------------------
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
                        or names_checked(tail)
                        and check_attributes(tail) is not None
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
                    elif opcode == "parameter" and not PARAMETER_NUMBER.fullmatch(payload):
                        operands = None
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
                            (
                                name,
                                opcode,
                                shape,
                                operands,
                                root is not None,
                                comp_name,
                                span,
                                tail,
                                payload,
                            ),
                        )
                    )
                    pos = end
                    continue
            pos = skip(text, pos).end()  # type: ignore[union-attr]
            if pos >= n:
                self.report(
                    self.error(
                        n,
                        f"expects '}}' at the end of computation {comp_name}; the text ends first",
                    )
                )
                return instructions, n, False
            if text[pos] == "}":
                return instructions, pos + 1, True
            if self._looks_like_computation_header(pos):
                self.report(
                    self.error(
                        pos,
                        f"expects '}}' to close computation {comp_name} before "
                        "the next computation starts",
                    )
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
        m = NAME.match(text, pos)
        if m and self.skip(m.end()) < n and text[self.skip(m.end())] == "=":
            name = m.group(1)
            pos = self.skip(self.skip(m.end()) + 1)
        elif name_optional and SHAPE_START.match(text, pos):
            name = "_"
        elif m:
            raise self.error(self.skip(m.end()), f"expects '=' in instruction {m.group(1)}")
        else:
            raise self.error(pos, "expects an instruction name")
        return self.parse_rhs(start, pos, name, is_root, comp_name)

    def parse_rhs(
        self,
        start: int,
        pos: int,
        name: str,
        is_root: bool,
        comp_name: str,
        allow_attributes: bool = True,
    ) -> tuple[Instruction, int]:
        """``shape opcode(operands), attributes`` (the shape may be left out)."""
        if self.depth >= _MAX_NESTING:
            raise self.error(
                start, f"instructions and computations nested more than {_MAX_NESTING} deep"
            )
        self.depth += 1
        try:
            return self._parse_rhs(start, pos, name, is_root, comp_name, allow_attributes)
        finally:
            self.depth -= 1

    def _parse_rhs(
        self,
        start: int,
        pos: int,
        name: str,
        is_root: bool,
        comp_name: str,
        allow_attributes: bool,
    ) -> tuple[Instruction, int]:
        text = self.text
        n = len(text)
        m = _OPCODE.match(text, pos)
        if (
            m
            and self.skip(m.end()) < n
            and text[self.skip(m.end())] == "("
            and not (SHAPE_START.match(text, pos))
        ):
            shape = UNKNOWN_SHAPE  # XLA infers it (hand-written tests leave it out): so do we
            self.unshaped = True
        else:
            try:
                shape, pos = scan_shape(text, pos)
            except ShapeSyntaxError as err:
                raise self.error(
                    err.offset if err.offset >= pos else pos, f"expects the shape of {name}: {err}"
                ) from None
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
            if opcode == "parameter" and not PARAMETER_NUMBER.fullmatch(payload):
                raise self.error(
                    pos + 1, f"expects a parameter number (0, 1, ...) in {name}, sees {payload!r}"
                )
            pos = close
        else:
            operands, pos = self.parse_operands(pos + 1, name)
        attr_start = pos
        if not allow_attributes:
            return Instruction(
                name,
                opcode,
                shape,
                operands,
                is_root,
                comp_name,
                self.span(start, pos),
                "",
                payload,
            ), pos
        try:
            items, end = scan_attributes(text, pos)
        except ValueSyntaxError as err:
            found = self.open_quote(attr_start, err.offset, name)
            raise found or self.error(err.offset, f"in the attributes of {name}: {err}") from None
        attribute_text = text[attr_start:end]
        if "\n" in attribute_text:
            rest = _LINE_REST.match(text, end)
            if rest is not None and rest.group(1) not in "\n}":  # "": the end of the text
                found = self.open_quote(attr_start, end, name)
                if found is not None:
                    raise found
        refused = check_items(items)
        if refused is not None:
            raise self.error(refused[0], f"in the attributes of {name}: {refused[1]}")
        if any(k in CALLED_COMPUTATION_ATTRIBUTES and v.startswith("{") for k, v, _ in items):
            attribute_text = self.replace_inline_computations(items, attr_start, end)
        if "\n" in attribute_text:
            attribute_text = " ".join(attribute_text.split())
        instr = Instruction(
            name,
            opcode,
            shape,
            operands,
            is_root,
            comp_name,
            self.span(start, end),
            attribute_text,
            payload,
        )
        return instr, end

    def string_over_lines(self, start: int, stop: int) -> int | None:
        """Where the first string between ``start`` and ``stop`` that goes over
        lines opens (None: none does)."""
        text = self.text
        i = start
        while True:
            quote = _QUOTE.search(text, i, stop)
            if quote is None:
                return None
            m = STRING.match(text, quote.start())
            if m is None:
                return None  # never closed: the error says so there
            if "\n" in m.group():
                return quote.start()
            i = m.end()

    def open_quote(self, start: int, stop: int, name: str) -> HloSyntaxError | None:
        """A quote left open in ``name``'s attributes, if one explains an
        error at ``stop``: a string from ``start`` going over lines, which
        swallowed the lines up to the next quote (XLA prints newlines in its
        strings as ``\\n``). The parse resumes on the instruction's next line."""
        at = self.string_over_lines(start, stop)
        if at is None:
            return None
        return self.error(
            at,
            f"in the attributes of {name}: a string goes over lines and the text after it "
            "does not read (a quote left open?)",
        )

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
        comp = self.check_computation(comp)
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
            if SHAPE_START.match(text, pos):
                try:
                    shape, pos = scan_shape(text, pos)
                except ShapeSyntaxError as err:
                    raise self.error(pos, f"in the operands of {name}: {err}") from None
                pos = self.skip(pos)
            m = NAME.match(text, pos)
            if (
                m
                and not m.group().startswith("%")
                and self.skip(m.end()) < n
                and (text[self.skip(m.end())] == "(")
            ):
                # A nested instruction: ``add(f32[] parameter(0), ...)``, an
                # instruction of the computation. XLA names it ``<opcode>.anon``
                # once it is made, after the ones nested in it.
                if shape is not None and self.single is not None:
                    # XLA's lone instruction first reads ``f32[8] multiply`` as
                    # an operand with its shape: that makes a parameter.
                    self.single.declare(m.group(1), shape)
                nested, pos = self.parse_rhs(
                    operand_start,
                    operand_start,
                    f"{m.group(1)}.anon",  # for messages: named below
                    False,
                    "",
                    allow_attributes=False,
                )
                nested_name = self.name_uniquer(operand_start).unique(f"{nested.opcode}.anon")
                self.nested.append(nested._replace(name=nested_name))
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
    def check_computation(self, comp: Computation) -> Computation:
        """``comp`` after reporting what XLA would refuse in it: names defined
        twice, two ROOTs, undefined operands, parameters not numbered 0 to
        n - 1 (those lose their number: analyses take them as unknown)."""
        defined: dict[str, Instruction] = {}
        root: Instruction | None = None
        for instr in comp.instructions:
            if instr.name in defined:
                self.report(
                    self.error(
                        instr.span.offset,
                        f"instruction {instr.name!r} is defined twice in computation {comp.name}",
                    )
                )
            defined[instr.name] = instr
            if instr.is_root:
                if root is not None:
                    self.report(
                        self.error(
                            instr.span.offset,
                            f"one computation should have only one "
                            f"ROOT; {comp.name} already has {root.name}",
                        )
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
        misnumbered = self.misnumbered_parameters(comp)
        if not misnumbered:
            return comp
        instructions = tuple(
            i._replace(payload=None) if i.name in misnumbered else i for i in comp.instructions
        )
        return Computation(
            comp.name, comp.is_entry, instructions, comp.span, comp.signature, comp.attribute_text
        )

    def misnumbered_parameters(self, comp: Computation) -> set[str]:
        """The parameters of ``comp`` whose number is out of range or taken, reported."""
        parameters = [i for i in comp.instructions if i.opcode == "parameter"]
        taken: dict[int, str] = {}
        bad: set[str] = set()
        for instr in parameters:
            number = instr.parameter_number
            if number is None:
                continue
            if number >= len(parameters):
                problem = (
                    f"parameter number {number} of {instr.name} is out of range: "
                    f"computation {comp.name} has {len(parameters)} parameters, numbered from 0"
                )
            elif number in taken:
                problem = (
                    f"parameter number {number} is taken twice: {taken[number]} and {instr.name}"
                )
            else:
                taken[number] = instr.name
                continue
            bad.add(instr.name)
            self.report(self.error(instr.span.offset, problem))
        return bad


def _computation_reference(value: str) -> bool:
    """``{%a, %b}``: a list of computation names, not an inline body."""
    return (
        re.fullmatch(r"\{\s*(?:%?[A-Za-z_][\w.\-]*\s*(?:,\s*%?[A-Za-z_][\w.\-]*\s*)*)?\}", value)
        is not None
    )


class SingleInstruction:
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
        param = Instruction(
            name,
            "parameter",
            shape or UNKNOWN_SHAPE,
            (),
            False,
            "_",
            Span(1, 1, 0, 0),
            "",
            str(number),
        )
        self.parameters.append(param)
        self._by_name[name] = param
        return name
