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


def emit_json(document: object) -> None:
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


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


def load_checked(path: Path, store=None, previous=None):
    """The module of an HLO file (problems printed as warnings); ``store`` and
    ``previous`` as in `xlaview.dump.loader.load_module`."""
    from xlaview.dump.loader import DumpReadError, load_module

    try:
        loaded = load_module(path, store=store, previous=previous)
    except DumpReadError as err:
        raise CliError(str(err)) from None
    for problem in loaded.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return loaded.module
