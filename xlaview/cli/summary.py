"""``xlaview summary``: the modules, passes, reports and problems of a folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from xlaview.cli.common import MODULE_HELP, CliError, echo, emit_json, plural, print_table
from xlaview.dump.module_names import display_name
from xlaview.units import human_bytes

_REPORT_ABBREVIATIONS = {
    "buffer_assignment": "buffers",
    "buffer_assignment_values": "values",
    "live_range": "live-range",
    "memory_usage": "memory-usage",
}


def cmd_summary(args: argparse.Namespace) -> int:
    from xlaview.dump.checks import empty_files, sniff
    from xlaview.dump.index import index_dump

    try:
        index = index_dump(args.dir)
    except (NotADirectoryError, FileNotFoundError) as err:
        raise CliError(str(err)) from None
    index.problems += sniff(index)
    empty = empty_files(index)  # routine, so not problems: listed apart
    if args.json:
        document = _with_memory(index)
        document["empty_files"] = [{"path": f.rel, "note": why} for f, why in empty]
        emit_json(document)
        return 0
    every_file = [f for m in index.modules for f in m.all_files()] + index.unrecognized
    size = sum(f.size for f in every_file)
    echo(
        f"{index.root}: {plural(len(index.modules), 'module')}, "
        f"{plural(len(every_file), 'file')}, {human_bytes(size)}"
    )
    if len(index.dumps) > 1:
        echo(f"{len(index.dumps)} dumps: " + ", ".join(d or "." for d in index.dumps))
    _say_processes(index)
    rows: list[tuple[object, ...]] = []
    for m in index.modules:
        reports = [_REPORT_ABBREVIATIONS[k] for k, v in m.reports.items() if v]
        rows.append(
            (
                f"{m.dump}/" if m.dump else "",
                f"{m.id:04d}",
                # a lone text: its file too; a TensorFlow function: its name
                m.title if m.plain_file else (display_name(m.name) or "-"),
                m.process or "-",
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
            "dump", "id", "name", "process", "backend", "passes", "before", "after", "reports",
        )  # fmt: skip
        if not any(m.process for m in index.modules):
            rows, header = [r[:3] + r[4:] for r in rows], header[:3] + header[4:]
        if len(index.dumps) == 1:
            rows, header = [r[1:] for r in rows], header[1:]
        print_table(rows, header)
        _list_passes(index, args.module)
    if index.unrecognized:
        echo()
        echo(f"{len(index.unrecognized)} files not from XLA's dumper:")
        for f in index.unrecognized[:50]:
            echo(f"  {f.rel}")
        if len(index.unrecognized) > 50:
            echo(f"  ... and {len(index.unrecognized) - 50} more")
    if empty:
        echo()
        echo(f"{plural(len(empty), 'empty file')}, as XLA writes them (not problems):")
        by_note: dict[str, list[str]] = {}
        for f, why in empty:
            by_note.setdefault(why, []).append(f.rel)
        for why, paths in by_note.items():
            more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
            echo(f"  {paths[0]}{more}: {why}")
    if index.problems:
        echo()
        echo(f"{len(index.problems)} problems:")
        for p in index.problems:
            echo(f"  {p}")
    return 0


def _list_passes(index, key: str | None) -> None:
    """The passes of one module in order (the main module's unless ``key``
    names another): its timeline, as the window's shows it."""
    from xlaview.dump.main_module import default_module, pick_module

    if key is None:
        module = default_module(index)
    else:
        module, said = pick_module(index, key)
        if said:
            echo(f"note: {said}")
    points = module.points()
    if not points:
        return
    echo()
    other = " (another: --module ID)" if key is None and len(index.modules) > 1 else ""
    echo(f"{module.title}: {plural(len(points), 'point')} in order{other}")
    rows = [(p.key, p.pipeline or "", p.after or p.title) for p in points]
    print_table(rows, ("point", "pipeline", "after (the pass that ran, or the stage)"))


def _say_processes(index) -> None:
    """That several processes wrote the folder, and why it looks so; and how to
    name a module whose id another one repeats."""
    if not index.processes:
        return
    echo("several processes wrote this folder:")
    for why in index.processes:
        echo(f"  {why}")
    repeated = next((m for m in index.modules if m.ref != m.id_ref), None)
    if repeated is not None:
        echo(
            f"  --module takes an id they repeat as ID.NAME ({repeated.ref}); an id or name "
            "alone, the largest of its modules"
        )


def _with_memory(index) -> dict:
    """``index.to_json()`` with each module's ``memory`` (`ModuleMemory.to_json`,
    None without a memory-usage report or buffer assignment)."""
    from xlaview.analysis.memory import module_memory
    from xlaview.dump.reports import load_reports

    document = index.to_json()
    for module, entry in zip(index.modules, document["modules"], strict=True):
        entry["display_name"] = display_name(module.name)  # the framework's name for it
        has_reports = any(f for _, f in module.reports.items())
        memory = module_memory(load_reports(module, values=False)) if has_reports else None
        entry["memory"] = memory.to_json() if memory else None
    return document


def register(sub) -> None:
    p = sub.add_parser("summary", help="list the modules, passes and reports of a dump folder")
    p.add_argument("dir", type=Path, help="a dump folder (--xla_dump_to)")
    p.add_argument("--module", help=MODULE_HELP + "; whose passes the text lists")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_summary)
