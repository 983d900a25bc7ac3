"""``xlaview collect``: run a program with XLA's dump flags, then summarize."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from xlaview.cli.common import CliError, echo
from xlaview.cli.summary import cmd_summary


def cmd_collect(args: argparse.Namespace) -> int:
    from xlaview.collection import CollectError, new_dump_folder, run_with_dumps

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise CliError("give the command to run after --, e.g. xlaview collect -- python train.py")
    out = args.out.expanduser().absolute() if args.out else new_dump_folder(Path(command[0]).name)
    echo(f"xlaview: dumping into {out}", err=True)
    try:
        status, folder, warnings = run_with_dumps(
            command, out, args.passes, args.modules, force=args.force
        )
    except CollectError as err:
        raise CliError(str(err)) from None
    for warning in warnings:
        echo(f"xlaview: warning: {warning}", err=True)
    if status != 0:
        echo(
            f"xlaview: {command[0]} exited with status {status}; indexing what it dumped", err=True
        )
    summary = argparse.Namespace(dir=folder, json=False, module=None)
    if not folder.is_dir() or not any(folder.iterdir()):
        echo(
            f"xlaview: nothing was dumped into {folder}: did the program compile anything "
            "with XLA (jax, torch_xla, tensorflow)?",
            err=True,
        )
    else:
        sys.stdout.flush()
        cmd_summary(summary)
        if args.open:
            from xlaview.qt.app import run_gui

            run_gui([str(folder)])
    return status


def register(sub) -> None:
    p = sub.add_parser(
        "collect",
        help="run a program with XLA's dump flags and index the dump",
        usage="xlaview collect [--out DIR] [--passes REGEX] [--modules REGEX] "
        "[--open] [--force] -- COMMAND [ARGS...]",
    )
    p.add_argument("--out", type=Path, help="dump folder (default: a new one in the cache)")
    p.add_argument("--passes", default=".*", help="--xla_dump_hlo_pass_re (default: .*)")
    p.add_argument("--modules", help="--xla_dump_hlo_module_re: only modules whose name matches")
    p.add_argument("--open", action="store_true", help="open the window on the dump afterwards")
    p.add_argument(
        "--force", action="store_true", help="dump into an --out that already holds a dump"
    )
    p.add_argument("command", nargs=argparse.REMAINDER, help="the program and its arguments")
    p.set_defaults(run=cmd_collect)
