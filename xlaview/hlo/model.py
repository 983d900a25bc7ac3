"""The immutable HLO model: modules, computations, instructions, stack frames.

Instructions are named tuples (cheap to build 20k of, immutable, hashable).
What is rarely needed (attributes, metadata, backend_config, literals) is kept
as the raw text XLA printed and decoded on demand by properties.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from xlaview.hlo.attributes import (
    computation_names,
    decode_backend_config,
    parse_metadata,
    split_attributes,
)
from xlaview.hlo.errors import HloSyntaxError
from xlaview.hlo.lines import LineOwners
from xlaview.hlo.shape import Shape
from xlaview.turns import find, stepped

if TYPE_CHECKING:
    from xlaview.hlo.parse.parsed import ParsedComputation

# Attributes whose value names the computations an instruction calls.
CALLED_COMPUTATION_ATTRIBUTES = (
    "calls",
    "to_apply",
    "body",
    "condition",
    "true_computation",
    "false_computation",
    "branch_computations",
    "called_computations",
    "select",
    "scatter",
    "async_wrapped_computation",
)
_CALLED_KEYS = frozenset(CALLED_COMPUTATION_ATTRIBUTES)
_BUILT = attrgetter("_instructions")  # a Computation's, None until built
# Instructions `Module.find` looks for in the text before it indexes them all.
_TEXT_SEARCHES = 4
# Any of them in an attribute text: a superset of the instructions that call.
_CALLING = re.compile("|".join(CALLED_COMPUTATION_ATTRIBUTES))


class Span(NamedTuple):
    """Where something is in the text: 1-based line and column, 0-based offsets."""

    line: int
    column: int
    offset: int
    end: int


class Frame(NamedTuple):
    """One resolved stack frame: source file, line, column and function."""

    file: str
    line: int
    column: int
    function: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return f"{where} ({self.function})" if self.function else where


class Instruction(NamedTuple):
    """One HLO instruction, as printed in the text.

    ``operand_names`` are the operands' names without ``%``; ``attribute_text``
    is everything after the operand list, raw; ``payload`` is the text inside
    the parentheses of ``constant(...)`` and ``parameter(...)``.
    """

    name: str
    opcode: str
    shape: Shape
    operand_names: tuple[str, ...]
    is_root: bool
    computation: str
    span: Span
    attribute_text: str = ""
    payload: str | None = None

    @property
    def attributes(self) -> dict[str, str]:
        """Every attribute as raw text, in text order."""
        return split_attributes(self.attribute_text) if self.attribute_text else {}

    def attribute(self, name: str) -> str | None:
        if not self.attribute_text or name not in self.attribute_text:
            return None
        return self.attributes.get(name)

    @property
    def metadata(self) -> dict[str, str | int]:
        value = self.attribute("metadata")
        return parse_metadata(value) if value else {}

    @property
    def op_name(self) -> str | None:
        return op_name_in(self.attribute("metadata"))

    @property
    def stack_frame_id(self) -> int | None:
        value = self.metadata.get("stack_frame_id")
        return value if isinstance(value, int) else None

    @property
    def backend_config(self) -> Any:
        """Decoded JSON (dict) where possible, else the raw text; None if absent."""
        value = self.attribute("backend_config")
        return decode_backend_config(value) if value is not None else None

    @property
    def sharding(self) -> str | None:
        return self.attribute("sharding")

    @property
    def frontend_attributes(self) -> dict[str, str]:
        value = self.attribute("frontend_attributes")
        if not value:
            return {}
        return {k: str(v) for k, v in parse_metadata(value).items()}

    @property
    def control_predecessors(self) -> tuple[str, ...]:
        value = self.attribute("control-predecessors")
        return computation_names(value) if value else ()

    @property
    def may_call(self) -> bool:
        """Whether the attributes may name a called computation: one search
        in C, False for certain (most instructions call nothing)."""
        text = self.attribute_text
        return bool(text) and _CALLING.search(text) is not None

    @property
    def called_computations(self) -> tuple[str, ...]:
        """Names of the computations this instruction calls, in attribute order."""
        text = self.attribute_text
        if not text or "=" not in text:
            return ()
        return called_in(self.attributes)

    @property
    def fusion_kind(self) -> str | None:
        """``kLoop``, ``kInput``, ``kOutput``, ``kCustom``... for fusions."""
        return self.attribute("kind") if self.opcode == "fusion" else None

    @property
    def parameter_number(self) -> int | None:
        if self.opcode != "parameter" or self.payload is None:
            return None
        try:
            return int(self.payload)
        except ValueError:
            return None

    @property
    def literal(self) -> str | None:
        """The literal text of a constant (``{...}`` when XLA elided it)."""
        return self.payload if self.opcode == "constant" else None


def called_in(attributes: dict[str, str]) -> tuple[str, ...]:
    """`Instruction.called_computations` from its attributes, split."""
    keys = _CALLED_KEYS.intersection(attributes)  # in C: most call nothing, a fusion one
    if not keys:
        return ()
    names: list[str] = []
    for key in CALLED_COMPUTATION_ATTRIBUTES if len(keys) > 1 else keys:
        value = attributes.get(key)
        # A bare name may start with "_" (jax's ``_normal_real.138``).
        if value is not None and (value.startswith(("%", "{", "_")) or value[:1].isalpha()):
            names.extend(computation_names(value))
    return tuple(names)


def built_flags(computations: Iterable[Computation]) -> Iterator[object]:
    """Truthy for each of ``computations`` whose instructions are built (an
    empty one is not, and holds none), in C: a cache asks it of 100,000
    computations at every step."""
    return map(_BUILT, computations)


def op_name_in(metadata: str | None) -> str | None:
    """`Instruction.op_name` from its ``metadata`` attribute's value."""
    if not metadata:
        return None
    value = parse_metadata(metadata).get("op_name")
    return str(value) if value is not None else None


