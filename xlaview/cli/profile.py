"""``xlaview profile``: measured time per op from a ``jax.profiler`` trace,
beside the static cost of each op."""

from __future__ import annotations

import argparse
from pathlib import Path

from xlaview.cli.common import CliError, echo, emit_json, load_checked, print_table
from xlaview.units import human_bytes


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value * 1e9:.3g} ns"


def _rate(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def cmd_profile(args: argparse.Namespace) -> int:
    from xlaview.dump.index import index_dump, index_file
    from xlaview.profile import (
        TraceReadError,
        choose_module,
        executed_file,
        profile_dump_module,
        read_trace,
    )

    dump: Path = args.dump
    if not dump.exists():
        raise CliError(f"{dump}: no such file or folder")
    try:
        trace = read_trace(args.trace)
    except TraceReadError as err:
        raise CliError(str(err)) from None
    index = index_file(dump) if dump.is_file() else index_dump(dump)
    if not index.modules:
        raise CliError(f"{dump}: no XLA module files here")
    try:
        dump_module = choose_module(trace, index, args.module)
    except KeyError as err:
        raise CliError(str(err).strip('"')) from None
    dump_file = executed_file(dump_module)
    if dump_file is None:
        raise CliError(f"{dump_module.key}: no HLO text in the dump to join the trace to")
    if args.trace_device is not None and args.trace_device not in trace.devices:
        raise CliError(
            f"the trace has no device {args.trace_device!r} "
            f"(devices: {', '.join(trace.devices) or 'none'})"
        )
    module = load_checked(dump_file.path)
    try:
        profile = profile_dump_module(
            trace, index, dump_module, module, device=args.device, trace_device=args.trace_device
        )
    except KeyError as err:  # UnknownDeviceError included
        raise CliError(str(err).strip('"')) from None
    for note in _notes(profile, trace):
        echo(f"note: {note}", err=True)
    if args.json:
        emit_json(profile.to_json())
        return 0
    _print(profile, trace, dump_module.title)
    return 0


def _notes(profile, trace) -> list[str]:
    notes = list(trace.notes)
    if profile.shared_with:
        others = ", ".join(f"module_{i:04d}" for i in profile.shared_with)
        notes.append(
            f"some runs fit {others} as well (same op names) and are counted for each; "
            "an .xplane.pb trace tells compilations apart by program id"
        )
    if profile.device is None:
        notes.append(
            "no roofline: the dump names no accelerator it was compiled for; "
            "choose one with --device (h100, a100, mi300x, tpu-v5e, ...)"
        )
    if not profile.ops and not profile.unmatched:
        notes.append(
            f"the trace has no event of {profile.module}"
            + (f" (module_{profile.module_id:04d})" if profile.module_id is not None else "")
        )
    return notes


def _print(profile, trace, title: str) -> None:
    files = ", ".join(str(f.path) for f in trace.files)
    echo(
        f"{title}: {profile.runs} runs on "
        f"{profile.trace_device or ', '.join(profile.devices) or 'no device'}"
    )
    echo(f"trace: {files} ({trace.format}, {trace.events:,} events)")
    share = profile.matched_s / profile.measured_s if profile.measured_s else 0.0
    echo(
        f"measured {_seconds(profile.measured_s)}, of which {share:.1%} in ops of the dump; "
        f"roofline on {profile.device or 'no device'}; events matched by {profile.matched_by}"
    )
    echo()
    rows = [
        (
            op.name,
            op.count,
            _seconds(op.measured_s),
            _seconds(op.mean_s),
            f"{op.share:.1%}",
            _seconds(op.self_s),
            _rate(op.flops, "FLOP") if op.flops is not None else "-",
            human_bytes(op.bytes_accessed),
            _seconds(op.time_s),
            _rate(op.achieved_flops_per_s, "FLOP/s"),
            _rate(op.achieved_bytes_per_s, "B/s"),
            "-" if op.roofline_fraction is None else f"{op.roofline_fraction * 100:.2g}%",
        )
        for op in profile.ops
    ]
    if rows:
        print_table(
            rows,
            (
                "op",
                "count",
                "total",
                "mean",
                "share",
                "self",
                "flops",
                "bytes",
                "roofline",
                "flop/s",
                "bytes/s",
                "of roofline",
            ),
        )
    else:
        echo("no event names an instruction of this module")
    if profile.unmatched:
        echo()
        echo("events naming no instruction of the dump:")
        print_table(
            [(t.name, t.count, _seconds(t.measured_s)) for t in profile.unmatched],
            ("op", "count", "total"),
        )


def register(sub) -> None:
    p = sub.add_parser(
        "profile",
        help="measured time per op from a jax.profiler trace, beside its static cost",
        usage="xlaview profile [--json] DUMP TRACE [--module NAME] [--device NAME] "
        "[--trace-device NAME]",
    )
    p.add_argument("dump", type=Path, metavar="DUMP", help="dump folder or HLO file")
    p.add_argument(
        "trace",
        type=Path,
        metavar="TRACE",
        help="trace: the folder given to jax.profiler.start_trace, a "
        "plugins/profile/<run> folder, a .xplane.pb or a .trace.json.gz",
    )
    p.add_argument(
        "--module",
        help="module name, module_NNNN or id (default: the module the trace spent most time in)",
    )
    p.add_argument(
        "--device",
        help="device of the roofline, as in `xlaview cost` (h100, h200, "
        "a100, mi300x, tpu-v4, tpu-v5e, tpu-v5p, tpu-v6e; default: "
        "the accelerator the dump was compiled for, none for CPU)",
    )
    p.add_argument(
        "--trace-device",
        help="measure one device of the trace, e.g. /host:CPU:0 (default: all devices, summed)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=cmd_profile)
