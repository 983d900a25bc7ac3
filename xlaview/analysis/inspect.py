"""Everything the dump says about one instruction, joined: the HLO line, its
layouts decoded, the bytes it moves, and its buffer-assignment entry, live
range and share of the peak of live values. The CLI prints it; the inspector
shows it."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from xlaview.analysis.buffers import bytes_per_memory_space, primary_memory, result_buffers
from xlaview.analysis.kinds import custom_call_target, kind_name, op_label
from xlaview.analysis.memory import explain_memory, memory_timeline, module_memory
from xlaview.analysis.memory_spaces import memory_platform, memory_space
from xlaview.analysis.op_kernels import OpKernel, op_kernel
from xlaview.dump.kernels import KernelFiles, ModuleFunctions, ModuleLevels, kernel_arguments
from xlaview.dump.reports import ModuleReports, memory_of
from xlaview.hlo import Module, Shape, describe_dimension_order

if TYPE_CHECKING:
    from xlaview.analysis.cost.roofline import Roofline
    from xlaview.analysis.cost.totals import ModuleCost


def layout_of(shape: Shape) -> dict[str, Any] | None:
    """The contract's layout object: None for tuples, tokens and unknown shapes."""
    if not shape.is_array:
        return None
    layout = shape.layout
    return {
        "minor_to_major": list(layout.minor_to_major)
        if layout
        else list(range(shape.rank - 1, -1, -1)),
        "tiles": list(layout.tile_strings) if layout else [],
        "memory_space": layout.memory_space if layout else None,
    }


def decode_layout(shape: Shape, platform: str | None = None) -> dict[str, Any]:
    """A layout in words, for people: dimension order, tiles, packing, memory
    space (named as ``platform``, `memory_platform`, calls it)."""
    out: dict[str, Any] = {"shape": str(shape)}
    if not shape.is_array:
        elements = shape.elements if shape.is_tuple else ()
        out["elements"] = [decode_layout(e, platform) for e in elements]
        out["bytes"] = shape.byte_size()
        return out
    layout = shape.layout
    out["dimension_order"] = describe_dimension_order(shape)
    out["tiles"] = list(layout.tile_strings) if layout else []
    out["element_size_bits"] = layout.element_size_bits if layout else None
    space = layout.memory_space if layout else None
    out["memory_space"] = space
    out["memory_space_name"] = memory_space(space, platform).label
    out["bytes"] = shape.byte_size()
    out["padding_bytes"] = shape.byte_size() - shape.unpadded_byte_size()
    return out


def kernel_argument_map(
    module: Module,
    name: str,
    ir: str,
    reports: ModuleReports | None = None,
    function: str | None = None,
) -> list[dict[str, Any]]:
    """What each buffer an XLA:CPU kernel takes is in HLO: the instruction's
    operands in order, then its result, with their buffer-assignment slices.
    ``dereferenceable`` (what LLVM was told) should equal ``bytes``. ``function``
    names the kernel when XLA compiled it once for an identical fusion."""
    comp, instr = module.find(name)
    shapes = {i.name: i.shape for i in comp.instructions}
    holders = [(o, shapes[o]) for o in instr.operand_names if o in shapes]
    results = [(instr.name, leaf) for leaf in instr.shape.leaves()]
    out = []
    for arg in kernel_arguments(ir, function or name):
        if arg.index < len(holders):
            hlo, shape = holders[arg.index]
            role = f"operand {arg.index}"
        elif arg.index - len(holders) < len(results):
            hlo, shape = results[arg.index - len(holders)]
            role = "result"
        else:
            hlo, shape, role = None, None, "?"
        entry: dict[str, Any] = {
            "argument": arg.index,
            "value": arg.value,
            "role": role,
            "hlo": hlo,
            "shape": str(shape) if shape is not None else None,
            "bytes": shape.byte_size() if shape is not None else None,
            "dereferenceable": arg.dereferenceable,
            "allocation": None,
        }
        if hlo and reports and reports.buffer_assignment:
            memory = memory_of(hlo, reports.buffer_assignment, reports.live_range)
            if memory is not None:
                entry["allocation"] = {
                    "index": memory.allocation.index,
                    "offset": memory.value.offset,
                    "size": memory.value.size,
                }
        out.append(entry)
    return out