class Computation:
    """A computation: its instructions in text order, the ENTRY mark, its span.

    A computation taken from a `ComputationStore` (the same text parsed in
    another pass) shares that parse: its instructions are built on first
    access, with their spans moved to where its text sits in this module.
    """

    __slots__ = (
        "name",
        "is_entry",
        "span",
        "signature",
        "attribute_text",
        "parsed",
        "_instructions",
        "_index",
    )

    def __init__(
        self,
        name: str,
        is_entry: bool,
        instructions: tuple[Instruction, ...],
        span: Span,
        signature: str = "",
        attribute_text: str = "",
    ) -> None:
        self.name = name
        self.is_entry = is_entry
        self._instructions: tuple[Instruction, ...] | None = instructions
        self.span = span
        self.signature = signature
        self.attribute_text = attribute_text
        # The shared parse this computation comes from (None: parsed for this
        # module alone). Two computations with the same one have the same text.
        self.parsed: ParsedComputation | None = None
        self._index: dict[str, Instruction] | None = None

    @classmethod
    def from_parsed(cls, parsed: ParsedComputation, span: Span) -> Computation:
        """The computation of a shared parse whose text sits at ``span``."""
        comp = cls.__new__(cls)
        comp.name = parsed.name
        comp.is_entry = parsed.is_entry
        comp.span = span
        comp.signature = parsed.signature
        comp.attribute_text = parsed.attribute_text
        comp.parsed = parsed
        comp._instructions = None
        comp._index = None
        return comp

    @property
    def instructions(self) -> tuple[Instruction, ...]:
        instructions = self._instructions
        if instructions is None:
            assert self.parsed is not None
            # Two threads may both move them: equal tuples, one kept.
            instructions = self._instructions = self.parsed.relocated(self.span)
        return instructions

    @property
    def built(self) -> bool:
        """Whether the instructions exist (False: built on first access)."""
        return self._instructions is not None

    @property
    def root(self) -> Instruction | None:
        for instr in reversed(self.instructions):  # XLA prints ROOT last, or near it
            if instr.is_root:
                return instr
        return self.instructions[-1] if self.instructions else None

    @property
    def parameters(self) -> tuple[Instruction, ...]:
        params = [i for i in self.instructions if i.opcode == "parameter"]
        params.sort(key=lambda i: i.parameter_number if i.parameter_number is not None else 0)
        return tuple(params)

    def instruction(self, name: str) -> Instruction:
        """The instruction called ``name`` (KeyError if there is none)."""
        if self._index is None:
            self._index = {i.name: i for i in self.instructions}
        return self._index[name.lstrip("%")]

    def __contains__(self, name: object) -> bool:
        if self._index is None:
            self._index = {i.name: i for i in self.instructions}
        return name in self._index

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self.instructions)

    def __len__(self) -> int:
        if self._instructions is None and self.parsed is not None:
            return len(self.parsed)
        return len(self.instructions)

    def instruction_names(self) -> Sequence[str]:
        """Names of the instructions in text order (builds no instruction)."""
        if self._instructions is None and self.parsed is not None:
            return self.parsed.names()
        return [i[0] for i in self.instructions]

    def opcodes(self) -> Sequence[str]:
        """Opcodes of the instructions in text order (builds no instruction)."""
        if self._instructions is None and self.parsed is not None:
            return self.parsed.opcodes()
        return [i[1] for i in self.instructions]

    def may_hold(self, opcodes: frozenset[str]) -> bool:
        """False when no instruction has one of ``opcodes``, True when one may
        (look at them then): builds and reads nothing (see
        `ParsedComputation.may_hold`)."""
        if self._instructions is None and self.parsed is not None:
            return self.parsed.may_hold(opcodes)
        return True

    def __repr__(self) -> str:
        entry = "ENTRY " if self.is_entry else ""
        return f"<Computation {entry}{self.name}: {len(self)} instructions>"


