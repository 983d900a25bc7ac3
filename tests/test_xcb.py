"""The real window on X11 (Qt's xcb platform), as on a user's Linux desktop.

The README names the system packages the xcb platform needs; a test checks
that the list covers what PySide6's plugin links against. Where Xvfb and those
libraries are installed (``.ci/run`` installs them with apt), the window starts
on a virtual X display and a screenshot of the display (taken by another
process through the X server, not a grab of the widget) must show it painted.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from xlaview.resources import sample_dump

README = Path(__file__).resolve().parents[1] / "README.md"
# The libraries a minimal system (a server, a container) may lack; the C and
# C++ runtimes and the libraries these pull in come with any system or with them.
_DESKTOP_LIBRARY = re.compile(
    r"lib(?:xcb[\w-]*|xkbcommon[\w-]*|X11[\w-]*|EGL|GL|fontconfig|freetype|dbus-1|glib-2\.0"
    r"|gthread-2\.0)\.so"
)
# Libraries whose Debian package name does not follow from the soname.
_PACKAGE_OF = {"libglib-2.0.so.0": "libglib2.0-0", "libgthread-2.0.so.0": "libglib2.0-0"}


def qt_dir() -> Path:
    import PySide6

    return Path(PySide6.__file__).parent / "Qt"


def xcb_binaries() -> list[Path]:
    """Qt's xcb platform plugin, its GL integrations and the Qt libraries they load."""
    qt = qt_dir()
    plugins = [
        qt / "plugins" / "platforms" / "libqxcb.so",
        *sorted((qt / "plugins" / "xcbglintegrations").glob("*.so")),
    ]
    libraries = [
        qt / "lib" / name
        for name in ("libQt6XcbQpa.so.6", "libQt6Gui.so.6", "libQt6Widgets.so.6", "libQt6DBus.so.6")
    ]
    return [p for p in plugins + libraries if p.exists()]


def linked_libraries() -> dict[str, str | None]:
    """soname -> path (None: not found) of every library the xcb binaries load, from ldd."""
    if not sys.platform.startswith("linux") or shutil.which("ldd") is None:
        pytest.skip("needs Linux and ldd")
    binaries = xcb_binaries()
    if not binaries:
        pytest.skip("this PySide6 has no xcb platform plugin")
    found: dict[str, str | None] = {}
    for binary in binaries:
        out = subprocess.run(
            ["ldd", str(binary)], capture_output=True, text=True, check=False
        ).stdout
        for line in out.splitlines():
            m = re.match(r"\s*(\S+) => (not found|\S+)", line)
            if m:
                found[m.group(1)] = None if m.group(2) == "not found" else m.group(2)
    return found


def missing_libraries() -> list[str]:
    return sorted(name for name, path in linked_libraries().items() if path is None)


def debian_package(soname: str, path: str | None) -> str:
    """The package that ships a library: dpkg's answer where it is installed,
    Debian's naming rule (libxcb-icccm.so.4 -> libxcb-icccm4) where it is not."""
    if path and shutil.which("dpkg"):
        out = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True, check=False)
        if out.returncode == 0:
            package = out.stdout.split(":", 1)[0]
            return package.removesuffix("t64")  # Ubuntu 24.04's time_t rename, same package
    if soname in _PACKAGE_OF:
        return _PACKAGE_OF[soname]
    base, _, version = soname.partition(".so.")
    base = base.lower()
    return f"{base}-{version}" if base[-1].isdigit() else f"{base}{version}"


def readme_packages() -> set[str]:
    line = next(
        (
            ln
            for ln in README.read_text().splitlines()
            if "apt-get install" in ln and "libxcb-cursor0" in ln
        ),
        None,
    )
    assert line, "the README names the packages of Qt's xcb platform in one apt-get install line"
    return {word for word in line.split("install", 1)[1].split() if not word.startswith("-")}


def test_the_readme_names_every_package_the_xcb_plugin_needs() -> None:
    needed = {
        soname: debian_package(soname, path)
        for soname, path in linked_libraries().items()
        if _DESKTOP_LIBRARY.match(soname)
    }
    listed = readme_packages()
    missing = {soname: package for soname, package in needed.items() if package not in listed}
    assert not missing, f"the README's apt-get line lacks {missing}"
    assert "libxcb-cursor0" in listed and "libxcb-icccm4" in listed


# The screenshot: another process on the same display reads the X server's
# root window, and waits (up to a deadline) for the window to be painted.
SCREENSHOT = textwrap.dedent("""
    import json, sys, time
    from PySide6.QtGui import QGuiApplication
    app = QGuiApplication([])
    deadline = time.monotonic() + float(sys.argv[2])
    previous = None
    while True:
        image = app.primaryScreen().grabWindow(0).toImage()
        w, h = image.width(), image.height()
        colours, painted = set(), 0
        for y in range(0, h, 4):
            for x in range(0, w, 4):
                rgb = image.pixel(x, y) & 0xFFFFFF
                colours.add(rgb)
                painted += rgb != 0
        samples = len(range(0, h, 4)) * len(range(0, w, 4))
        # Painted, and settled: the module's text and graph come after the frame.
        settled = image == previous
        previous = image
        if (
            settled and len(colours) >= 64 and painted > samples // 2
        ) or time.monotonic() > deadline:
            break
        app.processEvents()
        time.sleep(1)
    image.save(sys.argv[1])
    print(json.dumps({"colours": len(colours), "painted": painted / samples, "size": [w, h],
                      "platform": app.platformName()}))
""")


@pytest.fixture
def x_display(tmp_path: Path):
    """A virtual X display (Xvfb); it picks a free display number and says which."""
    if shutil.which("Xvfb") is None:
        pytest.skip(
            "Xvfb is not installed (apt-get install xvfb): the window is not started on X11"
        )
    missing = missing_libraries()
    if missing:
        pytest.skip(
            f"Qt's xcb platform lacks {', '.join(missing)}: install the README's apt-get line"
        )
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(write)
    with os.fdopen(read) as ready:
        number = ready.readline().strip()  # written once the server accepts clients
    if not number:
        server.kill()
        pytest.fail(f"Xvfb did not start: {server.communicate()[1].decode()[-500:]}")
    yield f":{number}"
    server.terminate()
    server.communicate(timeout=30)  # and close its pipe


@pytest.mark.slow
def test_the_window_paints_on_x11(x_display: str, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DISPLAY": x_display,
        "QT_QPA_PLATFORM": "xcb",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    env.pop("WAYLAND_DISPLAY", None)
    log = tmp_path / "window.log"
    with open(log, "w") as out:
        window = subprocess.Popen(
            [sys.executable, "-m", "xlaview", str(sample_dump())],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        shot = tmp_path / "display.png"
        grab = subprocess.run(
            [sys.executable, "-c", SCREENSHOT, str(shot), "90"],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert window.poll() is None, f"the window did not start on xcb: {log.read_text()[-2000:]}"
        assert grab.returncode == 0, grab.stderr
        seen = json.loads(grab.stdout)
        assert seen["platform"] == "xcb"
        assert seen["colours"] >= 64 and seen["painted"] > 0.5, (
            f"the display shows no painted window: {seen}, see {shot}"
        )
    finally:
        window.send_signal(signal.SIGINT)  # Ctrl-C in the terminal closes the window
        try:
            window.wait(timeout=30)
        except subprocess.TimeoutExpired:
            window.kill()
            window.wait()
    assert window.returncode == 0 and "Traceback" not in log.read_text(), log.read_text()[-2000:]
