"""What a collective sends over the interconnect, per device.

A collective's time is bound by the links between chips, not by HBM: XLA's
cost model charges it its operands and result as memory bytes, which prices
an all-reduce as a copy. Here each collective gets the bytes one device must
send for the usual bandwidth-optimal algorithms (a ring, or its equivalent on
a torus), for ``n`` devices in its replica group and a payload of ``S`` bytes
(the full, unsharded size for the gathering ones):

* all-reduce: reduce-scatter then all-gather, ``2 (n - 1) / n x S``;
* all-gather (``S`` its result), reduce-scatter (``S`` its operand),
  all-to-all and ragged all-to-all: ``(n - 1) / n x S``;
* collective-permute, collective-broadcast, send: ``S`` (each device sends
  its whole operand once).

These are lower bounds at the interconnect's full bandwidth (Patarasuk and
Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
workstations", J. Parallel Distrib. Comput. 69(2), 2009; NCCL's
"Performance" notes use the same bus-bandwidth factors:
https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md): no
latency term, no contention. The group size comes from ``replica_groups``
(explicit lists, the iota form ``[G,N]<=[...]``, or a mesh's named axes);
an empty list means every device of the program (``num_partitions`` x
``replica_count`` from the module header).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from xlaview.analysis.kinds import wrapped_root
from xlaview.hlo import Instruction, Module

__all__ = ["Collective", "collective_kind", "group_size", "wire_bytes"]

_KINDS = (
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "ragged-all-to-all",
    "all-to-all",
    "collective-permute",
    "collective-broadcast",
    "send",
)
_FACTOR_WHOLE = frozenset(("collective-permute", "collective-broadcast", "send"))
_IOTA = re.compile(r"\[(\d{1,9}(?:,\d{1,9})*)\]<=")
_MESH = re.compile(r"mesh\[([^\]]*)\]\s*\{([^}]*)\}")
_MESH_AXIS = re.compile(r"'([^']*)'\s*=\s*(\d{1,9})")
_GROUP = re.compile(r"\{([\d,\s]*)\}")


@dataclass(frozen=True, slots=True)
class Collective:
    """One collective: what it is, its group, and what each device sends."""

    kind: str  # "all-reduce", "all-gather"...
    group_size: int  # devices in its replica group (1: nothing to send)
    payload_bytes: int  # S in the module docstring
    wire_bytes: int  # what each device sends over the interconnect


def collective_kind(instr: Instruction, module: Module) -> tuple[str, Instruction] | None:
    """The collective ``instr`` runs, and the instruction holding its groups:
    itself, its ``-start`` half, or the op an ``async-start`` wraps. None for
    anything else, ``-done`` halves included (the start carries the transfer)."""
    op = instr.opcode
    holder = instr
    if op == "async-start":
        wrapped = wrapped_root(instr, module)
        if wrapped is None:
            return None
        holder, op = wrapped, wrapped.opcode
    op = op.removesuffix("-start")
    return (op, holder) if op in _KINDS else None


def group_size(instr: Instruction, module: Module) -> int:
    """Devices in ``instr``'s replica group (every device of the program when
    the attribute lists none)."""
    text = instr.attribute_text or ""
    start = text.find("replica_groups=")
    if start >= 0:
        value = text[start + len("replica_groups=") :]
        if value.startswith("["):
            iota = _IOTA.match(value)
            if iota:
                return max(1, int(iota.group(1).split(",")[-1]))
        elif value.startswith("mesh"):
            mesh = _MESH.match(value)
            if mesh:
                axes = {name: int(size) for name, size in _MESH_AXIS.findall(mesh.group(1))}
                named = [a.strip().strip("'") for a in mesh.group(2).split(",") if a.strip()]
                if named and all(a in axes for a in named):
                    return max(1, math.prod(axes[a] for a in named))
        elif value.startswith("{{"):
            first = _GROUP.search(value, 1)
            if first:
                return max(1, len([d for d in first.group(1).split(",") if d.strip()]))
    return _program_devices(module)


def _program_devices(module: Module) -> int:
    attributes = module.attributes
    count = 1
    for key in ("num_partitions", "replica_count"):
        value = attributes.get(key, "1")
        if value.isdigit() and 0 < len(value) <= 9:
            count *= int(value)
    return max(1, count)


def wire_bytes(kind: str, n: int, payload: int) -> int:
    """What each of ``n`` devices sends for a collective of ``payload`` bytes."""
    if n <= 1 or payload <= 0:
        return 0
    if kind in _FACTOR_WHOLE:
        return payload
    factor = 2 * (n - 1) / n if kind == "all-reduce" else (n - 1) / n
    return round(factor * payload)
