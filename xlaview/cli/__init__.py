"""The ``xlaview`` command: the GUI, and headless commands over the core.

``xlaview [PATH]`` opens the window; ``xlaview summary|inspect|...`` print
tables, or JSON with ``--json``. One module per command (``register`` adds its
sub-parser). Heavy modules (Qt, jax) are imported only by the commands that
need them, so that ``summary`` starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from xlaview.cli import (
    analyses,
    boundaries,
    collect,
    compare,
    cost,
    export,
    graph,
    inspect,
    profile,
    summary,
)
from xlaview.cli.common import echo, kept, release
from xlaview.collector import gc_paused
from xlaview.dump.settings import SettingError, check_settings
from xlaview.errors import XlaviewError
from xlaview.version import __version__

COMMANDS = (summary, inspect, analyses, compare, cost, boundaries, graph, profile, collect, export)


def build_parser() -> tuple[argparse.ArgumentParser, set[str]]:
    """The parser, and the names of its commands."""
    parser = argparse.ArgumentParser(
        prog="xlaview",
        description="Explore XLA dump folders (--xla_dump_to). Without a command, open the "
        "window on PATH (a dump folder or an HLO file; default: a small bundled dump).",
    )
    parser.add_argument("--version", action="version", version=f"xlaview {__version__}")
    sub = parser.add_subparsers(dest="subcommand", metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    return parser, set(sub.choices)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, commands = build_parser()
    if not argv or (argv[0] not in commands and not argv[0].startswith("-")):
        from xlaview.qt.app import run_gui  # imports Qt

        return run_gui(argv)
    _never_fail_to_encode()
    release()
    args = parser.parse_args(argv)
    try:
        check_settings()
    except SettingError as err:
        echo(f"xlaview {args.subcommand}: {err}", err=True)
        return 2
    # A command runs once and exits: the cyclic garbage collector would only
    # walk the million objects of a big module again and again (a third of a
    # second each time) for garbage it never finds.
    try:
        with gc_paused():
            return args.run(args)
    except XlaviewError as err:  # CliError, or bad input the command did not expect
        echo(f"xlaview {args.subcommand}: {err}", err=True)
        return 2
    except BrokenPipeError:  # `xlaview summary DIR | head`
        _quiet_broken_pipe()
        return 0
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        echo(
            f"xlaview {args.subcommand}: out of memory (the dump is too large for this machine?)",
            err=True,
        )
        return 1
    except Exception as err:
        if os.environ.get("XLAVIEW_DEBUG"):
            raise
        echo(
            f"xlaview {args.subcommand}: internal error: {type(err).__name__}: {str(err)[:300]} "
            "(XLAVIEW_DEBUG=1 shows the traceback; please report it)",
            err=True,
        )
        return 1


def run() -> None:
    """The ``xlaview`` program: `main`, then exit. A headless command that
    kept what it loaded (`xlaview.cli.common.keep`) leaves at once, its
    output flushed, without freeing it."""
    code = main()
    if kept():
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:  # `xlaview traffic DIR | head`, found only now
            _quiet_broken_pipe()
        os._exit(code)
    sys.exit(code)


def _never_fail_to_encode() -> None:
    """A character the terminal's encoding lacks (LANG=C, PYTHONIOENCODING=
    ascii:strict) is printed as an escape, never a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _quiet_broken_pipe() -> None:
    # Python flushes stdout again at exit and would report the broken pipe.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    run()
