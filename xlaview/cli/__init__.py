"""The ``xlaview`` command: the GUI, and headless commands over the core.

``xlaview [PATH]`` opens the window; ``xlaview summary|inspect|...`` print
tables, or JSON with ``--json``. One module per command (``register`` adds its
sub-parser). Heavy modules (Qt, jax) are imported only by the commands that
need them, so that ``summary`` starts fast.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence

from xlaview import __version__
from xlaview.cli import analyses, collect, export, inspect, summary
from xlaview.cli.common import CliError

COMMANDS = (summary, inspect, analyses, collect, export)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xlaview",
        description="Explore XLA dump folders (--xla_dump_to). Without a command, open the "
        "window on PATH (a dump folder or an HLO file; default: a small bundled dump).",
    )
    parser.add_argument("--version", action="version", version=f"xlaview {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    if not argv or (argv[0] not in commands and not argv[0].startswith("-")):
        from xlaview.qt.app import run_gui  # imports Qt

        return run_gui(argv)
    args = parser.parse_args(argv)
    # A command runs once and exits: the cyclic garbage collector would only
    # walk the million objects of a big module again and again (a third of a
    # second each time) for garbage it never finds.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return args.run(args)
    except CliError as err:
        print(f"xlaview {args.command}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `xlaview summary DIR | head`
        return 0
    finally:
        if collecting:
            gc.enable()


if __name__ == "__main__":
    sys.exit(main())