class StackFrames:
    """The ``FileNames`` / ``FunctionNames`` / ``FileLocations`` / ``StackFrames``
    tables newer XLA prints, resolving a ``stack_frame_id`` to frames."""

    __slots__ = ("file_names", "function_names", "file_locations", "frames")

    def __init__(
        self,
        file_names: dict[int, str],
        function_names: dict[int, str],
        file_locations: dict[int, dict[str, int]],
        frames: dict[int, tuple[int, int]],
    ) -> None:
        self.file_names = file_names
        self.function_names = function_names
        self.file_locations = file_locations
        # frame id -> (file_location_id, parent frame id or 0)
        self.frames = frames

    def __bool__(self) -> bool:
        return bool(self.frames)

    def frame(self, frame_id: int) -> Frame | None:
        entry = self.frames.get(frame_id)
        if entry is None:
            return None
        loc = self.file_locations.get(entry[0], {})
        return Frame(
            self.file_names.get(loc.get("file_name_id", 0), "?"),
            loc.get("line", 0),
            loc.get("column", 0),
            self.function_names.get(loc.get("function_name_id", 0), "?"),
        )

    def resolve(self, frame_id: int) -> tuple[Frame, ...]:
        """The call stack of ``frame_id``, innermost frame first."""
        out: list[Frame] = []
        seen: set[int] = set()
        while frame_id and frame_id not in seen and frame_id in self.frames:
            seen.add(frame_id)
            frame = self.frame(frame_id)
            if frame:
                out.append(frame)
            frame_id = self.frames[frame_id][1]
        return tuple(out)


def _layout_letter(text: str, letter: str) -> bool:
    """Whether ``text`` holds ``letter`` followed by "(" right after a ":" or
    a ")": a layout's memory space (``S(1)``) or tiling (``T(8,128)``). A
    span of the text at a time (`xlaview.turns.find`)."""
    pos = find(text, letter, 1)
    while pos > 0 and not (text.startswith("(", pos + 1) and text[pos - 1] in ":)"):
        pos = find(text, letter, pos + 1)
    return pos > 0


