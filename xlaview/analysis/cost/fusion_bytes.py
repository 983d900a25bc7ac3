"""What a fusion reads of each operand and writes of each output, by XLA's rules.

A fusion keeps its intermediates out of memory, so XLA charges it only its
parameters and results: a parameter read through a ``slice`` or the data
operand of a ``dynamic-slice`` costs the slice, one read by several element-wise
users costs one read, a ``broadcast`` or ``reshape`` of it a read each; a
result made by a ``dynamic-update-slice`` writes only the update (the rest of
the buffer is updated in place, which is also why its operand 0 is not read).
Large constants inside the fusion are read from memory too.

This mirrors ``FusionParameterReadBytes``, ``FusionProcessOutputBytesAccessed``,
``FusionCountConstantsMemoryAccess`` and ``FusionProcessOperandBytesRead`` of
`xla/service/hlo_cost_analysis.cc`, quirks included (a nested fusion is
"simple" when the parameter feeds its root's first operand).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from xlaview.hlo import Computation, Instruction, Shape

if TYPE_CHECKING:
    from xlaview.analysis.cost.model import CostModel

# XLA's ``immediate_constant_max_elements()``: bigger fused constants are read from memory.
IMMEDIATE_CONSTANT_MAX_ELEMENTS = 1


class FusedBody(NamedTuple):
    """What the byte rules need of a fused computation, gathered in one pass."""

    users: dict[str, list[Instruction]]
    parameters: tuple[Instruction, ...]  # by parameter number
    constants: tuple[Instruction, ...]


def parameter_users(comp: Computation) -> FusedBody:
    """The users of ``comp``'s parameters (and of what XLA follows from them:
    get-tuple-elements, nested fusions), its parameters and constants, in one pass.

    Cheap on the long element-wise bodies of big fusions: an instruction
    costs one set lookup per operand.
    """
    watched: set[str] = set()
    users: dict[str, list[Instruction]] = {}
    constants: list[Instruction] = []
    parameters: list[Instruction] = []
    for instr in comp.instructions:
        op = instr.opcode
        if op == "parameter":
            watched.add(instr.name)
            parameters.append(instr)
            continue
        if op == "constant":
            constants.append(instr)
            continue
        hit = False
        for operand in instr.operand_names:
            if operand in watched:
                found = users.setdefault(operand, [])
                if not found or found[-1] is not instr:
                    found.append(instr)
                hit = True
        if hit and op in ("get-tuple-element", "fusion"):
            watched.add(instr.name)
    parameters.sort(key=lambda i: i.parameter_number or 0)
    return FusedBody(users, tuple(parameters), tuple(constants))


def fusion_bytes(
    model: CostModel, fusion: Instruction, fused: Computation
) -> tuple[tuple[float, ...], float, tuple[float, ...] | None, float]:
    """(bytes read per operand, bytes written, written per result element or
    None, bytes of large constants read) for ``fusion`` calling ``fused``."""
    users, parameters, constant_instrs = model.parameter_users(fused)
    written, elements = _output_bytes(model, fusion, fused)
    constants = float(
        sum(
            model.size(i.shape)
            for i in constant_instrs
            if model.elements(i.shape) > IMMEDIATE_CONSTANT_MAX_ELEMENTS
        )
    )
    reads = []
    for param in parameters:
        if not param.shape.is_tuple:
            reads.append(float(parameter_read_bytes(model, param, fused, users)))
            continue
        total = 0
        for path in _leaf_paths(param.shape):
            node = param
            for index in path:
                for user in users.get(node.name, ()):
                    if user.opcode == "get-tuple-element" and user.attribute("index") == str(index):
                        node = user
                        break
            total += parameter_read_bytes(model, node, fused, users)
        reads.append(float(total))
    return tuple(reads), written, elements, constants


def parameter_read_bytes(
    model: CostModel,
    hlo: Instruction,
    comp: Computation,
    users: dict[str, list[Instruction]],
) -> int:
    """XLA's ``FusionParameterReadBytes`` for a fused parameter (or a
    get-tuple-element of one)."""
    size = 0
    seen_trivial_user = False
    for user in users.get(hlo.name, ()):
        op = user.opcode
        if op == "fusion":
            size += _nested_fusion_reads(model, hlo, user, comp, users)
        elif op == "slice":
            size += model.size(user.shape)
        elif op == "dynamic-slice":
            if user.operand_names and user.operand_names[0] == hlo.name:
                size += model.size(user.shape)
            elif not seen_trivial_user:
                seen_trivial_user = True
                size += model.size(hlo.shape)
        elif op == "dynamic-update-slice":
            first = user.operand_names[0] if user.operand_names else None
            if first != hlo.name and not seen_trivial_user:
                seen_trivial_user = True
                size += model.size(hlo.shape)
        elif op in ("broadcast", "reshape"):
            size += model.size(hlo.shape)
        elif not seen_trivial_user:
            # Other users are assumed to share one read from memory.
            seen_trivial_user = True
            size += model.size(hlo.shape)
    return size


def _nested_fusion_reads(
    model: CostModel,
    hlo: Instruction,
    user: Instruction,
    comp: Computation,
    users: dict[str, list[Instruction]],
) -> int:
    called = user.called_computations
    if not called or not model.module.has_computation(called[0]):
        return 0
    nested = model.module.computation(called[0])
    params = {p.parameter_number: p for p in nested.parameters}
    root = nested.root
    size = 0
    for idx, operand in enumerate(user.operand_names):
        if operand != hlo.name or idx not in params:
            continue
        param = params[idx]
        simple = root is None or not root.operand_names or root.operand_names[0] == param.name
        nested_seen = False
        for fusion_user in users.get(user.name, ()):
            op = fusion_user.opcode
            first = fusion_user.operand_names[0] if fusion_user.operand_names else None
            if simple and op == "slice":
                size += model.size(fusion_user.shape)
            elif simple and op == "dynamic-slice":
                if first == user.name:
                    size += model.size(fusion_user.shape)
                elif not nested_seen:
                    nested_seen = True
                    size += model.size(user.shape)
            elif simple and op == "dynamic-update-slice":
                if first != user.name and not nested_seen:
                    nested_seen = True
                    size += model.size(user.shape)
            elif not nested_seen:
                nested_seen = True
                nested_users = model.parameter_users(nested).users
                size += parameter_read_bytes(model, param, nested, nested_users)
    return size


def _output_bytes(
    model: CostModel, fusion: Instruction, fused: Computation
) -> tuple[float, tuple[float, ...] | None]:
    root = fused.root
    shape = fusion.shape
    if not shape.is_tuple:
        if not shape.is_array:
            return 0.0, None
        return float(_written(model, root, shape, fused)), None
    elements = []
    for index, element in enumerate(shape.elements):
        if element.is_tuple:
            elements.append(float(sum(model.size(s) for s in element.leaves() if s.is_array)))
            continue
        if not element.is_array:
            elements.append(0.0)
            continue
        node = root
        if root is not None and root.opcode == "tuple" and index < len(root.operand_names):
            name = root.operand_names[index]
            node = fused.instruction(name) if name in fused else None
        elements.append(float(_written(model, node, element, fused)))
    return float(sum(elements)), tuple(elements)


def _written(model: CostModel, node: Instruction | None, shape: Shape, fused: Computation) -> int:
    """The bytes a fusion result costs: the update of an in-place
    dynamic-update-slice, else the whole result."""
    if node is not None and node.opcode == "dynamic-update-slice" and len(node.operand_names) > 1:
        update = node.operand_names[1]
        if update in fused:
            return model.size(fused.instruction(update).shape)
    return model.size(shape)


def _leaf_paths(shape: Shape, prefix: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    if not shape.is_tuple:
        return [prefix]
    paths: list[tuple[int, ...]] = []
    for k, element in enumerate(shape.elements):
        paths += _leaf_paths(element, (*prefix, k))
    return paths
