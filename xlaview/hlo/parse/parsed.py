"""A computation parsed from its text: shared, immutable, built on demand.

The fast path (`xlaview.hlo.parse.printed`) splits each line of a computation into
parts; a `ParsedComputation` keeps them and builds the `Instruction` tuples
from them on first access, so that a module is checked in full before it is
shown and the tuples of a computation nobody looks at are never built. A
body may also be left unread for another process to read
(`xlaview.hlo.parse.driver.Deferral`): it is read here on first use.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from operator import itemgetter

from xlaview.collector import gc_paused
from xlaview.hlo.model import Instruction, Span
from xlaview.hlo.shape import Shape, parse_shape
from xlaview.turns import blocked

_INDEX_COMMENT = re.compile(r"/\*index=\d+\*/")  # XLA numbers long operand lists
PAYLOAD_OPCODES = frozenset(("constant", "parameter"))
_ROOTS, _NAMES, _SHAPES, _OPCODES, _OPERANDS, _ATTRIBUTES = (itemgetter(k) for k in range(6))
Row = tuple[str, str, str, str, str, str]  # ROOT, name, shape, opcode, operands, attributes
_NAME_OF, _OPCODE_OF = itemgetter(0), itemgetter(1)  # of an Instruction

# Shapes by their text, shared by every parse: a dump has a few thousand.
SHAPES: dict[str, Shape] = {}
_MAX_SHAPES = 1 << 16
# One string per opcode spelling, shared by every instruction.
_OPCODE_STRINGS: dict[str, str] = {}
_BUILD_LOCK = threading.RLock()

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

    ``calls`` names the computations its instructions call (once per call, in
    no particular order), so that a module
    checks them without reading attributes. The closing line is
    ``closing_line`` lines below the header and starts ``closing_offset``
    characters after it. Its instructions are built on first access, from the
    parts of each line kept until then. Immutable to its users; shared between
    modules and threads.
    """

    __slots__ = (
        "__weakref__",  # analyses keep what they found of it while it lives
        "_body",
        "_instructions",
        "_rows",
        "_source",
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
        self,
        name: str,
        is_entry: bool,
        signature: str,
        attribute_text: str,
        span: Span,
        calls: tuple[str, ...],
        rows: list[Row] | tuple[Instruction, ...],
        body: int,
        closing_offset: int,
    ) -> None:
        """``rows``: the parts of each line, or the instructions built already
        (`xlaview.hlo.parse.edited`)."""
        self.name = name
        self.is_entry = is_entry
        self.signature = signature
        self.attribute_text = attribute_text
        self.span = span
        self.calls = calls
        self.closing_line = len(rows) + 1
        self.closing_offset = closing_offset
        self._body = body  # where the first instruction's line starts, from the header's
        self._rows: list[Row] | None = None
        self._instructions: tuple[Instruction, ...] | None = None
        if isinstance(rows, tuple):
            self._instructions = rows
        else:
            self._rows = rows
        self._source: tuple[str, int, Callable[[], ParsedComputation | None]] | None = None
        self.nbytes = estimate_bytes(len(rows), span.end - span.offset)

    @property
    def body_offset(self) -> int:
        """Where the first instruction's line starts, from the header's start."""
        return self._body

    def leave_unread(
        self, lines: int, text: str, close: int, reader: Callable[[], ParsedComputation | None]
    ) -> None:
        """Make this the frame of a body of ``lines`` lines, closed at
        ``close`` in ``text``, left unread until first needed; ``reader``
        parses it then (see `xlaview.hlo.parse.printed.defer_computation`). ``calls``
        is None until someone says or it is read."""
        self.calls = None  # type: ignore[assignment]
        self.closing_line = lines + 1
        self.nbytes = estimate_bytes(lines, self.span.end - self.span.offset)
        self._rows = None
        self._source = (text, close, reader)

    @property
    def deferred_body(self) -> bool:
        """Whether the body is still unread (see `leave_unread`)."""
        return self._source is not None

    def read(self) -> bool:
        """Read a deferred body now: False if the fast path refuses it."""
        with blocked(), _BUILD_LOCK:
            source = self._source
            if source is None:
                return True
            parsed = source[2]()
            if parsed is None or len(parsed) != len(self):
                return False
            self._rows, self.calls, self._source = parsed._rows, parsed.calls, None
            return True

    def _pending(self) -> list[Row] | None:
        """The parts of each line, until the instructions are built."""
        if self._source is not None and not self.read():
            raise RuntimeError(f"computation {self.name}: deferred, but the fast parser refuses it")
        return self._rows

    def may_hold(self, opcodes: frozenset[str]) -> bool:
        """Whether an instruction may have one of ``opcodes``: exact once read,
        a search of the text (in C) for a deferred body."""
        source = self._source
        if source is None:
            return not opcodes.isdisjoint(self.opcodes())
        text, close, _ = source
        start = self.span.offset + self._body
        return any(text.find(f" {op}(", start, close) >= 0 for op in opcodes)

    @property
    def instructions(self) -> tuple[Instruction, ...]:
        """The instructions, with spans in the text this was parsed from."""
        instructions = self._instructions
        if instructions is None:
            # One build, and one identity for each tuple.
            with blocked(), _BUILD_LOCK:
                instructions = self._instructions
                if instructions is None:
                    rows = self._pending()
                    assert rows is not None
                    instructions = build_paused(
                        rows, self.name, self.span.line + 1, self.span.offset + self._body
                    )
                    self._instructions = instructions
                    self._rows = None
        return instructions

    @property
    def built(self) -> bool:
        return self._instructions is not None

    def __len__(self) -> int:
        return self.closing_line - 1  # one instruction per line

    def names(self) -> list[str] | tuple[str, ...]:
        """Instruction names in text order, building nothing."""
        rows = self._pending()
        if rows is not None:
            return list(map(_NAMES, rows))
        return tuple(map(_NAME_OF, self.instructions))

    def name_at(self, index: int) -> str:
        """The name of the ``index``-th instruction, building nothing."""
        rows = self._pending()
        return rows[index][1] if rows is not None else self.instructions[index][0]

    def opcodes(self) -> list[str] | tuple[str, ...]:
        """Opcodes in text order, building nothing."""
        rows = self._pending()
        if rows is not None:
            return list(map(_OPCODES, rows))
        return tuple(map(_OPCODE_OF, self.instructions))

    def relocated(self, span: Span) -> tuple[Instruction, ...]:
        """The instructions with their spans moved to a copy of the text at ``span``."""
        dl = span.line - self.span.line
        do = span.offset - self.span.offset
        if not dl and not do:
            return self.instructions
        rows = self._pending()
        if rows is not None:
            return build_paused(rows, self.name, span.line + 1, span.offset + self._body)
        return moved(self.instructions, dl, do)


