"""Starting the GUI: the application object, the theme, errors shown, Ctrl-C."""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QMessageLogContext, Qt, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from xlaview.dump.settings import SettingError, check_settings
from xlaview.qt import theme
from xlaview.qt.model.workers import finish, stop_processes
from xlaview.resources import icon_path

QUIT_WAIT_MS = 1000  # for a job still running at quit


# Qt messages that say nothing to a user: the offscreen platform (headless
# export) cannot resize windows to their size hints, and says so at each show.
QUIET_MESSAGES = ("This plugin does not support propagateSizeHints",)


def _qt_message(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    if not message.startswith(QUIET_MESSAGES):
        sys.stderr.write(message + "\n")


def application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        qInstallMessageHandler(_qt_message)
        # Workers parse, lex and lay out in Python while the GUI thread calls
        # into Qt. Each return from Qt waits for the GIL, by default up to 5 ms;
        # hand it over every 0.1 ms, or the window stutters while a big dump loads.
        sys.setswitchinterval(0.0001)
        app = QApplication(sys.argv[:1])
        app.setApplicationName("xlaview")
        app.setOrganizationName("xlaview")
        app.setDesktopFileName("io.github.xlaview.xlaview")
        app.setWindowIcon(QIcon(str(icon_path("svg"))))
        theme.apply_theme(app)
        app.aboutToQuit.connect(stop_processes)
    return app  # type: ignore[return-value]


def install_exception_hook() -> None:
    """An unexpected exception shows a dialog (and the terminal gets the trace)."""

    def hook(kind, value, tb) -> None:
        text = "".join(traceback.format_exception(kind, value, tb))
        sys.stderr.write(text)
        if QApplication.instance() is None or QApplication.platformName() == "offscreen":
            return
        box = QMessageBox(
            QMessageBox.Icon.Critical, "xlaview: unexpected error", f"{kind.__name__}: {value}"
        )
        box.setTextFormat(Qt.TextFormat.PlainText)  # the message may quote a dump
        box.setDetailedText(text)
        box.exec()

    sys.excepthook = hook


def no_display() -> str | None:
    """Why the window cannot open here, if it cannot: on Linux with no
    display and no platform asked for, Qt would abort with a message about
    ``libxcb-cursor0`` (it tries the X11 plugin and finds no display)."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set). "
        "`xlaview export DIR --out shot.png` renders the window headless; set DISPLAY to "
        "open it, or QT_QPA_PLATFORM=offscreen to run it in a script"
    )


def run_gui(argv: Sequence[str]) -> int:
    """``xlaview [PATH]``: open the window on PATH (default: the bundled dump)."""
    from xlaview.qt.main_window import main_window_for

    if len(argv) > 1:
        print("usage: xlaview [PATH]   (or: xlaview COMMAND --help)", file=sys.stderr)
        return 2
    path = Path(argv[0]) if argv else None
    if path is not None and not path.exists():
        print(f"xlaview: {path}: no such file or folder", file=sys.stderr)
        return 2
    try:
        check_settings()
    except SettingError as err:
        print(f"xlaview: {err}", file=sys.stderr)
        return 2
    missing = no_display()
    if missing is not None:
        print(f"xlaview: {missing}", file=sys.stderr)
        return 2
    app = application()
    install_exception_hook()
    # Let Ctrl-C in the terminal close the window: wake the interpreter now and then.
    signal.signal(signal.SIGINT, lambda *_: app.quit())
    timer = QTimer()
    timer.start(300)
    timer.timeout.connect(lambda: None)
    window = main_window_for(path)
    window.show()
    status = app.exec()
    window.close()
    if not finish(QUIT_WAIT_MS):
        # A job still runs on the worker thread (a long parse): the user asked
        # to quit, so the process ends now rather than when the job does.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status
