"""What the matcher asks of an instruction: whether it is printed exactly as
another, the source it came from (its metadata key), what differs from its
counterpart, and the metadata keys of a fusion's body."""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable

from xlaview.hlo import Instruction, Module
from xlaview.hlo.model import CALLED_COMPUTATION_ATTRIBUTES

# Attributes that name other instructions or computations (compared through
# the matching, or as bodies) or say nothing about what an op computes.
_NAMING = frozenset((*CALLED_COMPUTATION_ATTRIBUTES, "metadata", "control-predecessors"))
# Ops that only route values: never a unit of work on their own.
PLUMBING = frozenset(("parameter", "constant", "tuple", "get-tuple-element", "bitcast"))

MetadataKey = tuple[str | None, Hashable]
# Ops whose called computations are what they compute (a reducer's name and
# text are not: another compile names it otherwise).
_BODIES = frozenset(("fusion", "while", "call", "conditional"))


def same_text(a: Module, x: Instruction, b: Module, y: Instruction) -> bool:
    """Whether ``x`` of ``a`` and ``y`` of ``b`` are printed alike, the
    computations they call included: a fusion's body (one level: its own
    calls, ``to_apply=%add``, are named alike when the body is), everything a
    ``while``, ``call`` or ``conditional`` runs (`_same_callees`)."""
    sx, sy = x.span, y.span
    if sx.end - sx.offset != sy.end - sy.offset:
        return False
    if a.text[sx.offset : sx.end] != b.text[sy.offset : sy.end]:
        return False
    if "=" not in x.attribute_text:
        return True
    if x.opcode != "fusion":
        return _same_callees(a, x, b, y)
    return all(_same_computation_text(a, n, b, n) for n in x.called_computations)


# A called computation's name in the text of its caller (`Instruction.called_computations`
# reads the attributes of one instruction; this reads a whole computation's text).
_CALLEE = re.compile(
    r"\b(?:calls|to_apply|body|condition|true_computation|false_computation|select|scatter"
    r"|async_wrapped_computation)=%?([\w.\-]+)"
    r"|\b(?:branch_computations|called_computations)=\{([^}]*)\}"
)


def _same_callees(a: Module, x: Instruction, b: Module, y: Instruction) -> bool:
    """Whether the computations ``x`` and ``y`` run, and those they run in
    turn (a loop body's fusions, a branch's loops), are named and printed
    alike. Read from the text, one walk with a worklist: no body is built."""
    return _reached(a, x.called_computations) == _reached(b, y.called_computations)


