"""What a compiler pass changed: instructions added, removed and changed
between two HLO modules (usually a pass dump and the one before it).

Instructions are matched by computation and name, then, where a pass renamed
them, by structure (same opcode, shape and matched operands). A fusion that a
pass created lists the instructions it absorbed: removed ones whose clones
(same opcode and name root, or same op_name and shape) are in its body.

Only computations whose text changed are compared: a pass changes a few of a
module's thousands, and two passes parsed with one `ComputationStore` share
the parse of every computation they print alike.
"""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress, count
from operator import and_, eq, itemgetter, not_
from typing import Any

from xlaview.analysis.matching.structure import match_by_operands
from xlaview.collector import gc_paused
from xlaview.hlo import Computation, Instruction, Module
from xlaview.turns import dict_of, listed

CHECK_EVERY = 2048  # instructions between checks that nobody stopped a diff
FUSIONS_BETWEEN_CHECKS = 64  # new fusions (a fused body built for some)
_NAME, _OPERANDS = itemgetter(0), itemgetter(3)
# What an untouched instruction has as before: opcode, shape, operands, attributes.
_COMPARED = itemgetter(1, 2, 3, 7)
_SUFFIX = re.compile(r"(\.(\d+|clone|remat\d*|cloned))+$")


@dataclass(frozen=True, slots=True)
class Change:
    computation: str
    name: str
    old_name: str | None  # when matched by structure under another name
    aspects: tuple[str, ...]  # "opcode", "shape", "layout", "operands", "attributes"
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class Added:
    computation: str
    name: str
    opcode: str
    shape: str
    absorbed: tuple[str, ...] = ()  # for a new fusion: the instructions it took in


@dataclass(frozen=True, slots=True)
class Removed:
    computation: str
    name: str
    opcode: str
    shape: str
    absorbed_into: str | None = None


@dataclass(frozen=True, slots=True)
class ModuleDiff:
    added: tuple[Added, ...]
    removed: tuple[Removed, ...]
    changed: tuple[Change, ...]
    computations_added: tuple[str, ...]
    computations_removed: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.added) + len(self.removed) + len(self.changed)

    @property
    def empty(self) -> bool:
        return self.size == 0 and not self.computations_added and not self.computations_removed

    def to_json(self) -> dict[str, Any]:
        return {
            "added": [
                {
                    "computation": a.computation,
                    "name": a.name,
                    "opcode": a.opcode,
                    "shape": a.shape,
                    "absorbed": list(a.absorbed),
                }
                for a in self.added
            ],
            "removed": [
                {
                    "computation": r.computation,
                    "name": r.name,
                    "opcode": r.opcode,
                    "shape": r.shape,
                    "absorbed_into": r.absorbed_into,
                }
                for r in self.removed
            ],
            "changed": [
                {
                    "computation": c.computation,
                    "name": c.name,
                    "old_name": c.old_name,
                    "aspects": list(c.aspects),
                    "before": c.before,
                    "after": c.after,
                }
                for c in self.changed
            ],
            "computations_added": list(self.computations_added),
            "computations_removed": list(self.computations_removed),
        }


def _root(name: str) -> str:
    return _SUFFIX.sub("", name)


def _attributes(instr: Instruction) -> dict[str, str]:
    # Metadata and backend configs churn without meaning; the rest is semantics.
    return {k: v for k, v in instr.attributes.items() if k not in ("metadata", "backend_config")}


def _line(instr: Instruction) -> str:
    ops = ", ".join(instr.operand_names)
    return f"{instr.name} = {instr.shape} {instr.opcode}({ops}){instr.attribute_text}"


def _compare(
    a: Instruction, b: Instruction, mapping: dict[str, str], renamed: dict[str, str] | None = None
) -> tuple[str, ...]:
    """What differs between ``a`` (old) and ``b`` (new); ``renamed`` holds the
    entries of ``mapping`` whose names differ (found from ``mapping`` if None)."""
    if renamed is None:
        renamed = {n: o for n, o in mapping.items() if n != o}
    aspects = []
    if a.opcode != b.opcode:
        aspects.append("opcode")
    if a.shape != b.shape:
        sa, sb = a.shape, b.shape
        if sa.element_type == sb.element_type and sa.dims == sb.dims:
            aspects.append("layout")
        else:
            aspects.append("shape")
    # Operand names read through the renames (a tuple compare in C when none applies).
    if renamed.keys().isdisjoint(b.operand_names):
        operands_differ = b.operand_names != a.operand_names
    else:
        operands_differ = tuple(mapping.get(o, o) for o in b.operand_names) != a.operand_names
    if operands_differ:
        aspects.append("operands")
    if a.attribute_text != b.attribute_text and _attributes(a) != _attributes(b):
        aspects.append("attributes")
    return tuple(aspects)


def diff_modules(
    old: Module, new: Module, progress: Callable[[float], None] | None = None
) -> ModuleDiff:
    """What changed from ``old`` to ``new``. ``progress`` hears the share of
    computations compared before each one that changed (raising there stops
    the work: the window's user stepped to another pass)."""
    # No collection while the records are made (`xlaview.collector`): the
    # 30,000 of a fusion pass's diff set off collections that walked both
    # modules, half the diff's time.
    with gc_paused():
        return _diff_modules(old, new, progress)