def kernel_files_for(
    module: Module, name: str, levels: ModuleLevels, functions: ModuleFunctions | None = None
) -> tuple[KernelFiles | None, str | None]:
    """The kernel files of an instruction (None: it has none of its own), and
    the instruction they were named after when it is another one: XLA compiles
    identical fusions once. `op_kernel` says why when there are none."""
    try:
        kernel = op_kernel(module, name, levels, functions)
    except KeyError:
        return None, None
    return (kernel.files() if kernel else None), kernel.shared_with


def describe_instruction(
    module: Module,
    name: str,
    reports: ModuleReports | None = None,
    levels: ModuleLevels | None = None,
    cost: ModuleCost | None = None,
    roof: Roofline | None = None,
    functions: ModuleFunctions | None = None,
    final: bool = True,
    kernel: bool = True,
) -> dict[str, Any]:
    """The ``inspect --json`` "instruction" object (plus extra keys the GUI shows).

    ``cost`` (`module_cost` of the module) and ``roof`` (its `roofline` on a
    device) fill the ``cost`` object; without them it is None. ``levels`` and
    ``functions`` (`module_functions`) find its kernel (`op_kernel`; ``final``:
    ``module`` is the one XLA compiled, not a pass before it; ``kernel`` False:
    not looked for, the ``kernel`` object empty, for a view that shows it
    apart). Raises
    KeyError when the module has no such instruction.
    """
    comp, instr = module.find(name)
    shapes = {i.name: i.shape for i in comp.instructions}
    operands = [
        {"name": o, "shape": str(shapes[o]) if o in shapes else None} for o in instr.operand_names
    ]
    operand_bytes = sum(
        shapes[o].byte_size() for o in dict.fromkeys(instr.operand_names) if o in shapes
    )
    called = list(instr.called_computations)
    fused = called[0] if instr.opcode == "fusion" and called else None
    if fused is None and instr.attribute("calls"):
        fused = called[0] if called else None
    platform = cost.platform if cost is not None else memory_platform(module)
    described: dict[str, Any] = {
        "name": instr.name,
        "opcode": instr.opcode,
        "computation": comp.name,
        "shape": str(instr.shape),
        "shape_elements": [str(e) for e in instr.shape.elements],  # of a tuple
        "fusion_kind": instr.fusion_kind,
        "custom_call_target": custom_call_target(instr),
        "kind": kind_name(instr, module),
        "label": op_label(instr, module),
        "fused_computation": fused,
        "operands": operands,
        "layout": layout_of(instr.shape),
        "bytes": {"output": instr.shape.byte_size(), "operands": operand_bytes},
        "allocation": None,
        "buffers": [b.to_json() for b in result_buffers(instr, reports, platform)],
        "cost": describe_cost(cost, roof, instr.name),
        "live_range": None,
        # Extras beyond the contract.
        "line": instr.span.line,
        "called_computations": called,
        "layout_decoded": decode_layout(instr.shape, platform),
        "operand_layouts": [
            {"name": o, **decode_layout(shapes[o], platform)}
            for o in dict.fromkeys(instr.operand_names)
            if o in shapes
        ],
        "op_name": instr.op_name,
        "metadata": instr.metadata,
        "source": [str(f) for f in module.source_frames(instr)],
        "backend_config": instr.backend_config,
        "peak_share": None,
        # The peak of live values (`ModuleMemory.peak_live_bytes`) the share is of.
        "peak_bytes": reports.live_range.peak_bytes if reports and reports.live_range else None,
    }
    if reports and reports.buffer_assignment:
        # A tuple-shaped result: its first element's slice, not the pointer table's.
        memory = primary_memory(instr, reports)
        if memory is not None:
            described["allocation"] = {
                "index": memory.allocation.index,
                "kind": memory.allocation.kind,
                "offset": memory.value.offset,
                "size": memory.value.size,
                "allocation_size": memory.allocation_size,
            }
            described["allocation_flags"] = list(memory.allocation.flags)
            described["live_range"] = list(memory.live_range) if memory.live_range else None
            described["peak_share"] = memory.peak_share
    if described["live_range"] is None and reports and reports.live_range:
        live = reports.live_range.range_of(instr.name)
        described["live_range"] = list(live) if live else None
    found = op_kernel(module, instr.name, levels, functions, final) if kernel else None
    found = found if found is not None else OpKernel(instr.name)
    described["kernel"] = found.to_json()
    described["kernel_shared_with"] = found.shared_with
    return described