def _reached(module: Module, names: Iterable[str]) -> list[tuple[str, str]]:
    """(name, text) of the computations ``names`` and all they call, in the
    order a depth-first walk of the text finds them."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    work = list(reversed(list(names)))
    while work:
        name = work.pop()
        if name in seen or not module.has_computation(name):
            continue
        seen.add(name)
        span = module.computation(name).span
        text = module.text[span.offset : span.end]
        out.append((name, text))
        found: list[str] = []
        for m in _CALLEE.finditer(text):
            if m.group(1):
                found.append(m.group(1))
            else:
                found.extend(n.strip().lstrip("%") for n in m.group(2).split(",") if n.strip())
        work.extend(reversed(found))
    return out


class MetadataKeys:
    """Instructions' metadata keys in one module: the ``op_name`` with the
    innermost source frame's file and line (from ``source_file`` and
    ``source_line``, as XLA printed them until 2025, or the module's stack
    frames), which survive renames and new XLA versions. Not the column: only
    stack frames and some versions' ``source_column`` have one, and a key must
    be the same in both eras (ops of one line and op_name are told apart by
    their operands, as a repeated key is). None for an instruction with neither."""

    __slots__ = ("_frames", "_module")

    def __init__(self, module: Module) -> None:
        self._module = module
        self._frames: dict[int, Hashable] = {}

    def of(self, instr: Instruction) -> MetadataKey | None:
        if "metadata" not in instr.attribute_text:
            return None
        meta = instr.metadata
        op_name = meta.get("op_name")
        where: Hashable = None
        if "source_file" in meta:
            where = (meta["source_file"], meta.get("source_line", 0))
        else:
            frame_id = meta.get("stack_frame_id")
            if isinstance(frame_id, int) and self._module.stack_frames:
                where = self._frames.get(frame_id)
                if where is None:
                    frame = self._module.stack_frames.frame(frame_id)
                    where = (frame.file, frame.line) if frame else ()
                    self._frames[frame_id] = where
        if op_name is None and not where:
            return None
        return (str(op_name) if op_name is not None else None, where)

    def of_body(self, instr: Instruction) -> set[MetadataKey]:
        """The keys of an op and, for a fusion, of the instructions of its
        body: the source ops it computes."""
        keys: set[MetadataKey] = set()
        own = self.of(instr)
        if own is not None:
            keys.add(own)
        if instr.opcode != "fusion":
            return keys
        for name in instr.called_computations:
            if not self._module.has_computation(name):
                continue
            for inner in self._module.computation(name).instructions:
                if inner.opcode not in PLUMBING:
                    key = self.of(inner)
                    if key is not None:
                        keys.add(key)
        return keys


def aspects(
    a: Module, x: Instruction, b: Module, y: Instruction, b2a: dict[str, str]
) -> tuple[str, ...]:
    """What differs between ``x`` (of ``a``) and its counterpart ``y``:
    ``opcode``, ``shape`` (element type or dimensions) or only its ``layout``,
    ``operands`` (read through the matching, ``b2a``), ``attributes`` (metadata
    and the names of called computations aside), ``body`` (a fused body's
    opcodes, shapes and edges; the text of all a loop, call or conditional
    runs)."""
    out = []
    if x.opcode != y.opcode:
        out.append("opcode")
    if x.shape != y.shape:
        sx, sy = x.shape, y.shape
        same_array = sx.element_type == sy.element_type and sx.dims == sy.dims
        out.append("layout" if same_array and not sx.is_tuple else "shape")
    if tuple(b2a.get(o) for o in y.operand_names) != x.operand_names:
        out.append("operands")
    if x.attribute_text != y.attribute_text and _semantics(x) != _semantics(y):
        out.append("attributes")
    if (x.opcode in _BODIES or y.opcode in _BODIES) and not _same_bodies(a, x, b, y):
        out.append("body")
    return tuple(out)


def _semantics(instr: Instruction) -> dict[str, str]:
    return {k: v for k, v in instr.attributes.items() if k not in _NAMING}


def _same_bodies(a: Module, x: Instruction, b: Module, y: Instruction) -> bool:
    """Whether the computations ``x`` and ``y`` call are alike: printed
    alike (no body is built), else built and compared as `_bodies`."""
    if x.opcode != "fusion" and y.opcode != "fusion":
        return _same_callees(a, x, b, y)
    called_x, called_y = x.called_computations, y.called_computations
    if len(called_x) == len(called_y) and all(
        _same_computation_text(a, n, b, m) for n, m in zip(called_x, called_y, strict=True)
    ):
        return True
    return _bodies(a, x) == _bodies(b, y)


def _same_computation_text(a: Module, name_a: str, b: Module, name_b: str) -> bool:
    if name_a != name_b or not (a.has_computation(name_a) and b.has_computation(name_b)):
        return False
    ca, cb = a.computation(name_a).span, b.computation(name_b).span
    return ca.end - ca.offset == cb.end - cb.offset and (
        a.text[ca.offset : ca.end] == b.text[cb.offset : cb.end]
    )


def _bodies(module: Module, instr: Instruction) -> tuple[tuple[Hashable, ...], ...]:
    """The called computations' instructions as (opcode, shape, operand
    places, literal): the same body under other names compares equal."""
    out = []
    for name in instr.called_computations:
        if not module.has_computation(name):
            continue
        comp = module.computation(name)
        place = {i.name: k for k, i in enumerate(comp.instructions)}
        out.append(
            tuple(
                (i.opcode, i.shape, tuple(place.get(o, -1) for o in i.operand_names), i.payload)
                for i in comp.instructions
            )
        )
    return tuple(out)


def moves_data(module: Module, instr: Instruction) -> str | None:
    """What an op that only moves data is: ``copy`` or ``transpose`` (the op,
    or a fusion whose root is one: XLA:CPU's ``transpose_copy_fusion``), or a
    collective's opcode (``all-gather``...). None for an op that computes."""
    if instr.opcode.startswith(_COLLECTIVES):
        return instr.opcode
    if instr.opcode in ("copy", "transpose"):
        return instr.opcode
    if instr.opcode == "fusion":
        for name in instr.called_computations[:1]:
            if module.has_computation(name):
                root = module.computation(name).root
                if root is not None and root.opcode in ("copy", "transpose"):
                    return root.opcode
    return None


_COLLECTIVES = ("all-", "reduce-scatter", "collective-", "send", "recv")


def ordered(names: Iterable[str], position: dict[str, int]) -> tuple[str, ...]:
    """``names`` in text order."""
    return tuple(sorted(names, key=lambda n: position.get(n, 0)))