def _diff_modules(old: Module, new: Module, progress: Callable[[float], None] | None) -> ModuleDiff:
    old_comps = {c.name: c for c in old.computations}
    new_comps = {c.name: c for c in new.computations}
    added: list[Added] = []
    removed: list[Removed] = []
    changed: list[Change] = []
    for k, (name, comp) in enumerate(new_comps.items()):
        before = old_comps.get(name)
        if before is None or _same_text(old, before, new, comp):
            continue
        check = _no_check
        if progress is not None:
            fraction = k / len(new_comps)
            progress(fraction)
            check = functools.partial(progress, fraction)
        a, gone, c, mapping = _diff_computation(before, comp, check)
        a, r = _absorptions(before, comp, mapping, a, gone, new_comps, check)
        added += a
        removed += r
        changed += c
    return ModuleDiff(
        tuple(added),
        tuple(removed),
        tuple(changed),
        tuple(n for n in new_comps if n not in old_comps),
        tuple(n for n in old_comps if n not in new_comps),
    )


def _same_text(old: Module, a: Computation, new: Module, b: Computation) -> bool:
    """Whether two computations are printed alike, so that nothing changed.

    Only for computations of the fast path, whose parse depends on their text
    alone (the careful path names inline computations in module order)."""
    if a.parsed is None or b.parsed is None:
        return False
    if a.parsed is b.parsed:
        return True
    sa, sb = a.span, b.span
    return sa.end - sa.offset == sb.end - sb.offset and (
        old.text[sa.offset : sa.end] == new.text[sb.offset : sb.end]
    )


def _no_check() -> None:
    pass


def _diff_computation(
    old: Computation, new: Computation, check: Callable[[], None] = _no_check
) -> tuple[list[Added], list[Instruction], list[Change], dict[str, str]]:
    """The instructions added, those of ``old`` gone (made `Removed` once
    `_absorptions` knows which fusion took each in), the changes, and the
    new name of each old instruction matched. ``check()`` is called between
    the passes over every instruction and every `CHECK_EVERY` instructions
    compared (it may raise to stop: the fusion pass changes a 15k-instruction
    entry, 0.2 s of work)."""
    # Every instruction goes through map() and compress() in C, and only
    # those a pass touched through the loop in Python: a pass that changed a
    # few lines of a 40,000-op entry took 0.14 s here, comparing each pair
    # of the ops it left alone in Python.
    old_instructions, new_instructions = old.instructions, new.instructions
    old_names = listed(map(_NAME, old_instructions))
    new_names = listed(map(_NAME, new_instructions))
    check()  # (between passes in C over every instruction, 5-15 ms each on a 40,000-op entry)
    old_by = dict_of(zip(old_names, old_instructions, strict=True))
    new_by = dict_of(zip(new_names, new_instructions, strict=True))
    check()
    common = listed(filter(old_by.__contains__, new_by))
    mapping = dict_of(zip(common, common, strict=True))  # new name -> old name
    matched_old = set(mapping)
    check()
    if len(mapping) < len(new_by) and len(matched_old) < len(old_by):
        # Renamed instructions: same opcode and shape, operands already matched,
        # in text order (a few rounds: matches enable matches of their users).
        match_by_operands(
            old_instructions,
            new_instructions,
            mapping,
            matched_old,
            check=check,
            check_every=CHECK_EVERY,
        )
    added = [
        Added(new.name, i.name, i.opcode, str(i.shape))
        for i in compress(new_instructions, map(not_, map(mapping.__contains__, new_names)))
    ]
    gone = listed(compress(old_instructions, map(not_, map(matched_old.__contains__, old_names))))
    changes = []
    renamed = {n: o for n, o in mapping.items() if n != o}
    check()
    news = listed(map(new_by.__getitem__, mapping))
    olds = listed(map(old_by.__getitem__, mapping.values()))
    check()
    # The common case, untouched: the same name, the fields compared alike
    # (shapes are interned by the parser: a tuple compares them by identity
    # first), and no operand renamed.
    untouched = map(eq, map(_COMPARED, olds), map(_COMPARED, news))
    if renamed:
        untouched = map(and_, untouched, map(eq, mapping, mapping.values()))
        untouched = map(and_, untouched, map(renamed.keys().isdisjoint, map(_OPERANDS, news)))
    touched = listed(compress(range(len(news)), map(not_, untouched)))
    check()
    for k, at in enumerate(touched):
        if not k % CHECK_EVERY:
            check()
        a, b = olds[at], news[at]
        aspects = _compare(a, b, mapping, renamed)
        if aspects:
            changes.append(
                Change(
                    new.name,
                    b.name,
                    a.name if a.name != b.name else None,
                    aspects,
                    _line(a),
                    _line(b),
                )
            )
    return added, gone, changes, mapping


