"""Inside a library kernel: the values its body computes between stages.

A library fusion (``kind=kCustom``: YNNPACK's ``__ynn_fusion`` on XLA:CPU,
cuDNN's ``__cudnn$fusion``, oneDNN's...) or a custom call with a body runs
that body as the library sees fit: nothing in the dump says which of its
values stay on chip. Priced at its operands and result alone, it hides what
defines it (naive attention under XLA:CPU's default flags: one library fusion
whose [8192,8192] scores never show). So its body is split into the stages an
unfused compiler would run, and what passes between them is counted:

* a *stage* is one heavy op of the body (a dot, convolution, reduction, sort,
  scatter, custom call...; and the root when that is not one) with the
  element-wise work feeding it, recomputed in every stage that needs it, as
  XLA's loop fusion duplicates it;
* an *interior value* is a heavy op's result another stage reads;
  ``interior_bytes`` is what writing each once and reading it back in every
  stage that reads it would move, priced by XLA's cost model (a stage reads
  what its fused body touches of each input). It is what the library *may*
  move, if it keeps none of it on chip: an upper bound on its interior
  traffic, not a measurement.

The stages are built as a module of their own (`Interior.module`: the body's
parameters, one fusion per stage, named after its heavy op), so that the
traffic and boundary analyses read it as they read any module.

Triton fusions (``__triton_gemm``, ``__triton``...) are XLA's own generated
kernels, whose body is one kernel by construction: they are not opaque.
A kCustom fusion whose body is one stage is opaque with no interior.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xlaview.analysis.cost.model import MATRIX_OPCODES, CostModel, called_names
from xlaview.analysis.kinds import custom_call_target, custom_fusion_kind, fusion_kind
from xlaview.hlo import Computation, Instruction, Module, parse_module_tolerant

__all__ = ["Interior", "interior_bytes", "interior_of", "is_opaque", "library_body"]

# Ops a stage is built around: what an unfused compiler runs as its own kernel
# (or as the root of a fusion that reduces, contracts or reorders).
HEAVY = MATRIX_OPCODES | frozenset(
    (
        "reduce",
        "reduce-window",
        "select-and-scatter",
        "scatter",
        "sort",
        "custom-call",
        "fft",
        "triangular-solve",
        "cholesky",
        "topk",
    )
)
_MATRIX = MATRIX_OPCODES | {"custom-call"}
# Ops that only prepare a matrix op's operand (a library GEMM takes them in).
_PREPARING = frozenset(
    ("convert", "bitcast", "bitcast-convert", "reshape", "transpose", "copy", "broadcast", "slice")
)
_REDUCING = frozenset(("reduce", "reduce-window", "select-and-scatter", "sort", "topk", "scatter"))
_XLA_GENERATED = ("__triton",)  # kinds whose body is one kernel XLA itself wrote
_LEADING_ROOT = re.compile(r"^\s*ROOT\s+")


@dataclass(frozen=True, slots=True)
class Interior:
    """A library op's body as stages, and what passes between them (one execution)."""

    op: str  # the library fusion or custom call
    computation: str  # its body
    stages: tuple[str, ...]  # the heavy op (or root) each stage is built around, in body order
    module: Module | None  # the body as stages; None when it is one stage
    interior_bytes: int  # written and read between stages, if the library keeps nothing on chip


def library_body(instr: Instruction) -> str | None:
    """The body computation of an opaque library op (None if it has none or is not one)."""
    if instr.opcode == "fusion":
        if fusion_kind(instr) != "kCustom":
            return None
        kind = custom_fusion_kind(instr) or ""
        if kind.startswith(_XLA_GENERATED):
            return None
        called = called_names(instr, "calls")
        return called[0] if called else None
    if instr.opcode == "custom-call" and custom_call_target(instr):
        called = instr.called_computations
        return called[0] if called else None
    return None


def is_opaque(instr: Instruction) -> bool:
    """A library kernel whose interior the dump cannot show: a ``kCustom``
    fusion other than XLA's own Triton ones, or a custom call with a body
    (a GEMM or convolution call is its formula; one with neither body nor
    formula is of unknown cost, `OpCost.known`)."""
    if instr.opcode == "fusion":
        return fusion_kind(instr) == "kCustom" and not (custom_fusion_kind(instr) or "").startswith(
            _XLA_GENERATED
        )
    return library_body(instr) is not None


