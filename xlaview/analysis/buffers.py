"""The buffers an instruction's result lives in, element by element, and bytes
per memory space.

A tuple-shaped result (a GEMM's ``(bf16[4096,14336], s8[79691776])``) is not one
buffer: the buffer assignment places each element (ShapeIndex ``{0}``, ``{1}``)
on its own, and the tuple itself (``{}``) is only a small table of pointers.
`result_buffers` joins every element with its slice; `primary_memory` picks
the slice that stands for the result (the element ``{0}``, not the table).
"""

from __future__ import annotations

from dataclasses import dataclass

from xlaview.analysis.memory_spaces import MemorySpace, memory_space, shape_memory_space
from xlaview.dump.readers import BufferAssignment
from xlaview.dump.reports import InstructionMemory, ModuleReports, memory_of
from xlaview.hlo import Instruction, Shape
from xlaview.hlo.shape import ShapeSyntaxError, parse_shape


@dataclass(frozen=True, slots=True)
class ElementBuffer:
    """One array element of a result: its ShapeIndex (``{}``, ``{0}``, ``{1,0}``),
    shape, memory space, and the buffer-assignment slice holding it (None
    without a report, or when XLA assigned it no buffer)."""

    index: str
    shape: Shape
    memory_space: MemorySpace
    memory: InstructionMemory | None

    def to_json(self) -> dict[str, object]:
        """The ``inspect --json`` ``buffers`` item."""
        memory = self.memory
        return {
            "index": self.index,
            "shape": str(self.shape),
            "allocation": memory.allocation.index if memory else None,
            "offset": memory.value.offset if memory else None,
            "size": memory.value.size if memory else None,
            "memory_space": self.memory_space.number,
            "memory_space_name": self.memory_space.label,
        }


def result_elements(shape: Shape, prefix: tuple[int, ...] = ()) -> list[tuple[str, Shape]]:
    """Every array element of a (tuple) shape with its ShapeIndex, depth first."""
    if not shape.is_tuple:
        if not shape.is_array:
            return []
        return [("{" + ",".join(str(i) for i in prefix) + "}", shape)]
    out: list[tuple[str, Shape]] = []
    for k, element in enumerate(shape.elements):
        out += result_elements(element, (*prefix, k))
    return out


def result_buffers(
    instr: Instruction, reports: ModuleReports | None = None, platform: str | None = None
) -> list[ElementBuffer]:
    """Each array element of ``instr``'s result joined with its buffer slice."""
    assignment = reports.buffer_assignment if reports else None
    live = reports.live_range if reports else None
    out = []
    for index, shape in result_elements(instr.shape):
        memory = memory_of(instr.name, assignment, live, index) if assignment else None
        out.append(
            ElementBuffer(index, shape, memory_space(shape_memory_space(shape), platform), memory)
        )
    return out


def primary_memory(instr: Instruction, reports: ModuleReports | None) -> InstructionMemory | None:
    """The slice that stands for a result: its own for an array, the first
    element's with a buffer for a tuple (never the tuple's pointer table)."""
    if not reports or not reports.buffer_assignment:
        return None
    assignment, live = reports.buffer_assignment, reports.live_range
    if not instr.shape.is_tuple:
        return memory_of(instr.name, assignment, live)
    for index, _ in result_elements(instr.shape):
        memory = memory_of(instr.name, assignment, live, index)
        if memory is not None:
            return memory
    return memory_of(instr.name, assignment, live)


def bytes_per_memory_space(
    assignment: BufferAssignment, platform: str | None = None
) -> list[tuple[MemorySpace, int]]:
    """Bytes of the allocations in each memory space (read from the ``S(n)`` of
    the shapes they hold), largest first."""
    totals: dict[int, int] = {}
    for allocation in assignment.allocations:
        space = 0
        for value in allocation.values:
            try:
                shape = parse_shape(value.shape)
            except ShapeSyntaxError:
                continue
            if not shape.is_tuple:
                space = shape_memory_space(shape)
                break
        totals[space] = totals.get(space, 0) + allocation.size
    spaces = [(memory_space(number, platform), size) for number, size in totals.items()]
    spaces.sort(key=lambda pair: (-pair[1], pair[0].number))
    return spaces