class Module:
    """A parsed HLO module.

    ``computations`` are in text order; ``diagnostics`` lists the syntax errors
    a tolerant parse skipped over (empty after a strict parse).
    """

    __slots__ = (
        "name",
        "attribute_text",
        "computations",
        "stack_frames",
        "text",
        "diagnostics",
        "has_header",
        "_by_name",
        "_instr_index",
        "_instr_starts",
        "_asked",
        "_callers",
        "_line_owners",
        "_count",
        "_entry",
        "_offsets",
        "_spaces",
        "_tiles",
    )

    def __init__(
        self,
        name: str,
        attribute_text: str,
        computations: tuple[Computation, ...],
        stack_frames: StackFrames,
        text: str,
        diagnostics: tuple[HloSyntaxError, ...] = (),
        has_header: bool = True,
    ) -> None:
        self.name = name
        self.attribute_text = attribute_text
        self.computations = computations
        self.stack_frames = stack_frames
        self.text = text
        self.diagnostics = diagnostics
        self.has_header = has_header
        self._by_name = {c.name: c for c in computations}
        self._instr_index: dict[str, int] | None = None
        self._instr_starts: list[int] = []
        self._asked: dict[str, tuple[Computation, Instruction] | None] = {}
        self._callers: _Callers | None = None
        self._line_owners: LineOwners | None = None
        self._count: int | None = None
        self._entry: Computation | None = None
        self._offsets: list[int] | None = None
        self._spaces: bool | None = None
        self._tiles: bool | None = None

    # -- header ---------------------------------------------------------------
    @property
    def attributes(self) -> dict[str, str]:
        return split_attributes(self.attribute_text) if self.attribute_text else {}

    @property
    def is_scheduled(self) -> bool:
        return self.attributes.get("is_scheduled") == "true"

    @property
    def entry_computation_layout(self) -> str | None:
        return self.attributes.get("entry_computation_layout")

    @property
    def input_output_alias(self) -> str | None:
        return self.attributes.get("input_output_alias")

    @property
    def names_memory_spaces(self) -> bool:
        """Whether a layout names a memory space (``{1,0:S(1)}``); if none
        does, every value is in the default one. One search of the text."""
        if self._spaces is None:
            # "S" alone is found at memory speed, "S(" at a third of it; an
            # HLO text holds few capital S.
            self._spaces = _layout_letter(self.text, "S")
        return self._spaces

    @property
    def names_tiles(self) -> bool:
        """Whether a layout is tiled (``{1,0:T(8,128)}``). One search of the text."""
        if self._tiles is None:
            # (Once searched for ":T(" and ")T(" in one call each: 75 ms of a
            # 45 MB pass with the GIL held, the window's GUI thread waiting.)
            self._tiles = _layout_letter(self.text, "T")
        return self._tiles

    # -- lookups --------------------------------------------------------------
    @property
    def entry(self) -> Computation | None:
        if self._entry is None:  # found once: thousands of computations to look through
            self._entry = next(
                (comp for comp in self.computations if comp.is_entry),
                self.computations[-1] if self.computations else None,
            )
        return self._entry

    def computation(self, name: str) -> Computation:
        """The computation called ``name`` (KeyError if there is none)."""
        return self._by_name[name.lstrip("%")]

    def has_computation(self, name: str) -> bool:
        return name.lstrip("%") in self._by_name

    def find(self, name: str) -> tuple[Computation, Instruction]:
        """The instruction called ``name`` and its computation (KeyError if absent).

        XLA keeps instruction names unique in a module; where a hand-written
        text reuses one, the first definition wins.
        """
        name = name.lstrip("%")
        if self._instr_index is None:
            # The first few names asked are searched for in the text (in C)
            # rather than index 300k names; a program that keeps asking for
            # others gets the index. A name asked again has the answer it had:
            # `xlaview inspect -i` asks for its op four times, and the fifth
            # question, a name no line holds, built the index (0.7 s of a
            # mixture of experts' 95,000 instructions).
            asked = self._asked
            answer = asked.get(name, ())  # (one lookup: another thread may clear it)
            if answer is None:
                raise KeyError(name)
            if answer:
                return answer
            if len(asked) < _TEXT_SEARCHES:
                answer = self._find_in_text(name)
                if answer is None and name not in self.text:
                    asked[name] = None  # not even written: no index to build
                    raise KeyError(name)
                if answer is not None:
                    asked[name] = answer
                    return answer
            self._instr_index = self._index_names()
            asked.clear()
        position = self._instr_index[name]
        k = bisect_right(self._instr_starts, position) - 1
        comp = self.computations[k]
        return comp, comp.instructions[position - self._instr_starts[k]]

    def _find_in_text(self, name: str) -> tuple[Computation, Instruction] | None:
        """The definition of ``name`` found in the text as XLA prints one
        (``  [ROOT ]%name = `` at a line start); None when that does not
        settle it (the index does)."""
        text = self.text
        needle = f"%{name} = "
        pos = text.find(needle)
        while pos >= 0:
            start = pos - 7 if text.startswith("  ROOT ", pos - 7) else pos - 2
            if (
                start >= 0
                and text.startswith("  ", start)
                and (start == 0 or text[start - 1] == "\n")
            ):
                break
            pos = text.find(needle, pos + 1)
        else:
            return None
        comps = self.computations
        k = bisect_right(self._computation_offsets(), pos) - 1
        if k < 0 or not comps[k].span.offset <= pos < comps[k].span.end:
            return None
        comp = comps[k]
        if name not in comp:
            return None
        instr = comp.instruction(name)
        return (comp, instr) if instr.span.offset == start + 2 else None

    def _computation_offsets(self) -> list[int]:
        if self._offsets is None:
            offsets = [c.span.offset for c in self.computations]
            # Inline computations sit inside their caller: no order to bisect.
            self._offsets = offsets if all(a < b for a, b in pairwise(offsets)) else []
        return self._offsets

    def _index_names(self) -> dict[str, int]:
        """Instruction name -> position in the module (first definition wins).

        Positions (plain integers, which the garbage collector does not track)
        and names only: a computation shared with another pass builds its
        instructions when one of them is asked for, not for the index.
        """
        starts = []
        position = 0
        for comp in self.computations:
            starts.append(position)
            position += len(comp)
        self._instr_starts = starts
        index: dict[str, int] = {}
        # Backwards, so that the first definition is written last.
        for comp, start in zip(reversed(self.computations), reversed(starts), strict=False):
            names = comp.instruction_names()
            index.update(
                zip(reversed(names), range(start + len(names) - 1, start - 1, -1), strict=False)
            )
        return index

    def instruction(self, name: str) -> Instruction:
        return self.find(name)[1]

    def instructions(self) -> Iterator[Instruction]:
        for comp in self.computations:
            yield from comp.instructions

    def instructions_with(self, *opcodes: str) -> Iterator[Instruction]:
        """The instructions with one of ``opcodes``, in text order; only the
        computations that hold one build their instructions."""
        wanted = frozenset(opcodes)
        for comp in self.computations:
            if comp.may_hold(wanted):
                for instr in comp.instructions:
                    if instr.opcode in wanted:
                        yield instr

    @property
    def instruction_count(self) -> int:
        if self._count is None:
            self._count = sum(len(c) for c in self.computations)
        return self._count

    def callers(self, computation: str) -> list[Instruction]:
        """Instructions that call ``computation`` (fusions, whiles, reduces...),
        in text order.

        Only the computations that may call it are read: the parser says what
        each calls without building its instructions (a body left to another
        process is said by it), so asking about one fusion's body does not
        build a 300,000-instruction module."""
        if self._callers is None:
            self._callers = _Callers(self.computations)
        return self._callers.of(computation)

    def computation_kind(self, name: str) -> str:
        """What calls a computation: ``entry``, ``fusion``, ``while body``, ..."""
        comp = self.computation(name)
        if comp.is_entry or comp is self.entry:
            return "entry"
        for caller in self.callers(name):
            attrs = caller.attributes
            if caller.opcode == "fusion":
                return "fusion"
            if attrs.get("body", "").lstrip("%") == name:
                return "while body"
            if attrs.get("condition", "").lstrip("%") == name:
                return "while condition"
            if caller.opcode == "conditional":
                return "branch"
            if caller.opcode in ("async-start", "async-update", "async-done"):
                return "async wrapped"
            if caller.opcode == "call":
                return "call"
            return f"applied by {caller.opcode}"
        return "unused"

    def line_owners(self) -> LineOwners:
        """Line (1-based) -> (computation, instruction or None for a header line).

        A read-only mapping answered by bisection over the computations'
        line ranges (nothing is built per line); kept by the module.
        """
        if self._line_owners is None:
            self._line_owners = LineOwners(self)
        return self._line_owners

    def line_owner(self, line: int) -> tuple[str, str | None] | None:
        """The computation and instruction (None: a computation's header) at
        1-based ``line``; None for blank lines, closing braces, headers."""
        return self.line_owners().get(line)

    def last_line(self, span: Span) -> int:
        """The 1-based line where ``span`` ends."""
        return span.line + self.text.count("\n", span.offset, span.end)

    def source_frames(self, instr: Instruction) -> tuple[Frame, ...]:
        """The Python stack an instruction came from (StackFrames or metadata)."""
        frame_id = instr.stack_frame_id
        if frame_id and self.stack_frames:
            frames = self.stack_frames.resolve(frame_id)
            if frames:
                return frames
        meta = instr.metadata
        if "source_file" in meta:
            line = meta.get("source_line", 0)
            return (Frame(str(meta["source_file"]), line if isinstance(line, int) else 0, 0, ""),)
        return ()

    def __repr__(self) -> str:
        return f"<Module {self.name}: {len(self.computations)} computations>"


