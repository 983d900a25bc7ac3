"""Runs of small computations read by the fast path at once.

A mixture of experts, a U-Net or a scanned model prints 10,000-14,000
computations of 7-24 lines each (fused computations, reducers, loop bodies).
`parse_fast_computation` reads one in some thirty small calls into C, each
costing what it costs on a 7-line body as on a 7,000-line one: 40 µs a
computation, most of the parse of such a module. Here the computations that
follow one another, with only blank space between them, are framed one by
one (their header and closing lines), and their bodies are then read as one:
one regular expression over the run, and `printed._check`'s tests over
the columns of the whole run, each computation's rows told apart by where
its lines fall. A run the whole-run tests pass gives, computation by
computation, what `parse_fast_computation` gives; any doubt (a line that
does not match, a name two of its computations define, an operand another
computation defines, parameters not numbered from 0, an inline computation)
reads the run's computations one at a time, which says exactly which of them
the careful parser takes. On a mixture of experts' optimized module (13,568
computations) the parse takes 0.54-0.65 of XLA's where it took 0.83-0.92.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from itertools import chain, compress, repeat
from operator import and_, not_
from typing import NamedTuple

from xlaview.hlo.interpreted import bad_values
from xlaview.hlo.model import Span
from xlaview.hlo.parse.parsed import _INDEX_COMMENT, PAYLOAD_OPCODES, ParsedComputation, Row
from xlaview.hlo.parse.printed import (
    _HEADER,
    _LINE,
    CALLING_OPCODES,
    Deferral,
    calls_of,
    frame,
    framed_computation,
    parse_fast_computation,
    payloads_read,
    shapes_read,
)
from xlaview.hlo.parse.reuse import PreviousModule
from xlaview.hlo.parse.store import ComputationStore, text_key

# A run's text, read by one regular expression call (`scan.SLICE`: a few ms).
RUN_CHARS = 1 << 15
_BLANK = re.compile(r"[ \t\r\n]*")


class _Framed(NamedTuple):
    """A computation of a run: where it stands and its header's parts."""

    pos: int
    close: int
    end: int
    line: int
    header: re.Match[str]
    body: int
    attribute_text: str
    span_end: int
    lines: int
    key: bytes  # in the store (b"": no store)


class RunParser:
    """The runs of computations a parse reads at once (`read`). A run holds
    none the parse takes from elsewhere: the ``previous`` module's (any of a
    name it has: it may repeat it), the ``store``'s, which gets the rest, and
    those a ``deferral`` leaves unread."""

    __slots__ = ("deferral", "previous", "refused", "refused_until", "store", "text")

    def __init__(
        self,
        text: str,
        store: ComputationStore | None = None,
        previous: PreviousModule | None = None,
        deferral: Deferral | None = None,
    ) -> None:
        self.text = text
        self.store = store
        self.previous = previous
        self.deferral = deferral
        # No run is tried before ``refused_until``: past the last run refused
        # by a stretch that doubles with each run refused in a row (to 1 MB).
        # An old dump prints operand shapes in operand lists, which the fast
        # path refuses: each of its computations framed and read a run, and
        # its parse took twice as long.
        self.refused = 0
        self.refused_until = -1

    def read(self, pos: int, line: int) -> list[ParsedComputation]:
        """The computations from the header at ``pos`` (on ``line``) on, as
        `parse_fast_computation` parses them, as many as a run holds (one
        alone too: framed already, it is not framed again the usual way);
        none when the first is not one a run reads (read it the usual way)."""
        if pos < self.refused_until:
            return []
        run = self._frame_run(pos, line)
        if not run:
            return []
        whole = parse_run(self.text, run) if len(run) > 1 else None
        parsed = whole
        if parsed is None:  # one at a time, up to the first the fast path refuses
            parsed = []
            for f in run:
                one = parse_fast_computation(self.text, f.pos, f.close, f.end, f.line)
                if one is None:
                    break
                parsed.append(one)
        if (whole is None and len(run) > 1) or not parsed:  # refused
            self.refused += 1
            self.refused_until = run[-1].end + (RUN_CHARS << min(self.refused, 5)) - RUN_CHARS
        else:
            self.refused = 0
        if self.store is not None:
            for f, one in zip(run, parsed, strict=False):
                self.store.put(f.key, one, missed=True)
        return parsed

    def _frame_run(self, pos: int, line: int) -> list[_Framed]:
        """The computations from ``pos`` on that a run reads: each framed
        as the fast path frames it (`ComputationEnds`, `frame`), only blank
        space between them, within `RUN_CHARS` of ``pos``."""
        text = self.text
        find = text.find
        limit = min(pos + RUN_CHARS, len(text))
        new = tuple.__new__
        run: list[_Framed] = []
        while True:
            header_end = find("\n", pos, limit)
            if header_end < 1 or text[header_end - 1] != "{":
                return run
            close = find("\n}", header_end, limit)
            if close < 0:
                return run
            end = find("\n", close + 2, limit)
            if end < 0:
                if limit < len(text):
                    return run
                end = limit
            if self.deferral is not None and self.deferral.defers(pos):
                return run
            if self.previous is not None and self.previous.has_name(pos):
                return run
            header = _HEADER.match(text, pos, end)
            if header is None or header.end() - 1 > close:
                return run
            body = header.end()
            span_end = close + 2
            attribute_text = ""
            if span_end < end and not text[span_end:end].isspace():
                after = frame(text, pos, close, end)  # attributes after the brace
                if after is None:
                    return run
                _, _, attribute_text, span_end = after
            key = b""
            if self.store is not None:
                key = text_key(text, pos, end)
                if key in self.store:
                    return run
            lines = text.count("\n", body, close) + 1 if close >= body else 0
            # (tuple.__new__: a NamedTuple's own __new__ is Python, 1 µs a computation.)
            framed = (pos, close, end, line, header, body, attribute_text, span_end, lines, key)
            run.append(new(_Framed, framed))
            # The next header: after blank space only, at a line start.
            nxt = _BLANK.match(text, span_end).end()  # type: ignore[union-attr]
            if nxt >= limit or text[nxt - 1] != "\n":
                return run
            line += text.count("\n", pos, nxt)
            pos = nxt


