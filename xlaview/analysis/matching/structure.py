"""Matching instructions by structure, the way XLA's ``hlo_diff`` does it:
fingerprints of an instruction's neighbourhood (its opcode and shape with the
fingerprints of its operands, top-down from the parameters, or of its users,
bottom-up from the root), and growing matches along the edges of those already
made (an unmatched operand or user of a matched pair, of the same opcode and
shape as its counterpart's).

Everything here walks the text order or a worklist: never recursion on the
depth of a graph (a 48-layer train step is thousands of ops deep).

`match_by_operands` is also how a pass diff finds what a pass renamed
(`xlaview.analysis.passes.diff`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence

from xlaview.hlo import Instruction, Shape

ShapeKey = Callable[[Shape], Hashable]
# An instruction's users, each with the operand place it reads it at.
Users = dict[str, list[tuple[str, int]]]


def _same(shape: Shape) -> Hashable:
    return shape


def _no_check() -> None:
    pass


def array_key(shape: Shape) -> Hashable:
    """A shape without its layout: element type and dimensions (a tuple's of
    each element), so that a changed layout still matches."""
    if shape.is_tuple:
        return tuple((e.element_type, e.dims) for e in shape.elements)
    return (shape.element_type, shape.dims)


def match_by_operands(
    old: Sequence[Instruction],
    new: Sequence[Instruction],
    mapping: dict[str, str],
    matched_old: set[str],
    *,
    shape_key: ShapeKey = _same,
    rounds: int = 3,
    check: Callable[[], None] = _no_check,
    check_every: int = 2048,
) -> None:
    """Match unmatched ``new`` instructions to unmatched ``old`` ones of the
    same opcode and shape whose operands are the old ones' counterparts, in
    text order (a match lets its users match later in the same walk), for a
    few ``rounds``. ``mapping`` (new name -> old name) and ``matched_old`` grow
    in place. An instruction without operands matches the first unmatched one
    of its opcode and shape. ``check()`` is called every ``check_every``
    instructions (it may raise to stop)."""
    for _ in range(rounds):
        unmatched_old = [i for i in old if i.name not in matched_old]
        if not unmatched_old:
            return
        candidates: dict[tuple[str, Hashable, tuple[str, ...]], list[Instruction]] = {}
        for i in unmatched_old:
            key = (i.opcode, shape_key(i.shape), i.operand_names)
            candidates.setdefault(key, []).append(i)
        progress = False
        for k, instr in enumerate(new):
            if not k % check_every:
                check()
            if instr.name in mapping:
                continue
            operands = tuple(mapping.get(o, "?") for o in instr.operand_names)
            if "?" in operands and instr.operand_names:
                continue
            pool = candidates.get((instr.opcode, shape_key(instr.shape), operands))
            if pool:
                mapping[instr.name] = old_name = pool.pop(0).name
                matched_old.add(old_name)
                progress = True
        if not progress:
            return


def fingerprints(
    instructions: Sequence[Instruction],
    shape_key: ShapeKey,
    own: Callable[[Instruction], Hashable],
    *,
    downward: bool = False,
) -> dict[str, int]:
    """Each instruction's fingerprint: its opcode, shape and ``own(instr)``
    with its operands' fingerprints (the graph above it, from the parameters)
    or, ``downward``, its users' with the operand place each reads it at (the
    graph below it, from the root). One walk in text order (operands are
    printed before their users), or the reverse."""
    out: dict[str, int] = {}
    if not downward:
        for i in instructions:
            above = tuple(out.get(o, 0) for o in i.operand_names)
            out[i.name] = hash((i.opcode, shape_key(i.shape), own(i), above))
        return out
    below: dict[str, list[int]] = {}
    for i in reversed(instructions):
        users = below.pop(i.name, [])
        users.sort()
        out[i.name] = h = hash((i.opcode, shape_key(i.shape), own(i), tuple(users)))
        for k, o in enumerate(i.operand_names):
            below.setdefault(o, []).append(hash((h, k)))
    return out


def unique_pairs(
    a: Iterable[Instruction],
    b: Iterable[Instruction],
    keys_a: dict[str, int],
    keys_b: dict[str, int],
) -> list[tuple[str, str]]:
    """Pairs (a name, b name) whose key is held by one instruction on each
    side, in ``a``'s order."""
    by_a: dict[int, list[str]] = {}
    for i in a:
        by_a.setdefault(keys_a[i.name], []).append(i.name)
    by_b: dict[int, list[str]] = {}
    for i in b:
        by_b.setdefault(keys_b[i.name], []).append(i.name)
    pairs = []
    for key, names in by_a.items():
        other = by_b.get(key)
        if other is not None and len(names) == 1 and len(other) == 1:
            pairs.append((names[0], other[0]))
    return pairs


