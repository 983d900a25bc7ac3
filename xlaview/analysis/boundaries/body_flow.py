"""The dataflow inside one fused computation, in one pass: what the fusion does
with each of its parameters (reduces it, reads its elements again after the
reduction, moves it to another layout, broadcasts it), the facts boundary
reasons are made of (xlaview.analysis.boundaries.op_facts, .boundaries).

Per op, bit masks of parameter numbers say what it is computed from, so that a
fusion of a thousand parameters and ten thousand ops stays linear.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from xlaview.hlo import Computation, Instruction, Shape
from xlaview.hlo.interpreted import braced_ints

REDUCTIONS = frozenset(("reduce", "reduce-window"))
MEMORY_SPACE_MOVE = "memory space"  # how a copy between memory spaces (TPU VMEM) is described
# Ops whose presence tells a known pattern (softmax's exp, a norm's square root).
PATTERN_OPCODES = frozenset(("exponential", "rsqrt", "sqrt", "log"))


def _physical(shape: Shape) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int]:
    """Where the elements sit: dimension order major to minor (size-1 dimensions
    left out: they do not move anything), tiles, memory space."""
    layout = shape.layout
    if layout is not None and len(layout.minor_to_major) == shape.rank:
        order: Iterable[int] = reversed(layout.minor_to_major)
    else:
        order = range(shape.rank)
    dims = tuple(d for d in order if shape.dims[d] != 1)
    return dims, (layout.tiles if layout else ()), ((layout.memory_space or 0) if layout else 0)


def relayout(instr: Instruction, operand: Shape | None) -> str | None:
    """How a transpose or copy moves its operand's data to another layout, in
    words; None when it moves nothing (a bitcast in effect) or is another op."""
    if operand is None or not operand.is_array or not instr.shape.is_array:
        return None
    if instr.opcode == "transpose":
        perm = braced_ints(instr.attribute("dimensions") or "{}")
        if len(perm) != instr.shape.rank or operand.rank != instr.shape.rank:
            return None
        out_order, out_tiles, out_space = _physical(instr.shape)
        in_order, in_tiles, in_space = _physical(operand)
        if (
            tuple(perm[d] for d in out_order) == in_order
            and out_tiles == in_tiles
            and out_space == in_space
        ):
            return None
    elif instr.opcode in ("copy", "copy-done"):
        before, after = _physical(operand), _physical(instr.shape)
        if before == after:
            return None
        if before[:2] == after[:2]:
            return f"{MEMORY_SPACE_MOVE} S({before[2]}) -> S({after[2]})"
    else:
        return None
    return f"{operand} -> {instr.shape}"


def _bits(mask: int) -> Iterator[int]:
    """The numbers of the bits set in ``mask``."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True, slots=True)
class OperandUse:
    """What an op does with one operand, inside its body."""

    reductions: tuple[
        str, ...
    ] = ()  # reduces over it, or over what is computed from it element by element
    rereads: tuple[str, ...] = ()  # ops that use its elements again after such a reduction
    relayouts: tuple[tuple[str, str], ...] = ()  # (op, how) transposes/copies moving its data
    elementwise: bool = False  # some of its elements reach the result without a reduction
    opcodes: frozenset[str] = (
        frozenset()
    )  # PATTERN_OPCODES among the ops computed from it element by element
    broadcast: tuple[str, int] | None = None  # (op, n): a broadcast using each element n times