def interior_of(module: Module, instr: Instruction) -> Interior | None:
    """The stages of a library op's body (None when it is not opaque or has no body)."""
    body_name = library_body(instr)
    if body_name is None or not module.has_computation(body_name):
        return None
    body = module.computation(body_name)
    stages = _stages(body)
    if len(stages) < 2:
        return Interior(instr.name, body_name, tuple(stages), None, 0)
    staged = _staged_module(module, body, stages)
    return Interior(
        instr.name, body_name, tuple(stages), staged, _interior_bytes(staged, body_name)
    )


def interior_bytes(module: Module, instr: Instruction, known: dict[str, int]) -> int:
    """``interior_of(module, instr).interior_bytes`` (0 without an interior),
    staged and priced once per program: ``known`` holds it by the text of
    the body and what it calls, but for their names and metadata. A U-Net's
    320 library bodies of two stages or more are 5 programs, a mixture of
    experts' 48 are one; staging and pricing each was most of their 0.2-0.5 s."""
    body_name = library_body(instr)
    if body_name is None or not module.has_computation(body_name):
        return 0
    body = module.computation(body_name)
    stages = _stages(body)
    if len(stages) < 2:
        return 0
    key = _program_text(module, body)
    found = known.get(key)
    if found is None:
        found = known[key] = _interior_bytes(_staged_module(module, body, stages), body_name)
    return found


_METADATA = re.compile(r", metadata=\{[^}]*\}")  # (to its first "}": a key kept longer, at worst)
_NAMED = re.compile(r"%[\w.\-]+")
_HEADER_NAMED = re.compile(r"[\w.\-]+: ")


def _program_text(module: Module, body: Computation) -> str:
    """The text of ``body`` and of every computation it calls, without
    metadata, each name replaced by the order it first appears in: alike
    for bodies that run the same program under other names."""
    text = module.text
    called = [c for i in body.instructions for c in i.called_computations]
    parts = []
    for comp in [body, *map(module.computation, _with_callees(module, called))]:
        header, _, rest = _METADATA.sub("", text[comp.span.offset : comp.span.end]).partition("\n")
        parts.append(_HEADER_NAMED.sub("p: ", header) + "\n" + rest)
    numbers: dict[str, int] = {}
    return _NAMED.sub(lambda m: f"%{numbers.setdefault(m.group(), len(numbers))}", "\n".join(parts))


def _stages(body: Computation) -> dict[str, list[Instruction]]:
    """Each stage's ops in body order, by the op it is built around.

    A matrix op's stage takes only the ops that prepare its operands
    (`_PREPARING`: converts, transposes, broadcasts...), as a GEMM library
    call does; other element-wise work feeding it is a stage of its own, as
    XLA fuses it: a loop fusion whose result the matrix op reads."""
    by_name = {i.name: i for i in body.instructions}
    root = body.root
    heads = {i.name: i for i in body.instructions if i.opcode in HEAVY}
    if root is not None:
        heads.setdefault(root.name, root)
        absorbed = _output_fused(root, by_name)
        if absorbed is not None:
            del heads[absorbed]
    for instr in [i for i in body.instructions if i.opcode in _MATRIX]:
        pending = list(instr.operand_names)
        seen: set[str] = set()
        while pending:
            operand = by_name.get(pending.pop())
            if operand is None or operand.name in seen or operand.name in heads:
                continue
            seen.add(operand.name)
            if operand.opcode in _PREPARING:
                pending += operand.operand_names
            elif operand.opcode not in ("parameter", "constant"):
                heads[operand.name] = operand
    out: dict[str, list[Instruction]] = {}
    for head in sorted(heads.values(), key=body.instructions.index):
        members = {head.name}
        stack = [head]
        while stack:  # the work feeding it, up to inputs and other stages
            for name in stack.pop().operand_names:
                operand = by_name.get(name)
                if (
                    operand is None
                    or name in members
                    or name in heads
                    or operand.opcode == "parameter"
                ):
                    continue
                members.add(name)
                stack.append(operand)
        out[head.name] = [i for i in body.instructions if i.name in members]
    return out


