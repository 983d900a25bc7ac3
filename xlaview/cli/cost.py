"""``xlaview cost``: FLOPs, bytes and time of each op on a device's roofline."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from xlaview import units
from xlaview.cli.common import (
    MODULE_HELP,
    CliError,
    add_top,
    echo,
    emit_json,
    hlo_file,
    load_priced,
    print_table,
    say_shown,
    source_json,
    top_rows,
)
from xlaview.units import human_bytes


def cmd_cost(args: argparse.Namespace) -> int:
    from xlaview.analysis.cost.cpu_device import caveats_on
    from xlaview.analysis.cost.roofline import headline, roofline

    file = hlo_file(args.path, args.module)
    module, cost = load_priced(file)
    dev, reason = choose_device(args.device, module, file, cost.platform)
    roof = roofline(cost, dev)
    caveats = caveats_on(dev, module, file)
    order = sorted(
        range(len(cost.ops)),
        key=lambda k: (-roof.ops[k].time_s * cost.ops[k].executions, cost.ops[k].name),
    )
    if args.json:
        document = _document(cost, roof, order, file, reason)
        emit_json({**document, "cpu_caveats": caveats, **source_json(file)})
        return 0
    echo(f"{cost.module} on {dev.title} ({dev.name}: {reason})")
    if dev.measured:
        echo(f"  {dev.measured}")
    for line in headline(cost, roof):  # the window's Cost tab says the same
        echo(line)
    if caveats:
        echo("An XLA:CPU dump priced on an accelerator:")
        for caveat in caveats:
            echo(f"  {caveat}")
    echo()
    rows = []
    for k in top_rows(order, args):
        op, placed = cost.ops[k], roof.ops[k]
        times = f" x{op.executions}" if op.executions != 1 else ""
        intensity = f"{placed.intensity:.1f}" if placed.intensity is not None else "-"
        known = placed.known
        rows.append(
            (
                op.name,
                op.kind,
                units.count(op.flops) if known else units.MISSING,
                human_bytes(op.memory_bytes) if known else units.MISSING,
                intensity if known else units.MISSING,
                (units.seconds(placed.time_s) + times) if known else units.MISSING,
                placed.bound + (" (opaque)" if op.opaque else ""),
                f"{placed.share:.1%}" if known else units.MISSING,
            )
        )
    memory = f"{dev.memory} bytes"
    print_table(rows, ("op", "kind", "FLOPs", memory, "FLOP/B", "time", "bound", "share"))
    say_shown(len(rows), len(order), "ops")
    return 0


def choose_device(
    name: str | None, module: Any, file: Path, platform: str | None
) -> tuple[Any, str]:
    """The device to price on and why (``--device``, else the one the dump names)."""
    from xlaview.analysis.cost.cpu_device import CalibrationError
    from xlaview.analysis.cost.devices import UnknownDeviceError, detect_device, device

    if name:
        try:
            return device(name), "chosen with --device"
        except (UnknownDeviceError, CalibrationError) as err:
            raise CliError(str(err)) from None
    choice = detect_device(module, file, platform)
    return choice.device, choice.reason + ("" if choice.detected else "; choose one with --device")


def _document(cost: Any, roof: Any, order: list[int], file: Path, reason: str) -> dict[str, Any]:
    ops = []
    for k in order:
        op, placed = cost.ops[k], roof.ops[k]
        known = placed.known
        collective = op.collective
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
                "time_s": placed.time_s if known else None,
                "bound": placed.bound,
                # Beyond the contract.
                "opcode": op.opcode,
                "memory_bytes": op.memory_bytes,
                "executions": op.executions,
                "share": placed.share if known else None,
                "peak_flops_per_s": placed.peak_flops,
                "precision": placed.precision,
                "memory_bytes_per_s": placed.bandwidth,
                "padding_bytes": op.padding_bytes,
                "opaque": op.opaque,
                "interior_bytes": op.interior_bytes,
                "interior_time_s": placed.interior_time_s,
                "interconnect_time_s": placed.interconnect_time_s,
                "collective": None
                if collective is None
                else {
                    "kind": collective.kind,
                    "group_size": collective.group_size,
                    "payload_bytes": collective.payload_bytes,
                    "wire_bytes": collective.wire_bytes,
                },
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
        "device_spec": roof.device.to_json(),
        "unknown_ops": [
            {"name": op.name, "computation": op.computation, "kind": op.kind}
            for op in cost.unknown_ops
        ],
        "loops": [
            {"name": loop.name, "computation": loop.computation, "trip_count": loop.trip_count}
            for loop in cost.loops
        ],
    }


def register(sub: Any) -> None:
    p = sub.add_parser("cost", help="FLOPs, bytes and time of each op on a device's roofline")
    p.add_argument("path", type=Path, help="a dump folder or an HLO file")
    p.add_argument("--module", help=MODULE_HELP)
    p.add_argument(
        "--device",
        help="a device name: h100 (the SXM), h100-pcie, a100, mi300x, tpu-v5e..., or cpu (this "
        "machine's, measured once and cached); an unknown name lists them all. Default: the one "
        "the dump was compiled for (cpu for an XLA:CPU dump), else h100",
    )
    add_top(p, "ops")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_cost)
