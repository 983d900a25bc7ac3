"""``xlaview compare``: two dumps of one program (other flags, another XLA
or framework), their modules side by side and one module's ops matched to
the other's, the changes ranked by what they do to time and memory."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from xlaview import units
from xlaview.cli.common import (
    MODULE_HELP,
    CliError,
    add_top,
    echo,
    emit_json,
    load_priced,
    open_index,
    print_table,
    resolve_final,
    resolve_module,
    say_shown,
    top_rows,
)
from xlaview.units import elided, human_bytes


def cmd_compare(args: argparse.Namespace) -> int:
    from xlaview.analysis.compare import compare_dumps
    from xlaview.dump.files import DumpReadError

    indexes = []
    for folder in (args.left, args.right):
        if not folder.is_dir():
            raise CliError(f"{folder} is not a folder")
        index, _ = open_index(folder)
        if not any(m.after_optimizations for m in index.modules):
            raise CliError(f"{folder}: no after-optimizations module dump here")
        indexes.append(index)
    try:
        results = compare_dumps(*indexes)
    except DumpReadError as err:
        raise CliError(str(err)) from None
    if not results:
        raise CliError(f"no module of the same name in {args.left} and {args.right}")
    matched: _Matched | _Unmatched
    try:
        matched = _match_main_modules(args, results)
    except CliError as err:  # a module the side by side reads past (a file with no HLO)
        matched = _Unmatched(str(err))
    if args.json:
        emit_json(
            {
                "left": str(args.left),
                "right": str(args.right),
                "modules": [r.to_json() for r in results],
                **matched.to_json(),
            }
        )
        return 0
    matched.print_summary(args)
    for r in results:
        d = r.to_json()
        echo(f"{r.name}")
        rows = []
        for key, label in (
            ("instructions", "instructions"),
            ("total_traffic_bytes", "traffic"),
            ("intermediate_traffic_bytes", "through intermediates"),
        ):
            fmt = str if key == "instructions" else human_bytes
            rows.append((label, fmt(d["left"][key]), fmt(d["right"][key])))
        rows += memory_rows(d["left"]["memory"], d["right"]["memory"])
        for kind in d["left"]["fusion_counts"]:
            rows.append(
                (
                    f"{kind} fusions",
                    d["left"]["fusion_counts"][kind],
                    d["right"]["fusion_counts"][kind],
                )
            )
        rows.append(
            (
                "largest intermediate",
                (d["left"]["largest_intermediates"] or ["-"])[0],
                (d["right"]["largest_intermediates"] or ["-"])[0],
            )
        )
        print_table(rows, ("", str(args.left), str(args.right)))
        for side, folder in (("left", args.left), ("right", args.right)):
            if d[side]["memory_text"]:
                echo(f"{folder}: {d[side]['memory_text']}")
                if d[side]["memory_note"]:
                    echo(f"  {d[side]['memory_note']}")
        echo()
    return 0


def memory_rows(left: dict | None, right: dict | None) -> list[tuple[str, str, str]]:
    """The compare table's memory rows: memory, its parts, the peak of live values."""
    from xlaview.analysis.memory import MEMORY_FIGURES

    rows = []
    for key, label in MEMORY_FIGURES:  # the parts indented under the memory
        indent = "  " if key not in ("total_bytes", "peak_live_bytes") else ""
        a = left[key] if left else None
        b = right[key] if right else None
        rows.append((indent + label, human_bytes(a), human_bytes(b)))
    return rows


def register(sub) -> None:
    p = sub.add_parser("compare", help="compare the after-optimizations modules of two dumps")
    p.add_argument("left", type=Path)
    p.add_argument("right", type=Path)
    p.add_argument("--module", help=MODULE_HELP)
    add_top(p, "changes")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_compare)


