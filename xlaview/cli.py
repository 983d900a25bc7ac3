"""The ``xlaview`` command: the GUI, and headless commands over the core.

``xlaview [PATH]`` opens the window; ``xlaview summary|inspect|...`` print
tables, or JSON with ``--json``. Heavy modules (Qt, jax) are imported only by
the commands that need them, so that ``summary`` starts fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from xlaview import __version__
from xlaview.units import human_bytes

class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


def print_table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> None:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for k, row in enumerate(cells):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))


def emit_json(document: object) -> None:
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


# -- summary ----------------------------------------------------------------------

_REPORT_ABBREVIATIONS = {
    "buffer_assignment": "buffers",
    "buffer_assignment_values": "values",
    "live_range": "live-range",
    "memory_usage": "memory-usage",
}


def cmd_summary(args: argparse.Namespace) -> int:
    from xlaview.dump.index import index_dump
    from xlaview.dump.loader import sniff

    try:
        index = index_dump(args.dir)
    except (NotADirectoryError, FileNotFoundError) as err:
        raise CliError(str(err)) from None
    index.problems += sniff(index)
    if args.json:
        emit_json(index.to_json())
        return 0
    module_files = [f for m in index.modules for f in m.all_files()]
    files = len(module_files) + len(index.unrecognized)
    size = sum(f.size for f in module_files)
    print(f"{index.root}: {len(index.modules)} modules, {files} files, {human_bytes(size)}")
    if len(index.dumps) > 1:
        print(f"{len(index.dumps)} dumps: " + ", ".join(d or "." for d in index.dumps))
    rows = []
    for m in index.modules:
        reports = [_REPORT_ABBREVIATIONS[k] for k, v in m.reports.items() if v]
        rows.append(
            (
                f"{m.dump}/" if m.dump else "",
                f"{m.id:04d}",
                m.name or "-",
                m.backend or "?",
                len(m.passes),
                "yes" if m.before_optimizations else "-",
                "yes" if m.after_optimizations else "-",
                ", ".join(reports) or "-",
            )
        )
    if rows:
        print()
        header = ("dump", "id", "name", "backend", "passes", "before", "after", "reports")
        if len(index.dumps) == 1:
            rows, header = [r[1:] for r in rows], header[1:]
        print_table(rows, header)
    if index.unrecognized:
        print(f"\n{len(index.unrecognized)} files not from XLA's dumper:")
        for f in index.unrecognized[:50]:
            print(f"  {f.rel}")
        if len(index.unrecognized) > 50:
            print(f"  ... and {len(index.unrecognized) - 50} more")
    if index.problems:
        print(f"\n{len(index.problems)} problems:")
        for p in index.problems:
            print(f"  {p}")
    return 0


# -- inspect ----------------------------------------------------------------------


def load_for_inspection(path: Path):
    """(loaded module, reports or None, problems) for an HLO file of a dump."""
    from xlaview.dump.index import index_dump
    from xlaview.dump.loader import DumpReadError, load_module, load_reports

    if not path.is_file():
        raise CliError(f"{path}: no such file")
    try:
        loaded = load_module(path)
    except DumpReadError as err:
        raise CliError(str(err)) from None
    from xlaview.dump.kernels import module_levels

    reports = None
    index = index_dump(path.parent)
    module = index.module_of(path)
    # The reports describe the final module: joined only with that file.
    if module is not None and module.after_optimizations and (
        module.after_optimizations.path == path.absolute()
    ):
        reports = load_reports(module)
    levels = module_levels(module) if module is not None else None
    return loaded, reports, levels


def cmd_inspect(args: argparse.Namespace) -> int:
    from xlaview.analysis.inspect import describe_instruction, describe_module

    loaded, reports, levels = load_for_inspection(args.file)
    problems = list(loaded.problems) + (list(reports.problems) if reports else [])
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    module = loaded.module
    if args.instruction is None:
        summary = describe_module(module, reports)
        if args.json:
            emit_json({"module": module.name, "file": str(args.file), "summary": summary})
        else:
            print_module_summary(args.file, summary)
        return 0
    try:
        described = describe_instruction(module, args.instruction, reports, levels)
    except KeyError:
        where = ""
        if loaded.problems:
            first = loaded.problems[0]
            where = f"; the file is broken at line {first.line}: {first.message}"
        raise CliError(f"no instruction {args.instruction!r} in {args.file}{where}") from None
    if args.json:
        emit_json({"module": module.name, "file": str(args.file), "instruction": described})
    else:
        print_instruction(described)
    return 0


def print_module_summary(path: Path, summary: dict) -> None:
    print(f"{path}: module {summary['module']}")
    print(f"  {summary['computations']} computations, {summary['instructions']} instructions "
          f"(entry {summary['entry']}: {summary['entry_instructions']})")
    fusions = ", ".join(f"{k} {v}" for k, v in summary["fusions"].items()) or "none"
    print(f"  fusions: {fusions}")
    print(f"  peak memory: {human_bytes(summary['peak_memory_bytes'])}")


def print_instruction(d: dict) -> None:
    kind = f" ({d['fusion_kind']})" if d["fusion_kind"] else ""
    print(f"{d['name']} = {d['shape']} {d['opcode']}{kind}   in {d['computation']}, line {d['line']}")
    if d["fused_computation"]:
        print(f"  calls: {d['fused_computation']}")
    layout = d["layout_decoded"]
    if "dimension_order" in layout:
        tiles = f", tiles {''.join(layout['tiles'])}" if layout["tiles"] else ""
        print(f"  layout: {layout['dimension_order']}{tiles}, {layout['memory_space_name']}")
    print(f"  bytes: writes {human_bytes(d['bytes']['output'])}, "
          f"reads {human_bytes(d['bytes']['operands'])}")
    for op in d["operands"]:
        print(f"  operand {op['name']}: {op['shape']}")
    a = d["allocation"]
    if a:
        print(f"  allocation {a['index']} ({a['kind']}): offset {a['offset']}, "
              f"size {human_bytes(a['size'])} of {human_bytes(a['allocation_size'])}")
    if d["live_range"]:
        share = f", {d['peak_share']:.1%} of peak" if d["peak_share"] else ""
        print(f"  live range: {d['live_range'][0]}..{d['live_range'][1]}{share}")
    if d["op_name"]:
        print(f"  op_name: {d['op_name']}")
    for key, path in d["kernel"].items():
        if path:
            print(f"  kernel {key.replace('_', '-')}: {path}")
    for frame in d["source"][:3]:
        print(f"  at {frame}")


# -- traffic, diff, compare --------------------------------------------------------


def resolve_module(path: Path, module_key: str | None):
    """(index or None, dump module or None, HLO file) for a dump folder or an HLO file."""
    from xlaview.dump.index import index_dump, index_file

    if not path.exists():
        raise CliError(f"{path}: no such file or folder")
    index = index_file(path) if path.is_file() else index_dump(path)
    if path.is_file() and module_key is None:
        return index, index.module_of(path), path
    if not index.modules:
        raise CliError(f"{path}: no XLA module files here")
    try:
        module = index.module(module_key) if module_key else max(
            index.modules, key=lambda m: (len(m.passes), m.after_optimizations is not None))
    except KeyError as err:
        raise CliError(str(err).strip('"')) from None
    return index, module, None


def load_checked(path: Path):
    from xlaview.dump.loader import DumpReadError, load_module

    try:
        loaded = load_module(path)
    except DumpReadError as err:
        raise CliError(str(err)) from None
    for problem in loaded.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return loaded.module


def cmd_traffic(args: argparse.Namespace) -> int:
    from xlaview.analysis.traffic import analyze_traffic

    _, module, file = resolve_module(args.path, args.module)
    if file is None:
        if module.after_optimizations is None:
            raise CliError(f"{module.title} has no after-optimizations dump")
        file = module.after_optimizations.path
    traffic = analyze_traffic(load_checked(file))
    if args.json:
        emit_json(traffic.to_json())
        return 0
    print(f"{traffic.module}: {human_bytes(traffic.total_traffic_bytes)} read and written by "
          f"top-level ops; {human_bytes(traffic.intermediate_traffic_bytes)} through "
          f"{len(traffic.intermediates)} materialized intermediates")
    counts = ", ".join(f"{k} {v}" for k, v in traffic.fusion_counts.items() if v) or "none"
    print(f"fusions: {counts}\n")
    rows = [(human_bytes(i.traffic_bytes), human_bytes(i.bytes), i.shape, i.producer,
             i.producer_kind, ", ".join(i.consumers)) for i in traffic.intermediates[: args.top]]
    print_table(rows, ("traffic", "bytes", "shape", "producer", "kind", "read by"))
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from xlaview.analysis.diff import diff_modules

    _, module, _ = resolve_module(args.dir, args.module)
    try:
        old_file, new_file = module.file_at(args.from_), module.file_at(args.to)
    except KeyError as err:
        raise CliError(str(err).strip('"')) from None
    diff = diff_modules(load_checked(old_file.path), load_checked(new_file.path))
    if args.json:
        emit_json({"module": module.name, "from": args.from_, "to": args.to,
                   "from_file": old_file.rel, "to_file": new_file.rel, **diff.to_json()})
        return 0
    print(f"{module.title}: {args.from_} -> {args.to}: {len(diff.added)} added, "
          f"{len(diff.removed)} removed, {len(diff.changed)} changed")
    for c in diff.computations_added:
        print(f"  + computation {c}")
    for c in diff.computations_removed:
        print(f"  - computation {c}")
    for a in diff.added:
        extra = f"  (absorbed: {', '.join(a.absorbed)})" if a.absorbed else ""
        print(f"  + {a.computation}/{a.name} = {a.shape} {a.opcode}{extra}")
    for r in diff.removed:
        extra = f"  (into {r.absorbed_into})" if r.absorbed_into else ""
        print(f"  - {r.computation}/{r.name} = {r.shape} {r.opcode}{extra}")
    for c in diff.changed:
        was = f" (was {c.old_name})" if c.old_name else ""
        print(f"  ~ {c.computation}/{c.name}{was}: {', '.join(c.aspects)}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from xlaview.analysis.compare import compare_dumps
    from xlaview.dump.index import index_dump

    for folder in (args.left, args.right):
        if not folder.is_dir():
            raise CliError(f"{folder} is not a folder")
    results = compare_dumps(index_dump(args.left), index_dump(args.right))
    if args.json:
        emit_json({"left": str(args.left), "right": str(args.right),
                   "modules": [r.to_json() for r in results]})
        return 0
    if not results:
        print("no module of the same name in both dumps")
    for r in results:
        d = r.to_json()
        print(f"{r.name}")
        rows = []
        for key, label in (("instructions", "instructions"), ("total_traffic_bytes", "traffic"),
                           ("intermediate_traffic_bytes", "through intermediates"),
                           ("peak_memory_bytes", "peak memory")):
            fmt = str if key == "instructions" else human_bytes
            rows.append((label, fmt(d["left"][key]), fmt(d["right"][key])))
        for kind in d["left"]["fusion_counts"]:
            rows.append((f"{kind} fusions", d["left"]["fusion_counts"][kind],
                         d["right"]["fusion_counts"][kind]))
        rows.append(("largest intermediate", (d["left"]["largest_intermediates"] or ["-"])[0],
                     (d["right"]["largest_intermediates"] or ["-"])[0]))
        print_table(rows, ("", str(args.left), str(args.right)))
        print()
    return 0


# -- collect ----------------------------------------------------------------------


def cmd_collect(args: argparse.Namespace) -> int:
    from xlaview.collect import CollectError, new_dump_folder, run_with_dumps

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise CliError("give the command to run after --, e.g. xlaview collect -- python train.py")
    out = args.out.expanduser().absolute() if args.out else new_dump_folder(Path(command[0]).name)
    print(f"xlaview: dumping into {out}", file=sys.stderr, flush=True)
    try:
        status, folder, warnings = run_with_dumps(command, out, args.passes, args.modules)
    except CollectError as err:
        raise CliError(str(err)) from None
    for warning in warnings:
        print(f"xlaview: warning: {warning}", file=sys.stderr)
    if status != 0:
        print(f"xlaview: {command[0]} exited with status {status}; indexing what it dumped",
              file=sys.stderr)
    summary = argparse.Namespace(dir=folder, json=False)
    if not folder.is_dir() or not any(folder.iterdir()):
        print(f"xlaview: nothing was dumped into {folder}: did the program compile anything "
              "with XLA (jax, torch_xla, tensorflow)?", file=sys.stderr)
    else:
        sys.stdout.flush()
        cmd_summary(summary)
        if args.open:
            from xlaview.qt.app import run_gui

            run_gui([str(folder)])
    return status


# -- export -----------------------------------------------------------------------


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expects WxH, e.g. 1600x1000, not {text!r}") from None
    if w < 200 or h < 200:
        raise argparse.ArgumentTypeError("the window needs at least 200x200")
    return w, h


def cmd_export(args: argparse.Namespace) -> int:
    """Render the window offscreen, as a user would see it, to PNG (or the graph to SVG)."""
    import os

    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from xlaview.qt import export
    from xlaview.qt.app import application
    from xlaview.qt.main_window import MainWindow

    if args.out.suffix.lower() not in (".png", ".svg"):
        raise CliError(f"--out must end in .png or .svg, not {args.out.name!r}")
    if not args.dir.exists():
        raise CliError(f"{args.dir}: no such file or folder")
    application()
    window = MainWindow(persist=False)  # restores no window state, records no recent folder
    try:
        window.resize(*args.size)
        window.show()
        window.open_dump(args.dir)
        if args.module is not None:
            window.select_module(args.module)
        if args.pass_ is not None:
            window.select_pass(args.pass_)
        window.wait_idle()
        if args.select is not None:
            window.select_instruction(args.select)
        window.wait_idle()
        if args.out.suffix.lower() == ".svg":
            export.graph_svg(window.graph, args.out)
        else:
            export.window_png(window, args.out)
    except KeyError as err:
        raise CliError(str(err).strip('"')) from None
    finally:
        window.close()
    print(args.out)
    return 0


# -- entry point -------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xlaview",
        description="Explore XLA dump folders (--xla_dump_to). Without a command, open the "
        "window on PATH (a dump folder or an HLO file; default: a small bundled dump).",
    )
    parser.add_argument("--version", action="version", version=f"xlaview {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("summary", help="list the modules, passes and reports of a dump folder")
    p.add_argument("dir", type=Path, help="a dump folder (--xla_dump_to)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_summary)

    p = sub.add_parser("inspect", help="what the dump says about a module or one instruction")
    p.add_argument("file", type=Path, help="an HLO text of the dump (its reports are read beside it)")
    p.add_argument("--instruction", "-i", metavar="NAME", help="the instruction to describe")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_inspect)

    p = sub.add_parser("traffic", help="bytes per top-level op and materialized intermediates")
    p.add_argument("path", type=Path, help="a dump folder or an HLO file")
    p.add_argument("--module", help="module name or id (default: the one with most passes)")
    p.add_argument("--top", type=int, default=20, help="intermediates shown in the table")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_traffic)

    p = sub.add_parser("diff", help="what changed between two points of a module's timeline")
    p.add_argument("dir", type=Path, help="a dump folder")
    p.add_argument("--module", help="module name or id")
    p.add_argument("--from", dest="from_", required=True, metavar="SEQ|before|after")
    p.add_argument("--to", required=True, metavar="SEQ|before|after")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_diff)

    p = sub.add_parser("compare", help="compare the after-optimizations modules of two dumps")
    p.add_argument("left", type=Path)
    p.add_argument("right", type=Path)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_compare)

    p = sub.add_parser("collect", help="run a program with XLA's dump flags and index the dump",
                       usage="xlaview collect [--out DIR] [--passes REGEX] [--modules REGEX] "
                             "[--open] -- COMMAND [ARGS...]")
    p.add_argument("--out", type=Path, help="dump folder (default: a new one in the cache)")
    p.add_argument("--passes", default=".*", help="--xla_dump_hlo_pass_re (default: .*)")
    p.add_argument("--modules", help="--xla_dump_hlo_module_re: only modules whose name matches")
    p.add_argument("--open", action="store_true", help="open the window on the dump afterwards")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the program and its arguments")
    p.set_defaults(run=cmd_collect)

    p = sub.add_parser("export", help="render the window (PNG) or the graph (SVG) headless")
    p.add_argument("dir", type=Path, help="a dump folder, or an HLO file of one")
    p.add_argument("--module", help="module name or id (default: the one with most passes)")
    p.add_argument("--pass", dest="pass_", metavar="SEQ|before|after",
                   help="the point of the pass timeline (default: after)")
    p.add_argument("--select", metavar="INSTR", help="the instruction to select")
    p.add_argument("--out", type=Path, required=True, help="FILE.png (the window) or FILE.svg (the graph)")
    p.add_argument("--size", type=_size, default=(1600, 1000), metavar="WxH",
                   help="window size in pixels (default 1600x1000)")
    p.set_defaults(run=cmd_export)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    if not argv or (argv[0] not in commands and not argv[0].startswith("-")):
        from xlaview.qt.app import run_gui  # imports Qt

        return run_gui(argv)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CliError as err:
        print(f"xlaview {args.command}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `xlaview summary DIR | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
