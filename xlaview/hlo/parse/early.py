"""One computation of a module's text, read before the module is.

A pass step shows the computation the graph shows (the entry, or a fusion's
body the user opened) as soon as it can: its text is found and parsed alone,
through the `ComputationStore` the module's parse then takes it from, so
that both share one parse (and the graph drawn from it is the module's). Only
a computation laid out as XLA prints it is read this way; anything else
waits for the module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from xlaview.hlo.lines import find_at_line_start
from xlaview.hlo.model import Computation, Module, StackFrames
from xlaview.hlo.parse.edited import editable, parse_fast_edit
from xlaview.hlo.parse.printed import ComputationEnds, closing_line_end, stored_computation
from xlaview.hlo.parse.store import ComputationStore, text_key


def read_computation(
    text: str,
    name: str | None,
    store: ComputationStore | None = None,
    line_of: Callable[[int], int] | None = None,
    previous: Sequence[Module] = (),
) -> Computation | None:
    """The computation ``name`` of ``text`` (None: the ENTRY computation), or
    None when it is not printed there as XLA prints one. ``line_of``: the
    0-based line of an offset in ``text``, when known (else lines are counted). A big
    computation the store lacks is read from its version in the first of
    ``previous`` (other passes, the nearest first) where that one is built
    (`xlaview.hlo.parse.edited`)."""
    if name is None:  # XLA prints the entry last
        pos = 0 if text.startswith("ENTRY ") else text.rfind("\nENTRY ") + 1
        pos = pos if pos > 0 or text.startswith("ENTRY ") else -1
    else:
        pos = find_at_line_start(text, f"%{name} ", leads=("ENTRY ",))
    if pos < 0:
        return None
    # The entry, printed last, ends at the text's last closing line, which a
    # search from the end finds at once (a search from its header took 6 ms
    # of a 13 MB pass's step). Taken as its end when the store holds that
    # text: the fast path parsed it and found one closing line in it, its
    # last, where a search from ``pos`` would end too.
    last = _to_last_close(text, pos) if name is None and store is not None else None
    if last is not None and store is not None and last[2] in store:
        found: tuple[int, int] | None = last[:2]
    else:
        found = ComputationEnds(text).end(pos)
    if found is None:
        return None
    close, end = found
    key = last[2] if last is not None and last[:2] == found else None
    line = line_of(pos) + 1 if line_of is not None else text.count("\n", 0, pos) + 1
    edit = None
    for other in previous:
        if name is None:
            old = other.entry
        else:
            old = other.computation(name) if other.has_computation(name) else None
        if old is not None and editable(old):
            edit = partial(parse_fast_edit, text, pos, close, end, line, old, other.text)
            break
    stored = stored_computation(text, pos, close, end, line, store, edit=edit, key=key)
    if stored is None or (name is not None and stored[0].name != name):
        return None
    return Computation.from_parsed(*stored)


def _to_last_close(text: str, pos: int) -> tuple[int, int, bytes] | None:
    """The newline before the text's last closing line, the end of that line
    (as `ComputationEnds.end` gives them) and the `text_key` of the text
    from ``pos`` to there."""
    close = text.rfind("\n}", pos)
    if close < 0:
        return None
    end = closing_line_end(text, close)
    return close, end, text_key(text, pos, end)


def lone_module(text: str, computation: Computation) -> Module:
    """A module of ``text`` that holds ``computation`` alone: what a graph of
    it reads (its instructions) before the module is parsed."""
    return Module("", "", (computation,), StackFrames({}, {}, {}, {}), text)