def _output_fused(root: Instruction, by_name: dict[str, Instruction]) -> str | None:
    """The heavy op a root only converts or re-lays out (``convert(dot)``):
    one stage with it, as XLA's output fusion makes it; None if there is none."""
    users: dict[str, int] = {}
    for instr in by_name.values():
        for name in instr.operand_names:
            users[name] = users.get(name, 0) + 1
    instr = root
    while instr.opcode in _PREPARING and len(instr.operand_names) == 1:
        operand = by_name.get(instr.operand_names[0])
        if operand is None or users.get(operand.name, 0) != 1:
            return None
        if operand.opcode in HEAVY:
            return operand.name
        instr = operand
    return None


def _staged_module(
    module: Module, body: Computation, stages: dict[str, list[Instruction]]
) -> Module:
    """The body as a module: its parameters, then one fusion per stage."""
    text = module.text
    by_name = {i.name: i for i in body.instructions}
    root = body.root
    parts = [f"HloModule stages_of_{body.name}\n"]
    entry = [
        f"ENTRY %{body.name} ({_signature(body.parameters)}) -> {root.shape if root else '()'} {{"
    ]
    entry += [f"  {_line(text, p)}" for p in body.parameters]
    called: list[str] = []
    for head, members in stages.items():
        inside = {m.name for m in members}
        inputs = list(
            dict.fromkeys(
                name
                for m in members
                for name in m.operand_names
                if name not in inside and name in by_name
            )
        )
        header = ", ".join(f"{name}: {by_name[name].shape}" for name in inputs)
        head_instr = by_name[head]
        lines = [f"%stage.{head} ({header}) -> {head_instr.shape} {{"]
        lines += [
            f"  %{name} = {by_name[name].shape} parameter({k})" for k, name in enumerate(inputs)
        ]
        for m in members:
            prefix = "ROOT " if m.name == head else ""
            lines.append(f"  {prefix}{_line(text, m)}")
            called += [c for c in m.called_computations if c not in called]
        lines.append("}")
        parts.append("\n".join(lines))
        kind = (
            "kInput"
            if head_instr.opcode in _REDUCING
            else "kOutput"
            if head_instr.opcode in HEAVY
            else "kLoop"
        )
        prefix = "ROOT " if root is not None and head == root.name else ""
        operands = ", ".join(f"%{name}" for name in inputs)
        entry.append(
            f"  {prefix}%{head} = {head_instr.shape} fusion({operands}), kind={kind}, "
            f"calls=%stage.{head}"
        )
    entry.append("}")
    for name in _with_callees(module, called):
        comp = module.computation(name)
        parts.insert(1, text[comp.span.offset : comp.span.end])
    parts.append("\n".join(entry))
    return parse_module_tolerant("\n\n".join(parts) + "\n").module


def _line(text: str, instr: Instruction) -> str:
    return _LEADING_ROOT.sub("", text[instr.span.offset : instr.span.end])


def _signature(parameters: tuple[Instruction, ...]) -> str:
    return ", ".join(f"{p.name}: {p.shape}" for p in parameters)


def _with_callees(module: Module, names: list[str]) -> list[str]:
    """``names`` and every computation they call, callees first."""
    order: list[str] = []
    seen: set[str] = set()
    stack = [(name, False) for name in reversed(names)]
    while stack:
        name, expanded = stack.pop()
        if expanded:
            order.append(name)
            continue
        if name in seen or not module.has_computation(name):
            continue
        seen.add(name)
        stack.append((name, True))
        for instr in module.computation(name).instructions:
            stack += [(c, False) for c in instr.called_computations if c not in seen]
    return order


def _interior_bytes(staged: Module, entry_name: str) -> int:
    """Bytes the stages write for one another and read back, by XLA's cost model."""
    model = CostModel(staged)
    entry = staged.computation(entry_name)
    stage_names = {i.name for i in entry.instructions if i.opcode == "fusion"}
    root = entry.root
    read_by_others: set[str] = set()
    total = 0.0
    for instr in entry.instructions:
        if instr.opcode != "fusion":
            continue
        props = model.price(instr, entry)
        for name, read in zip(instr.operand_names, props.operand_bytes, strict=False):
            if name in stage_names:
                total += read
                read_by_others.add(name)
    for instr in entry.instructions:
        if instr.name in read_by_others and (root is None or instr.name != root.name):
            total += model.price(instr, entry).output_bytes
    return round(total)