def describe_cost(
    cost: ModuleCost | None, roof: Roofline | None, name: str
) -> dict[str, Any] | None:
    """The ``inspect --json`` ``cost`` object of one instruction (None without a cost)."""
    op = cost.op(name) if cost is not None else None
    if op is None:
        return None
    out: dict[str, Any] = {
        "opcode": op.opcode,
        "flops": op.flops,
        "transcendentals": op.transcendentals,
        "bytes_read": list(op.bytes_read),
        "bytes_written": op.bytes_written,
        "bytes_accessed": op.bytes_accessed,
        "memory_bytes": op.memory_bytes,
        "executions": op.executions,
        "top_level": op.top_level,
        "known": op.known,
        "opaque": op.opaque,
        "interior_bytes": op.interior_bytes,
        "padding_bytes": op.padding_bytes,
        "collective": None
        if op.collective is None
        else {
            "kind": op.collective.kind,
            "group_size": op.collective.group_size,
            "payload_bytes": op.collective.payload_bytes,
            "wire_bytes": op.collective.wire_bytes,
        },
        "run": None,
    }
    run = cost.run_totals(name) if cost is not None else None
    if run is not None:  # a loop, call or conditional: what one run of it executes
        time = roof.run_time(name) if roof is not None else None
        total = roof.executed_time_s if roof is not None else 0.0
        out["run"] = {
            **run.to_json(),
            "time_s": time,
            # its share of the module's executed estimate
            "share": min(time / total, 1.0) if time is not None and total > 0 else None,
        }
    placed = roof.op(name) if roof is not None else None
    if placed is not None and roof is not None:
        out.update(
            device=roof.device.name,
            device_title=roof.device.title,
            intensity=placed.intensity,
            time_s=placed.time_s if placed.known else None,
            bound=placed.bound,
            precision=placed.precision,
            share=placed.share if placed.known else None,
            peak_flops_per_s=placed.peak_flops,
            memory_bytes_per_s=placed.bandwidth,
            interconnect_time_s=placed.interconnect_time_s,
            interior_time_s=placed.interior_time_s,
        )
    return out


def describe_module(module: Module, reports: ModuleReports | None = None) -> dict[str, Any]:
    """What ``inspect FILE`` prints without ``--instruction``."""
    fusions = Counter(i.fusion_kind or "unknown" for i in module.instructions_with("fusion"))
    entry = module.entry
    memory = module_memory(reports)
    timeline = (
        memory_timeline(reports.live_range, reports.buffer_assignment)
        if reports is not None and reports.live_range is not None
        else None
    )
    return {
        "module": module.name,
        "computations": len(module.computations),
        "instructions": module.instruction_count,
        "entry": entry.name if entry else None,
        "entry_instructions": len(entry.instructions) if entry else 0,
        "fusions": dict(sorted(fusions.items())),
        # Kept for older readers: the peak of live values, `memory.peak_live_bytes`.
        "peak_memory_bytes": memory.peak_live_bytes if memory else None,
        "memory": memory.to_json() if memory else None,
        "memory_text": memory.describe() if memory else None,
        "memory_note": explain_memory(memory, timeline) if memory else None,
        "allocations": len(reports.buffer_assignment.allocations)
        if reports and reports.buffer_assignment
        else None,
        # Allocated bytes per memory space (HBM, TPU VMEM S(1), host S(5)...).
        "memory_spaces": [
            {"memory_space": space.number, "name": space.label, "bytes": size}
            for space, size in bytes_per_memory_space(
                reports.buffer_assignment, memory_platform(module)
            )
        ]
        if reports and reports.buffer_assignment
        else None,
    }