def parse_run(text: str, run: list[_Framed]) -> list[ParsedComputation] | None:
    """`parse_fast_computation` of each computation of ``run``, read as one;
    None when a test over the whole run fails (read them one at a time then).

    Between two computations of a run stand a closing line (``}``), blank
    lines and a header line (no indentation), none of which the line pattern
    matches: so the matches over the run are those of each body in turn, and
    if there are as many as the bodies have lines, each line matched once."""
    bodies = [f.body for f in run]
    closes = [f.close for f in run]
    # Braces that open on one line and close on another (see parse_fast_computation).
    if list(map(text.count, repeat("{"), bodies, closes)) != list(
        map(text.count, repeat("}"), bodies, closes)
    ):
        return None
    counts = [f.lines for f in run]
    start, stop = bodies[0], max(closes[-1], bodies[0])
    rows: list[Row] = _LINE.findall(text, start - 1, stop)
    if len(rows) != sum(counts):
        return None
    calls = _check_run(rows, counts)
    # (Headers and closing lines read too: a value there only costs the
    # reading one at a time.)
    if calls is None or bad_values(text, start, stop):
        return None
    out = []
    k = 0
    new = tuple.__new__
    for f, called in zip(run, calls, strict=True):
        span = new(Span, (f.line, 1, f.pos, f.span_end))
        lines = rows[k : k + f.lines]
        out.append(
            framed_computation(f.header, f.attribute_text, span, called, lines, f.body, f.close)
        )
        k += f.lines
    return out


def _check_run(rows: list[Row], counts: list[int]) -> list[tuple[str, ...]] | None:
    """`printed._check` of each computation of a run, whose rows are
    ``rows``, ``counts[c]`` of them the ``c``-th computation's: the
    computations each calls, or None when a test fails for the run as a
    whole (stricter than each computation's: names are unique in the run)."""
    if not rows:
        return [()] * len(counts)
    roots, names, shapes, opcodes, operand_texts, attributes = zip(*rows, strict=True)
    if len(set(names)) != len(names):
        return None  # a name defined twice, in one computation or two
    # The computation each row is in.
    owner = list(chain.from_iterable(map(repeat, range(len(counts)), counts)))
    rooted = list(compress(owner, roots))
    if len(set(rooted)) != len(rooted):
        return None  # two ROOTs in a computation
    if not shapes_read(shapes):
        return None
    payload_rows = list(map(PAYLOAD_OPCODES.__contains__, opcodes))
    if not payloads_read(compress(operand_texts, payload_rows)):
        return None
    parameters = list(map("parameter".__eq__, opcodes))
    numbers = list(compress(operand_texts, parameters))
    if numbers and not _numbered_from_zero(numbers, list(compress(owner, parameters))):
        return None
    used_rows = list(map(and_, map(not_, payload_rows), map(bool, operand_texts)))
    used_texts = list(compress(operand_texts, used_rows))
    if used_texts and not _defined_in_own(names, owner, used_texts, compress(owner, used_rows)):
        return None
    calling = list(map(CALLING_OPCODES.__contains__, opcodes))
    calls: list[tuple[str, ...]] = [()] * len(counts)
    callers = list(compress(owner, calling))
    if callers:
        texts = list(compress(attributes, calling))
        first = 0
        for k in range(1, len(callers) + 1):
            if k == len(callers) or callers[k] != callers[first]:
                called = calls_of(texts[first:k])
                if called is None:
                    return None
                calls[callers[first]] = called
                first = k
    return calls


def _numbered_from_zero(numbers: list[str], owners: list[int]) -> bool:
    """`printed.numbered_from_zero` of each computation's parameter numbers
    (as printed, in text order; ``owners``: the computation of each, in
    order): a stricter test, 0 to n - 1 written as XLA writes them."""
    expected = list(map(str, chain.from_iterable(map(range, Counter(owners).values()))))
    if numbers == expected:
        return True
    # A fused computation's parameters print in the order they are used.
    return sorted(zip(owners, numbers, strict=True)) == sorted(zip(owners, expected, strict=True))


def _defined_in_own(
    names: tuple[str, ...], owner: list[int], used_texts: list[str], used_owners: Iterable[int]
) -> bool:
    """Whether every operand list (as printed, none empty) names only
    instructions of its own computation (names unique in the run)."""
    joined = ", ".join(used_texts)
    if "/" in joined:  # XLA numbers long operand lists: /*index=5*/
        joined = _INDEX_COMMENT.sub("", joined)
    if joined[0] != "%":
        return False
    where = dict(zip(names, owner, strict=True))
    found = list(map(where.get, joined[1:].split(", %")))
    # Operands of a list: its '%'s (a name holds none).
    lengths = map(str.count, used_texts, repeat("%"))
    return found == list(chain.from_iterable(map(repeat, used_owners, lengths)))
