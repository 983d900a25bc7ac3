"""``xlaview cost``: FLOPs, bytes and time of each op on a device's roofline."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from xlaview import units
from xlaview.cli.common import (
    CliError,
    echo,
    emit_json,
    hlo_file,
    load_priced,
    print_table,
)
from xlaview.units import human_bytes


def cmd_cost(args: argparse.Namespace) -> int:
    from xlaview.analysis.cost.devices import UnknownDeviceError, detect_device, device
    from xlaview.analysis.cost.roofline import roofline

    file = hlo_file(args.path, args.module)
    module, cost = load_priced(file)
    if args.device:
        try:
            dev, reason = device(args.device), "chosen with --device"
        except UnknownDeviceError as err:
            raise CliError(str(err)) from None
    else:
        choice = detect_device(module, file, cost.platform)
        dev = choice.device
        reason = choice.reason + ("" if choice.detected else "; choose one with --device")
    roof = roofline(cost, dev)
    order = sorted(
        range(len(cost.ops)),
        key=lambda k: (-roof.ops[k].time_s * cost.ops[k].executions, cost.ops[k].name),
    )
    if args.json:
        emit_json(_document(cost, roof, order, file, reason))
        return 0
    echo(f"{cost.module} on {dev.title} ({dev.name}: {reason})")
    total = cost.totals
    echo(
        f"{units.count(total.flops, 'FLOP')}, "
        f"{units.count(total.transcendentals)} transcendentals, "
        f"{human_bytes(total.bytes_accessed)} accessed; {units.seconds(roof.time_s)} at best"
    )
    if cost.executed != cost.totals:
        ex = cost.executed
        echo(
            f"executed (loops x trip count): {units.count(ex.flops, 'FLOP')}, "
            f"{human_bytes(ex.bytes_accessed)}; {units.seconds(roof.executed_time_s)}"
        )
    unknown = [loop.name for loop in cost.loops if loop.trip_count is None]
    if unknown:
        echo(
            f"loops without a known trip count (counted once): {', '.join(unknown[:5])}"
            + (" ..." if len(unknown) > 5 else "")
        )
    echo()
    rows = []
    for k in order[: args.top]:
        op, placed = cost.ops[k], roof.ops[k]
        times = f" x{op.executions}" if op.executions != 1 else ""
        intensity = f"{placed.intensity:.1f}" if placed.intensity is not None else "-"
        rows.append(
            (
                op.name,
                op.kind,
                units.count(op.flops),
                human_bytes(op.memory_bytes),
                intensity,
                units.seconds(placed.time_s) + times,
                placed.bound,
                f"{placed.share:.1%}",
            )
        )
    print_table(rows, ("op", "kind", "FLOPs", "bytes", "FLOP/B", "time", "bound", "share"))
    return 0


def _document(cost: Any, roof: Any, order: list[int], file: Path, reason: str) -> dict[str, Any]:
    ops = []
    for k in order:
        op, placed = cost.ops[k], roof.ops[k]
        ops.append(
            {
                "name": op.name,
                "computation": op.computation,
                "kind": op.kind,
                "flops": op.flops,
                "transcendentals": op.transcendentals,
                "bytes_read": op.total_bytes_read,
                "bytes_written": op.bytes_written,
                "bytes_accessed": op.bytes_accessed,
                "intensity": placed.intensity,
                "time_s": placed.time_s,
                "bound": placed.bound,
                # Beyond the contract.
                "opcode": op.opcode,
                "memory_bytes": op.memory_bytes,
                "executions": op.executions,
                "share": placed.share,
            }
        )
    return {
        "module": cost.module,
        "device": roof.device.name,
        **cost.totals.to_json(),
        "time_s": roof.time_s,
        "executed": {
            "flops": cost.executed.flops,
            "bytes_accessed": cost.executed.bytes_accessed,
            "transcendentals": cost.executed.transcendentals,
            "time_s": roof.executed_time_s,
        },
        "ops": ops,
        # Beyond the contract.
        "file": str(file),
        "device_reason": reason,
        "loops": [
            {"name": loop.name, "computation": loop.computation, "trip_count": loop.trip_count}
            for loop in cost.loops
        ],
    }


def register(sub: Any) -> None:
    p = sub.add_parser("cost", help="FLOPs, bytes and time of each op on a device's roofline")
    p.add_argument("path", type=Path, help="a dump folder or an HLO file")
    p.add_argument("--module", help="module name or id (default: the one with most passes)")
    p.add_argument(
        "--device",
        help="h100, h200, a100, mi300x, tpu-v4, tpu-v5e, tpu-v5p, "
        "tpu-v6e (default: the one the dump was compiled for, else h100)",
    )
    p.add_argument("--top", type=int, default=20, help="ops shown in the table")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_cost)
