"""``xlaview inspect``: what the dump says about a module or one instruction."""

from __future__ import annotations

import argparse
from pathlib import Path

from xlaview import units
from xlaview.cli.common import CliError, echo, emit_json, keep, reading, warn_pricing
from xlaview.units import human_bytes


def load_for_inspection(path: Path, priced: bool = False):
    """(loaded module, its cost if ``priced`` else None, reports or None,
    kernel levels or None) for an HLO file of a dump."""
    from xlaview.analysis.cost.two_processes import load_and_price
    from xlaview.dump.index import index_dump
    from xlaview.dump.modules import load_module
    from xlaview.dump.reports import load_reports

    if not path.exists() and not path.is_symlink():
        raise CliError(f"{path}: no such file")
    if path.is_dir():
        raise CliError(f"{path}: a folder; inspect takes an HLO file of a dump")
    from xlaview.dump.kernels import module_levels

    found: dict[str, object] = {"reports": None, "levels": None}

    def read_the_dump() -> None:
        index = index_dump(path.parent)
        module = index.module_of(path)
        # The reports describe the final module: joined only with that file.
        if (
            module is not None
            and module.after_optimizations
            and (module.after_optimizations.path == path.absolute())
        ):
            found["reports"] = load_reports(module)
        found["levels"] = module_levels(module, index.unrecognized) if module is not None else None

    if priced:  # while a helper process parses part of a big module
        loaded, cost = reading(path, lambda: load_and_price(path, meanwhile=read_the_dump))
        warn_pricing(path, cost)
    else:
        loaded, cost = reading(path, lambda: load_module(path)), None
        read_the_dump()
    if not loaded.module.computations:
        raise CliError(f"{path}: no HLO computation in this file")
    keep(loaded.module)
    return loaded, cost, found["reports"], found["levels"]


def cmd_inspect(args: argparse.Namespace) -> int:
    from xlaview.analysis.inspect import describe_instruction, describe_module

    loaded, cost, reports, levels = load_for_inspection(args.file, args.instruction is not None)
    problems = list(loaded.problems) + (list(reports.problems) if reports else [])
    for problem in problems:
        echo(f"warning: {problem}", err=True)
    module = loaded.module
    if args.instruction is None:
        summary = describe_module(module, reports)
        if args.json:
            emit_json({"module": module.name, "file": str(args.file), "summary": summary})
        else:
            print_module_summary(args.file, summary)
        return 0
    from xlaview.analysis.cost.devices import detect_device
    from xlaview.analysis.cost.roofline import roofline
    from xlaview.dump.kernels import module_functions

    try:
        module.find(args.instruction)
    except KeyError:
        where = ""
        if loaded.problems:
            first = loaded.problems[0]
            where = f"; the file is broken at line {first.line}: {first.message}"
        raise CliError(f"no instruction {args.instruction!r} in {args.file}{where}") from None
    roof = roofline(cost, detect_device(module, args.file, cost.platform).device)
    functions = module_functions(levels) if levels is not None else None
    described = describe_instruction(
        module,
        args.instruction,
        reports,
        levels,
        cost,
        roof,
        functions=functions,
        final=_compiled(args.file),
    )
    if args.json:
        emit_json({"module": module.name, "file": str(args.file), "instruction": described})
    else:
        print_instruction(described)
    return 0


def _compiled(path: Path) -> bool:
    """Whether ``path`` is the module XLA compiled, whose ops the kernels are
    of (not a pass dump or the HLO before optimizations, which only share names)."""
    from xlaview.dump.naming import FileKind, parse_file_name

    parsed = parse_file_name(path.name)
    if parsed is None:
        return True
    if parsed.kind in (FileKind.PASS, FileKind.SNAPSHOT):
        return False
    return not (parsed.kind is FileKind.STAGE and (parsed.stage or "").startswith("before"))


def print_module_summary(path: Path, summary: dict) -> None:
    echo(f"{path}: module {summary['module']}")
    echo(
        f"  {summary['computations']} computations, {summary['instructions']} instructions "
        f"(entry {summary['entry']}: {summary['entry_instructions']})"
    )
    fusions = ", ".join(f"{k} {v}" for k, v in summary["fusions"].items()) or "none"
    echo(f"  fusions: {fusions}")
    if summary["memory"] is None:
        echo("  memory: – (XLA's memory reports describe the after-optimizations module)")
    else:
        echo(f"  {summary['memory_text']}")
        if summary["memory_note"]:
            echo(f"  {summary['memory_note']}")