def moved(instructions: tuple[Instruction, ...], dl: int, do: int) -> tuple[Instruction, ...]:
    """``instructions`` with their spans ``dl`` lines and ``do`` characters further on."""
    if not dl and not do:
        return instructions
    new = tuple.__new__
    with gc_paused(settle=True):
        return tuple(
            new(
                Instruction,
                (
                    i[0],
                    i[1],
                    i[2],
                    i[3],
                    i[4],
                    i[5],
                    new(Span, (s[0] + dl, s[1], s[2] + do, s[3] + do)),
                    i[7],
                    i[8],
                ),
            )
            for i in instructions
            for s in (i[6],)
        )


def build_paused(rows: list[Row], comp: str, line: int, offset: int) -> tuple[Instruction, ...]:
    """`_build` without the garbage collector (see `xlaview.collector`)."""
    with gc_paused(settle=True):
        return _build(rows, comp, line, offset)


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
        end = (
            offset
            + length(name)
            + length(shape_text)
            + length(opcode)
            + length(ops)
            + (length(tail) + 7)
        )
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
        append(
            new(
                Instruction,
                (
                    name,
                    opcode,
                    shape,
                    operands,
                    root != "",
                    comp,
                    new(Span, (line, 3, offset, end)),
                    tail,
                    payload,
                ),
            )
        )
        line += 1
        offset = end + 3  # the newline and the next line's indentation
    return tuple(out)
