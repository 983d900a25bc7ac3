"""GUI tests run offscreen, with settings in a private folder."""

from __future__ import annotations

import os
import tempfile

import pytest

# Before Qt starts: Linux keeps QSettings under $XDG_CONFIG_HOME.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="xlaview-test-config-")
os.environ["QT_QPA_PLATFORM"] = "offscreen"


@pytest.fixture
def window(qtbot):
    from xlaview.qt.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    yield w
    w.wait_idle()