def print_instruction(d: dict) -> None:
    kind = f" ({d['kind']})" if d["kind"] != d["opcode"] else ""
    echo(
        f"{d['name']} = {d['shape']} {d['opcode']}{kind}   in {d['computation']}, line {d['line']}"
    )
    if d["fused_computation"]:
        echo(f"  calls: {d['fused_computation']}")
    layout = d["layout_decoded"]
    if "dimension_order" in layout:
        tiles = f", tiles {''.join(layout['tiles'])}" if layout["tiles"] else ""
        echo(f"  layout: {layout['dimension_order']}{tiles}, {layout['memory_space_name']}")
    echo(
        f"  bytes: writes {human_bytes(d['bytes']['output'])}, "
        f"reads {human_bytes(d['bytes']['operands'])}"
    )
    for op in d["operands"]:
        echo(f"  operand {op['name']}: {op['shape']}")
    a = d["allocation"]
    if a:
        echo(
            f"  allocation {a['index']} ({a['kind']}): offset {a['offset']}, "
            f"size {human_bytes(a['size'])} of {human_bytes(a['allocation_size'])}"
        )
    if len(d["buffers"]) > 1:
        for b in d["buffers"]:
            where = (
                f"allocation {b['allocation']} at {b['offset']}, {human_bytes(b['size'])}"
                if b["allocation"] is not None
                else "no buffer"
            )
            echo(f"  buffer {b['index']} {b['shape']}: {where}, {b['memory_space_name']}")
    c = d["cost"]
    if c:
        print_cost(c)
    if d["live_range"]:
        share = f", {d['peak_share']:.1%} of the peak of live values" if d["peak_share"] else ""
        echo(f"  live range: {d['live_range'][0]}..{d['live_range'][1]}{share}")
    if d["op_name"]:
        echo(f"  op_name: {d['op_name']}")
    print_kernel(d["kernel"], d["kernel_shared_with"])
    for frame in d["source"][:3]:
        echo(f"  at {frame}")


def print_kernel(k: dict, shared_with: str | None) -> None:
    """The kernel lines of ``inspect -i``: its files in pipeline order, or why it has none."""
    if not k["stages"]:
        echo(f"  kernel: none of its own; {k['reason']}")
        return
    name = k["function"] or "?"
    shared = f", compiled once for it and {shared_with}" if shared_with else ""
    echo(f"  kernel {name}{shared}:")
    if k["note"]:
        echo(f"    ({k['note']})")
    width = max(len(s["name"]) for s in k["stages"])
    for s in k["stages"]:
        echo(f"    {s['name']:<{width}}  {s['file']}")


def print_cost(c: dict) -> None:
    """The cost lines of ``inspect -i``: what one run executes first for a
    loop, then one execution, its time (per step for an op in a loop body)."""
    if not c["known"]:
        echo("  cost: not known (a custom call with no body and no known formula)")
        return
    run = c["run"]
    if run is not None:
        time = f"; {units.seconds(run['time_s'])} at best" if run["time_s"] is not None else ""
        echo(
            f"  executes (loop bodies x trip count): {units.count(run['flops'], 'FLOP')}, "
            f"{human_bytes(run['bytes_accessed'])}{time}"
        )
    line = (
        f"  cost{' of one run' if run else ''}: {units.count(c['flops'], 'FLOP')}, "
        f"{units.count(c['transcendentals'])} transcendentals, "
        f"{human_bytes(c['bytes_accessed'])} accessed"
    )
    if c.get("time_s") is not None:
        runs = c["executions"]
        per_step = (
            f"{units.seconds(c['time_s'] * runs)} per step ({runs} x {units.seconds(c['time_s'])})"
            if runs != 1
            else units.seconds(c["time_s"])
        )
        line += f"; on {c['device']} {per_step}, {c['bound']}-bound ({c['precision']} peak)"
    echo(line)
    if c["collective"]:
        k = c["collective"]
        echo(
            f"  sends {human_bytes(k['wire_bytes'])} per device ({k['kind']} of "
            f"{human_bytes(k['payload_bytes'])} in groups of {k['group_size']})"
        )
    if c["interior_bytes"]:
        echo(
            f"  interior: {human_bytes(c['interior_bytes'])} between the stages of its body "
            "if the library materializes them"
        )


def register(sub) -> None:
    p = sub.add_parser("inspect", help="what the dump says about a module or one instruction")
    p.add_argument(
        "file", type=Path, help="an HLO text of the dump (its reports are read beside it)"
    )
    p.add_argument("--instruction", "-i", metavar="NAME", help="the instruction to describe")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_inspect)
