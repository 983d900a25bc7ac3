"""``xlaview export``: the window (PNG) or the graph (SVG), rendered headless."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from xlaview.cli.common import CliError, default_module, echo, open_index

# The window is rendered at this size: one 32-bit pixel buffer for Qt's
# backing store and one for the grab, so 16384 x 16384 is 2 GiB at once. Past
# that the export runs out of a 4 GB address space, and no screen is larger
# (16K is 15360 wide).
MAX_SIDE = 16384
_MIN_SIDE = 200


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expects WxH, e.g. 1600x1000, not {text!r}") from None
    if w < _MIN_SIDE or h < _MIN_SIDE:
        raise argparse.ArgumentTypeError(f"the window needs at least {_MIN_SIDE}x{_MIN_SIDE}")
    if w > MAX_SIDE or h > MAX_SIDE:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_SIDE}x{MAX_SIDE} (a window of 32-bit pixels; larger does not fit "
            "in memory twice, as rendering needs)")
    return w, h


# A computation starts on a line of its own, not indented, ending in "{".
_COMPUTATION_HEADER = re.compile(r"^[^ \t\n][^\n]*\{[ \t]*$", re.MULTILINE)


def check_request(args: argparse.Namespace) -> Path:
    """What ``export`` will show, checked before Qt starts: the dump opens, the
    module, pass and instruction exist, and the HLO file at that point reads
    as HLO text. Returns that file; `CliError` (exit 2, no image) if not."""
    from xlaview.dump.files import DumpReadError, read_text
    from xlaview.hlo import Module, parse_module_tolerant

    if args.out.suffix.lower() not in (".png", ".svg"):
        raise CliError(f"--out must end in .png or .svg, not {args.out.name!r}")
    try:
        index, file = open_index(args.dir)
    except CliError as err:
        raise CliError(f"cannot open {err}") from None
    if not index.modules:
        raise CliError(f"{args.dir}: no XLA module files here")
    try:
        if args.module is not None:
            module = index.module(args.module)
        else:
            module = (index.module_of(file) if file is not None else None) or default_module(index)
        if args.pass_ is not None:
            label = str(args.pass_)
            shown = module.file_at(str(int(label)) if label.isdigit() else label).path
        elif file is not None and args.module is None:
            shown = file.absolute()
        elif module.timeline():
            shown = module.timeline()[-1][1].path
        else:
            raise CliError(f"{module.title} has no HLO text to show")
    except KeyError as err:
        raise CliError(err.args[0] if err.args else str(err)) from None
    try:
        text = read_text(shown)
    except DumpReadError as err:
        raise CliError(str(err)) from None
    # Plain searches answer for files as XLA writes them; an odd one (a module
    # on one line) is parsed, as the window will parse it.
    parsed: list[Module] = []

    def module_of_text() -> Module:
        if not parsed:
            parsed.append(parse_module_tolerant(text).module)
        return parsed[0]

    if _COMPUTATION_HEADER.search(text) is None and not module_of_text().computations:
        raise CliError(f"{shown}: no HLO computation in this file")
    if args.select is not None:
        defined = re.compile(r"^[ \t]*(?:ROOT[ \t]+)?%?" + re.escape(args.select) + r"[ \t]*=",
                             re.MULTILINE)
        if defined.search(text) is None:
            try:
                module_of_text().find(args.select)
            except KeyError:
                raise CliError(f"no instruction {args.select!r} in {shown}") from None
    return shown


def cmd_export(args: argparse.Namespace) -> int:
    """Render the window offscreen, as a user would see it, to PNG (or the graph to SVG)."""
    import os

    check_request(args)  # before Qt: a request that cannot be met writes no image
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from xlaview.qt import export
    from xlaview.qt.app import application
    from xlaview.qt.main_window import MainWindow

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
        raise CliError(err.args[0] if err.args else str(err)) from None
    finally:
        window.close()
    echo(args.out)
    return 0


def register(sub) -> None:
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
