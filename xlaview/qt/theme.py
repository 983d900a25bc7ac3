"""Colours and fonts of the window: one place, so every view agrees."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QApplication

from xlaview.analysis.kinds import Kind

# Node fills by kind: fusions warm, compute blue, movement grey, control violet.
KIND_COLORS: dict[Kind, str] = {
    Kind.PARAMETER: "#d9e7d4",
    Kind.CONSTANT: "#e8e8e8",
    Kind.FUSION_LOOP: "#ffd8a8",
    Kind.FUSION_INPUT: "#ffc078",
    Kind.FUSION_OUTPUT: "#ffa94d",
    Kind.FUSION_CUSTOM: "#f59f9f",
    Kind.FUSION_OTHER: "#ffe8cc",
    Kind.DOT: "#a5d8ff",
    Kind.COLLECTIVE: "#e599f7",
    Kind.CONTROL: "#b197fc",
    Kind.CUSTOM_CALL: "#ffec99",
    Kind.REDUCE: "#96f2d7",
    Kind.DATA_MOVEMENT: "#dee2e6",
    Kind.ELEMENTWISE: "#c3fae8",
    Kind.OTHER: "#f1f3f5",
}

# Pygments token types -> text colours for the HLO view (prefix match).
TOKEN_COLORS: list[tuple[str, str, bool]] = [
    # token type prefix, colour, bold
    ("Token.Comment", "#8a8f98", False),
    ("Token.Keyword.Type", "#1c7ed6", False),
    ("Token.Keyword", "#a61e4d", True),
    ("Token.Name.Function", "#5f3dc4", True),
    ("Token.Name.Builtin", "#c2255c", True),
    ("Token.Name.Attribute", "#5c940d", False),
    ("Token.Name.Constant", "#e8590c", False),
    ("Token.Name.Variable", "#212529", False),
    ("Token.Literal.String", "#2b8a3e", False),
    ("Token.Literal.Number", "#1864ab", False),
    ("Token.Operator", "#495057", False),
]

ACCENT = "#1971c2"
SELECTION = "#fff3bf"
SELECTION_BORDER = "#f08c00"
OPERAND = "#d0ebff"
USER = "#d3f9d8"
FUSED_BLOCK = "#f3f0ff"
EDGE = "#868e96"
EDGE_HIGHLIGHT = "#e8590c"
# A heat scale, coolest first: estimated or measured time per op.
# The hottest stays light enough for a node's dark text to read on it.
HEAT_COLORS = ["#fff5eb", "#fee6ce", "#fdd0a2", "#fdae6b", "#fd8d3c", "#f16913"]
GRAPH_BACKGROUND = "#fcfcfd"
EMPHASIS_BORDER = "#ae3ec9"  # what a panel points at in the graph
STAGE_COLOR = "#b197fc"  # whole-module snapshots on the timeline
PIPELINE_COLORS = [
    "#4dabf7", "#69db7c", "#ffa94d", "#da77f2", "#ff8787", "#38d9a9", "#ffd43b", "#748ffc",
    "#f783ac", "#a9e34b", "#63e6be", "#e599f7",
]  # fmt: skip


def monospace_font(point_size: int = 10) -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(point_size)
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font


def apply_theme(app: QApplication) -> None:
    """A calm light theme on the Fusion style: same look on every platform."""
    app.setStyle("Fusion")
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Window, QColor("#f8f9fa"))
    palette.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.AlternateBase, QColor("#f1f3f5"))
    palette.setColor(QPalette.ColorRole.Highlight, QColor(ACCENT))
    palette.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.ToolTipBase, QColor("#fffdf2"))
    palette.setColor(QPalette.ColorRole.ToolTipText, QColor("#212529"))
    palette.setColor(QPalette.ColorRole.Text, QColor("#212529"))
    palette.setColor(QPalette.ColorRole.WindowText, QColor("#212529"))
    palette.setColor(QPalette.ColorRole.Button, QColor("#f1f3f5"))
    palette.setColor(QPalette.ColorRole.ButtonText, QColor("#212529"))
    app.setPalette(palette)
    app.setStyleSheet(
        """
        QDockWidget::title { padding: 4px 6px; background: #e9ecef; font-weight: 600; }
        QToolBar { border: none; spacing: 4px; }
        QTabBar::tab { padding: 4px 10px; }
        QLineEdit { padding: 2px 4px; }
        QTreeView, QTableView { selection-background-color: #d0ebff;
                                selection-color: #212529; }
        """
    )
