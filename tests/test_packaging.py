"""The packaging trio: icon, desktop entry, and a PyInstaller build that works."""

from __future__ import annotations

import configparser
import importlib.util
import os
import queue
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_desktop_entry_and_icons() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(REPO / "packaging" / "io.github.xlaview.xlaview.desktop")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Exec"].startswith("xlaview")
    assert section["Icon"] == "io.github.xlaview.xlaview"
    assert (REPO / "packaging" / "io.github.xlaview.xlaview.svg").read_text().startswith("<svg")
    assert (REPO / "xlaview" / "resources" / "xlaview.png").stat().st_size > 1000
    metainfo = (REPO / "packaging" / "io.github.xlaview.xlaview.metainfo.xml").read_text()
    assert "<id>io.github.xlaview.xlaview</id>" in metainfo


def test_window_uses_the_icon(qtbot) -> None:
    from xlaview.qt.main_window import MainWindow

    window = MainWindow(persist=False)
    qtbot.addWidget(window)
    assert not window.windowIcon().isNull()
    assert window.windowIcon().availableSizes() or window.windowIcon().pixmap(64).width() == 64


@pytest.mark.slow
def test_pyinstaller_builds_a_working_app(tmp_path: Path) -> None:
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.skip("pyinstaller is not installed")
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level",
            "WARN",
            "--distpath",
            str(tmp_path / "dist"),
            "--workpath",
            str(tmp_path / "build"),
            str(REPO / "packaging" / "xlaview.spec"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    app = tmp_path / "dist" / "xlaview" / "xlaview"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = tmp_path / "window.png"
    sample = REPO / "xlaview" / "resources" / "sample" / "attention_cpu"
    run = subprocess.run(
        [
            str(app),
            "export",
            str(sample),
            "--select",
            "convert_exponential_fusion",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert out.stat().st_size > 50_000
    # The frozen app is its own helper process (it colours text off the GUI's GIL).
    from xlaview import helper
    from xlaview.text.spans import lex_text

    outcomes: queue.Queue[tuple[bool, object, str]] = queue.Queue()
    child = helper.HelperProcess()
    original = helper.helper_command
    helper.helper_command = lambda: [str(app), helper.FROZEN_HELPER_ARG]
    try:
        child.submit(lex_text, ("HloModule m", "hlo"), lambda *o: outcomes.put(o))
        ok, spans, _ = outcomes.get(timeout=60)
        assert ok and spans[0] == lex_text("HloModule m", "hlo")[0]
        child.submit(os.getpid, (), lambda *o: outcomes.put(o))
        ok, pid, _ = outcomes.get(timeout=60)
        assert ok and pid == child._process.pid, "the job ran in the frozen app"
    finally:
        helper.helper_command = original
        child.close()


def test_the_top_level_is_the_fixed_layout() -> None:
    """What the repository holds at its top: the project's fixed layout, its
    architecture notes and the dotfiles of its tools (a release script lives
    in packaging/, a measurement in benchmarks/)."""
    listed = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    top = {line.split("/", 1)[0] for line in listed.stdout.splitlines()}
    fixed = {"pyproject.toml", "xlaview", "resources", "tests", "packaging", "benchmarks"}
    fixed |= {"README.md", "ARCHITECTURE.md", ".ci"}
    assert {name for name in top if not name.startswith(".") or name == ".ci"} <= fixed
