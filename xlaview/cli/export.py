"""``xlaview export``: the window (PNG) or the graph (SVG; with ``--graph``
the whole graph as PNG too), rendered headless."""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path

from xlaview.cli.common import MODULE_HELP, CliError, echo, point_at, resolve_module

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
            "in memory twice, as rendering needs)"
        )
    return w, h


@dataclass(frozen=True, slots=True)
class ExportTarget:
    """What the window is asked to show: a module (its ref; None: the one the
    file opened) and a point of its timeline (None: the window's default)."""

    module: str | None
    point: str | None


# A computation starts on a line of its own, not indented, ending in "{".
_COMPUTATION_HEADER = re.compile(r"^[^ \t\n][^\n]*\{[ \t]*$", re.MULTILINE)


def check_out(out: Path, dump: Path, force: bool) -> None:
    """The image can be written where ``out`` says, and not into the dump it
    shows unless ``force``: `CliError` (one line, before Qt starts) if not."""
    target = out.expanduser().absolute()
    folder = target.parent
    if not folder.is_dir():
        raise CliError(f"--out {out}: there is no folder {folder}")
    if target.is_dir():
        raise CliError(f"--out {out} is a folder: give a file name ending in .png or .svg")
    if not os.access(folder, os.W_OK | os.X_OK) or (
        target.exists() and not os.access(target, os.W_OK)
    ):
        raise CliError(f"--out {out}: cannot write there (permissions)")
    root = (dump if dump.is_dir() else dump.parent).expanduser().resolve()
    if not force and target.resolve().is_relative_to(root):
        raise CliError(
            f"--out {out} is inside the dump folder {root}: xlaview writes nothing into a "
            "dump unless asked (--force)"
        )


def check_request(args: argparse.Namespace) -> ExportTarget:
    """What ``export`` will show, checked before Qt starts, in one line: the dump
    opens; the module, the point (``--pass``) and the instruction (``--select``)
    exist; the HLO text at that point reads as HLO. `CliError` (exit 2, no
    image) if not."""
    from xlaview.dump.files import DumpReadError, read_text
    from xlaview.hlo import Module, parse_module_tolerant

    if args.out.suffix.lower() not in (".png", ".svg"):
        raise CliError(f"--out must end in .png or .svg, not {args.out.name!r}")
    check_out(args.out, args.dir, args.force)
    _, module, file = resolve_module(args.dir, args.module)
    path = Path(file).absolute() if file is not None else None
    if module is None:  # an HLO file of no module: the window opens it as it is
        shown, target = path, ExportTarget(None, None)
        where = str(path)
    else:
        point = point_at(module, path, args.pass_)
        shown = point.file.path
        where = f"{module.title} at " + (
            f"pass {point.key}" if point.seq is not None else point.title
        )
        ref = module.ref if (args.module is not None or path is None) else None
        target = ExportTarget(
            ref, point.key if (args.pass_ is not None or path is not None) else None
        )
    assert shown is not None
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
        defined = re.compile(
            r"^[ \t]*(?:ROOT[ \t]+)?%?" + re.escape(args.select) + r"[ \t]*=", re.MULTILINE
        )
        if defined.search(text) is None:
            try:
                module_of_text().find(args.select)
            except KeyError:
                raise CliError(f"no instruction {args.select!r} in {where}") from None
    return target


def cmd_export(args: argparse.Namespace) -> int:
    """Render the window offscreen, as a user would see it, to PNG (or the graph to SVG)."""
    target = check_request(args)
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
        if args.group is not None:
            window.set_graph_grouping(args.group)
        window.open_dump(args.dir)
        if window.view_state()["module"] is None:
            raise CliError(f"{args.dir}: no XLA module to show")
        if target.module is not None:
            window.select_module(target.module)
        if target.point is not None:
            window.select_pass(target.point)
        if args.select is not None:
            window.select_instruction(args.select)
        window.wait_idle()
        computation = getattr(args, "computation", None)  # xlaview graph --out
        if computation is not None:
            window.model.enter_computation(computation)
            window.wait_idle()
            if window.view_state()["computation"] != computation:
                raise CliError(f"no computation {computation!r} in {args.dir}")
        state = window.view_state()
        if args.select is not None and state["selection"] != args.select:
            raise CliError(
                f"no instruction {args.select!r} in {state['module']} at pass {state['pass']}"
            )
        if state["text_pass"] != state["pass"]:
            raise CliError(
                f"cannot show {state['module']} at pass {state['pass']}: {window.status.text()}"
            )
        if args.out.suffix.lower() == ".svg":
            export.graph_svg(window.graph_pane.main, args.out)
        elif args.graph:
            export.whole_graph_png(window.graph_pane.main, args.out)
        else:
            export.window_png(window, args.out)
    except (KeyError, RuntimeError) as err:  # what the window could not show, in one line
        raise CliError(err.args[0] if err.args else str(err)) from None
    except OSError as err:  # the disk filled, the folder went away meanwhile
        raise CliError(f"--out {args.out}: cannot write: {err.strerror or err}") from None
    finally:
        window.wait_idle()  # jobs still running would report to a closed window
        window.close()
    echo(args.out)
    return 0


def register(sub) -> None:
    from xlaview.analysis.groupings import GROUPINGS

    p = sub.add_parser("export", help="render the window (PNG) or the graph (SVG) headless")
    p.add_argument("dir", type=Path, help="a dump folder, or an HLO file of one")
    p.add_argument(
        "--module",
        help=MODULE_HELP,
    )
    p.add_argument(
        "--pass",
        dest="pass_",
        metavar="SEQ|before|after|SNAPSHOT",
        help="the point of the pass timeline: a pass number, before, after, or a "
        "snapshot's name such as after_spmd_partitioner (default: the last)",
    )
    p.add_argument("--select", metavar="INSTR", help="the instruction to select")
    p.add_argument(
        "--out", type=Path, required=True, help="FILE.png (the window) or FILE.svg (the graph)"
    )
    p.add_argument(
        "--graph",
        action="store_true",
        help="the whole main graph (not the window) with its key, at 100%% where it fits "
        "16000 pixels a side; .svg is always the whole graph",
    )
    p.add_argument(
        "--group",
        choices=GROUPINGS,
        help="fold the main graph by scope, repeated blocks, or not at all (default: by "
        "scope when it has more than 300 nodes)",
    )
    p.add_argument(
        "--force", action="store_true", help="write --out even inside the dump folder shown"
    )
    p.add_argument(
        "--size",
        type=_size,
        default=(1600, 1000),
        metavar="WxH",
        help="window size in pixels (default 1600x1000)",
    )
    p.set_defaults(run=cmd_export)
