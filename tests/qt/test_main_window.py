"""The desktop app on real dumps: open, step passes, select, inspect, export."""

from __future__ import annotations

import gc
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QMimeData, QObject, QPoint, QPointF, QSize, Qt, QUrl
from PySide6.QtGui import QDropEvent, QImage, QMouseEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QGraphicsView, QPlainTextEdit, QTreeWidget, QWidget

from xlaview.resources import sample_dump

SAMPLE = sample_dump()
SCORE_FUSION = "convert_exponential_fusion"  # f32[8192,8192]: the materialized scores


def after_file(folder: Path) -> Path:
    (path,) = folder.glob("*cpu_after_optimizations.txt")
    return path


def click_text_line(qtbot, window, line: int) -> None:
    view = window.text
    view.show_span(line)
    cursor = QTextCursor(view.document().findBlockByNumber(line - 1))
    cursor.movePosition(QTextCursor.MoveOperation.EndOfWord)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.cursorRect(cursor).center()
    )


def test_contract_object_names(window) -> None:
    assert isinstance(window.findChild(QTreeWidget, "moduleList"), QTreeWidget)
    assert window.findChild(QWidget, "passTimeline") is not None
    assert isinstance(window.findChild(QPlainTextEdit, "hloText"), QPlainTextEdit)
    assert isinstance(window.findChild(QGraphicsView, "graphView"), QGraphicsView)
    assert window.findChild(QWidget, "inspector") is not None


def test_open_shows_after_optimizations(window, qtbot) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()
    modules = window.findChild(QTreeWidget, "moduleList")
    assert modules.topLevelItemCount() == 1
    assert modules.topLevelItem(0).text(1) == "jit_attention"
    assert window.text.toPlainText() == after_file(SAMPLE).read_text()
    assert (
        window.graph_pane.main.graph is not None
        and window.graph_pane.main.graph.computation == "main.3"
    )
    points = window.timeline.points
    assert points[0].key == "before" and points[-1].key == "after"
    assert len(points) == len(window.model.module.passes) + 2


def test_graph_opens_readable_on_its_top_row(window, qtbot) -> None:
    from xlaview.qt.graph.view import READABLE_SCALE

    window.open_dump(SAMPLE)
    window.wait_idle()
    view = window.graph_pane.main
    # The seed's graph is too tall to fit readably: it starts at the readable zoom, at the top.
    assert view.transform().m11() == pytest.approx(READABLE_SCALE)
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    assert visible.left() < view.canvas.top_node_x() < visible.right()
    assert visible.top() <= 0, "the top row (y = 0) is in view"


def test_keyboard_steps_through_passes(window, qtbot) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()
    module = window.model.module
    window.timeline.setFocus()
    qtbot.keyClick(window.timeline, Qt.Key.Key_Home)
    window.wait_idle()
    assert window.view_state()["pass"] == "before"
    assert window.text.toPlainText() == module.before_optimizations.path.read_text()
    for expected in module.passes[:3]:
        qtbot.keyClick(window.timeline, Qt.Key.Key_Right)
        window.wait_idle()
        assert window.view_state()["pass"] == expected.seq
        assert window.text.toPlainText() == expected.file.path.read_text(), expected.file.name
        assert window.graph_pane.main.graph is not None
        nodes = {n.instruction for n in window.graph_pane.main.graph.nodes}
        entry = window.model.loaded.module.entry
        assert nodes == {i.name for i in entry.instructions}, "the graph shows this pass's entry"
    qtbot.keyClick(window.timeline, Qt.Key.Key_End)
    window.wait_idle()
    assert window.view_state()["pass"] == "after"
    qtbot.keyClick(window.timeline, Qt.Key.Key_Left)
    window.wait_idle()
    assert window.view_state()["pass"] == module.passes[-1].seq


class _Resizes(QObject):
    """Records which widgets were resized."""

    def __init__(self) -> None:
        super().__init__()
        self.widgets: list[str] = []
        self.where: list[str] = []

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and isinstance(obj, QWidget):
            self.widgets.append(obj.objectName() or type(obj).__name__)
            chain, w = [], obj
            while w is not None:
                chain.append(w.objectName() or type(w).__name__)
                w = w.parentWidget()
            self.where.append(
                " < ".join(chain[:6]) + f" {event.oldSize().toTuple()}->{event.size().toTuple()}"
            )
        return False


