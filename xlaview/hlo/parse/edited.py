"""A big computation a pass edited, parsed from its previous parse.

Most passes that change the entry of a big module change a few of its lines,
here and there: the 14,000 to 40,000 lines around them read as before. Each
line of the new body is looked up by its text among the previous version's
lines (a dictionary, in C); a line found keeps that version's instruction,
moved to where it now stands, and only the lines not found are read by the
fast path's line pattern. The checks of the fast path
(`xlaview.hlo.parse.printed`) are then made again on what came and what went:
the previous version passed them, so the result is the one a parse of the
text alone gives, or None where the fast path would refuse the text (the
caller then parses it afresh).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate, chain, compress, count, repeat
from operator import add, is_, is_not, itemgetter, ne, not_, sub
from typing import cast

from xlaview.collector import gc_paused
from xlaview.hlo.interpreted import bad_values
from xlaview.hlo.model import Computation, Instruction, Span
from xlaview.hlo.parse.parsed import (
    _OPCODES,
    _OPERANDS,
    _SHAPES,
    PAYLOAD_OPCODES,
    ParsedComputation,
    Row,
    build_paused,
)
from xlaview.hlo.parse.printed import (
    _LINE,
    _PARAMETER_NUMBER,
    CALLING_OPCODES,
    calls_of,
    frame,
    numbered_from_zero,
    payloads_read,
    shapes_read,
)
from xlaview.hlo.scan import findall_by_lines
from xlaview.turns import listed, split_lines

# A computation of this many lines that a pass edited is parsed from its
# previous parse and the lines that changed; a smaller one afresh (as quick).
EDITED_FROM = 1024
_FIELDS = tuple(itemgetter(k) for k in range(len(Instruction._fields)))
_NAME_OF, _OPCODE_OF, _OPERANDS_OF, _IS_ROOT, _ATTRIBUTES_OF, _PAYLOAD_OF = (
    _FIELDS[k] for k in (0, 1, 3, 4, 7, 8)
)
_SPAN_OF = _FIELDS[6]
_OFFSET, _END = itemgetter(2), itemgetter(3)  # a span's


def editable(comp: Computation) -> bool:
    """Whether an edit of ``comp`` is parsed from it: a big computation of the
    fast path, its instructions built."""
    return comp.parsed is not None and comp.built and len(comp.parsed) >= EDITED_FROM


def parse_fast_edit(
    text: str,
    pos: int,
    close: int,
    end: int,
    line: int,
    old: Computation,
    old_text: str,
    check: Callable[[], None] | None = None,
) -> ParsedComputation | None:
    """`xlaview.hlo.parse.printed.parse_fast_computation` of the computation
    at ``pos`` (its header on ``line``, its closing brace after the newline at
    ``close``), given ``old``: an earlier version of it in ``old_text``, parsed
    by the fast path, its instructions built. None when the fast path refuses
    the text or ``old`` is not of the same name."""
    framed = frame(text, pos, close, end)
    old_parsed = old.parsed
    if framed is None or old_parsed is None or close < pos:
        return None
    m, body, attribute_text, span_end = framed
    if m.group(2) != old.name or close < body:
        return None
    old_body = old.span.offset + old_parsed.body_offset
    old_close = old.span.offset + old_parsed.closing_offset - 1
    old_instructions = old.instructions
    old_lines = split_lines(old_text, old_body, old_close)
    if len(old_lines) != len(old_instructions):
        return None
    check = check or _nothing
    lines = split_lines(text, body, close)
    # Each line the previous version holds, by its text: its instruction.
    found = listed(map({old_line: k for k, old_line in enumerate(old_lines)}.get, lines))
    changed = listed(compress(count(), map(is_, found, repeat(None))))
    if len(changed) * 2 > len(lines):
        return None  # rewritten more than edited: parsed afresh as quickly
    kept = len(lines) - len(changed)
    gone = set(range(len(old_lines))).difference(found)
    if len(old_lines) - len(gone) != kept:
        return None  # a line twice: a name defined twice
    check()
    # The old body's braces balanced: the new one's do if what came balances what went.
    came = "".join("\n" + lines[j] for j in changed)  # (`_LINE` reads from a newline)
    went = "\n".join(old_lines[k] for k in gone)
    if came.count("{") - came.count("}") != went.count("{") - went.count("}"):
        return None  # an attribute going over lines
    # (A slice of lines at a time: between them the GUI thread gets the GIL.)
    rows: list[Row] = findall_by_lines(_LINE, came, 0, len(came), check) if came else []
    if len(rows) != len(changed) or (rows and bad_values(came, 0, len(came))):
        return None
    check()
    if not _rows_read(rows):
        return None
    starts = list(accumulate(map((1).__add__, map(len, lines)), initial=body))
    instructions, new = _placed(found, old_instructions, rows, changed, starts, line + 1, old.name)
    check()
    calls = _checked_calls(
        old_instructions, old_parsed.calls, [old_instructions[k] for k in gone], new, instructions
    )
    if calls is None:
        return None
    return ParsedComputation(
        old.name,
        m.group(1) is not None,
        (m.group(3) or "").strip(),
        attribute_text,
        Span(line, 1, pos, span_end),
        calls,
        instructions,
        body - pos,
        close + 1 - pos,
    )


def _rows_read(rows: list[Row]) -> bool:
    """The checks of the fast path that concern lines read now alone: their
    shapes, payloads and operand lists as printed."""
    opcodes = list(map(_OPCODES, rows))
    operand_texts = list(map(_OPERANDS, rows))
    if not shapes_read(map(_SHAPES, rows)):
        return False
    payload_rows = list(map(PAYLOAD_OPCODES.__contains__, opcodes))
    if not payloads_read(compress(operand_texts, payload_rows)):
        return False
    numbers = list(compress(operand_texts, map("parameter".__eq__, opcodes)))
    if not all(map(_PARAMETER_NUMBER.fullmatch, numbers)):
        return False
    # Operand lists as XLA prints them ("%a, %b"); the names are looked up
    # once the whole body is known (`_checked_calls`).
    used_texts = filter(None, compress(operand_texts, map(not_, payload_rows)))
    return all(text[0] == "%" for text in used_texts)


def _placed(
    found: list[int | None],
    old_instructions: tuple[Instruction, ...],
    rows: list[Row],
    changed: list[int],
    starts: list[int],
    first_line: int,
    comp: str,
) -> tuple[tuple[Instruction, ...], list[Instruction]]:
    """The instructions of the body: the previous version's where ``found``
    says which, moved to where they now stand, and the ``changed`` lines'
    built from ``rows`` (``starts``: where each line starts); and the latter alone."""
    # The changed lines are built in one call, as if they followed each other,
    # then moved to where each stands with the lines kept: built a run of
    # adjacent lines at a time, an edit of 20,000 scattered lines took 20,000
    # calls (most of a 250 ms edit of a mixture of experts' entry).
    made = build_paused(rows, comp, first_line, starts[0])
    # The lines up to the first one changed or moved stand where they stood,
    # if the body starts where it started: their instructions are taken as
    # they are. The others are made again, each with its new span, in C (a
    # loop in Python over the 20,000-35,000 lines that moved was half of an
    # edit's time).
    first = next(compress(count(), map(ne, found, count())), len(found))
    start = old_instructions[0].span if old_instructions else None
    if start is not None and (start.line, start.offset) != (first_line, starts[0] + 2):
        first = 0
    out: list[Instruction | None] = list(old_instructions[:first])
    out += [None] * (len(found) - first)
    kept = listed(compress(range(first, len(found)), map(is_not, found[first:], repeat(None))))
    olds = cast(list[int], listed(map(found.__getitem__, kept)))  # (none None)
    moved_from = listed(map(old_instructions.__getitem__, olds))
    with gc_paused(settle=True):
        # (Placed a chunk at a time, as everything here: in one call, the
        # 40,000 kept instructions of a mixture of experts' entry held the
        # GIL for 15-80 ms of the GUI thread's wait.)
        new = listed(_moved(made, changed, starts, first_line))
        listed(map(out.__setitem__, kept, _moved(moved_from, kept, starts, first_line)))
        listed(map(out.__setitem__, changed, new))
    return tuple(out), new  # type: ignore[arg-type]


def _moved(
    instructions: Sequence[Instruction], lines: list[int], starts: list[int], first_line: int
) -> Iterator[Instruction]:
    """``instructions``, each made again (in C) to stand on the body's line of
    the same index in ``lines`` (``starts``: where each line starts)."""
    spans = listed(map(_SPAN_OF, instructions))
    at = listed(map(add, map(starts.__getitem__, lines), repeat(2)))  # after the indentation
    ends = map(add, at, map(sub, map(_END, spans), map(_OFFSET, spans)))
    numbers = map(add, lines, repeat(first_line))
    moved = map(tuple.__new__, repeat(Span), zip(numbers, repeat(3), at, ends))
    columns = [map(get, instructions) for get in _FIELDS[:6]]
    rest = (map(get, instructions) for get in _FIELDS[7:])
    return map(tuple.__new__, repeat(Instruction), zip(*columns, moved, *rest, strict=True))


def _checked_calls(
    old: tuple[Instruction, ...],
    old_calls: tuple[str, ...] | None,
    gone: list[Instruction],
    new: list[Instruction],
    instructions: tuple[Instruction, ...],
) -> tuple[str, ...] | None:
    """The checks of the fast path over the body now made of ``instructions``
    (the previous version's, ``old``, checked, calling ``old_calls``, but for
    those ``gone``, and those ``new``): what it calls (as many times as its
    instructions do), or None if anything is wrong."""
    if old_calls is None:
        return None
    roots = sum(map(_IS_ROOT, old)) - sum(map(_IS_ROOT, gone)) + sum(map(_IS_ROOT, new))
    if roots > 1:
        return None  # two ROOTs
    new_names = set(map(_NAME_OF, new))
    gone_names = set(map(_NAME_OF, gone))
    old_names = set(map(_NAME_OF, old))
    if len(new_names) != len(new) or any(
        name in old_names and name not in gone_names for name in new_names
    ):
        return None  # a name defined twice
    if "parameter" in map(_OPCODE_OF, chain(gone, new)):
        # Parameters: the numbers as printed (checked digits for the new lines).
        opcodes = map(_OPCODE_OF, instructions)
        numbers = list(compress(map(_PAYLOAD_OF, instructions), map("parameter".__eq__, opcodes)))
        if numbers and not numbered_from_zero(numbers):
            return None
    for name in chain.from_iterable(map(_OPERANDS_OF, new)):
        if name not in new_names and (name not in old_names or name in gone_names):
            return None  # an operand no line defines
    removed = gone_names - new_names
    if removed and not removed.isdisjoint(chain.from_iterable(map(_OPERANDS_OF, instructions))):
        return None  # a line that is gone is used
    calling = CALLING_OPCODES.__contains__
    went = calls_of(compress(map(_ATTRIBUTES_OF, gone), map(calling, map(_OPCODE_OF, gone))))
    came = calls_of(compress(map(_ATTRIBUTES_OF, new), map(calling, map(_OPCODE_OF, new))))
    if went is None or came is None:
        return None
    calls = Counter(old_calls)
    calls.subtract(went)
    calls.update(came)
    return tuple(calls.elements())


def _nothing() -> None:
    pass
