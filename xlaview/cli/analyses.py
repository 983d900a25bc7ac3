"""``xlaview traffic`` and ``diff``: analyses of one module, or of two points
of its timeline."""

from __future__ import annotations

import argparse
from pathlib import Path

from xlaview.cli.common import (
    MODULE_HELP,
    CliError,
    add_top,
    echo,
    emit_json,
    final_reports,
    hlo_file,
    load_checked,
    load_priced,
    plural,
    print_table,
    resolve_module,
    say_shown,
    source_json,
    top_rows,
)
from xlaview.units import elided, human_bytes


def cmd_traffic(args: argparse.Namespace) -> int:
    from xlaview.analysis.traffic import analyze_traffic

    # The buffer assignment (which ops update a buffer in place), read if needed.
    file = hlo_file(args.path, args.module)
    module, cost = load_priced(file)
    traffic = analyze_traffic(module, lambda: final_reports(args.path, args.module), cost)
    if args.json:
        emit_json({**traffic.to_json(), **source_json(file)})
        return 0
    echo(
        f"{traffic.module}: {human_bytes(traffic.total_traffic_bytes)} read and written by "
        f"top-level ops; {human_bytes(traffic.intermediate_traffic_bytes)} through "
        f"{len(traffic.intermediates)} materialized intermediates"
    )
    counts = ", ".join(f"{k} {v}" for k, v in traffic.fusion_counts.items() if v) or "none"
    echo(f"fusions: {counts}")
    echo()
    rows = [
        (
            human_bytes(i.traffic_bytes),
            human_bytes(i.bytes),
            i.shape,
            i.producer,
            i.producer_kind,
            elided(i.consumers),
        )
        for i in top_rows(traffic.intermediates, args)
    ]
    print_table(rows, ("traffic", "bytes", "shape", "producer", "kind", "read by"))
    say_shown(len(rows), len(traffic.intermediates), "intermediates")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from xlaview.analysis.passes.diff import diff_modules
    from xlaview.hlo.parse.store import ComputationStore

    _, module, _ = resolve_module(args.dir, args.module)
    try:
        old_file, new_file = module.file_at(args.from_), module.file_at(args.to)
    except KeyError as err:
        raise CliError(err.args[0] if err.args else str(err)) from None
    # The second parse takes what it repeats from the first (see
    # xlaview.hlo.parse.reuse and xlaview.hlo.parse.store): it parses only the computations
    # the passes between them changed, and the diff compares only those.
    store = ComputationStore(1 << 40)
    old = load_checked(old_file.path, store)
    diff = diff_modules(old, load_checked(new_file.path, store, previous=old))
    if args.json:
        emit_json(
            {
                "module": module.name,
                "from": args.from_,
                "to": args.to,
                "from_file": old_file.rel,
                "to_file": new_file.rel,
                **diff.to_json(),
            }
        )
        return 0
    echo(
        f"{module.title}: {args.from_} -> {args.to}: {len(diff.added)} added, "
        f"{len(diff.removed)} removed, {len(diff.changed)} changed"
    )
    # What changed in instructions first; the computations a pass added or
    # dropped (a fusion pass adds one per fusion) in a line each after.
    for c in diff.changed:
        was = f" (was {c.old_name})" if c.old_name else ""
        echo(f"  ~ {c.computation}/{c.name}{was}: {', '.join(c.aspects)}")
    for a in diff.added:
        extra = f"  (absorbed: {', '.join(a.absorbed)})" if a.absorbed else ""
        echo(f"  + {a.computation}/{a.name} = {a.shape} {a.opcode}{extra}")
    for r in diff.removed:
        extra = f"  (into {r.absorbed_into})" if r.absorbed_into else ""
        echo(f"  - {r.computation}/{r.name} = {r.shape} {r.opcode}{extra}")
    for sign, names in (("+", diff.computations_added), ("-", diff.computations_removed)):
        if names:
            what = plural(len(names), "computation")
            echo(f"  {sign} {what} {'added' if sign == '+' else 'removed'}: {elided(names, 8)}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("traffic", help="bytes per top-level op and materialized intermediates")
    p.add_argument("path", type=Path, help="a dump folder or an HLO file")
    p.add_argument("--module", help=MODULE_HELP)
    add_top(p, "intermediates")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_traffic)

    p = sub.add_parser("diff", help="what changed between two points of a module's timeline")
    p.add_argument("dir", type=Path, help="a dump folder")
    p.add_argument("--module", help=MODULE_HELP)
    p.add_argument("--from", dest="from_", required=True, metavar="SEQ|before|after")
    p.add_argument("--to", required=True, metavar="SEQ|before|after")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_diff)
