"""Text from a dump is never rendered as rich text: a dump full of markup (in
file names, module names, metadata) opens, and no widget, tooltip or item
holds live markup. (Hand-made from the bundled dump: the markup is the edge case.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QTableWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from xlaview.resources import sample_dump

MARKUP = "<img src=&#47;dev&#47;zero>"  # rendered, it would read /dev/zero as an image
NAME = "jit_" + MARKUP


def marked_up_dump(root: Path) -> Path:
    folder = root / "dump"
    folder.mkdir()
    for source in sample_dump().iterdir():
        if not source.is_file():
            continue
        name = source.name.replace("jit_attention", NAME)
        data = source.read_bytes()
        if source.suffix == ".txt":
            data = data.replace(b'op_name="', f'op_name="{MARKUP} <a href=x>link</a> '.encode())
        (folder / name).write_bytes(data)
    return folder


def rich_strings(window: QWidget):
    """(where, text) of every string a widget may render as rich text."""
    for widget in [window, *window.findChildren(QWidget)]:
        where = f"{type(widget).__name__} {widget.objectName()}"
        if widget.toolTip():
            yield f"{where} tooltip", widget.toolTip()
        if isinstance(widget, QLabel) and widget.textFormat() != Qt.TextFormat.PlainText:
            yield f"{where} text", widget.text()
        if isinstance(widget, QTextBrowser):
            yield f"{where} html", widget.toHtml()
        if isinstance(widget, QTreeWidget):
            stack = [widget.topLevelItem(i) for i in range(widget.topLevelItemCount())]
            while stack:
                item: QTreeWidgetItem = stack.pop()
                stack += [item.child(i) for i in range(item.childCount())]
                for column in range(widget.columnCount()):
                    if item.toolTip(column):
                        yield f"{where} item tooltip", item.toolTip(column)
        elif isinstance(widget, QTableWidget):
            for r in range(widget.rowCount()):
                for c in range(widget.columnCount()):
                    item = widget.item(r, c)
                    if item is not None and item.toolTip():
                        yield f"{where} item tooltip", item.toolTip()
        elif isinstance(widget, QAbstractItemView) and widget.model() is not None:
            model = widget.model()
            for r in range(min(model.rowCount(), 200)):
                for c in range(model.columnCount()):
                    tip = model.index(r, c).data(Qt.ItemDataRole.ToolTipRole)
                    if tip:
                        yield f"{where} model tooltip", str(tip)


def test_markup_from_a_dump_stays_text(window, qtbot, tmp_path: Path) -> None:
    folder = marked_up_dump(tmp_path)
    window.open_dump(folder)
    window.wait_idle()
    assert window.view_state()["module"] == NAME
    window.select_instruction("convert_exponential_fusion")
    window.wait_idle()
    assert MARKUP in window.inspector.toPlainText(), "the op_name is shown, as text"
    for key in ("before", "after"):
        window.select_pass(key)
        window.wait_idle()
    window.search("meta:img")
    window.wait_idle()
    window.side_tabs.setCurrentWidget(window.changes)
    found = [
        (where, text)
        for where, text in rich_strings(window)
        if "<img" in text or "<a href=x" in text
    ]
    assert not found, found[:5]


def test_export_of_a_marked_up_dump(tmp_path: Path) -> None:
    folder = marked_up_dump(tmp_path)
    out = tmp_path / "out.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "xlaview",
            "export",
            str(folder),
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
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 50_000
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        p.name.replace("jit_attention", NAME) for p in sample_dump().iterdir() if p.is_file()
    ), "nothing written into the dump"