class BodyFlow:
    """A fused computation's dataflow, as bit masks of parameter numbers per op
    (one pass; big bodies of many parameters stay linear):

    * ``full``: parameters it is computed from, through anything;
    * ``elem``: parameters it is computed from element by element (no reduction
      on the way);
    * ``after``: parameters a reduction it is computed from reduced (element by
      element): an op with a bit in both ``elem`` and ``after`` uses that
      parameter's elements again after a reduction over it;
    * ``reduces`` (reductions only): the parameters they reduce element by element.
    """

    __slots__ = (
        "_combinations",
        "_uses",
        "after",
        "by_name",
        "comp",
        "elem",
        "elementwise",
        "full",
        "order",
        "params",
        "reduced",
        "reduces",
        "reread",
        "users",
    )

    def __init__(self, comp: Computation) -> None:
        self.comp = comp
        self.by_name = {i.name: i for i in comp.instructions}
        self.params = {
            p.parameter_number: p.name
            for p in comp.instructions
            if p.opcode == "parameter" and p.parameter_number is not None
        }
        self.order: list[Instruction] = []  # operands before users
        self.full: dict[str, int] = {}
        self.elem: dict[str, int] = {}
        self.after: dict[str, int] = {}
        self.reduces: dict[str, int] = {}  # reductions: what they reduce
        self.reduced = self.reread = 0
        self.users: dict[str, list[str]] = {}
        for instr in self._topological():
            self.order.append(instr)
            for operand in dict.fromkeys(instr.operand_names):
                self.users.setdefault(operand, []).append(instr.name)
            name = instr.name
            if instr.opcode == "parameter":
                bit = 1 << instr.parameter_number if instr.parameter_number is not None else 0
                self.full[name] = self.elem[name] = bit
                self.after[name] = 0
                continue
            full = elem = after = reduces = 0
            operands = [n for n in instr.operand_names if n in self.full]
            data = (
                set(operands[: max(1, len(operands) // 2)]) if instr.opcode in REDUCTIONS else set()
            )
            for operand in operands:
                full |= self.full[operand]
                after |= self.after[operand]
                if operand in data:
                    reduces |= self.elem[operand]
                else:
                    elem |= self.elem[operand]
            self.full[name], self.elem[name], self.after[name] = full, elem, after | reduces
            if reduces:
                self.reduces[name] = reduces
                self.reduced |= reduces
            # A multi-output fusion's root tuple gathers results: it computes nothing.
            if instr.opcode not in ("tuple", "get-tuple-element"):
                self.reread |= elem & (after | reduces)
        root = comp.root
        self.elementwise = self.elem.get(root.name, 0) if root is not None else 0
        self._uses: dict[int, OperandUse] | None = None  # all of them, made when first asked
        self._combinations: dict[tuple[int, int], str | None] = {}

    def _topological(self) -> list[Instruction]:
        done: set[str] = set()
        out: list[Instruction] = []
        for instr in self.comp.instructions:
            stack = [(instr, False)]
            while stack:
                current, expanded = stack.pop()
                if current.name in done:
                    continue
                if expanded:
                    done.add(current.name)
                    out.append(current)
                    continue
                stack.append((current, True))
                for operand in current.operand_names:
                    found = self.by_name.get(operand)
                    if found is not None and found.name not in done:
                        stack.append((found, False))
        return out

    def use(self, number: int) -> OperandUse:
        if self._uses is None:
            self._uses = self._all_uses()
        return self._uses.get(number, OperandUse())

    def _all_uses(self) -> dict[int, OperandUse]:
        """Every parameter's use in one pass over the body: only the few ops that
        matter (reductions, re-reads, moves, broadcasts, PATTERN_OPCODES) are
        broken down by parameter, so that a fusion of a thousand parameters stays fast."""
        reductions: dict[int, list[str]] = {}
        rereads: dict[int, list[str]] = {}
        relayouts: dict[int, list[tuple[str, str]]] = {}
        opcodes: dict[int, set[str]] = {}
        broadcasts: dict[int, tuple[str, int]] = {}
        for instr in self.order:
            name, op = instr.name, instr.opcode
            for k in _bits(self.reduces.get(name, 0)):
                reductions.setdefault(k, []).append(name)
            elem = self.elem[name]
            if op == "parameter" or not elem:
                continue
            if op in PATTERN_OPCODES:
                for k in _bits(elem):
                    opcodes.setdefault(k, set()).add(op)
            # A multi-output fusion's root tuple gathers results: it computes nothing.
            if op not in ("tuple", "get-tuple-element"):
                for k in _bits(elem & self.after[name]):
                    rereads.setdefault(k, []).append(name)
            operand = self.by_name.get(instr.operand_names[0]) if instr.operand_names else None
            if op in ("transpose", "copy"):
                how = relayout(instr, operand.shape if operand else None)
                if how:
                    for k in _bits(elem):
                        relayouts.setdefault(k, []).append((name, how))
            elif (
                op == "broadcast"
                and operand is not None
                and operand.shape.is_array
                and instr.shape.is_array
            ):
                base = operand.shape.element_count
                if base and instr.shape.element_count > base:
                    for k in _bits(elem):
                        broadcasts.setdefault(k, (name, instr.shape.element_count // base))
        return {
            k: OperandUse(
                reductions=tuple(reductions.get(k, ())),
                rereads=tuple(rereads.get(k, ())),
                relayouts=tuple(relayouts.get(k, ())),
                broadcast=broadcasts.get(k),
                elementwise=bool(self.elementwise >> k & 1),
                opcodes=frozenset(opcodes.get(k, ())),
            )
            for k in self.params
        }

    def combination(self, elements: int, other: int) -> str | None:
        """The op nearest parameter ``other`` that uses parameter ``elements``'
        elements together with it (a walk from ``other`` to its users)."""
        key = (elements, other)
        if key not in self._combinations:
            bit = 1 << elements
            found = None
            start = self.params.get(other)
            queue = deque([start] if start else [])
            seen = set(queue)
            while queue and found is None:
                for user in self.users.get(queue.popleft(), ()):
                    if self.elem[user] & bit:
                        found = user
                        break
                    if user not in seen:
                        seen.add(user)
                        queue.append(user)
            self._combinations[key] = found
        return self._combinations[key]

    def result_reductions(self) -> tuple[tuple[str, ...], ...]:
        """For each output (one, or each element of the root tuple): the reductions
        it is computed from, when it is smaller than what they reduce."""
        root = self.comp.root
        if root is None:
            return ()
        if root.opcode != "tuple":
            return (self._reductions_into(root),)
        return tuple(
            self._reductions_into(self.by_name[n]) if n in self.by_name else ()
            for n in root.operand_names
        )

    def _reductions_into(self, root: Instruction) -> tuple[str, ...]:
        found: list[str] = []
        seen: set[str] = set()
        stack = [root.name]
        while stack:
            name = stack.pop()
            if name in seen or name not in self.by_name:
                continue
            seen.add(name)
            instr = self.by_name[name]
            if instr.opcode in REDUCTIONS:
                data = self.by_name.get(instr.operand_names[0]) if instr.operand_names else None
                if (
                    data is not None
                    and data.shape.is_array
                    and root.shape.is_array
                    and root.shape.element_count < data.shape.element_count
                ):
                    found.append(name)
                continue
            stack.extend(instr.operand_names)
        return tuple(found)
