"""Render the application icon's PNGs from its SVG (xlaview/resources/xlaview.svg).

python packaging/make_icons.py
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

REPO = Path(__file__).resolve().parent.parent
SVG = REPO / "xlaview" / "resources" / "xlaview.svg"


def render(size: int, out: Path) -> None:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(str(SVG)).render(painter)
    painter.end()
    image.save(str(out))


if __name__ == "__main__":
    app = QGuiApplication([])
    render(256, REPO / "xlaview" / "resources" / "xlaview.png")
    render(512, REPO / "packaging" / "xlaview-512.png")
    print("icons written")
