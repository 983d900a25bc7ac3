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

# The palette (Open Color), by what each colour is for. No view names a
# colour of its own.
TEXT = "#212529"
TEXT_SECONDARY = "#495057"  # headings, axis labels, secondary lines
MUTED = "#868e96"  # notes, hints, keys of key-value rows
FAINT = "#adb5bd"  # stubs, line numbers, a pipeline with no colour
BORDER = "#ced4da"
RULE = "#dee2e6"  # separators, idle marks
GRID = "#e9ecef"
PANEL = "#f1f3f5"  # light fills: gutters, placeholder boxes
STRONG = "#343a40"  # the lines a plot is about (a roofline)
PAPER = "#ffffff"
HIGHLIGHT_ROW = "#fff4e6"  # a table row or cell to look at
ADDED, REMOVED, CHANGED = "#2b8a3e", "#c92a2a", "#e67700"  # what a pass did
ADDED_LINE, CHANGED_LINE = "#ebfbee", "#fff9db"  # the same, as text backgrounds
# How an op stands in another dump compared with this one: node fills, and
# the text's line backgrounds.
COMPARE_FILLS = {"only": "#ffc9c9", "regrouped": "#d0bfff", "changed": "#ffe8a1"}
COMPARE_LINES = {"only": "#fff0f0", "regrouped": "#f3f0ff", "changed": "#fff9db"}
PEAK = "#e03131"  # a peak line, a removed node's outline
FOUND = "#ffe066"  # find hits
NOTE = "#9c36b5"  # the graph's note in the status bar
WARNING = "#d9480f"  # a caveat on a figure
PILL_BACKGROUND, PILL_TEXT = "#e7f5ff", "#1864ab"
OPERAND_BORDER, USER_BORDER = "#1c7ed6", "#2f9e44"  # around the selection's neighbours
BUFFER_AT_PEAK = "#ffa94d"  # a buffer live at the step of the peak of live values
SHARE_BAR = "#ffd8a8"  # an op's share of the measured time, behind its cell
GHOST_FILL = "#fff5f5"  # a node the pass removed
# The parts of a module's memory (`xlaview.analysis.memory.MEMORY_PARTS`): their
# bytes in use over time, and the buffers of each.
MEMORY_PART_COLORS = {
    "parameter": "#8ce99a",
    "output": "#e599f7",
    "temp": "#74c0fc",
    "constant": "#ced4da",
}
# The roofline: what bounds an op, and a measured op where it landed.
BOUND_COLORS = {
    "memory": "#1c7ed6",
    "compute": "#e8590c",
    "interconnect": "#2f9e44",
    "unknown": MUTED,
}
ACHIEVED = "#2b8a3e"
# Each boundary reason: (background, text) of its badge.
REASON_COLORS: dict[str, tuple[str, str]] = {
    "multi-pass": ("#f3d9fa", "#862e9c"),
    "library-call": ("#d0ebff", "#1864ab"),
    "layout-change": ("#fff3bf", "#8f5e00"),
    "shared-read": ("#d3f9d8", "#2b8a3e"),
    "collective": ("#e5dbff", "#5f3dc4"),
    "control-flow": ("#e9ecef", TEXT_SECONDARY),
    "output": ("#e9ecef", TEXT_SECONDARY),
    "other": (PANEL, TEXT_SECONDARY),
}

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


def translucent(colour: str, alpha: int) -> QColor:
    """``colour`` with ``alpha`` (0-255) over what lies below."""
    result = QColor(colour)
    result.setAlpha(alpha)
    return result


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
