"""``xlaview graph``: a computation's drawn graph folded into groups, for scripting."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from xlaview.cli.common import (
    MODULE_HELP,
    CliError,
    echo,
    emit_json,
    load_checked,
    point_at,
    resolve_module,
)

if TYPE_CHECKING:
    from xlaview.analysis.folding import Folding


def cmd_graph(args: argparse.Namespace) -> int:
    from xlaview.analysis.drawing import build_graph
    from xlaview.analysis.folding import fold_graph

    _, dump_module, file = resolve_module(args.path, args.module)
    if dump_module is None:  # an HLO file of no module
        if args.pass_ is not None:
            raise CliError(f"--pass needs a dump folder, or a file of one: {args.path} is neither")
        assert file is not None
        text, where = Path(file), str(file)
    else:
        point = point_at(dump_module, file, args.pass_)
        text = point.file.path
        where = f"{dump_module.title} at " + (
            f"pass {point.key}" if point.seq is not None else point.title
        )
    if args.out is not None:
        return _draw(args)
    module = load_checked(text)
    if args.computation is None:
        computation = module.entry
        assert computation is not None  # load_checked refuses a module without one
    elif module.has_computation(args.computation):
        computation = module.computation(args.computation)
    else:
        raise CliError(f"no computation {args.computation!r} in {where}")
    folding = fold_graph(build_graph(module, computation), computation, args.group)
    if args.json:
        emit_json(folding_json(folding))
        return 0
    graph = folding.graph
    echo(
        f"{where}: {graph.computation}: {len(graph.nodes):,} nodes, {len(graph.edges):,} edges, "
        f"grouped by {args.group}"
    )
    boxes = folding.top_level
    echo(f"{boxes:,} top-level box{'' if boxes == 1 else 'es'} with every group folded")
    _print_tree(folding)
    return 0


def folding_json(folding: Folding) -> dict[str, object]:
    """``{"computation", "nodes", "edges", "groups", "top_level"}``: ``groups``
    the top-level groups, each ``{"name", "kind", "nodes", "repeats",
    "children"}`` (built children first: no recursion)."""
    made: list[dict[str, object]] = [{} for _ in folding.groups]
    for group in reversed(folding.groups):
        made[group.id] = {
            "name": group.name,
            "kind": group.kind.json_kind,
            "nodes": group.size,
            "repeats": group.repeats,
            "children": [made[c] for c in group.children],
        }
    graph = folding.graph
    return {
        "computation": graph.computation,
        "nodes": len(graph.nodes),
        "edges": len(graph.edges),
        "groups": [made[box] for box in folding.top if isinstance(box, int)],
        "top_level": folding.top_level,
    }


def _print_tree(folding: Folding) -> None:
    """One line per group, indented by depth; a repeat's instances are summed
    up on its line, not listed."""
    from xlaview.analysis.folding import GroupKind

    groups = folding.groups
    stack = [box for box in reversed(folding.top) if isinstance(box, int)]
    while stack:
        group = groups[stack.pop()]
        line = f"{'  ' * (group.depth + 1)}{group.name}  {group.size:,} node" + (
            "" if group.size == 1 else "s"
        )
        if group.kind is GroupKind.REPEAT and group.children:
            each = group.size // max(group.repeats, 1)
            line += f", {group.repeats} instances of about {each:,}"
        elif group.kind is GroupKind.REPEAT:
            line += f", {group.repeats} alike side by side"
        elif group.children or group.phase:
            own = f"{len(group.nodes):,} of its own" if group.children and group.nodes else ""
            line += " (" + ", ".join(p for p in (own, group.phase) if p) + ")"
        echo(line)
        if group.kind is not GroupKind.REPEAT:
            stack.extend(reversed(group.children))


def _draw(args: argparse.Namespace) -> int:
    """The whole graph, folded as asked, drawn into ``--out`` (PNG or SVG) as
    ``xlaview export --graph`` draws it."""
    from xlaview.cli.export import cmd_export

    if args.out.suffix.lower() not in (".png", ".svg"):
        raise CliError(f"--out {args.out}: a .png or .svg file")
    return cmd_export(
        argparse.Namespace(
            dir=args.path,
            module=args.module,
            pass_=args.pass_,
            select=None,
            out=args.out,
            graph=True,
            group=args.group,
            force=False,
            size=(1600, 1000),
            computation=args.computation,
        )
    )


def register(sub) -> None:
    from xlaview.analysis.groupings import GROUPINGS

    p = sub.add_parser(
        "graph", help="a computation's graph folded by op_name scope and repeated blocks"
    )
    p.add_argument("path", type=Path, help="a dump folder or an HLO file")
    p.add_argument("--module", help=MODULE_HELP)
    p.add_argument(
        "--pass",
        dest="pass_",
        metavar="POINT",
        help="the point of the pass timeline: a pass number or name, before, after, or a "
        "snapshot's name (default: after optimizations)",
    )
    p.add_argument("--computation", metavar="NAME", help="the computation (default: the entry)")
    p.add_argument(
        "--group",
        choices=GROUPINGS,
        default="scope",
        help="scope: nested by op_name scope, repeated blocks folded where a scope holds many "
        "nodes side by side (default); repeats: repeated blocks only; none: no groups",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--out",
        type=Path,
        metavar="FILE.png|FILE.svg",
        help="draw the whole graph, folded so, with its key, into this file (never inside "
        "the dump folder) instead of printing its groups",
    )
    p.set_defaults(run=cmd_graph)