def test_stepping_keeps_the_window_still(window, qtbot) -> None:
    """A pass step changes texts (status, caption, summaries), never the layout:
    a resized view relays out and repaints the whole window, on every step."""
    window.open_dump(SAMPLE)
    window.wait_idle()
    window.select_instruction(SCORE_FUSION)
    qtbot.keyClick(window.timeline, Qt.Key.Key_Home)
    window.wait_idle()
    resizes = _Resizes()
    QApplication.instance().installEventFilter(resizes)
    try:
        for _ in range(len(window.model.module.passes) + 1):
            qtbot.keyClick(window.timeline, Qt.Key.Key_Right)
            window.wait_idle()
    finally:
        QApplication.instance().removeEventFilter(resizes)
    assert window.view_state()["pass"] == "after"
    assert resizes.widgets == [], "\n".join(resizes.where)
    # The last pass is coloured, by the helper process, and the collector is back on.
    spans = window.text.spans
    assert spans is not None and len(spans) == window.text.blockCount()
    assert gc.isenabled()


def test_select_fusion_from_text_fills_the_inspector(window, qtbot) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()
    module = window.model.loaded.module
    instr = module.instruction(SCORE_FUSION)
    click_text_line(qtbot, window, instr.span.line)
    window.wait_idle()
    assert window.view_state()["selection"] == SCORE_FUSION
    text = window.inspector.toPlainText()
    # The allocation, as the buffer-assignment file says, independently read.
    ba = next(SAMPLE.glob("*cpu_after_optimizations-buffer-assignment.txt")).read_text()
    match = re.search(
        r"allocation (\d+): size (\d+), ([^\n]*):\n(?:(?: value:[^\n]*)\n)*? value: <\d+ "
        + re.escape(SCORE_FUSION)
        + r" @0> \(size=(\d+),offset=(\d+)\)",
        ba,
    )
    assert match, "the fusion is in the buffer-assignment file"
    index, alloc_size, _, size, offset = match.groups()
    assert f"#{index}" in text
    assert f"{int(size):,}" in text and f"{int(offset):,}" in text or offset == "0"
    assert "row-major" in text and "[1, 0]" in text
    assert "256.0 MiB" in text  # writes f32[8192,8192]
    assert "live range" in text
    # Its fused computation is shown beside the graph, and highlighted in the text.
    assert window.graph_pane.fused.graph.computation == instr.called_computations[0]
    assert window.graph_pane.fusion_box.isVisible()


def test_many_operands_are_listed_on_demand(window, gpt_dump) -> None:
    """A train step's wide ops have more operands than the inspector lists at
    once (150 KB of HTML for 900 on gpt48), and its root tuple more elements
    than a shape reads well with: the first ones, then a link for them all."""
    from xlaview.qt.panels.inspector import OPERANDS_SHOWN

    window.open_dump(gpt_dump)
    window.wait_idle()
    module = window.model.loaded.module
    widest = max(module.entry.instructions, key=lambda i: len(i.operand_names))
    operands = list(widest.operand_names)
    assert len(operands) > OPERANDS_SHOWN + 1, "the train step has a wide tuple"
    window.select_instruction(widest.name)
    window.wait_idle()
    text = window.inspector.toPlainText()
    assert f"Show all {len(operands):,} operands" in text
    listed = set(re.findall(r"^(\S+)$", text, re.M))
    assert operands[OPERANDS_SHOWN - 1] in listed and operands[-1] not in listed
    window.inspector.anchorClicked.emit(QUrl("more:operands"))
    text = window.inspector.toPlainText()
    assert "Show all" not in text
    assert set(operands) <= set(re.findall(r"^(\S+)$", text, re.M))
    tuple_ = max(module.entry.instructions, key=lambda i: len(i.shape.elements))
    window.select_instruction(tuple_.name)
    window.wait_idle()
    text = window.inspector.toPlainText()
    assert f"a tuple of {len(tuple_.shape.elements):,}: show all" in text
    assert str(tuple_.shape) not in text.replace("\n", "")
    window.inspector.anchorClicked.emit(QUrl("more:operands"))
    assert str(tuple_.shape) in window.inspector.toPlainText().replace("\n", "")


def test_select_from_graph_and_enter_fusion(window, qtbot) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()
    view = window.graph_pane.main
    rect = view.canvas.rect_of("dot_general.6")
    view.centerOn(rect.center())
    pos = view.mapFromScene(rect.center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    window.wait_idle()
    assert window.view_state()["selection"] == "dot_general.6"
    assert "dot_general.6" in window.inspector.toPlainText()
    cursor_line = window.text.textCursor().blockNumber() + 1
    assert cursor_line == window.model.loaded.module.instruction("dot_general.6").span.line
    # Double-click a fusion: its body opens, and the breadcrumb leads back.
    rect = view.canvas.rect_of(SCORE_FUSION)
    view.centerOn(rect.center())
    qtbot.mouseDClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(rect.center())
    )
    window.wait_idle()
    assert window.view_state()["computation"] == "fused_computation.2"
    assert view.graph.computation == "fused_computation.2"
    window.model.back_to_entry()
    window.wait_idle()
    assert view.graph.computation == "main.3"


