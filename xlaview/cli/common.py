"""What every command shares: the user-error exception, tables, JSON, and
finding the module a command works on."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from xlaview.errors import XlaviewError


class CliError(XlaviewError):
    """A user error: printed as one line, exit status 2."""


def print_table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> None:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for k, row in enumerate(cells):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))


def plural(count: int, noun: str) -> str:
    """``1 file``, ``3 files``."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def elided(items: Sequence[str], shown: int = 4) -> str:
    """The first few items and how many more: a value read 180 times is not
    listed on one line."""
    head = ", ".join(items[:shown])
    return head + (f", ... and {len(items) - shown} more" if len(items) > shown else "")


def emit_json(document: object) -> None:
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


def resolve_module(path: Path, module_key: str | None):
    """(index or None, dump module or None, HLO file) for a dump folder or an HLO
    file: the module ``module_key`` names (an id, ``module_NNNN``, a name), else
    the dump's main module (`default_module`)."""
    from xlaview.dump.index import index_dump, index_file
    from xlaview.dump.main_module import default_module

    if not path.exists():
        raise CliError(f"{path}: no such file or folder")
    index = index_file(path) if path.is_file() else index_dump(path)
    if path.is_file() and module_key is None:
        return index, index.module_of(path), path
    if not index.modules:
        raise CliError(f"{path}: no XLA module files here")
    try:
        module = index.module(module_key) if module_key else default_module(index)
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
