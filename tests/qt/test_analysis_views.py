"""The analysis views on the bundled dumps: changes, traffic, memory, search, compare."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QStyleOptionViewItem

from xlaview.dump.index import index_dump
from xlaview.dump.reports import load_reports
from xlaview.resources import sample_dump, sample_dump_default_flags

SAMPLE = sample_dump()


def open_sample(window) -> None:
    window.open_dump(SAMPLE)
    window.wait_idle()


def fusion_pass(window) -> str:
    return next(str(p.seq) for p in window.model.module.passes if p.after == "fusion")


def test_changes_of_the_fusion_pass(window, qtbot) -> None:
    open_sample(window)
    window.select_pass(fusion_pass(window))
    window.wait_idle()
    tree = window.changes.tree
    added = tree.topLevelItem(0)
    names = {added.child(i).text(0) for i in range(added.childCount())}
    assert "convert_exponential_fusion" in names
    item = next(
        added.child(i)
        for i in range(added.childCount())
        if added.child(i).text(0) == "convert_exponential_fusion"
    )
    assert item.childCount() == 0, "the ops a fusion took in are listed when it is opened"
    item.setExpanded(True)
    absorbed = {item.child(i).text(0) for i in range(item.childCount())}
    assert {"exp.1", "sub.7"} <= absorbed, absorbed
    # Clicking an added fusion selects it.
    window.side_tabs.setCurrentWidget(window.changes)
    tree.scrollToItem(item)
    qtbot.mouseClick(
        tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(item).center()
    )
    window.wait_idle()
    assert window.view_state()["selection"] == "convert_exponential_fusion"
    assert window.graph_pane.main.canvas.diff.get("convert_exponential_fusion") == "added"
    # Its history says which pass made it.
    history = window.changes.history
    events = [
        (history.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole), history.topLevelItem(i).text(1))
        for i in range(history.topLevelItemCount())
    ]
    assert (fusion_pass(window), "appeared") in events


def test_unchanged_pass_has_an_empty_diff_and_can_be_hidden(window, qtbot) -> None:
    open_sample(window)
    qtbot.waitUntil(lambda: bool(window.timeline.change_sizes), timeout=5000)
    module = window.model.module
    unchanged = next(p for p in module.passes if module.unchanged(p.seq))
    window.select_pass(unchanged.seq)
    window.wait_idle()
    assert "no change" in window.changes.title.text()
    window.timeline.hide_box.setChecked(True)
    index = [p.key for p in window.timeline.points].index(str(unchanged.seq))
    assert not window.timeline.is_visible(index)
    assert window.timeline.change_sizes.get(str(unchanged.seq)) == 0


def test_a_big_change_lists_its_first_ops_and_counts_the_rest(window, monkeypatch) -> None:
    """A pass that changes thousands of ops lists the first `LISTED` of each
    kind and says how many more: the counts stay whole, the text and the graph
    mark every one."""
    from xlaview.qt.panels import changes

    monkeypatch.setattr(changes, "LISTED", 2)
    open_sample(window)
    window.select_pass(fusion_pass(window))
    window.wait_idle()
    diff = window.model.changes.diff.diff
    tree = window.changes.tree
    for row, ops in enumerate((diff.added, diff.removed)):
        group = tree.topLevelItem(row)
        assert group.text(1) == str(len(ops)), "the whole count"
        if len(ops) > 2:
            assert group.childCount() == 3
            more = group.child(2).text(1)
            assert more.startswith(f"{len(ops) - 2:,} more"), more
    assert len(diff.removed) > 2, "the fusion pass removes more ops than listed"


def test_traffic_table_ranks_scores_and_selects_on_click(window, qtbot) -> None:
    open_sample(window)
    table, model = window.traffic_panel.table, window.traffic_panel.rows_model
    assert "[8192,8192]" in model.index(0, 2).data()
    align = Qt.ItemDataRole.TextAlignmentRole
    assert model.index(0, 0).data(align) & Qt.AlignmentFlag.AlignRight, "figures align right"
    assert model.index(0, 5).data(align) is None, "the list of readers reads from the left"
    # What the table paints: the cells copied into the view's own model.
    shown = table.model()
    option = QStyleOptionViewItem()
    table.itemDelegate().initStyleOption(option, shown.index(0, 0))
    assert option.text == model.index(0, 0).data()
    assert option.displayAlignment & Qt.AlignmentFlag.AlignRight
    producer = model.index(0, 3).data()
    qtbot.mouseClick(
        table.viewport(),
        Qt.MouseButton.LeftButton,
        pos=table.visualRect(shown.index(0, 3)).center(),
    )
    window.wait_idle()
    assert window.view_state()["selection"] == producer
    window.traffic_panel.overlay.setChecked(True)
    assert window.graph_pane.main.canvas.traffic, "edges widened by bytes"


def test_memory_view_peak_is_the_reports(window, qtbot) -> None:
    open_sample(window)
    qtbot.waitUntil(lambda: window.memory.chart.timeline is not None)
    timeline = window.memory.chart.timeline
    reports = load_reports(index_dump(SAMPLE).module("jit_attention"))
    assert timeline.peak_bytes == reports.live_range.peak_bytes
    assert window.memory.peak_model.rowCount() == len(reports.live_range.peak_buffers)
    window.bottom_tabs.setCurrentWidget(window.memory)
    window.memory.chart.repaint()
    rect, bar = max(window.memory.chart.bar_rects(), key=lambda rb: rb[1].size)
    qtbot.mouseClick(window.memory.chart, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    window.wait_idle()
    assert window.view_state()["selection"] == bar.instruction


def test_memory_panel_shows_the_memory_and_the_peak_of_live_values(window, qtbot) -> None:
    """The figures `summary --json`, `inspect` and `compare` give, with the same
    words: the total from the memory-usage report, the peak of live values."""
    open_sample(window)
    qtbot.waitUntil(lambda: window.view_state()["memory"] is not None)
    memory = window.view_state()["memory"]
    assert memory["total_bytes"] == 406880316  # the report's "Total bytes"
    assert memory["peak_live_bytes"] == 273694720
    parts = ("parameter_bytes", "output_bytes", "temp_bytes", "constant_bytes")
    assert sum(memory[k] for k in parts) == memory["total_bytes"]
    qtbot.waitUntil(lambda: window.memory.chart.timeline is not None)
    summary = window.memory.summary_text()
    assert summary.startswith(
        "Memory 388.0 MiB (parameters 1.0 MiB, outputs 1.0 MiB, temporaries 386.0 MiB, "
        "constants 6 B); peak of live values 261.0 MiB"
    ), summary
    assert "the step XLA's live-range report calls the peak" in summary, summary
    window.problems_dock.show()
    window.bottom_tabs.setCurrentWidget(window.memory)
    window.memory.chart.repaint()
    labels = window.memory.chart.labels()
    assert "memory 388.0 MiB" in labels, labels
    assert "peak of live values 261.0 MiB, step 22" in labels, labels
    assert {"parameters", "outputs", "temporaries", "constants"} <= set(labels), labels
    # What the curve draws never tops the memory (it once counted slices twice: 515 MiB).
    assert max(window.memory.chart.timeline.occupied) <= memory["total_bytes"]


def test_search_finds_by_op_name_and_selects(window, qtbot) -> None:
    open_sample(window)
    window.search("meta:exp op:fusion")
    window.wait_idle()
    model = window.search_panel.rows_model
    assert model.rowCount() == 1 and model.index(0, 0).data() == "convert_exponential_fusion"
    table = window.search_panel.table
    qtbot.mouseClick(
        table.viewport(),
        Qt.MouseButton.LeftButton,
        pos=table.visualRect(table.model().index(0, 0)).center(),
    )
    window.wait_idle()
    assert window.view_state()["selection"] == "convert_exponential_fusion"


def test_search_follows_typing_and_counts_the_query_shown(window, qtbot) -> None:
    open_sample(window)
    window.search("meta:exp op:fusion")
    window.wait_idle()
    panel = window.search_panel
    assert panel.count.text() == "1 found for 'meta:exp op:fusion'"
    panel.edit.clear()
    qtbot.keyClicks(panel.edit, "broadcast")  # no Enter: the pause in typing searches
    assert "searching 'broadcast'" in panel.count.text(), "never the last query's count"
    qtbot.waitUntil(lambda: "found for 'broadcast'" in panel.count.text(), timeout=5000)
    window.wait_idle()
    found = panel.rows_model.rowCount()
    assert found > 1 and panel.count.text().startswith(f"{found} found"), panel.count.text()
    # A click on a header sorts, and the next results come in the order its arrow shows.
    header = panel.table.horizontalHeader()
    assert not header.isSortIndicatorShown(), "the search's own order: no arrow"
    at = QPoint(header.sectionViewportPosition(0) + 5, header.height() // 2)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=at)
    order = header.sortIndicatorOrder()
    panel.edit.setText("convert")
    qtbot.waitUntil(lambda: "found for 'convert'" in panel.count.text(), timeout=5000)
    names = [panel.rows_model.index(r, 0).data() for r in range(panel.rows_model.rowCount())]
    descending = order == Qt.SortOrder.DescendingOrder
    assert header.isSortIndicatorShown() and names == sorted(names, reverse=descending), names


def test_compare_two_dumps(window, qtbot) -> None:
    open_sample(window)
    said = window.compare.title.text()
    assert "Nothing compared yet" in said and "Compare With Folder" in said, "what fills it"
    window.compare_with(sample_dump_default_flags())
    window.wait_idle()
    table = window.compare.table
    rows = {
        table.item(r, 0).text(): (table.item(r, 1).text(), table.item(r, 2).text())
        for r in range(table.rowCount())
    }
    assert rows["memory"] == ("388.0 MiB", "2.0 MiB")
    assert rows["peak of live values"] == ("261.0 MiB", "2.0 MiB")
    assert rows["kCustom fusions"] == ("0", "1")
    assert rows["kLoop fusions"] == ("15", "0")
    assert "[8192,8192]" in rows["largest intermediates"][0]
    assert "[8192,8192]" not in rows["largest intermediates"][1]
