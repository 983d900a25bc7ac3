"""What every command shares: the user-error exception, tables, JSON, and
finding the module a command works on."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from xlaview.cli import json_text
from xlaview.errors import XlaviewError


class CliError(XlaviewError):
    """A user error: printed as one line, exit status 2."""


# What the running command loaded, kept until the process ends: the program
# (`xlaview.cli.run`) leaves with os._exit, and a 45 MB module, a million
# objects, is not freed one object at a time (0.08 s).
_KEPT: list[object] = []


def keep(value: object) -> None:
    """Keep ``value`` until the process ends (see `_KEPT`)."""
    _KEPT.append(value)


def kept() -> bool:
    """Whether the command kept anything: it ran headless, and the process may leave at once."""
    return bool(_KEPT)


def release() -> None:
    """Free what an earlier command kept (a caller that runs several in one process)."""
    _KEPT.clear()
    _NOTES.clear()
    _RESOLVED.clear()


# What the running command said on stderr about the module it works on (which
# of several it took, which text stands in for a missing final dump), each once.
_NOTES: list[str] = []
# Its module, found once however often it asks: (path, key) -> resolve_module's answer.
_RESOLVED: dict[tuple[str, str | None], tuple] = {}


def note(text: str) -> None:
    """Say ``text`` on stderr as a note, once per command however often it is asked."""
    if text not in _NOTES:
        _NOTES.append(text)
        echo(f"note: {text}", err=True)


def notes() -> list[str]:
    """What the running command said with `note`, in order (its JSON's ``notes``)."""
    return list(_NOTES)


def source_json(file: Path) -> dict[str, object]:
    """The keys a command's JSON gives about its input: ``file``, the HLO text
    it read, and ``notes``, what it said about it on stderr (the module it
    chose of several, the last pass dump standing in for a missing final one)."""
    return {"file": str(file), "notes": notes()}


# Characters a terminal acts on rather than shows: C0 and C1 controls (ESC
# starts colour, title and hyperlink sequences; a newline in a file name forges
# lines of output), DEL, and the bidirectional overrides that reorder what is
# shown. Lone surrogates are the bytes of file names that are not UTF-8.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    c = match[0]
    if c in _NAMED:
        return _NAMED[c]
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode: show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: object) -> str:
    """``text`` safe to print on a terminal: every control character, bidi
    override and undecodable file-name byte escaped (``\\x1b``, ``\\n``,
    ``\\xff``); everything else as it is."""
    return _UNSAFE.sub(_escape, str(text))


def echo(text: object = "", *, err: bool = False) -> None:
    """Print one line of command output, escaped with `terminal_text`: the
    one way every command writes text (``err``: to stderr)."""
    stream = sys.stderr if err else sys.stdout
    stream.write(terminal_text(text) + "\n")


T = TypeVar("T")


def add_top(parser: Any, what: str) -> None:
    """``--top N`` (default 20; 0: all) and ``--all``: how many rows a table shows."""
    parser.add_argument("--top", type=int, default=20, help=f"{what} shown in the table (0: all)")
    parser.add_argument("--all", action="store_true", help=f"every one of the {what}")


def top_rows(items: Sequence[T], args: Any) -> Sequence[T]:
    """The rows ``--top``/``--all`` ask for."""
    return items if args.all or args.top <= 0 else items[: args.top]


def say_shown(shown: int, total: int, noun: str) -> None:
    """The line under a table that shows fewer rows than there are."""
    if shown < total:
        echo(f"top {shown:,} of {total:,} {noun} (--top N for more, --all for every one)")


