"""Labels whose text changes at every pass step (the status bar, the Traffic
tab's summary) lay nothing out again: a QLabel's new text asks every layout
up to the window's to be made again, 9 ms of each step for the Traffic tab's
two-line summary."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication

from xlaview.qt.safe_text import label


class LayoutRequests(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def requests_for(window, set_texts) -> int:
    """The layout requests that ``set_texts`` (then painting) causes."""
    window.wait_idle()
    for _ in range(10):  # (a layout request goes up the widgets an event at a time)
        QCoreApplication.processEvents()
    counter = LayoutRequests()
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
