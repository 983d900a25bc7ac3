"""Fusions one module split or merged against another, found from what their
bodies compute: the metadata keys (``op_name`` and source line) of the
instructions inside.

An op of ``b`` *takes in* an op of ``a`` when at least half of the ``a`` op's
keys are among its own; several ``a`` ops taken in by one ``b`` op are a
merge (XLA:CPU's library fusion takes in a whole attention). A split is the
reverse: one ``a`` op taking in several of ``b``. Each op goes to the one
counterpart that holds the most of its keys (its own match first, then the
nearest in text order: a layer stack repeats every key). Unmatched ops
next to the members of a group (a convert, a reduce-window step: often
without metadata; a constant the other side's fusion holds inside) join it
when what they read or what reads them is all in it; so do those next to a
changed op matched one to one, which makes that match a merge or a split too.
Only ops whose work changed take part: an op whose counterpart has its
opcode, shape and body is its own counterpart.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from xlaview.analysis.matching.facts import (
    PLUMBING,
    MetadataKey,
    MetadataKeys,
    moves_data,
    ordered,
)
from xlaview.hlo import Instruction, Module


@dataclass(frozen=True, slots=True)
class Regroup:
    """Ops ``a`` of the first module did the work of ops ``b`` of the second:
    a split has one ``a`` and several ``b``, a merge the reverse."""

    a: tuple[str, ...]
    b: tuple[str, ...]


def regroup(
    a: Module,
    b: Module,
    ia: tuple[Instruction, ...],
    ib: tuple[Instruction, ...],
    a2b: dict[str, str],
    b2a: dict[str, str],
    settled: set[str],
    keys_a: MetadataKeys,
    keys_b: MetadataKeys,
) -> tuple[tuple[Regroup, ...], tuple[Regroup, ...]]:
    """(splits, merges) of the entry ops ``ia`` of ``a`` and ``ib`` of ``b``,
    matched as ``a2b`` / ``b2a``; ``settled``: the ops of ``a`` whose
    counterparts do the same work, left out. Ops that only move data
    (`moves_data`: copies, transposes, collectives) are changes of their own,
    never parts of a split or merge."""
    settled_b = {a2b[x] for x in settled}
    ka = {
        i.name: k
        for i in ia
        if i.name not in settled and not moves_data(a, i) and (k := _keys(i, keys_a))
    }
    kb = {
        i.name: k
        for i in ib
        if i.name not in settled_b and not moves_data(b, i) and (k := _keys(i, keys_b))
    }
    pos_a = {i.name: n for n, i in enumerate(ia)}
    pos_b = {i.name: n for n, i in enumerate(ib)}
    place_a = {name: n / max(len(ia), 1) for name, n in pos_a.items()}
    place_b = {name: n / max(len(ib), 1) for name, n in pos_b.items()}
    merged = _takers(ka, kb, a2b, place_a, place_b)
    merges = {g: parts for g, parts in merged.items() if len(parts) >= 2}
    used_a = {x for parts in merges.values() for x in parts}
    split = _takers(
        {y: k for y, k in kb.items() if y not in merges},
        {x: k for x, k in ka.items() if x not in used_a},
        b2a,
        place_b,
        place_a,
    )
    splits = {f: parts for f, parts in split.items() if len(parts) >= 2}
    taken_a = used_a | set(splits)
    taken_b = set(merges) | {y for parts in splits.values() for y in parts}
    out_merges = []
    for g, parts in sorted(merges.items(), key=lambda item: pos_b[item[0]]):
        members = _widen(set(parts), a, ia, a2b, taken_a)
        taken_a |= members
        out_merges.append(Regroup(ordered(members, pos_a), (g,)))
    out_splits = []
    for f, parts in sorted(splits.items(), key=lambda item: pos_a[item[0]]):
        members = _widen(set(parts), b, ib, b2a, taken_b)
        taken_b |= members
        out_splits.append(Regroup((f,), ordered(members, pos_b)))
    # A changed op matched one to one may still have taken in unmatched ops
    # with no metadata of their own (the reduce-window steps of a reduce).
    for i in ia:
        x = i.name
        y = a2b.get(x)
        if y is None or x in settled or x in taken_a or y in taken_b:
            continue
        fused_b = b.entry is not None and b.entry.instruction(y).opcode == "fusion"
        members = _widen({x}, a, ia, a2b, taken_a) if fused_b else {x}
        if len(members) > 1:
            taken_a |= members
            taken_b.add(y)
            out_merges.append(Regroup(ordered(members, pos_a), (y,)))
            continue
        members = _widen({y}, b, ib, b2a, taken_b) if i.opcode == "fusion" else {y}
        if len(members) > 1:
            taken_a.add(x)
            taken_b |= members
            out_splits.append(Regroup((x,), ordered(members, pos_b)))
    out_merges.sort(key=lambda g: pos_b[g.b[0]])
    out_splits.sort(key=lambda g: pos_a[g.a[0]])
    return tuple(out_splits), tuple(out_merges)


def _keys(instr: Instruction, keys: MetadataKeys) -> set[MetadataKey]:
    if instr.opcode in PLUMBING:
        return set()
    return keys.of_body(instr)


def _takers(
    parts: dict[str, set[MetadataKey]],
    wholes: dict[str, set[MetadataKey]],
    matched: dict[str, str],
    place_parts: dict[str, float],
    place_wholes: dict[str, float],
) -> dict[str, list[str]]:
    """Each whole (an op of the other side) and the parts it takes in: the
    parts at least half of whose keys it holds, each part given to one whole
    (the most keys, its own match, the nearest in text order)."""
    holders: dict[MetadataKey, list[str]] = {}
    for whole, keys in wholes.items():
        for key in keys:
            holders.setdefault(key, []).append(whole)
    out: dict[str, list[str]] = {}
    for part, keys in parts.items():
        held = Counter(w for key in keys for w in holders.get(key, ()))
        if not held:
            continue
        best = max(
            held,
            key=lambda w: (
                held[w],
                matched.get(part) == w,
                -abs(place_wholes[w] - place_parts[part]),
            ),
        )
        if 2 * held[best] >= len(keys):
            out.setdefault(best, []).append(part)
    return out


def _widen(
    members: set[str],
    module: Module,
    side: tuple[Instruction, ...],
    matched: dict[str, str],
    taken: set[str],
) -> set[str]:
    """``members`` with the unmatched ops between them or after them: those
    whose users, or whose operands (constants and parameters aside), are all
    members, none of them matched or in another group, nor moving data. A
    constant joins when all its readers are members (the other side's fusion
    holds it in its body); a parameter never does."""
    by = {i.name: i for i in side}
    users: dict[str, list[str]] = {}
    for i in side:
        for o in i.operand_names:
            users.setdefault(o, []).append(i.name)
    work = list(members)
    while work:
        name = work.pop()
        instr = by[name]
        for other in (*instr.operand_names, *users.get(name, ())):
            if other in members or other in matched or other in taken or other not in by:
                continue
            candidate = by[other]
            if candidate.opcode == "parameter" or moves_data(module, candidate):
                continue
            readers = users.get(other, ())
            inputs = [
                o
                for o in candidate.operand_names
                if o in by and by[o].opcode not in ("parameter", "constant")
            ]
            if (readers and all(r in members for r in readers)) or (
                inputs and all(o in members for o in inputs)
            ):
                members.add(other)
                work.append(other)
    return members
