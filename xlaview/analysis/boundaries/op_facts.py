"""What one top-level op does with each value it reads, seen inside its fused
computation: the facts the reasons of xlaview.analysis.boundaries.explain are decided from.

An unfused op is its own body: a top-level ``reduce`` reduces its operand, a
top-level ``dot`` is a library kernel, a top-level ``copy`` may re-lay out data.
Fused computations are analysed once each, whatever number of fusions call them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xlaview.analysis.boundaries.body_flow import (
    PATTERN_OPCODES,
    REDUCTIONS,
    BodyFlow,
    OperandUse,
    relayout,
)
from xlaview.analysis.kinds import Kind, custom_call_target, kind_of
from xlaview.hlo import Computation, Instruction, Module

# Run as a kernel of their own (a library call on every backend) when unfused.
LIBRARY_OPCODES = frozenset(
    (
        "dot",
        "convolution",
        "ragged-dot",
        "scaled-dot",
        "custom-call",
        "fft",
        "triangular-solve",
        "cholesky",
    )
)
# Inside a fusion, these make it a matmul/convolution kernel (TPU and CPU output
# fusions, Triton GEMM fusions, cuDNN fusions).
MATMUL_OPCODES = frozenset(("dot", "convolution", "ragged-dot", "scaled-dot", "custom-call"))
# Custom fusions handed to a library rather than emitted by XLA.
LIBRARY_FUSION_WORDS = ("ynn", "xnn", "onednn", "cudnn", "cublas", "hipblas", "rocblas", "miopen")
CONTROL_FLOW = frozenset(("while", "conditional", "call"))
ASYNC = frozenset(("async-start", "async-update", "async-done"))
# What a fusion may contain and still only move data (no arithmetic).
MOVES_ONLY = frozenset(
    (
        "parameter",
        "constant",
        "bitcast",
        "reshape",
        "transpose",
        "copy",
        "convert",
        "tuple",
        "get-tuple-element",
        "copy-start",
        "copy-done",
        "bitcast-convert",
        "slice",
    )
)
REDUCER_WORDS = {
    "maximum": "max",
    "minimum": "min",
    "add": "sum",
    "multiply": "product",
    "and": "and",
    "or": "or",
}


def _squares(instr: Instruction) -> bool:
    names = instr.operand_names
    return instr.opcode == "power" or (
        instr.opcode == "multiply" and len(names) == 2 and names[0] == names[1]
    )


def fusion_backend_kind(instr: Instruction) -> str:
    """``__ynn_fusion``, ``__triton_gemm``, ``__cudnn$fusion``...: what a kCustom fusion is."""
    config = instr.backend_config
    if not isinstance(config, dict):
        return ""
    for key in ("fusion_backend_config", "fusion_config"):
        inner = config.get(key)
        kind = inner.get("kind") if isinstance(inner, dict) else None
        if isinstance(kind, str):
            return kind
    return ""


@dataclass(frozen=True, slots=True)
class OpFacts:
    """What a top-level op is, as far as boundaries are concerned.

    Op names in ``library``, ``collective``, ``moves``, ``relayouts``,
    ``result_reductions`` and in what ``use`` returns live in ``body``: the fused
    computation, or the step computation itself for an unfused op.
    """

    name: str
    body: str
    description: str  # "kLoop fusion", "kCustom fusion (__ynn_fusion)", "dot", ...
    library_what: (
        str  # "an unfused dot", "a custom call to __cublas$gemm"...; "" when not a library kernel
    )
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
    source: BodyFlow | None = field(default=None, compare=False, repr=False)  # a fusion's body

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


class OpIndex:
    """Facts about the top-level ops of a module, computed once each."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self._bodies: dict[str, BodyFlow] = {}
        self._facts: dict[tuple[str, str], OpFacts] = {}
        self._reducers: dict[tuple[str, str], str] = {}
        self._fused: dict[str, BodyFlow | None] = {}  # fusion name -> its body

    def body(self, name: str) -> BodyFlow | None:
        if name not in self._bodies:
            if not self.module.has_computation(name):
                return None
            self._bodies[name] = BodyFlow(self.module.computation(name))
        return self._bodies[name]

    def fused_body(self, instr: Instruction) -> BodyFlow | None:
        if instr.opcode != "fusion":
            return None
        if instr.name not in self._fused:
            called = instr.called_computations
            self._fused[instr.name] = self.body(called[0]) if called else None
        return self._fused[instr.name]

    def facts(
        self, comp: Computation, instr: Instruction, lookup: Callable[[str], Instruction | None]
    ) -> OpFacts:
        """The facts of ``instr``, a top-level op of ``comp``; ``lookup`` finds its
        operands (through which a top-level copy-done finds what it copies)."""
        key = (comp.name, instr.name)
        if key not in self._facts:
            body = self.fused_body(instr)
            self._facts[key] = (
                self._fusion(instr, body) if body else self._unfused(comp, instr, lookup)
            )
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

    def _fusion(self, instr: Instruction, body: BodyFlow) -> OpFacts:
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
            label = (
                f"custom call to {custom_call_target(first) or '?'}"
                if first.opcode == "custom-call"
                else first.opcode
            )
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
            name=instr.name,
            body=body.comp.name,
            description=description,
            library=library,
            library_what=what,
            matmul=bool(matmuls),
            collective=collective,
            control_flow=False,
            moves=moves,
            relayouts=tuple(moved),
            result_reductions=body.result_reductions(),
            opcodes=frozenset(i.opcode for i in ops),
            squares=any(_squares(i) for i in ops),
            elementwise=body.elementwise,
            reduced=body.reduced,
            reread=body.reread,
            source=body,
        )

    def _unfused(
        self, comp: Computation, instr: Instruction, lookup: Callable[[str], Instruction | None]
    ) -> OpFacts:
        op = instr.opcode
        n = len(instr.operand_names)
        description = (
            f"custom-call {custom_call_target(instr) or '?'}" if op == "custom-call" else op
        )
        library: tuple[str, ...] = ()
        what = ""
        if op in LIBRARY_OPCODES:
            library = (instr.name,)
            what = (
                f"a custom call to {custom_call_target(instr) or '?'}"
                if op == "custom-call"
                else f"an unfused {op}"
            )
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
                uses.append(
                    OperandUse(
                        relayouts=moves,
                        elementwise=op not in REDUCTIONS,
                        opcodes=frozenset((op,)) & PATTERN_OPCODES,
                    )
                )
        data = (1 << reduced) - 1
        return OpFacts(
            name=instr.name,
            body=comp.name,
            description=description,
            library=library,
            library_what=what,
            matmul=op in MATMUL_OPCODES,
            collective=collective,
            control_flow=control,
            moves=moves,
            relayouts=moves,
            result_reductions=((instr.name,),) * max(1, n // 2) if op in REDUCTIONS else (),
            opcodes=frozenset((op,)),
            squares=_squares(instr),
            elementwise=0 if op in REDUCTIONS else (1 << n) - 1,
            reduced=data,
            reread=0,
            fixed_uses=tuple(uses),
        )

    def _wrapped_collective(
        self, instr: Instruction, lookup: Callable[[str], Instruction | None]
    ) -> str:
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
