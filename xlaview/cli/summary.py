"""``xlaview summary``: the modules, passes, reports and problems of a folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from xlaview.cli.common import CliError, echo, emit_json, plural, print_table
from xlaview.units import human_bytes

_REPORT_ABBREVIATIONS = {
    "buffer_assignment": "buffers",
    "buffer_assignment_values": "values",
    "live_range": "live-range",
    "memory_usage": "memory-usage",
}


def cmd_summary(args: argparse.Namespace) -> int:
    from xlaview.dump.checks import sniff
    from xlaview.dump.index import index_dump

    try:
        index = index_dump(args.dir)
    except (NotADirectoryError, FileNotFoundError) as err:
        raise CliError(str(err)) from None
    index.problems += sniff(index)
    if args.json:
        emit_json(_with_memory(index))
        return 0
    every_file = [f for m in index.modules for f in m.all_files()] + index.unrecognized
    size = sum(f.size for f in every_file)
    echo(
        f"{index.root}: {plural(len(index.modules), 'module')}, "
        f"{plural(len(every_file), 'file')}, {human_bytes(size)}"
    )
    if len(index.dumps) > 1:
        echo(f"{len(index.dumps)} dumps: " + ", ".join(d or "." for d in index.dumps))
    rows: list[tuple[object, ...]] = []
    for m in index.modules:
        reports = [_REPORT_ABBREVIATIONS[k] for k, v in m.reports.items() if v]
        rows.append(
            (
                f"{m.dump}/" if m.dump else "",
                f"{m.id:04d}",
                m.title if m.plain_file else (m.name or "-"),  # a lone text: its file too
                m.backend or "?",
                len(m.passes),
                "yes" if m.before_optimizations else "-",
                "yes" if m.after_optimizations else "-",
                ", ".join(reports) or "-",
            )
        )
    if rows:
        echo()
        header: tuple[str, ...] = (
            "dump", "id", "name", "backend", "passes", "before", "after", "reports",
        )  # fmt: skip
        if len(index.dumps) == 1:
            rows, header = [r[1:] for r in rows], header[1:]
        print_table(rows, header)
    if index.unrecognized:
        echo()
        echo(f"{len(index.unrecognized)} files not from XLA's dumper:")
        for f in index.unrecognized[:50]:
            echo(f"  {f.rel}")
        if len(index.unrecognized) > 50:
            echo(f"  ... and {len(index.unrecognized) - 50} more")
    if index.problems:
        echo()
        echo(f"{len(index.problems)} problems:")
        for p in index.problems:
            echo(f"  {p}")
    return 0


def _with_memory(index) -> dict:
    """``index.to_json()`` with each module's ``memory`` (`ModuleMemory.to_json`,
    None without a memory-usage report or buffer assignment)."""
    from xlaview.analysis.memory import module_memory
    from xlaview.dump.reports import load_reports

    document = index.to_json()
    for module, entry in zip(index.modules, document["modules"], strict=True):
        has_reports = any(f for _, f in module.reports.items())
        memory = module_memory(load_reports(module, values=False)) if has_reports else None
        entry["memory"] = memory.to_json() if memory else None
    return document


def register(sub) -> None:
    p = sub.add_parser("summary", help="list the modules, passes and reports of a dump folder")
    p.add_argument("dir", type=Path, help="a dump folder (--xla_dump_to)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_summary)
