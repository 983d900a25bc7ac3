"""``xlaview export``: the window (PNG) or the graph (SVG), rendered headless."""

from __future__ import annotations

import argparse
from pathlib import Path

from xlaview.cli.common import CliError


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
        if window.view_state()["module"] is None:
            raise CliError(f"{args.dir}: no XLA module to show")
        if args.module is not None:
            window.select_module(args.module)
        if args.pass_ is not None:
            window.select_pass(args.pass_)
        if args.select is not None:
            window.select_instruction(args.select)
        window.wait_idle()
        state = window.view_state()
        if args.select is not None and state["selection"] != args.select:
            raise CliError(f"no instruction {args.select!r} in {state['module']} at pass "
                           f"{state['pass']}")
        if state["text_pass"] != state["pass"]:
            raise CliError(f"cannot show {state['module']} at pass {state['pass']}: "
                           f"{window.status.text()}")
        if args.out.suffix.lower() == ".svg":
            export.graph_svg(window.graph_pane.main, args.out)
        else:
            export.window_png(window, args.out)
    except KeyError as err:
        raise CliError(str(err).strip('"')) from None
    finally:
        window.close()
    print(args.out)
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
