"""The ops of one module matched to another's: two dumps of one program
(another JAX or XLA, other flags, another sharding, another framework).

The ops are the entry computation's instructions, a fusion matched as a unit.
Layers, each taking what the ones before left:

1. ``name``: the same name printed alike (the called bodies included); then
   the same name, opcode and metadata key printed otherwise (a changed op);
2. ``metadata``: the same ``op_name`` and source line, which survive renames
   and new versions: one op on each side with that key, or, where a key is
   repeated (a layer stack), the candidate whose operands are the
   counterparts', else the nearest in text order;
3. ``structure``: entry parameters by number; fingerprints of the graph above
   an op (from the parameters) and below it (from the root) held by one op on
   each side; matches grown along the edges of those made (operands and
   users at the same places, the roots); ops whose operands' counterparts
   are the other's operands;
4. ``name`` again: what is left under one name and opcode.

Then the fusions one side split or merged (`regroup`). `InstructionMatching`
answers which op is another's counterpart, both ways.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xlaview.analysis.matching.facts import MetadataKey, MetadataKeys, aspects, same_text
from xlaview.analysis.matching.regroup import Regroup, regroup
from xlaview.analysis.matching.structure import (
    array_key,
    fingerprints,
    grow,
    match_by_operands,
    unique_pairs,
    users_of,
)
from xlaview.hlo import Instruction, Module

HOW = ("name", "metadata", "structure")
# What a match must have changed to take part in a split or a merge.
_REGROUPING = frozenset(("opcode", "shape", "body"))


@dataclass(frozen=True, slots=True)
class Match:
    """Op ``a`` of the first module is op ``b`` of the second, found by
    ``how`` (one of `HOW`); ``aspects`` say what differs (`facts.aspects`)."""

    a: str
    b: str
    how: str
    aspects: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.aspects)


class InstructionMatching:
    """The entry ops of module ``a`` matched to those of module ``b``.

    ``matches`` are in ``a``'s text order; ``splits`` (one op of ``a``, its
    work spread over several of ``b``) and ``merges`` (several of ``a`` in one
    of ``b``) are `Regroup`s; ``only_a`` and ``only_b`` are the ops neither
    matched nor in a split or merge, in text order.
    """

    __slots__ = (
        "_a2b",
        "_b2a",
        "_groups_a",
        "_groups_b",
        "computation_a",
        "computation_b",
        "matches",
        "merges",
        "only_a",
        "only_b",
        "splits",
    )

    def __init__(
        self,
        computation_a: str,
        computation_b: str,
        matches: tuple[Match, ...],
        splits: tuple[Regroup, ...],
        merges: tuple[Regroup, ...],
        only_a: tuple[str, ...],
        only_b: tuple[str, ...],
    ) -> None:
        self.computation_a, self.computation_b = computation_a, computation_b
        self.matches, self.splits, self.merges = matches, splits, merges
        self.only_a, self.only_b = only_a, only_b
        self._a2b = {m.a: m for m in matches}
        self._b2a = {m.b: m for m in matches}
        self._groups_a = {n: g for g in (*splits, *merges) for n in g.a}
        self._groups_b = {n: g for g in (*splits, *merges) for n in g.b}

    def in_b(self, name: str) -> Match | None:
        """The match of op ``name`` of ``a`` (None: unmatched)."""
        return self._a2b.get(name)

    def in_a(self, name: str) -> Match | None:
        """The match of op ``name`` of ``b`` (None: unmatched)."""
        return self._b2a.get(name)

    def group_in_b(self, name: str) -> Regroup | None:
        """The split or merge op ``name`` of ``a`` is part of, if any."""
        return self._groups_a.get(name)

    def group_in_a(self, name: str) -> Regroup | None:
        """The split or merge op ``name`` of ``b`` is part of, if any."""
        return self._groups_b.get(name)

    def counts(self) -> dict[str, int]:
        """How many matches each way found, and how many changed."""
        out = dict.fromkeys(HOW, 0)
        for m in self.matches:
            out[m.how] += 1
        out["changed"] = sum(1 for m in self.matches if m.aspects)
        return out

    def to_json(self) -> dict[str, Any]:
        """``matches`` (``a``, ``b``, ``how``, ``changed``, ``aspects``),
        ``splits`` and ``merges`` (``a``, ``b``), ``only_a``, ``only_b``."""
        return {
            "matches": [
                {"a": m.a, "b": m.b, "how": m.how, "changed": m.changed, "aspects": list(m.aspects)}
                for m in self.matches
            ],
            "splits": [{"a": g.a[0], "b": list(g.b)} for g in self.splits],
            "merges": [{"a": list(g.a), "b": g.b[0]} for g in self.merges],
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
        }


def _no_check() -> None:
    pass


def match_instructions(
    a: Module, b: Module, check: Callable[[], None] = _no_check
) -> InstructionMatching:
    """Match the entry ops of ``a`` to those of ``b`` (see the module's
    docstring). ``check()`` is called between layers (it may raise to stop)."""
    ea, eb = a.entry, b.entry
    if ea is None or eb is None:
        return InstructionMatching("", "", (), (), (), (), ())
    ia, ib = ea.instructions, eb.instructions
    a_by = {i.name: i for i in ia}
    b_by = {i.name: i for i in ib}
    a2b: dict[str, str] = {}
    b2a: dict[str, str] = {}
    how: dict[str, str] = {}

    def pair(x: str, y: str, way: str) -> None:
        a2b[x], b2a[y], how[x] = y, x, way

    exact: set[str] = set()
    for y in ib:
        x = a_by.get(y.name)
        if x is not None and same_text(a, x, b, y):
            pair(x.name, y.name, "name")
            exact.add(x.name)
    keys_a, keys_b = MetadataKeys(a), MetadataKeys(b)
    if len(exact) < max(len(ia), len(ib)):
        check()
        meta_a = {i.name: keys_a.of(i) for i in ia if i.name not in a2b}
        meta_b = {i.name: keys_b.of(i) for i in ib if i.name not in b2a}
        for y in ib:
            x = a_by.get(y.name)
            if (
                x is not None
                and y.name not in b2a
                and x.name not in a2b
                and x.opcode == y.opcode
                and meta_a[x.name] == meta_b[y.name]
            ):
                pair(x.name, y.name, "name")
        _by_metadata(ia, ib, a_by, b_by, meta_a, meta_b, a2b, b2a, pair)
        check()
        _by_structure(ia, ib, a_by, b_by, a2b, b2a, pair, (ea.root, eb.root))
        for y in ib:
            x = a_by.get(y.name)
            if x is not None and y.name not in b2a and x.name not in a2b and x.opcode == y.opcode:
                pair(x.name, y.name, "name")
    matches = tuple(
        Match(
            x.name,
            a2b[x.name],
            how[x.name],
            () if x.name in exact else aspects(a, x, b, b_by[a2b[x.name]], b2a),
        )
        for x in ia
        if x.name in a2b
    )
    splits: tuple[Regroup, ...] = ()
    merges: tuple[Regroup, ...] = ()
    if len(exact) < max(len(ia), len(ib)):
        check()
        # Ops whose work is the same (renamed, reading other names) are their
        # own counterparts: only the others can have split or merged.
        settled = {m.a for m in matches if _REGROUPING.isdisjoint(m.aspects)}
        splits, merges = regroup(a, b, ia, ib, a2b, b2a, settled, keys_a, keys_b)
    grouped_a = {n for g in (*splits, *merges) for n in g.a}
    grouped_b = {n for g in (*splits, *merges) for n in g.b}
    return InstructionMatching(
        ea.name,
        eb.name,
        matches,
        splits,
        merges,
        tuple(i.name for i in ia if i.name not in a2b and i.name not in grouped_a),
        tuple(i.name for i in ib if i.name not in b2a and i.name not in grouped_b),
    )


def _compatible(x: Instruction, y: Instruction) -> bool:
    """Ops one metadata key may pair: the same opcode, or the same dimensions
    (a dot that became a library fusion, a convert that changed type)."""
    return x.opcode == y.opcode or (
        not x.shape.is_tuple and not y.shape.is_tuple and x.shape.dims == y.shape.dims
    )


def _by_metadata(
    ia: tuple[Instruction, ...],
    ib: tuple[Instruction, ...],
    a_by: dict[str, Instruction],
    b_by: dict[str, Instruction],
    meta_a: dict[str, MetadataKey | None],
    meta_b: dict[str, MetadataKey | None],
    a2b: dict[str, str],
    b2a: dict[str, str],
    pair: Callable[[str, str, str], None],
) -> None:
    groups_a: dict[MetadataKey, list[str]] = {}
    for i in ia:
        key = meta_a.get(i.name)
        if key is not None and i.name not in a2b and i.opcode not in ("parameter", "constant"):
            groups_a.setdefault(key, []).append(i.name)
    groups_b: dict[MetadataKey, list[str]] = {}
    for i in ib:
        key = meta_b.get(i.name)
        if key is not None and i.name not in b2a and i.opcode not in ("parameter", "constant"):
            groups_b.setdefault(key, []).append(i.name)
    repeated = []
    for key, ys in groups_b.items():
        xs = groups_a.get(key)
        if not xs:
            continue
        if len(xs) == 1 and len(ys) == 1:
            if _compatible(a_by[xs[0]], b_by[ys[0]]):
                pair(xs[0], ys[0], "metadata")
        else:
            repeated.append((xs, ys))
    # A repeated key (the same line run for each layer): the candidate whose
    # operands are the counterparts', else the nearest in text order.
    place_a = {i.name: k / max(len(ia), 1) for k, i in enumerate(ia)}
    place_b = {i.name: k / max(len(ib), 1) for k, i in enumerate(ib)}
    for xs, ys in repeated:
        free = list(xs)
        for y in ys:
            iy = b_by[y]
            mapped = {b2a.get(o) for o in iy.operand_names} - {None}
            best, score = None, None
            for x in free:
                ix = a_by[x]
                if x in a2b or not _compatible(ix, iy):
                    continue
                s = (len(mapped.intersection(ix.operand_names)), -abs(place_a[x] - place_b[y]))
                if score is None or s > score:
                    best, score = x, s
            if best is not None:
                pair(best, y, "metadata")
                free.remove(best)


def _by_structure(
    ia: tuple[Instruction, ...],
    ib: tuple[Instruction, ...],
    a_by: dict[str, Instruction],
    b_by: dict[str, Instruction],
    a2b: dict[str, str],
    b2a: dict[str, str],
    pair: Callable[[str, str, str], None],
    roots: tuple[Instruction | None, Instruction | None],
) -> None:
    params = {i.parameter_number: i.name for i in ib if i.opcode == "parameter"}
    for param in ia:
        if param.opcode == "parameter" and param.name not in a2b:
            other = params.get(param.parameter_number)
            if (
                other is not None
                and other not in b2a
                and array_key(param.shape) == array_key(b_by[other].shape)
            ):
                pair(param.name, other, "structure")

    def own(i: Instruction) -> str | None:
        return i.payload if i.opcode in ("constant", "parameter") else None

    for downward in (False, True):
        free_a = [i for i in ia if i.name not in a2b]
        free_b = [i for i in ib if i.name not in b2a]
        if not free_a or not free_b:
            return
        fa = fingerprints(ia, array_key, own, downward=downward)
        fb = fingerprints(ib, array_key, own, downward=downward)
        for x, y in unique_pairs(free_a, free_b, fa, fb):
            pair(x, y, "structure")
    # The roots: the values the program returns.
    ra, rb = roots
    if (
        ra is not None
        and rb is not None
        and ra.name not in a2b
        and rb.name not in b2a
        and ra.opcode == rb.opcode
    ):
        pair(ra.name, rb.name, "structure")
    if len(a2b) == len(ia) or len(b2a) == len(ib):
        return
    users_a, users_b = users_of(ia), users_of(ib)
    for x, y in grow(list(a2b.items()), a_by, b_by, a2b, b2a, users_a, users_b, array_key):
        pair(x, y, "structure")
    before = set(b2a)
    matched_a = set(a2b)
    match_by_operands(ia, ib, b2a, matched_a, shape_key=array_key)
    for name in [n for n in b2a if n not in before]:
        pair(b2a[name], name, "structure")
