"""HLO text -> `Module`.

The module's header, stack-frame tables and computations. A computation comes
from the first of: the previous module when this text repeats it
(`xlaview.hlo.parse.reuse`), a `ComputationStore` that has seen its text
(`xlaview.hlo.parse.store`), its version in the previous module when it is big
and a pass edited it (`xlaview.hlo.parse.edited`), the fast path for
computations laid out as XLA prints them (`xlaview.hlo.parse.printed`: one
regular expression over the whole body, checks in C, instructions built on
first access; small ones a run at a time, `xlaview.hlo.parse.runs`), and the
careful path (`xlaview.hlo.parse.tolerant`: token by token, with located
errors) for anything else. Attributes are kept as raw text and decoded on
demand (`xlaview.hlo.attributes`), so the parser never pays for what nobody
reads.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from xlaview.collector import gc_paused
from xlaview.hlo.attributes import (
    ValueSyntaxError,
    computation_names,
    read_module_name,
    scan_attributes,
    scan_balanced,
    unquote,
)
from xlaview.hlo.errors import HloSyntaxError
from xlaview.hlo.model import (
    CALLED_COMPUTATION_ATTRIBUTES,
    Computation,
    Module,
    StackFrames,
)
from xlaview.hlo.parse.edited import parse_fast_edit
from xlaview.hlo.parse.inference import infer_shapes
from xlaview.hlo.parse.parsed import ParsedComputation
from xlaview.hlo.parse.printed import (
    CALLING_OPCODES,
    ComputationEnds,
    Deferral,
    defer_computation,
    settle,
    stored_computation,
)
from xlaview.hlo.parse.reuse import PreviousModule
from xlaview.hlo.parse.runs import RunParser
from xlaview.hlo.parse.store import ComputationStore
from xlaview.hlo.parse.tolerant import (
    NAME,
    SHAPE_START,
    Abort,
    CarefulParser,
    SingleInstruction,
)
from xlaview.hlo.shape import ShapeSyntaxError, scan_shape
from xlaview.turns import turn

__all__ = ["Deferral", "ParseResult", "parse_module", "parse_module_tolerant"]

# ``(p: f32[2], q: s32[]) -> f32[2] {`` on one line, no comment.
_FAST_HEADER = re.compile(r"(\([^\n/{}]*\)[ \t]*->[ \t]*[^\n/{}]*?)[ \t]*(?=\{[ \t\r]*$)", re.M)
_SECTION_KEYWORDS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_SECTION_ENTRY = re.compile(r'(\d{1,19})[ \t]+("(?:[^"\\\n]|\\.)*"|\{[^}\n]*\})')
_BRACED_FIELD = re.compile(r"(\w+)=(-?\d{1,19})(?!\d)")
_CALL_ATTRIBUTE = re.compile(
    r"(?<![\w.\-])(?:"
    + "|".join(CALLED_COMPUTATION_ATTRIBUTES)
    + r")=(%?[A-Za-z_][\w.\-]*|\{[^{}]*\})"
)
_BOM = "\ufeff"
# Text read between two calls of a parse's ``check`` (a few milliseconds of parse).
CHECK_CHARS = 1 << 17
# The attributes of a module's header line, by the line: where their scan
# ended. Every pass of a module prints the same header, and a U-Net's (190 KB
# of layouts) took 20 ms to scan, each pass.
_HEADER_SCANS: dict[str, int] = {}
_MAX_HEADER_SCANS = 64
_MAX_HEADER_LINE = 1 << 22  # characters of a header line kept: at most 64 x 4 M


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
    with gc_paused(settle=True):
        return _Parser(text, tolerant=False, store=store, previous=previous).parse()


def parse_module_tolerant(
    text: str,
    store: ComputationStore | None = None,
    previous: Module | None = None,
    deferral: Deferral | None = None,
    check: Callable[[], None] | None = None,
) -> ParseResult:
    """Parse what can be parsed; every error becomes a located diagnostic.

    A truncated file yields everything before the cut; a bad instruction is
    skipped and the rest of its computation still opens. ``store`` and
    ``previous`` as in `parse_module`. A ``deferral`` leaves the bodies it
    names unread, for another process to read (see `Deferral`). ``check``
    is called every `CHECK_CHARS` characters of text read (`scan.SLICE` inside a
    big computation): it may raise to
    stop the parse (the window's user stepped on; what was parsed stays in
    ``store``).
    """
    with gc_paused(settle=True):
        if deferral is not None:
            try:
                module = _Parser(text, tolerant=True, deferral=deferral).parse()
                return ParseResult(module, module.diagnostics)
            except _Undeferred:
                pass  # a deferred body needs the careful parser: parse it all here
        parser = _Parser(text, tolerant=True, store=store, previous=previous)
        parser.check = check
        module = parser.parse()
    return ParseResult(module, module.diagnostics)


class _Undeferred(Exception):
    """A deferred body that the fast path refuses."""


class _Parser(CarefulParser):
    """The module: header, stack-frame tables, computations (the previous
    module's, the store's, the fast path's, or the careful path's)."""

    __slots__ = ("check", "deferral", "deferred", "ends", "previous", "runs", "store")

    def __init__(
        self,
        text: str,
        tolerant: bool,
        store: ComputationStore | None = None,
        previous: Module | None = None,
        deferral: Deferral | None = None,
    ) -> None:
        super().__init__(text, tolerant)
        self.store = store
        self.previous = PreviousModule(text, previous) if previous is not None else None
        self.ends = ComputationEnds(text)
        self.deferral = deferral
        self.deferred: list[ParsedComputation] = []
        self.check: Callable[[], None] | None = None
        # Small computations read a run at a time.
        self.runs = RunParser(text, store, self.previous, deferral)

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
                if self.check is not None:  # (a scanned model's header: 11 ms)
                    self.check()
            elif self._is_single_instruction(pos):
                return self.parse_single_instruction(pos)
            entry_seen = False
            checked = pos
            while True:
                turn()  # (between computations, or runs of them taken from the pass before)
                pos = self.skip(pos)
                if pos >= n:
                    break
                if self.check is not None and pos - checked > CHECK_CHARS:
                    self.check()
                    checked = pos
                keyword = self._section_keyword(pos)
                if keyword:
                    pos = self.parse_section(pos, keyword, frames)
                    continue
                if text[pos] == "}":
                    self.report(self.error(pos, "unexpected '}': no computation is open here"))
                    pos += 1
                    continue
                if self.previous is not None and (pos == 0 or text[pos - 1] == "\n"):
                    run = self.previous.run_at(pos, self.lines.locate(pos).line)
                    if run:
                        entry_seen = self._take_run(run, names, computations, entry_seen)
                        last = run[-1]
                        parsed = last.parsed
                        assert parsed is not None
                        self.lines.note(
                            last.span.offset + parsed.closing_offset,
                            last.span.line + parsed.closing_line,
                        )
                        pos = last.span.end
                        continue
                if pos == 0 or text[pos - 1] == "\n":
                    parsed_run = self.runs.read(pos, self.lines.locate(pos).line)
                    if parsed_run:
                        run = [Computation.from_parsed(p, p.span) for p in parsed_run]
                        entry_seen = self._take_run(run, names, computations, entry_seen)
                        final = parsed_run[-1]
                        self.lines.note(
                            final.span.offset + final.closing_offset,
                            final.span.line + final.closing_line,
                        )
                        pos = final.span.end
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
                entry_seen = self._take(comp, names, computations, entry_seen)
        except Abort:
            pass
        if not computations and not self.tolerant:
            raise self.error(pos, "expects at least one computation")
        if self.deferred:
            self.settle_deferred()
        with contextlib.suppress(Abort):
            self.check_called_computations(computations, names)
        if self.unshaped:
            computations = infer_shapes(computations, len(self.text))
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

    def _take(
        self, comp: Computation, names: set[str], computations: list[Computation], entry_seen: bool
    ) -> bool:
        """Add ``comp`` to the module unless its name is taken; whether an
        ENTRY was seen now (a second one is reported and made an ordinary one)."""
        if comp.name in names:
            self.report(self.error(comp.span.offset, f"computation {comp.name!r} is defined twice"))
            return entry_seen
        if comp.is_entry:
            if entry_seen:
                self.report(self.error(comp.span.offset, "expects only one ENTRY computation"))
                comp = Computation(
                    comp.name,
                    False,
                    comp.instructions,
                    comp.span,
                    comp.signature,
                    comp.attribute_text,
                )
            entry_seen = True
        names.add(comp.name)
        computations.append(comp)
        return entry_seen

    def _take_run(
        self,
        run: list[Computation],
        names: set[str],
        computations: list[Computation],
        entry_seen: bool,
    ) -> bool:
        """`_take` each of a run of computations, at once when their names
        differ and none of them is taken."""
        run_names = [c.name for c in run]
        entries = sum(c.is_entry for c in run)
        if (
            entries > (0 if entry_seen else 1)
            or not names.isdisjoint(run_names)
            or len(set(run_names)) != len(run_names)
        ):
            for comp in run:
                entry_seen = self._take(comp, names, computations, entry_seen)
            return entry_seen
        names.update(run_names)
        computations.extend(run)
        return entry_seen or entries > 0

    def _is_single_instruction(self, pos: int) -> bool:
        """Text that is one instruction (``[name =] shape opcode(...)``), no computation."""
        m = NAME.match(self.text, pos)
        if m and self.text.startswith("ROOT", pos):
            m = NAME.match(self.text, self.skip(pos + 4))
        if m and self.skip(m.end()) < len(self.text) and self.text[self.skip(m.end())] == "=":
            return True
        return bool(SHAPE_START.match(self.text, pos))

    def parse_single_instruction(self, pos: int) -> Module:
        """XLA's single-instruction form: one computation ``_`` whose undefined
        operands become parameters."""
        self.single = SingleInstruction()
        self.computation_names.unique("_")
        start = pos
        try:
            instr, pos = self.parse_instruction(pos, "_", name_optional=True)
        except HloSyntaxError as err:
            self.report(err)
            return Module(
                "", "", (), StackFrames({}, {}, {}, {}), self.text, tuple(self.diagnostics), False
            )
        pos = self.skip(pos)
        if pos < len(self.text):
            self.report(self.error(pos, "expects the end of the text after a single instruction"))
        nested = (i._replace(computation="_") for i in self.nested)
        instructions = (*self.single.parameters, *nested, instr._replace(is_root=True))
        self.nested.clear()
        comp = Computation("_", True, instructions, self.span(start, pos))
        computations = [*self.inline, comp]
        with contextlib.suppress(Abort):
            self.check_called_computations(computations, {c.name for c in computations})
        if self.unshaped:
            computations = infer_shapes(computations, len(self.text))
        return Module(
            "_",
            "",
            tuple(computations),
            StackFrames({}, {}, {}, {}),
            self.text,
            tuple(self.diagnostics),
            False,
        )

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
        found = read_module_name(text, pos)
        if found is None:
            self.report(self.error(pos, "expects a module name after HloModule"))
            return pos, "", ""
        name, attr_start = found
        line_end = text.find("\n", attr_start, attr_start + _MAX_HEADER_LINE + 1)
        if line_end < 0 and len(text) - attr_start <= _MAX_HEADER_LINE:
            line_end = len(text)
        # (A longer line, a text on one line say, is scanned each time, and not copied.)
        line = text[attr_start:line_end] if line_end >= 0 else ""
        scanned = _HEADER_SCANS.get(line) if line else None
        if scanned is not None:
            return attr_start + scanned, name, line[:scanned]
        try:
            _, end = scan_attributes(text, attr_start)
        except ValueSyntaxError as err:
            self.report(self.error(err.offset, f"in the HloModule line: {err}"))
            return self.next_line(attr_start), name, ""
        if line and end - attr_start <= len(line):  # read within the line: its scan holds for it
            if len(_HEADER_SCANS) >= _MAX_HEADER_SCANS:
                _HEADER_SCANS.clear()
            _HEADER_SCANS[line] = end - attr_start
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
        m = NAME.match(text, pos)
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
                raise self.error(
                    start,
                    "expects a computation, but this is an instruction outside of any computation",
                )
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
        return self.check_computation(comp), pos

    def fast_computation(self, pos: int) -> tuple[Computation, int] | None:
        """The computation at ``pos`` from the store or the fast path, if it
        is laid out as XLA prints it (None: parse it carefully)."""
        line = self.lines.locate(pos).line
        found = self.ends.end(pos)
        if found is None:
            return None
        close, end = found
        if self.deferral is not None and self.deferral.defers(pos):
            parsed = defer_computation(self.text, pos, close, end, line)
            if parsed is not None and not parsed.is_entry:
                self.deferred.append(parsed)
                self.lines.note(pos + parsed.closing_offset, line + parsed.closing_line)
                return Computation.from_parsed(parsed, parsed.span), parsed.span.end
        # A big computation the pass edited: from its version in the previous module.
        previous = self.previous
        old = previous.edited(pos) if previous is not None else None
        edit = None
        if previous is not None and old is not None:
            old_text = previous.previous.text
            edit = partial(
                parse_fast_edit, self.text, pos, close, end, line, old, old_text, self.check
            )
        stored = stored_computation(self.text, pos, close, end, line, self.store, self.check, edit)
        if stored is None:
            return None
        parsed, span = stored
        self.lines.note(pos + parsed.closing_offset, line + parsed.closing_line)
        return Computation.from_parsed(parsed, span), span.end

    def settle_deferred(self) -> None:
        """What the deferred computations call (`_Undeferred` if the fast
        path refuses one of them)."""
        assert self.deferral is not None
        refused = settle(self.deferred, self.deferral)
        if refused is not None:
            raise _Undeferred(refused)

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
                                    f"computation {called!r} called by {instr.name} is not defined",
                                )
                            )
