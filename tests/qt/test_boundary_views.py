"""Why each boundary is there, in the Traffic tab (issue 17), on the bundled
seed dump (naive attention on CPU at seq 8192): the Reason column and its
filter, the detail pane and its links, the graph marks, pass steps."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser

from xlaview.resources import sample_dump

SAMPLE = sample_dump()
PRODUCER, REASON = 3, 5  # the table's columns


def open_sample(window) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()


def table_reasons(panel) -> dict[str, str]:
    model = panel.rows_model
    return {
        model.index(r, PRODUCER).data(): model.index(r, REASON).data()
        for r in range(model.rowCount())
    }


def click_row(window, qtbot, value: str) -> None:
    panel = window.traffic_panel
    model, table = panel.rows_model, panel.table
    row = next(r for r in range(model.rowCount()) if model.index(r, PRODUCER).data() == value)
    table.scrollTo(table.model().index(row, PRODUCER))
    qtbot.mouseClick(
        table.viewport(),
        Qt.MouseButton.LeftButton,
        pos=table.visualRect(table.model().index(row, PRODUCER)).center(),
    )
    window.wait_idle()


def click_link(window, qtbot, browser: QTextBrowser, text: str) -> None:
    """Click the link reading ``text`` (the same name also appears as plain text)."""
    document = browser.document()
    cursor = document.find(text)
    while not cursor.isNull():
        middle = QTextCursor(document)
        middle.setPosition((cursor.selectionStart() + cursor.selectionEnd()) // 2)
        if middle.charFormat().isAnchor():
            browser.setTextCursor(middle)
            browser.ensureCursorVisible()
            qtbot.mouseClick(
                browser.viewport(),
                Qt.MouseButton.LeftButton,
                pos=browser.cursorRect(middle).center(),
            )
            window.wait_idle()
            return
        cursor = document.find(text, cursor)
    raise AssertionError(f"no link {text!r} in: {browser.toPlainText()}")


def fused_opcodes(window) -> set[str]:
    """Opcodes of the ops marked in the fused pane."""
    canvas = window.graph_pane.fused.canvas
    assert canvas is not None, "the fused pane shows a body"
    module = window.model.loaded.module
    body = module.computation(window.view_state()["fusion_computation"])
    return {body.instruction(n).opcode for n in canvas.emphasis if n in body}


def test_seed_reasons_in_the_table(window) -> None:
    open_sample(window)
    reasons = table_reasons(window.traffic_panel)
    assert reasons["wrapped_convert.3"] == "multi-pass", reasons
    assert reasons["dot_general.6"] == "library-call", reasons
    assert all(reasons.values()), f"every materialized value has a reason: {reasons}"


def test_clicking_a_boundary_explains_and_marks_it(window, qtbot) -> None:
    open_sample(window)
    panel = window.traffic_panel
    click_row(window, qtbot, "wrapped_convert.3")
    state = window.view_state()
    assert state["selection"] == "wrapped_convert.3", state
    text = panel.detail.toPlainText()
    for expected in (
        "multi-pass",
        "bf16[8192,8192]",
        "online softmax",
        "shared-read",
        "wrapped_reduce-window",
        "convert_exponential_fusion",
        "would save",
    ):
        assert expected in text, f"{expected!r} missing from the detail:\n{text}"
    marked = window.graph_pane.main.canvas.emphasis
    assert {"wrapped_reduce-window", "convert_exponential_fusion"} <= marked, (
        f"the readers are marked in the main graph: {sorted(marked)}"
    )
    # The fused pane shows the reader whose body holds the evidence: its subtract.
    assert state["fusion_computation"] == "fused_computation.2", state
    assert "subtract" in fused_opcodes(window), sorted(window.graph_pane.fused.canvas.emphasis)

    # An op inside another fused computation: its body in the fused pane, the selection kept.
    click_link(window, qtbot, panel.detail, "reduce-window.4")
    state = window.view_state()
    assert state["fusion_computation"] == "wrapped_reduce-window_computation", state
    assert state["selection"] == "wrapped_convert.3", "the boundary stays selected"
    assert "reduce-window" in fused_opcodes(window)
    # A top-level op: selected.
    click_link(window, qtbot, panel.detail, "convert_exponential_fusion")
    assert window.view_state()["selection"] == "convert_exponential_fusion"
    assert (
        panel.detail.boundary is not None and panel.detail.boundary.value == "wrapped_convert.3"
    ), "the detail still explains the boundary picked"


def test_library_call_detail(window, qtbot) -> None:
    open_sample(window)
    click_row(window, qtbot, "dot_general.6")
    text = window.traffic_panel.detail.toPlainText()
    assert "library-call" in text and "unfused dot" in text, text
    assert window.view_state()["selection"] == "dot_general.6"
    assert "wrapped_convert.3" in window.graph_pane.main.canvas.emphasis


def test_filter_by_reason_narrows_the_table(window) -> None:
    open_sample(window)
    panel = window.traffic_panel
    everything = table_reasons(panel)
    combo = panel.reasons
    assert combo.isEnabled(), "the filter works once the reasons are known"
    labels = [combo.itemText(i) for i in range(combo.count())]
    multi = next(t for t in labels if t.startswith("multi-pass"))
    assert "saves" in multi and "GiB" in multi, f"per-reason bytes and savings: {labels}"
    for reason in ("multi-pass", "library-call"):
        combo.setCurrentIndex(combo.findData(reason))
        shown = table_reasons(panel)
        expected = {v for v, r in everything.items() if r == reason}
        assert set(shown) == expected and set(shown.values()) == {reason}, (reason, shown)
        assert panel.reason_filter() == reason
    combo.setCurrentIndex(combo.findData(None))
    assert table_reasons(panel) == everything
    # The Reason column sorts: each reason's rows together.
    panel.table.sortByColumn(REASON, Qt.SortOrder.AscendingOrder)
    column = [panel.rows_model.index(r, REASON).data() for r in range(panel.rows_model.rowCount())]
    assert column == sorted(column, key=["multi-pass", "library-call"].index), column


def test_a_pass_step_keeps_the_panel_with_the_shown_pass(window, qtbot) -> None:
    open_sample(window)
    panel = window.traffic_panel
    click_row(window, qtbot, "wrapped_convert.3")
    earlier = next(str(p.seq) for p in window.model.module.passes if p.after == "fusion")
    window.select_pass(earlier)
    # Until the new pass's traffic is known, nothing of the pass before stays.
    assert panel.rows_model.rowCount() == 0, "no rows of the pass before"
    assert f"Pass {earlier}" in panel.detail.toPlainText(), panel.detail.toPlainText()
    assert not window.graph_pane.main.canvas or not window.graph_pane.main.canvas.emphasis
    window.wait_idle()
    module = window.model.loaded.module
    reasons = table_reasons(panel)
    assert reasons and all(reasons.values()), reasons
    names = {i.name for i in module.instructions()}
    assert {v.split("#")[0] for v in reasons} <= names, "the rows are of the pass shown"
    marked = window.graph_pane.main.canvas.emphasis
    assert marked <= names, f"marks of the pass before: {sorted(marked - names)}"

    # The tab hidden: the reasons of a pass not seen yet wait until it shows again.
    window.bottom_tabs.setCurrentWidget(window.memory)
    keys = [p.key for p in window.model.points]
    window.select_pass(keys[keys.index(earlier) + 1])
    window.wait_idle()
    assert panel.rows_model.rowCount() and not any(table_reasons(panel).values()), (
        "no work for a hidden tab"
    )
    window.bottom_tabs.setCurrentWidget(panel)
    window.wait_idle()
    assert all(table_reasons(panel).values())
    window.select_pass("after")  # seen before: its reasons at once
    window.wait_idle()
    assert table_reasons(panel)["wrapped_convert.3"] == "multi-pass"
    assert (
        panel.detail.boundary is not None and panel.detail.boundary.value == "wrapped_convert.3"
    ), "the boundary picked before is explained again in the pass that has it"


def test_reason_in_the_totals_filters_the_table(window, qtbot) -> None:
    open_sample(window)
    panel = window.traffic_panel
    assert "saved if removed" in panel.detail.toPlainText(), "totals until a row is picked"
    click_link(window, qtbot, panel.detail, "library-call")
    assert panel.reason_filter() == "library-call"
    assert set(table_reasons(panel).values()) == {"library-call"}


def test_names_with_markup_stay_text(qtbot) -> None:
    """Dump names reach the detail escaped (hand-made: the markup is the edge case)."""
    from xlaview.analysis.boundaries.explain import Boundary, Evidence, OpRef
    from xlaview.qt.panels.boundary_detail import BoundaryDetailView

    markup = "<img src=&#47;dev&#47;zero>"
    name = f"fusion{markup}"
    boundary = Boundary(
        producer=name,
        value=name,
        computation=f"main{markup}",
        shape="f32[8]{0}",
        value_bytes=32,
        bytes=64,
        saved_bytes=64,
        consumers=(f"reader{markup}",),
        reason="other",
        evidence=(
            Evidence(
                "other",
                f"producer {name} is a kLoop fusion",
                (OpRef(f"fused{markup}", f"add{markup}"),),
            ),
        ),
        suggestion=None,
    )
    view = BoundaryDetailView()
    qtbot.addWidget(view)
    view.show_boundary(boundary, {f"fused{markup}": name})
    assert "<img" not in view.toHtml()
    assert name in view.toPlainText() and f"add{markup}" in view.toPlainText()
    # Producer, the op inside a fused computation (shown through its fusion), the reader.
    assert [link.caller for link in view.links()] == [None, name, None], view.links()


def test_a_big_module_is_explained_in_the_helper(window, qtbot, monkeypatch) -> None:
    """Above the threshold the helper process reads the file again, once the
    user stays on the pass: same reasons, same detail."""
    from xlaview.qt.model.analyses import boundaries as boundaries_job

    monkeypatch.setattr(boundaries_job, "IN_HELPER_ABOVE", 0)
    open_sample(window)
    assert "once you stay on this pass" in window.traffic_panel.detail.toPlainText()
    qtbot.waitUntil(
        lambda: bool(table_reasons(window.traffic_panel).get("dot_general.6")), timeout=30000
    )
    window.wait_idle()
    reasons = table_reasons(window.traffic_panel)
    assert (
        reasons["wrapped_convert.3"] == "multi-pass" and reasons["dot_general.6"] == "library-call"
    )
    click_row(window, qtbot, "wrapped_convert.3")
    assert window.view_state()["fusion_computation"] == "fused_computation.2"
    assert "online softmax" in window.traffic_panel.detail.toPlainText()


def test_a_pass_step_fills_the_table_once_per_result(window, qtbot) -> None:
    """The table shows the analysis's own values: its rows are reset when
    traffic or reasons come, not when only a message changes (a reset was
    3,600 rows made on the GUI thread, 50-110 ms on a 48-layer GPT's passes)."""
    open_sample(window)
    window.bottom_tabs.setCurrentWidget(window.traffic_panel)
    window.wait_idle()
    panel = window.traffic_panel
    assert panel.rows_model.rowCount() > 0
    assert panel.rows_model.intermediates is panel.traffic.intermediates, "no copy made"
    resets = []
    panel.rows_model.modelReset.connect(lambda: resets.append(1))
    model = window.model
    shown = model.boundaries.shown
    panel.set_boundaries(replace(shown, message="another word on the same pass"))
    assert resets == [], "a message alone: the rows stand"
    keys = [p.key for p in model.points]
    window.select_pass(keys[-2])
    window.wait_idle()
    assert 1 <= len(resets) <= 3, f"{len(resets)} resets for one step (empty, traffic, reasons)"
    assert set(table_reasons(panel).values()) - {""}, "the reasons came"