def _absorptions(
    old: Computation,
    new: Computation,
    mapping: dict[str, str],
    added: list[Added],
    gone: list[Instruction],
    comps: dict[str, Computation],
    check: Callable[[], None] = _no_check,
) -> tuple[list[Added], list[Removed]]:
    """Which removed instructions (``gone``) each new fusion took in
    (``check()`` called now and then, as in `_diff_computation`: the fusion
    pass of a mixture of experts, 7,000 new fusions, takes 0.3 s here).

    A new fusion replaces the old instructions its users used to read: from
    those, walk back over operands through removed instructions; the walk stops
    at instructions that still exist (the fusion's operands). Each `Removed`
    is made once, knowing its fusion: made twice, the 25,000 an unfused
    entry's fusion pass removes took a tenth of a second more.
    """
    shapes = [str(i.shape) for i in gone]
    if not any(a.opcode == "fusion" for a in added):
        return added, _removed(old, gone, shapes, {})
    removed_names = {i.name for i in gone}
    users: dict[str, list[Instruction]] = {}
    tick = _every(check, CHECK_EVERY)
    for instr in new.instructions:
        tick()
        for operand in instr.operand_names:
            users.setdefault(operand, []).append(instr)
    new_root, old_root = new.root, old.root
    ends = (new_root.name if new_root else None, old_root.name if old_root else None)
    roots = {}
    tick = _every(check, FUSIONS_BETWEEN_CHECKS)
    for a in added:
        if a.opcode == "fusion":
            tick()
            roots[a.name] = _replaced_roots(new.instruction(a.name), ends, old, mapping, users)
    # A fusion read only by other new fusions has no old reader to ask: its
    # root is the removed instruction its body's root was cloned from.
    claimed = {root: fusion for fusion, rs in roots.items() for root in rs}
    # Removed instructions by (opcode, shape), in order, each taken once: a
    # scan of all of them per fusion was quadratic (the fusion pass of a
    # mixture of experts, 7,000 new fusions: 24 s).
    alike: dict[tuple[str, str], deque[str]] = {}
    for i, shape in zip(gone, shapes, strict=True):
        alike.setdefault((i.opcode, shape), deque()).append(i.name)
    for a in added:
        if a.name in roots and not roots[a.name]:
            tick()  # (each builds a fused body)
            body_root = _body_root(new.instruction(a.name), comps)
            if body_root is None:
                continue
            candidates = alike.get((body_root.opcode, str(body_root.shape)), deque())
            while candidates and candidates[0] in claimed:
                candidates.popleft()
            if candidates:
                name = candidates.popleft()
                roots[a.name] = {name}
                claimed[name] = a.name
    order = {i.name: k for k, i in enumerate(old.instructions)}
    taken: dict[str, str] = {}
    out_added = []
    for a in added:
        tick()
        if a.name not in roots:
            out_added.append(a)
            continue
        absorbed = []
        stack = [r for r in roots[a.name] if r in removed_names]
        while stack:
            name = stack.pop()
            if name in taken or name not in removed_names or claimed.get(name, a.name) != a.name:
                continue
            taken[name] = a.name
            absorbed.append(name)
            stack.extend(old.instruction(name).operand_names)
        absorbed.sort(key=lambda n: order.get(n, 0))
        out_added.append(Added(a.computation, a.name, a.opcode, a.shape, tuple(absorbed)))
    return out_added, _removed(old, gone, shapes, taken)


def _every(check: Callable[[], None], n: int) -> Callable[[], None]:
    """A function that calls ``check()`` every ``n``-th time it is called."""
    calls = count(1)

    def tick() -> None:
        if not next(calls) % n:
            check()

    return tick


def _removed(
    old: Computation, gone: list[Instruction], shapes: list[str], taken: dict[str, str]
) -> list[Removed]:
    """The instructions ``gone`` from ``old`` (their ``shapes`` as text), each
    with the fusion that ``taken`` says took it in, if one did."""
    return [
        Removed(old.name, i.name, i.opcode, shape, taken.get(i.name))
        for i, shape in zip(gone, shapes, strict=True)
    ]


def _body_root(fusion: Instruction, comps: dict[str, Computation]) -> Instruction | None:
    for name in fusion.called_computations:
        if name in comps:
            return comps[name].root
    return None


def _replaced_roots(
    fusion: Instruction,
    ends: tuple[str | None, str | None],
    old: Computation,
    mapping: dict[str, str],
    users: dict[str, list[Instruction]],
) -> set[str]:
    """Old instructions whose place a new instruction took (its users' old
    operands); ``ends``: the names of the new and the old computation's ROOT."""
    roots: set[str] = set()
    frontier = [fusion.name]
    seen = set()
    while frontier:
        name = frontier.pop()
        if name in seen:
            continue
        seen.add(name)
        if ends[0] == name and ends[1] is not None:
            roots.add(ends[1])
        for user in users.get(name, []):
            old_user = mapping.get(user.name)
            if old_user is None:
                if user.opcode in ("get-tuple-element", "bitcast", "tuple"):
                    frontier.append(user.name)  # look through to the real readers
                continue
            old_operands = old.instruction(old_user).operand_names
            for k, operand in enumerate(user.operand_names):
                if operand == name and k < len(old_operands):
                    roots.add(old_operands[k])
    return roots