def test_double_click_opens_a_node_away_from_the_centre(window, qtbot) -> None:
    """The first click selects the node and centres it; the second lands
    where the node was, and still opens it (it opened nothing: the first
    double-click on a node off the centre failed)."""
    window.open_dump(SAMPLE)
    window.wait_idle()
    view = window.graph_pane.main
    view.zoom(2.5)  # bigger than the view: centring a node scrolls
    centre = view.viewport().rect().center()
    inside = view.viewport().rect().adjusted(10, 10, -10, -10)
    far = []
    for name, point in window.graph_positions().items():
        node = next(n for n in view.graph.nodes if n.instruction == name)
        pos = view.mapFromScene(QPointF(*point))
        if node.called and inside.contains(pos):
            far.append(((pos - centre).manhattanLength(), name, pos, node.called[0]))
    distance, name, pos, body = max(far)
    assert distance > 100, far
    # As a hand double-clicks: a click (the view centres the node it selects
    # meanwhile), then the second press, a double-click event, and its release.
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    window.wait_idle()
    assert window.view_state()["selection"] == name
    assert (
        view.mapFromScene(QPointF(*window.graph_positions()[name])) - pos
    ).manhattanLength() > 50
    for kind in (QEvent.Type.MouseButtonDblClick, QEvent.Type.MouseButtonRelease):
        buttons = (
            Qt.MouseButton.LeftButton
            if kind == QEvent.Type.MouseButtonDblClick
            else Qt.MouseButton.NoButton
        )
        event = QMouseEvent(
            kind,
            QPointF(pos),
            view.viewport().mapToGlobal(QPointF(pos)),
            Qt.MouseButton.LeftButton,
            buttons,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(view.viewport(), event)
    window.wait_idle()
    assert window.view_state()["computation"] == body, name


def test_hovering_an_edge_names_it(window, qtbot) -> None:
    """The mouse over an edge (not a node) highlights it and says what flows
    there (it once raised: the edge was used as an index)."""
    window.open_dump(SAMPLE)
    window.wait_idle()
    view = window.graph_pane.main
    route = next(r for r in view.canvas.layout.edges if len(r.points) >= 2 and not r.stub)
    (x0, y0), (x1, y1) = route.points[0], route.points[1]
    middle = QPointF((x0 + x1) / 2, (y0 + y1) / 2)
    view.centerOn(middle)
    target = view.mapFromScene(middle)
    # No button held (QTest remembers a double-click's press from an earlier
    # test), and from somewhere else: a move to where the mouse is sends nothing.
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=target + QPoint(40, 40))
    qtbot.mouseMove(view.viewport(), target + QPoint(40, 40))
    qtbot.mouseMove(view.viewport(), target)
    qtbot.waitUntil(lambda: view.canvas.hover_edge is route, timeout=2000)