class _Matched:
    """The main modules of the two dumps matched op by op (`--module`)."""

    def __init__(
        self,
        comparison: Any,
        names: tuple[str, str],
        files: tuple[Path, Path],
        device: Any,
        reason: str,
    ) -> None:
        self.comparison, self.names, self.files = comparison, names, files
        self.device, self.reason = device, reason

    def to_json(self) -> dict[str, Any]:
        matching = self.comparison.matching
        return {
            "matched_module": {
                "a": self.names[0],
                "b": self.names[1],
                "a_file": str(self.files[0]),
                "b_file": str(self.files[1]),
                "device": self.device.name,
                "device_reason": self.reason,
                "counts": matching.counts(),
            },
            **self.comparison.to_json(),
        }

    def print_summary(self, args: argparse.Namespace) -> None:
        matching = self.comparison.matching
        counts = matching.counts()
        echo(
            f"{self.names[0]} ({args.left}) against {self.names[1]} ({args.right}), "
            f"priced on {self.device.title} ({self.reason})"
        )
        found = ", ".join(f"{how} {counts[how]}" for how in ("name", "metadata", "structure"))
        echo(
            f"  {len(matching.matches)} ops matched ({found}), {counts['changed']} changed; "
            f"{len(matching.merges)} merged and {len(matching.splits)} split fusions; "
            f"only in the first {len(matching.only_a)}, only in the second {len(matching.only_b)}"
        )
        effects = self.comparison.summary
        rows = [
            (
                e.what,
                elided(e.a, 2) or "-",
                elided(e.b, 2) or "-",
                units.signed_seconds(e.delta_time_s),
                units.signed_bytes(e.delta_memory_bytes),
                _intermediates(e.intermediates),
            )
            for e in top_rows(effects, args)
        ]
        if rows:
            echo("What changed, the largest effect on time and memory first:")
            print_table(rows, ("change", "first", "second", "time", "memory", "intermediates"))
            say_shown(len(rows), len(effects), "changes")
        else:
            echo("Nothing changed in the ops.")
        echo()


class _Unmatched:
    """The main modules could not be matched op by op: why, and empty lists."""

    def __init__(self, problem: str) -> None:
        self.problem = problem

    def to_json(self) -> dict[str, Any]:
        lists = ("matches", "splits", "merges", "only_a", "only_b", "summary")
        return {"matched_module": {"problem": self.problem}, **{key: [] for key in lists}}

    def print_summary(self, args: argparse.Namespace) -> None:
        echo(f"Not compared op by op: {self.problem}")
        echo()


def _match_main_modules(args: argparse.Namespace, results: list[Any]) -> _Matched:
    """The module ``--module`` names in the first dump and its counterpart in
    the second (the module of the same name, else the one ``--module`` names
    there, else the second's main module), or without ``--module`` the main
    module's pair of ``results`` (the modules both dumps have), matched op by
    op and priced on the device of the first."""
    from xlaview.analysis.matching import PricedModule, compare_instructions, match_instructions
    from xlaview.cli.cost import choose_device
    from xlaview.dump.reports import load_reports

    if args.module:
        module_a, file_a, final_a = resolve_final(args.left, args.module)
        name = module_a.name if module_a is not None else None
        module_b, file_b, final_b = _counterpart(args.right, name, args.module)
    else:
        pair = _main_pair(args.left, results)
        module_a, module_b = pair.left, pair.right
        file_a, file_b = module_a.after_optimizations.path, module_b.after_optimizations.path
        final_a = final_b = True
    sides = []
    for dump_module, file, final in ((module_a, file_a, final_a), (module_b, file_b, final_b)):
        module, cost = load_priced(file)
        sides.append((dump_module, file, final, module, cost))
    device, reason = choose_device(None, sides[0][3], file_a, sides[0][4].platform)
    priced = []
    for dump_module, _, final, module, cost in sides:
        reports = (lambda m=dump_module: load_reports(m)) if final else None
        priced.append(PricedModule.priced(module, cost, device, reports))
    matching = match_instructions(priced[0].module, priced[1].module)
    names = (priced[0].module.name, priced[1].module.name)
    comparison = compare_instructions(matching, *priced)
    return _Matched(comparison, names, (file_a, file_b), device, reason)


def _main_pair(left: Path, results: list[Any]) -> Any:
    """The comparison of the first dump's main module, else of its largest
    module both dumps have."""
    _, main, _ = resolve_module(left, None)
    for r in results:
        if main is not None and r.left.key == main.key:
            return r
    return max(results, key=lambda r: r.left_instructions)


def _counterpart(right: Path, name: str | None, key: str | None) -> Any:
    """`resolve_final` of the second dump's module called ``name``, else of
    the one ``key`` names, else of its main module."""
    asked = [k for k in (name, key) if k]
    for k in asked:
        try:
            return resolve_final(right, k)
        except CliError:
            continue
    return resolve_final(right, None)


def _intermediates(items: tuple[tuple[str, str, str, int], ...]) -> str:
    """The materialized values a change removes (-) and adds (+), largest
    first, by shape: ``-f32[8192,8192] x3, +bf16[8192,64]``."""
    sizes: Counter[tuple[str, str]] = Counter()
    each: dict[tuple[str, str], int] = {}
    for side, _, shape, size in items:
        key = ("-" if side == "a" else "+", shape.split("{")[0])
        sizes[key] += 1
        each[key] = size
    order = sorted(sizes, key=lambda k: -each[k] * sizes[k])
    parts = [
        f"{sign}{shape}" + (f" x{sizes[sign, shape]}" if sizes[sign, shape] > 1 else "")
        for sign, shape in order
    ]
    return elided(parts, 3) or "-"