def print_table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> None:
    cells = [[terminal_text(c) for c in header]] + [[terminal_text(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for k, row in enumerate(cells):
        sys.stdout.write(
            "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)).rstrip() + "\n"
        )
        if k == 0:
            sys.stdout.write("  ".join("-" * w for w in widths) + "\n")


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_safe(value: object) -> object:
    """``value`` as strict JSON can hold it: a lone surrogate in a string (the
    undecodable bytes of a non-UTF-8 file name become those) is replaced by
    U+FFFD, and a float that is not finite becomes null."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


# What --module takes, in every command's help (the README says the same).
MODULE_HELP = (
    "module id (9, 0009, module_0009; 0009.NAME where two processes repeat an id) or name "
    "(default: the program's main module, the one with the most instructions among the "
    "newest dump's, its framework's helper jits last)"
)


def plural(count: int, noun: str) -> str:
    """``1 file``, ``3 files``."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def emit_json(document: object) -> None:
    """Print one JSON document: ASCII (every other character escaped), and
    always valid UTF-8 JSON, whatever bytes the dump's file names held."""
    try:
        text = json_text.dumps(document)
        clean = "\\ud" not in text  # else maybe a lone surrogate, escaped
    except ValueError:  # NaN or infinity
        clean = False
    if not clean:
        text = json_text.dumps(json_safe(document))
    sys.stdout.write(text + "\n")


def open_index(path: Path):
    """(index, the HLO file or None) of a dump folder or of an HLO file of one;
    `CliError` for a path that is neither (missing, a FIFO, a device...)."""
    from xlaview.dump.files import DumpReadError
    from xlaview.dump.index import index_dump, index_file

    try:
        if path.is_dir():
            return index_dump(path), None
        if not path.exists() and not path.is_symlink():
            raise CliError(f"{path}: no such file or folder")
        return index_file(path), path
    except DumpReadError as err:
        raise CliError(str(err)) from None
    except OSError as err:
        raise CliError(f"{path}: cannot open: {err.strerror or err}") from None


def resolve_module(path: Path, module_key: str | None):
    """(index, dump module or None, HLO file or None) for a dump folder or an HLO
    file: the module ``module_key`` names (an id, ``module_NNNN``, a name,
    ``NNNN.NAME``: `DumpIndex.module`), else the dump's main module
    (`default_module`). Where several fit the key (two processes repeated an
    id, a name compiled twice), the largest, said in a `note`."""
    from xlaview.dump.main_module import default_module, pick_module

    asked = (str(path), module_key)
    if asked in _RESOLVED:
        return _RESOLVED[asked]
    index, file = open_index(path)
    if file is not None and module_key is None:
        _RESOLVED[asked] = (index, index.module_of(file), file)
        return _RESOLVED[asked]
    if not index.modules:
        raise CliError(f"{path}: no XLA module files here")
    try:
        if module_key:
            module, said = pick_module(index, module_key)
            if said:
                note(said)
        else:
            module = default_module(index)
    except KeyError as err:
        raise CliError(err.args[0] if err.args else str(err)) from None
    _RESOLVED[asked] = (index, module, None)
    return _RESOLVED[asked]


def point_at(module, file: Path | None, pass_key: str | None):
    """The point of ``module``'s timeline a command shows: the one ``--pass``
    names, else the point of the HLO file given, else the final dump (the
    last pass dump where it is missing). `CliError` if there is none."""
    path = Path(file).absolute() if file is not None else None
    try:
        if pass_key is not None:
            return module.point(pass_key)
        if path is not None:  # the file's own point
            return next(p for p in module.points() if p.file.path == path)
        return module.point("after") if module.after_optimizations else module.points()[-1]
    except KeyError as err:
        raise CliError(str(err).strip('"')) from None
    except (StopIteration, IndexError):
        raise CliError(f"{path or module.title}: no HLO text to show") from None


def resolve_final(path: Path, module_key: str | None):
    """(dump module or None, HLO file, whether the file is its module's
    after-optimizations dump, which its reports describe) for a command on
    one module's HLO: the file given, else the module's final dump, else (a
    module whose final dump is missing) its last pass dump, said in a `note`."""
    _, module, file = resolve_module(path, module_key)
    if file is None:
        file = _final_text(module)
    final = (
        module is not None
        and module.after_optimizations is not None
        and (module.after_optimizations.path == file.absolute())
    )
    return module, file, final


def _final_text(module) -> Path:
    """The module's after-optimizations dump, else its last HLO text, said."""
    if module.after_optimizations is not None:
        return module.after_optimizations.path
    points = module.points()
    if not points:
        raise CliError(f"{module.title} has no HLO text here (only {_what_it_has(module)})")
    last = points[-1]
    what = "pass dump" if last.seq is not None else f"dump ({last.title})"
    note(f"{module.title} has no after-optimizations dump: using its last {what}, {last.file.rel}")
    return last.file.path


def _what_it_has(module) -> str:
    files = module.all_files()
    reports = [k for k, f in module.reports.items() if f]
    if reports:
        return "reports: " + ", ".join(reports)
    return plural(len(files), "other file")


def hlo_file(path: Path, module_key: str | None) -> Path:
    """The file of `resolve_final`, without indexing the folder around a file
    given by name (a command that needs no report is spared the index)."""
    if module_key is None and path.is_file():
        return path
    return resolve_final(path, module_key)[1]


def final_reports(path: Path, module_key: str | None):
    """The reports of the module whose final dump `hlo_file` names, or None
    when the file is not one (the reports describe that dump only)."""
    from xlaview.dump.reports import load_reports

    module, _, final = resolve_final(path, module_key)
    return load_reports(module) if final else None


def load_checked(path: Path, store=None, previous=None):
    """The parsed module of an HLO file, its problems printed as warnings;
    `CliError` when the file cannot be read or holds no HLO computation.
    ``store`` and ``previous`` as in `xlaview.dump.modules.load_module`."""
    from xlaview.dump.modules import load_module

    return accepted(path, reading(path, lambda: load_module(path, store=store, previous=previous)))


def load_priced(path: Path):
    """`load_checked` and the module's `module_cost`: a big module is read
    and priced by two processes (`xlaview.analysis.cost.two_processes`)."""
    from xlaview.analysis.cost.two_processes import load_and_price

    loaded, cost = reading(path, lambda: load_and_price(path))
    module = accepted(path, loaded)
    warn_pricing(path, cost)
    return module, cost


def warn_pricing(path: Path, cost) -> None:
    """What the pricing would not believe, as warnings located in ``path``."""
    for problem in cost.problems:
        echo(f"warning: {path}:{problem.line}: {problem.message}", err=True)


def reading(path: Path, read):
    """``read()``, a file that cannot be read as text made a `CliError`."""
    from xlaview.dump.files import DumpReadError

    try:
        return read()
    except DumpReadError as err:
        raise CliError(str(err)) from None


def accepted(path: Path, loaded):
    """The module of a `LoadedModule`, its problems printed as warnings;
    `CliError` if it holds no HLO computation."""
    for problem in loaded.problems:
        echo(f"warning: {problem}", err=True)
    if not loaded.module.computations:
        raise CliError(f"{path}: no HLO computation in this file")
    keep(loaded.module)
    return loaded.module
