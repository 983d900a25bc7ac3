"""``xlaview boundaries``: why each materialized intermediate is there."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from xlaview.analysis.reasons import REASONS
from xlaview.cli.common import (
    MODULE_HELP,
    add_top,
    echo,
    emit_json,
    final_reports,
    hlo_file,
    load_priced,
    print_table,
    say_shown,
    top_rows,
)
from xlaview.units import elided, human_bytes

if TYPE_CHECKING:
    from xlaview.analysis.boundaries.explain import Boundary


def cmd_boundaries(args: argparse.Namespace) -> int:
    from xlaview.analysis.boundaries.explain import module_boundaries
    from xlaview.analysis.traffic import analyze_traffic

    file = hlo_file(args.path, args.module)
    module, cost = load_priced(file)
    # The buffer assignment (which ops update a buffer in place), read if needed.
    traffic = analyze_traffic(module, lambda: final_reports(args.path, args.module), cost)
    result = module_boundaries(module, traffic)
    if args.json:
        emit_json(result.to_json())  # exactly its keys (issue 17): notes go to stderr
        return 0

    def wanted(b: Boundary) -> bool:
        return args.reason is None or b.reason == args.reason

    listed = [b for b in result.boundaries if wanted(b)]
    listed_inside = [b for b in result.interior if wanted(b)]
    shown, inside = top_rows(listed, args), top_rows(listed_inside, args)
    total = sum(b.bytes for b in result.boundaries)
    echo(
        f"{result.module}: {len(result.boundaries)} boundaries, {human_bytes(total)} through "
        "memory (written + read)"
    )
    echo()
    rows = [
        (
            human_bytes(b.bytes),
            human_bytes(b.saved_bytes),
            b.reason,
            b.shape,
            b.value,
            elided(b.consumers),
        )
        for b in shown
    ]
    print_table(rows, ("bytes", "saves", "reason", "shape", "value", "read by"))
    say_shown(len(shown), len(listed), "boundaries")
    if result.interior:
        kernels = sorted({b.inside or "" for b in result.interior})
        echo()
        echo(
            f"inside library kernels ({elided(tuple(kernels))}): {len(result.interior)} values "
            f"between the stages of their bodies, "
            f"{human_bytes(sum(b.bytes for b in result.interior))} if the library materializes "
            "them (it may keep them on chip; xlaview cannot see which)"
        )
        echo()
        print_table(
            [
                (human_bytes(b.bytes), b.reason, b.shape, b.value, elided(b.consumers), b.inside)
                for b in inside
            ],
            ("bytes", "reason", "shape", "value", "read by", "inside"),
        )
        say_shown(len(inside), len(listed_inside), "values inside library kernels")
    if args.why:
        for b in [*shown, *inside]:
            echo()
            where = f", inside {b.inside}: may be materialized by the library" if b.inside else ""
            echo(f"{b.value} ({b.reason}, {human_bytes(b.bytes)}{where})")
            for e in b.evidence:
                echo(f"  {e.reason}: {e.text}")
            if b.suggestion:
                echo(f"  suggestion: {b.suggestion}")
    by_reason = result.by_reason()
    saved = result.saved_by_reason()
    echo()
    print_table(
        [
            (
                r,
                sum(1 for b in result.boundaries if b.reason == r),
                human_bytes(by_reason[r]),
                human_bytes(saved[r]),
            )
            for r in REASONS
            if by_reason[r] or saved[r]
        ],
        ("reason", "boundaries", "bytes", "saves"),
    )
    return 0


def register(sub) -> None:
    p = sub.add_parser("boundaries", help="why each materialized intermediate is there")
    p.add_argument("path", type=Path, help="a dump folder or an HLO file")
    p.add_argument("--module", help=MODULE_HELP)
    p.add_argument("--reason", choices=REASONS, help="only boundaries of this reason (table)")
    add_top(p, "boundaries")
    p.add_argument(
        "--why", action="store_true", help="the evidence and suggestion of each one shown"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_boundaries)
