"""The analysis tables draw from Qt's own item model (`ShownRows`): the rows
on screen copied from their `RowsModel`, those scrolled to copied when they
come, sorted by the source, and a repaint that never calls into Python."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from xlaview.qt.panels.tables import CELL_ROLES, RowsModel, ShownRows, table_view

ROWS = 5_000


@pytest.fixture
def table(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    model = RowsModel(["name", "bytes", "kind"], parent, numeric=(1,), whole=(0,))
    rows = [
        ([f"fusion.{k}", f"{k * 3} B", "loop"], [f"fusion.{k:05d}", k * 3, "loop"], k)
        for k in range(ROWS)
    ]
    model.set_rows(rows)
    picked: list[object] = []
    view = table_view(model, parent, "testTable", picked.append)
    parent.resize(600, 400)
    view.resize(600, 400)
    parent.show()
    qtbot.waitExposed(parent)
    yield model, view, picked
    parent.close()  # (qtbot holds it weakly: kept alive here until the test ends)


def copied(view) -> list[int]:
    shown = view.model()
    return [r for r in range(shown.rowCount()) if shown.item(r, 0) is not None]


def test_the_rows_on_screen_are_copied_with_every_role(table) -> None:
    model, view, _ = table
    shown = view.model()
    assert isinstance(shown, ShownRows) and shown.source is model
    assert shown.rowCount() == ROWS and shown.columnCount() == 3
    rows = copied(view)
    assert rows[0] == 0 and len(rows) < 200, "those on screen and a margin, not 5,000"
    for r in (0, 2, rows[-1]):
        for c in range(3):
            for role in CELL_ROLES:
                assert shown.index(r, c).data(role) == model.index(r, c).data(role), (r, c, role)
    assert shown.index(2, 0).data(Qt.ItemDataRole.ToolTipRole), "a long name's whole text"
    assert shown.headerData(0, Qt.Orientation.Horizontal) == "name"


def test_rows_scrolled_to_are_copied_as_they_come(table) -> None:
    model, view, _ = table
    view.scrollTo(view.model().index(4_000, 0))
    rows = copied(view)
    assert 4_000 in rows and 2_000 not in rows
    assert view.model().index(4_000, 0).data() == model.index(4_000, 0).data()


def test_the_header_sorts_the_source_and_the_view_shows_its_order(table) -> None:
    model, view, picked = table
    view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    assert model.index(0, 1).data() == f"{(ROWS - 1) * 3} B"
    assert view.model().index(0, 1).data() == f"{(ROWS - 1) * 3} B", "copied again in order"
    view.clicked.emit(view.model().index(1, 0))
    assert picked == [ROWS - 2], "a click hands on the row's payload"


def test_a_repaint_never_calls_into_python(table) -> None:
    # Each call from a paint into Python waits for a worker's turn: the
    # Traffic table's 300 a screenful stalled the window 70-270 ms.
    _, view, _ = table
    calls: list[str] = []
    sys.setprofile(
        lambda frame, event, _arg: calls.append(frame.f_code.co_name) if event == "call" else None
    )
    try:
        view.viewport().repaint()
    finally:
        sys.setprofile(None)
    assert calls == [], calls[:10]


def test_a_view_that_grows_has_its_new_rows_copied_before_they_show(table) -> None:
    _, view, _ = table
    shown = view.model()
    before = copied(view)
    view.resize(600, 1600)
    bottom = view.rowAt(view.viewport().height() - 1)
    assert bottom > before[-1], "more rows on screen than were copied"
    assert all(shown.item(r, 0) is not None for r in range(bottom + 1))


def test_a_value_read_by_hundreds_names_a_few_and_lists_them_in_its_tooltip(qtbot) -> None:
    """The GPT step's top values are each read by 250 ops: printed whole in
    their cell (4,700 characters), Qt elided that text at every paint."""
    from xlaview.analysis.traffic import Intermediate
    from xlaview.qt.panels.traffic_rows import READ_BY_COLUMN, READERS_SHOWN, TrafficRowsModel

    readers = tuple(f"multiply_fusion.{k}" for k in range(250))
    many = Intermediate("fusion.1", "kLoop", "main", "f32[256]{0}", 1024, readers)
    few = Intermediate("fusion.2", "kLoop", "main", "f32[256]{0}", 1024, readers[:READERS_SHOWN])
    model = TrafficRowsModel()
    model.set_intermediates([many, few], {}, None)
    shown = model.cell(0, READ_BY_COLUMN, Qt.ItemDataRole.DisplayRole)
    assert shown == ", ".join(readers[:READERS_SHOWN]) + ", ... and 242 more"
    tip = model.cell(0, READ_BY_COLUMN, Qt.ItemDataRole.ToolTipRole)
    assert "multiply_fusion.0<br>multiply_fusion.1<br>" in tip and "(250 in all)" in tip
    assert model.cell(1, READ_BY_COLUMN, Qt.ItemDataRole.DisplayRole) == ", ".join(
        readers[:READERS_SHOWN]
    )
    assert model.cell(1, READ_BY_COLUMN, Qt.ItemDataRole.ToolTipRole) is None