def test_ctrl_click_goes_to_definition(window, qtbot) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()
    module = window.model.loaded.module
    user = module.instruction("convert_convert_fusion")
    view = window.text
    view.show_span(user.span.line)
    block = view.document().findBlockByNumber(user.span.line - 1)
    column = block.text().index("%convert_divide_fusion") + 3
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + column)
    qtbot.mouseClick(
        view.viewport(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.ControlModifier,
        view.cursorRect(cursor).center(),
    )
    window.wait_idle()
    assert window.view_state()["selection"] == "convert_divide_fusion"


def test_find_bar(window, qtbot) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()
    window.text.setFocus()
    qtbot.keyClick(window.text, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = window.code_tabs.text_panel.find_bar
    assert bar.isVisible()
    qtbot.keyClicks(bar.edit, "reduce-window")
    assert "reduce-window" in window.text.textCursor().selectedText()
    assert "matches" in bar.count.text()
    matches = bar.count.text()
    bar.edit.setText("REDUCE-WINDOW")
    assert bar.count.text() == matches, "counted without regard to case, as found"


def test_export_png_and_svg(window, qtbot, tmp_path: Path) -> None:
    from xlaview.qt import export

    window.open_dump(SAMPLE)
    window.wait_idle()
    window.select_instruction(SCORE_FUSION)
    window.wait_idle()
    png = export.window_png(window, tmp_path / "w.png")
    image = QImage(str(png))
    assert image.width() >= 1280 and image.height() >= 720
    big = export.graph_png(window.graph_pane.main, tmp_path / "g.png", scale=2.0)
    assert QImage(str(big)).width() >= 2 * window.graph_pane.main.viewport().width() - 4
    svg = export.graph_svg(window.graph_pane.main, tmp_path / "g.svg").read_text()
    assert SCORE_FUSION in svg and "<svg" in svg


def test_drop_a_folder_opens_it(window, qtbot, zoo) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(zoo["scan"]))])
    event = QDropEvent(
        QPointF(100, 100),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    window.wait_idle()
    assert window.model.index.root == zoo["scan"].absolute()
    assert str(zoo["scan"].absolute()) == window.recent_folders()[0]


def test_window_state_is_restored(qtbot, tmp_path: Path) -> None:
    from PySide6.QtCore import QSettings

    from xlaview.qt.main_window import MainWindow

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    first = MainWindow(settings=settings)
    qtbot.addWidget(first)
    # Within the 800x800 offscreen screen (restoreGeometry clamps to it), above the minimum.
    size = first.minimumSizeHint().expandedTo(QSize(640, 600)) + QSize(7, 11)
    first.resize(size)
    first.show()
    first.close()
    second = MainWindow(settings=settings)
    qtbot.addWidget(second)
    assert second.size() == size


def test_broken_dump_shows_problems_and_stays_usable(window, qtbot, zoo, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "dump"
    shutil.copytree(zoo["cond"], folder)
    module_file = after_file(folder)
    text = module_file.read_text()
    module_file.write_text(text[: int(len(text) * 0.6)])
    (folder / "module_0042.jit_bad.before_optimizations.txt").write_bytes(b"\0\1\2binary")
    window.open_dump(folder)
    window.select_module("jit_branchy")
    window.wait_idle()
    # Files this fresh may be half-written: problems show once they have settled.
    qtbot.waitUntil(
        lambda: any(p.path.endswith(module_file.name) and p.line for p in window.problems.problems),
        timeout=8000,
    )
    assert window.problems_dock.isVisible()
    assert window.model.loaded is not None and window.model.loaded.module.computations
    window.select_pass("before")
    window.wait_idle()
    assert window.text.toPlainText().startswith("HloModule")
    window.select_module("jit_bad")
    window.wait_idle()
    qtbot.waitUntil(
        lambda: any("binary" in p.message for p in window.problems.problems), timeout=8000
    )


@pytest.mark.slow
def test_headless_export_of_the_seed(tmp_path: Path) -> None:
    """The unfused attention with its f32[8192,8192] fusion selected."""
    png, svg = tmp_path / "seed.png", tmp_path / "seed.svg"
    for out in (png, svg):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "xlaview",
                "export",
                str(SAMPLE),
                "--module",
                "jit_attention",
                "--pass",
                "after",
                "--select",
                SCORE_FUSION,
                "--out",
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1600, 1000)
    assert SCORE_FUSION in svg.read_text()


def test_paint_many_times_does_not_crash(window, qtbot) -> None:
    """PySide6 6.12.0 on Python 3.11 dies after a few thousand Python paint() calls."""
    window.open_dump(SAMPLE)
    window.wait_idle()
    image = QImage(64, 64, QImage.Format.Format_ARGB32)
    from PySide6.QtGui import QPainter

    for _ in range(4000):
        painter = QPainter(image)
        window.graph_pane.main.scene().render(painter)
        painter.end()
    window.timeline.strip.repaint()
    assert window.graph_pane.main.canvas is not None


def test_the_pass_caption_names_the_pass_that_ran_first(window) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()
    window.select_pass("fusion")  # a pass by its name, as the command line takes it
    window.wait_idle()
    caption = window.timeline.caption
    assert " after fusion  (" in caption.text(), caption.text()
    assert "before" in caption.toolTip() and ".txt" in caption.toolTip(), "the whole title"


def test_the_pass_filter_box_steps_and_enter_goes_to_the_next_match(window, qtbot) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()
    window.select_pass("before")
    window.wait_idle()
    box = window.timeline.filter_edit
    box.setFocus()
    qtbot.keyClicks(box, "fusion")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    window.wait_idle()
    assert " after fusion  (" in window.timeline.caption.text(), "Enter: the next match"
    first = window.view_state()["pass"]
    qtbot.keyClick(box, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    window.wait_idle()
    assert window.view_state()["pass"] != first, "Ctrl+Right steps to the next pass shown"
    assert box.text() == "fusion" and box.cursorPosition() == len("fusion"), "the text stays"
    qtbot.keyClick(box, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    window.wait_idle()
    assert window.view_state()["pass"] == first, "Ctrl+Left steps back"


def test_the_timeline_repaints_its_marks_as_they_change(window, qtbot, gpt_dump) -> None:
    """The pass marks are drawn again when what they show changes (hiding the
    passes that changed nothing), not only when the module does."""
    from PySide6.QtWidgets import QCheckBox

    window.open_dump(gpt_dump)
    window.wait_idle()
    timeline = window.findChild(QWidget, "passTimeline")
    hide = timeline.findChild(QCheckBox, "hideUnchanged")

    def strip() -> QImage:
        return timeline.grab().toImage()

    before = strip()
    assert strip() == before, "nothing changed, the same picture"
    hide.setChecked(True)
    window.wait_idle()
    hidden = strip()
    assert hidden != before, "the unchanged passes' marks go faint"
    hide.setChecked(False)
    window.wait_idle()
    assert strip() == before