def grow(
    seeds: Iterable[tuple[str, str]],
    a_by: dict[str, Instruction],
    b_by: dict[str, Instruction],
    a2b: dict[str, str],
    b2a: dict[str, str],
    users_a: Users,
    users_b: Users,
    shape_key: ShapeKey,
) -> list[tuple[str, str]]:
    """Grow matches from matched pairs along their edges: an unmatched
    operand (or user) of a matched pair is matched to its counterpart's
    operand at the same place (the user reading them at the same place, one
    of its opcode on each side) when their opcodes and shapes agree; new
    pairs grow in turn. ``a2b`` and ``b2a`` grow in place; returns the pairs
    made."""
    made: list[tuple[str, str]] = []
    work = [
        (x, y)
        for x, y in seeds
        if _has_unmatched(a_by[x], users_a, a2b) and _has_unmatched(b_by[y], users_b, b2a)
    ]
    while work:
        x, y = work.pop()
        ix, iy = a_by[x], b_by[y]
        options: list[tuple[str, str]] = []
        if len(ix.operand_names) == len(iy.operand_names):
            options.extend(zip(ix.operand_names, iy.operand_names, strict=True))
        options.extend(_users_alike(users_a.get(x, ()), users_b.get(y, ()), a_by, b_by, a2b, b2a))
        for ox, oy in options:
            if ox in a2b or oy in b2a or ox not in a_by or oy not in b_by:
                continue
            px, py = a_by[ox], b_by[oy]
            if px.opcode != py.opcode or shape_key(px.shape) != shape_key(py.shape):
                continue
            a2b[ox], b2a[oy] = oy, ox
            made.append((ox, oy))
            work.append((ox, oy))
    return made


def _has_unmatched(instr: Instruction, users: Users, matched: dict[str, str]) -> bool:
    return any(o not in matched for o in instr.operand_names) or any(
        u not in matched for u, _ in users.get(instr.name, ())
    )


def _users_alike(
    ux: Iterable[tuple[str, int]],
    uy: Iterable[tuple[str, int]],
    a_by: dict[str, Instruction],
    b_by: dict[str, Instruction],
    a2b: dict[str, str],
    b2a: dict[str, str],
) -> list[tuple[str, str]]:
    """Unmatched users of a matched pair that read it at the same operand
    place with the same opcode, where that is one user on each side."""

    def places(
        users: Iterable[tuple[str, int]], by: dict[str, Instruction], matched: dict[str, str]
    ) -> dict[tuple[str, int], list[str]]:
        out: dict[tuple[str, int], list[str]] = {}
        for u, place in users:
            if u not in matched:
                out.setdefault((by[u].opcode, place), []).append(u)
        return out

    px = places(ux, a_by, a2b)
    if not px:
        return []
    py = places(uy, b_by, b2a)
    return [
        (names[0], py[key][0])
        for key, names in px.items()
        if len(names) == 1 and len(py.get(key, ())) == 1
    ]


def users_of(instructions: Iterable[Instruction]) -> Users:
    """Each instruction's users with the operand place they read it at, in
    text order."""
    users: Users = {}
    for i in instructions:
        for place, o in enumerate(i.operand_names):
            users.setdefault(o, []).append((i.name, place))
    return users
