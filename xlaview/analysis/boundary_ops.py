"""What one top-level op does with each value it reads, seen inside its fused
computation: the facts the reasons of xlaview.analysis.boundaries are decided from.

An unfused op is its own body: a top-level ``reduce`` reduces its operand, a
top-level ``dot`` is a library kernel, a top-level ``copy`` may re-lay out data.
Fused computations are analysed once each, whatever number of fusions call them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from xlaview.analysis.kinds import Kind, kind_of
from xlaview.hlo import Computation, Instruction, Module, Shape
from xlaview.hlo.attributes import parse_braced_ints

REDUCTIONS = frozenset(("reduce", "reduce-window"))
# Run as a kernel of their own (a library call on every backend) when unfused.
LIBRARY_OPCODES = frozenset(("dot", "convolution", "ragged-dot", "scaled-dot", "custom-call", "fft",
                             "triangular-solve", "cholesky"))
# Inside a fusion, these make it a matmul/convolution kernel (TPU and CPU output
# fusions, Triton GEMM fusions, cuDNN fusions).
MATMUL_OPCODES = frozenset(("dot", "convolution", "ragged-dot", "scaled-dot", "custom-call"))
# Custom fusions handed to a library rather than emitted by XLA.
LIBRARY_FUSION_WORDS = ("ynn", "xnn", "onednn", "cudnn", "cublas", "hipblas", "rocblas", "miopen")
CONTROL_FLOW = frozenset(("while", "conditional", "call"))
ASYNC = frozenset(("async-start", "async-update", "async-done"))
# What a fusion may contain and still only move data (no arithmetic).
MOVES_ONLY = frozenset(("parameter", "constant", "bitcast", "reshape", "transpose", "copy", "convert",
                        "tuple", "get-tuple-element", "copy-start", "copy-done", "bitcast-convert",
                        "slice"))
MEMORY_SPACE_MOVE = "memory space"  # how a copy between memory spaces (TPU VMEM) is described
# Ops whose presence tells a known pattern (softmax's exp, a norm's square root).
PATTERN_OPCODES = frozenset(("exponential", "rsqrt", "sqrt", "log"))
REDUCER_WORDS = {"maximum": "max", "minimum": "min", "add": "sum", "multiply": "product",
                 "and": "and", "or": "or"}


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
        perm = parse_braced_ints(instr.attribute("dimensions") or "{}")
        if len(perm) != instr.shape.rank or operand.rank != instr.shape.rank:
            return None
        out_order, out_tiles, out_space = _physical(instr.shape)
        in_order, in_tiles, in_space = _physical(operand)
        if tuple(perm[d] for d in out_order) == in_order and out_tiles == in_tiles and out_space == in_space:
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


def _squares(instr: Instruction) -> bool:
    names = instr.operand_names
    return instr.opcode == "power" or (instr.opcode == "multiply" and len(names) == 2 and names[0] == names[1])


def custom_call_target(instr: Instruction) -> str:
    return (instr.attribute("custom_call_target") or "?").strip("\"'")


def fusion_backend_kind(instr: Instruction) -> str:
    """``__ynn_fusion``, ``__triton_gemm``, ``__cudnn$fusion``...: what a kCustom fusion is."""
    config = instr.backend_config
    if not isinstance(config, dict):
        return ""
    for key in ("fusion_backend_config", "fusion_config"):
        inner = config.get(key)
        if isinstance(inner, dict) and isinstance(inner.get("kind"), str):
            return inner["kind"]
    return ""


@dataclass(frozen=True, slots=True)
class OperandUse:
    """What an op does with one operand, inside its body."""

    reductions: tuple[str, ...] = ()  # reduces over it, or over what is computed from it element by element
    rereads: tuple[str, ...] = ()  # ops that use its elements again after such a reduction
    relayouts: tuple[tuple[str, str], ...] = ()  # (op, how) transposes/copies moving its data
    elementwise: bool = False  # some of its elements reach the result without a reduction
    opcodes: frozenset[str] = frozenset()  # PATTERN_OPCODES among the ops computed from it element by element
    broadcast: tuple[str, int] | None = None  # (op, n): a broadcast using each element n times


@dataclass(frozen=True, slots=True)
class OpFacts:
    """What a top-level op is, as far as boundaries are concerned.

    Op names in ``library``, ``collective``, ``moves``, ``result_reductions`` and
    in each ``uses`` entry live in ``body``: the fused computation, or the step
    computation itself for an unfused op.
    """

    name: str
    body: str
    description: str  # "kLoop fusion", "kCustom fusion (__ynn_fusion)", "dot", ...
    library_what: str  # "an unfused dot", "a custom call to __cublas$gemm"...; "" when not a library kernel
    library: tuple[str, ...]  # the dots, convolutions, custom calls that make it one
    matmul: bool  # a dot, convolution or custom call (unfused or inside)
    collective: tuple[str, ...]
    control_flow: bool
    moves: tuple[tuple[str, str], ...]  # (op, how) when it only re-lays out data; else ()
    relayouts: tuple[tuple[str, str], ...]  # (op, how) every transpose/copy in it that moves data
    result_reductions: tuple[tuple[str, ...], ...]  # per output: the reductions it is computed from
    opcodes: frozenset[str]
    squares: bool  # multiplies a value by itself (x * x, a variance's square) or takes a power
    # Bit masks of operand positions (quick questions asked of every operand):
    elementwise: int  # some of its elements reach the result without a reduction
    reduced: int  # a reduction over it (or over what is computed from it element by element)
    reread: int  # its elements are used again after such a reduction
    fixed_uses: tuple[OperandUse, ...] = ()  # an unfused op's, by operand position
    source: _Body | None = field(default=None, compare=False, repr=False)  # a fusion's body

    def use(self, position: int) -> OperandUse:
        """What the op does with operand ``position`` (computed when first asked)."""
        if self.source is not None:
            return self.source.use(position)
        return self.fixed_uses[position] if position < len(self.fixed_uses) else OperandUse()

    def is_elementwise(self, position: int) -> bool:
        return bool(self.elementwise >> position & 1)

    def reduces(self, position: int) -> bool:
        return bool(self.reduced >> position & 1)

    def rereads(self, position: int) -> bool:
        return bool(self.reread >> position & 1)

    def reduced_output(self, index: int | None) -> tuple[str, ...]:
        """The reductions output ``index`` (None: the only one) is computed from."""
        k = index or 0
        return self.result_reductions[k] if k < len(self.result_reductions) else ()


class _Body:
    """A fused computation's dataflow, as three bit masks of parameter numbers per
    op (one pass; big bodies of many parameters stay linear):

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
        self.params = {p.parameter_number: p.name for p in comp.instructions
                       if p.opcode == "parameter" and p.parameter_number is not None}
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
            data = set(operands[: max(1, len(operands) // 2)]) if instr.opcode in REDUCTIONS else set()
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
        self._uses: dict[int, OperandUse] = {}  # all of them, filled when first asked
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
        if not self._uses:
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
            elif op == "broadcast" and operand is not None and operand.shape.is_array and instr.shape.is_array:
                base = operand.shape.element_count
                if base and instr.shape.element_count > base:
                    for k in _bits(elem):
                        broadcasts.setdefault(k, (name, instr.shape.element_count // base))
        return {
            k: OperandUse(
                reductions=tuple(reductions.get(k, ())), rereads=tuple(rereads.get(k, ())),
                relayouts=tuple(relayouts.get(k, ())), broadcast=broadcasts.get(k),
                elementwise=bool(self.elementwise >> k & 1), opcodes=frozenset(opcodes.get(k, ())),
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
        return tuple(self._reductions_into(self.by_name[n]) if n in self.by_name else ()
                     for n in root.operand_names)

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
                if data is not None and data.shape.is_array and root.shape.is_array and \
                        root.shape.element_count < data.shape.element_count:
                    found.append(name)
                continue
            stack.extend(instr.operand_names)
        return tuple(found)


class OpIndex:
    """Facts about the top-level ops of a module, computed once each."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self._bodies: dict[str, _Body] = {}
        self._facts: dict[tuple[str, str], OpFacts] = {}
        self._reducers: dict[tuple[str, str], str] = {}

    def body(self, name: str) -> _Body | None:
        if name not in self._bodies:
            if not self.module.has_computation(name):
                return None
            self._bodies[name] = _Body(self.module.computation(name))
        return self._bodies[name]

    def fused_body(self, instr: Instruction) -> _Body | None:
        if instr.opcode != "fusion" or not instr.called_computations:
            return None
        return self.body(instr.called_computations[0])

    def facts(self, comp: Computation, instr: Instruction, lookup: Callable[[str], Instruction | None]) -> OpFacts:
        """The facts of ``instr``, a top-level op of ``comp``; ``lookup`` finds its
        operands (through which a top-level copy-done finds what it copies)."""
        key = (comp.name, instr.name)
        if key not in self._facts:
            body = self.fused_body(instr)
            self._facts[key] = self._fusion(instr, body) if body else self._unfused(comp, instr, lookup)
        return self._facts[key]

    def reducer(self, comp: str, reduce_name: str) -> str:
        """``max``, ``sum``... for a reduce in ``comp``."""
        key = (comp, reduce_name)
        if key not in self._reducers:
            body = self.body(comp)
            instr = body.by_name.get(reduce_name) if body else None
            called = instr.called_computations if instr else ()
            kind = "reduction"
            if called and self.module.has_computation(called[0]):
                root = self.module.computation(called[0]).root
                kind = REDUCER_WORDS.get(root.opcode, root.opcode) if root else kind
            self._reducers[key] = kind
        return self._reducers[key]

    def combination(self, instr: Instruction, elements: int, other: int) -> str | None:
        """The first op of ``instr``'s body using operand ``elements``' elements
        together with operand ``other`` (its own name for an unfused op)."""
        body = self.fused_body(instr)
        if body is None:
            return None if instr.opcode in REDUCTIONS else instr.name
        return body.combination(elements, other)

    def _fusion(self, instr: Instruction, body: _Body) -> OpFacts:
        ops = body.comp.instructions
        kind = fusion_backend_kind(instr)
        description = f"{instr.fusion_kind or 'fusion'} fusion" + (f" ({kind})" if kind else "")
        matmuls = tuple(i.name for i in ops if i.opcode in MATMUL_OPCODES)
        library: tuple[str, ...] = ()
        what = ""
        if any(word in kind.lower() for word in LIBRARY_FUSION_WORDS):
            library, what = matmuls, f"a {kind} fusion, run by a library"
        elif matmuls:
            first = body.by_name[matmuls[0]]
            label = f"custom call to {custom_call_target(first)}" if first.opcode == "custom-call" \
                else first.opcode
            library, what = matmuls, f"a fusion around a {label} ({matmuls[0]})"
        collective = tuple(i.name for i in ops if kind_of(i) is Kind.COLLECTIVE)
        moved = []
        for i in ops:
            if i.opcode in ("transpose", "copy") and i.operand_names:
                operand = body.by_name.get(i.operand_names[0])
                how = relayout(i, operand.shape if operand else None)
                if how:
                    moved.append((i.name, how))
        moves = tuple(moved) if all(i.opcode in MOVES_ONLY for i in ops) else ()
        return OpFacts(
            name=instr.name, body=body.comp.name, description=description, library=library,
            library_what=what, matmul=bool(matmuls), collective=collective, control_flow=False, moves=moves,
            relayouts=tuple(moved),
            result_reductions=body.result_reductions(),
            opcodes=frozenset(i.opcode for i in ops),
            squares=any(_squares(i) for i in ops),
            elementwise=body.elementwise, reduced=body.reduced, reread=body.reread, source=body,
        )

    def _unfused(self, comp: Computation, instr: Instruction,
                 lookup: Callable[[str], Instruction | None]) -> OpFacts:
        op = instr.opcode
        n = len(instr.operand_names)
        description = f"custom-call {custom_call_target(instr)}" if op == "custom-call" else op
        library: tuple[str, ...] = ()
        what = ""
        if op in LIBRARY_OPCODES:
            library = (instr.name,)
            what = f"a custom call to {custom_call_target(instr)}" if op == "custom-call" \
                else f"an unfused {op}"
        wrapped = self._wrapped_collective(instr, lookup) if op in ASYNC else None
        if wrapped:
            description = f"{op} of {wrapped}"
        collective = (instr.name,) if kind_of(instr) is Kind.COLLECTIVE or wrapped else ()
        control = op in CONTROL_FLOW or (op in ASYNC and not collective)
        moves: tuple[tuple[str, str], ...] = ()
        if op in ("copy", "transpose", "copy-done") and instr.operand_names:
            source = lookup(instr.operand_names[0])
            if op == "copy-done" and source is not None and source.operand_names:
                source = lookup(source.operand_names[0])  # what copy-start copies
            how = relayout(instr, source.shape if source else None)
            if how:
                moves = ((instr.name, how),)
        reduced = n // 2 if op in REDUCTIONS else 0
        uses = []
        for k in range(n):
            if k < reduced:
                uses.append(OperandUse(reductions=(instr.name,), opcodes=frozenset()))
            else:
                uses.append(OperandUse(relayouts=moves, elementwise=op not in REDUCTIONS,
                                       opcodes=frozenset((op,)) & PATTERN_OPCODES))
        data = (1 << reduced) - 1
        return OpFacts(
            name=instr.name, body=comp.name, description=description, library=library,
            library_what=what, matmul=op in MATMUL_OPCODES, collective=collective, control_flow=control,
            moves=moves, relayouts=moves,
            result_reductions=((instr.name,),) * max(1, n // 2) if op in REDUCTIONS else (),
            opcodes=frozenset((op,)), squares=_squares(instr),
            elementwise=0 if op in REDUCTIONS else (1 << n) - 1, reduced=data, reread=0,
            fixed_uses=tuple(uses),
        )

    def _wrapped_collective(self, instr: Instruction, lookup: Callable[[str], Instruction | None]) -> str:
        """The collective an async-start/update/done runs (``all-gather``...), or ""."""
        seen = 0
        while instr.opcode in ("async-update", "async-done") and instr.operand_names and seen < 8:
            found = lookup(instr.operand_names[0])
            if found is None:
                return ""
            instr, seen = found, seen + 1
        if instr.opcode != "async-start":
            return ""
        for name in instr.called_computations:
            body = self.body(name)
            for i in body.comp.instructions if body else ():
                if kind_of(i) is Kind.COLLECTIVE:
                    return i.opcode
        return ""
