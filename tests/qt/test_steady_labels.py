"""Labels whose text changes at every pass step (the status bar, the Traffic
tab's summary) lay nothing out again: a QLabel's new text asks every layout
up to the window's to be made again, 9 ms of each step for the Traffic tab's
two-line summary."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication

from xlaview.qt.safe_text import label


class Events(QObject):
    """Counts the events of one type that the objects it filters receive."""

    def __init__(self, kind: QEvent.Type) -> None:
        super().__init__()
        self.kind = kind
        self.count = 0

    def eventFilter(self, watched, event) -> bool:
        if event.type() == self.kind:
            self.count += 1
        return False


def requests_for(window, set_texts) -> int:
    """The layout requests that ``set_texts`` (then painting) causes."""
    window.wait_idle()
    for _ in range(10):  # (a layout request goes up the widgets an event at a time)
        QCoreApplication.processEvents()
    counter = Events(QEvent.Type.LayoutRequest)
    QApplication.instance().installEventFilter(counter)
    try:
        for k in range(5):
            set_texts(k)
            QCoreApplication.processEvents()
    finally:
        QApplication.instance().removeEventFilter(counter)
    return counter.count


def test_step_messages_lay_nothing_out_again(window) -> None:
    panel = window.traffic_panel
    summary = panel.summary
    # A plain QLabel made as the summary was: each new text is laid out again.
    before = label(panel, rich=True)
    before.setWordWrap(True)
    before.setFixedHeight(summary.height())
    panel.layout().addWidget(before)
    assert requests_for(window, lambda k: before.setText(f"Pass <b>{k}</b>: finding …")) > 0

    def messages(k: int) -> None:
        summary.setText(f"Pass <b>{k}</b>: finding its traffic …")
        window.status.setText(f"reading pass {k} …")

    assert requests_for(window, messages) == 0
    assert summary.text() == "Pass <b>4</b>: finding its traffic …"
    assert window.status.text() == "reading pass 4 …"
    assert window.status.toolTip(), "a plain one-line label's whole text is in its tooltip"
    assert summary.textFormat() == Qt.TextFormat.RichText


def test_work_of_unknown_length_is_said_in_seconds_not_animated(window, qtbot) -> None:
    """Qt's busy bar (range 0 to 0) is animated by the style, a paint of the
    status bar each frame, taken from the worker that does the work; the
    bar says how long the work has taken instead, at most once a second."""
    window.wait_idle()
    bar = window.progress
    bar.show()
    for _ in range(10):  # (the show's layout requests, an event at a time)
        QCoreApplication.processEvents()
    paints = Events(QEvent.Type.Paint)
    bar.installEventFilter(paints)
    counter = Events(QEvent.Type.LayoutRequest)
    QApplication.instance().installEventFilter(counter)
    try:
        bar.set_fraction(None)
        assert bar.maximum() > 0, "Qt's animated busy bar"
        assert bar.busy_text() == "working …"
        qtbot.waitUntil(lambda: bar.busy_text() == "working … 2 s", timeout=4000)
        assert paints.count <= 4, f"{paints.count} paints in two seconds"
        bar.set_fraction(0.25)
        QCoreApplication.processEvents()
        assert (bar.value(), bar.busy_text()) == (25, "")
    finally:
        QApplication.instance().removeEventFilter(counter)
        bar.removeEventFilter(paints)
        bar.hide()
    assert counter.count == 0
