"""Labels whose text changes as the user steps, without laying out the window.

A `QLabel` whose text changes asks its layout, and every layout above it, to
be recomputed; when its size hint changes (a longer pass name, a summary that
wraps onto one more line) docks and splitters move, and every view is resized
and repainted: 50 ms and more on each pass step. A steady label has a fixed
height and takes the width it is given, so its text never moves anything.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


def steady_label(parent: QWidget, lines: int = 1, margins: tuple[int, int] = (0, 0)) -> QLabel:
    """A label ``lines`` lines high (rich text allowed, wrapped when more than
    one), with ``margins`` (horizontal, vertical) around its text."""
    label = QLabel(parent)
    label.setWordWrap(lines > 1)
    label.setContentsMargins(margins[0], margins[1], margins[0], margins[1])
    label.setFixedHeight(lines * label.fontMetrics().lineSpacing() + 2 * margins[1] + 2)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    return label