class _Callers:
    """`Module.callers`, computation by computation: which computations may
    call a name (from what the parser says each calls; all of those it does
    not say), and what each of them calls, read once when first asked."""

    __slots__ = ("_answers", "_calls", "_may_call", "_order", "_unsaid")

    def __init__(self, computations: tuple[Computation, ...]) -> None:
        self._may_call: dict[str, list[Computation]] = {}
        self._unsaid: list[Computation] = []  # computations whose calls are not known unread
        for comp in computations:
            calls = comp.parsed.calls if comp.parsed is not None else None
            if calls is None:
                self._unsaid.append(comp)
                continue
            for name in dict.fromkeys(calls):
                self._may_call.setdefault(name, []).append(comp)
        self._order = {id(c): i for i, c in enumerate(computations)}
        self._calls: dict[int, dict[str, list[Instruction]]] = {}
        self._answers: dict[str, list[Instruction]] = {}

    def of(self, computation: str) -> list[Instruction]:
        found = self._answers.get(computation)
        if found is None:
            comps = self._may_call.get(computation, [])
            if self._unsaid:
                comps = sorted([*comps, *self._unsaid], key=lambda c: self._order[id(c)])
            found = [i for comp in comps for i in self._read(comp).get(computation, ())]
            self._answers[computation] = found
        return found

    def _read(self, comp: Computation) -> dict[str, list[Instruction]]:
        calls = self._calls.get(id(comp))
        if calls is None:
            calls = self._calls[id(comp)] = {}
            for instr in stepped(comp.instructions):
                # The search (in C) spares splitting the attributes of
                # every instruction that calls nothing.
                if instr.may_call:
                    for called in instr.called_computations:
                        calls.setdefault(called, []).append(instr)
        return calls
