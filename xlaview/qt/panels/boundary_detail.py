"""The detail of one boundary, beside the Traffic tab's table: what the value
is, what it costs, why it is materialized (every applicable reason's
evidence) and what would remove it. Op names are links: a top-level op is
selected, an op inside a fused computation is shown in the fused pane.

Plain text on the page (nothing to hover for): dump text goes through `esc`.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QTextBrowser, QWidget

from xlaview.analysis.boundaries.explain import REASONS, Boundaries, Boundary
from xlaview.qt import theme
from xlaview.qt.safe_text import esc
from xlaview.units import human_bytes

# What each reason means, in a line (see xlaview.analysis.boundaries.explain).
MEANING = {
    "multi-pass": "a reduction over it must finish before it is read again: fusing more cannot "
    "remove it, a one-pass algorithm can",
    "library-call": "its producer or a reader runs as its own library kernel (an unfused dot, "
    "a convolution, a custom call): XLA cannot fuse into it",
    "layout-change": "a transpose or copy re-lays the data out between producer and readers",
    "shared-read": "several ops read it separately: one multi-output (sibling) fusion could read "
    "it once",
    "collective": "a collective writes or reads it: communication goes through memory",
    "control-flow": "a loop, conditional or call takes or gives it in memory",
    "output": "the program returns it",
    "other": "none of the reasons above: the evidence lists what was found",
}

_CSS = f"""
body {{ font-family: sans-serif; font-size: 9.5pt; color: {theme.TEXT}; }}
table {{ border-collapse: collapse; }}
td {{ padding: 1px 10px 2px 0; vertical-align: top; }}
td.k {{ color: {theme.MUTED}; white-space: nowrap; }}
.mono {{ font-family: monospace; }}
.muted {{ color: {theme.MUTED}; }}
.big {{ font-size: 11pt; font-weight: 600; }}
p.ev {{ margin: 0 0 4px 0; }}
a {{ color: {theme.ACCENT}; text-decoration: none; }}
"""


OPS_SHOWN = 12  # links under one piece of evidence; a shared read may list dozens of readers


class OpLink(NamedTuple):
    """An op a link on the page names: top-level (``caller`` None) or inside
    the fused computation of fusion ``caller``."""

    instruction: str
    computation: str
    caller: str | None


def chip(reason: str) -> str:
    back, fore = theme.REASON_COLORS.get(reason, theme.REASON_COLORS["other"])
    return (
        f"<span style='background:{back};color:{fore};font-weight:600'>"
        f"&nbsp;{esc(reason)}&nbsp;</span>"
    )


class BoundaryDetailView(QTextBrowser):
    """One boundary's reason, evidence and suggestion; or the per-reason totals
    (a reason's name filters the table by it)."""

    op_activated = Signal(object)  # OpLink
    reason_activated = Signal(str)  # a reason of the totals: show only its boundaries

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("boundaryDetail")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.document().setDefaultStyleSheet(_CSS)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self.boundary: Boundary | None = None
        self._links: list[OpLink] = []

    def show_message(self, text: str) -> None:
        """A line of our own words (no dump text in it)."""
        self.boundary = None
        self._links = []
        self.setHtml(f"<p class='muted'>{esc(text)}</p>")

    def show_totals(self, boundaries: Boundaries, hint: str) -> None:
        """What each reason costs in the pass, and what removing them would save."""
        self.boundary = None
        self._links = []
        by_reason, saved = boundaries.by_reason(), boundaries.saved_by_reason()
        counts = boundaries.counts()
        rows = "".join(
            f"<tr><td><a href='reason:{r}'>{chip(r)}</a></td><td align='right'>{counts[r]}</td>"
            f"<td align='right'>{human_bytes(by_reason[r])}</td>"
            f"<td align='right'>{human_bytes(saved[r])}</td>"
            f"<td class='muted'>{esc(MEANING[r])}</td></tr>"
            for r in REASONS
            if counts[r]
        )
        head = (
            "<tr><td class='k'>reason</td><td class='k' align='right'>values</td>"
            "<td class='k' align='right'>moved</td><td class='k' align='right'>saved if removed"
            "</td><td></td></tr>"
        )
        self.setHtml(
            f"<p class='muted'>{esc(hint)}</p><table>{head}{rows}</table>"
            if rows
            else f"<p class='muted'>{esc(hint)}</p>"
        )

    def show_boundary(self, boundary: Boundary, callers: dict[str, str]) -> None:
        """Everything known about ``boundary``; ``callers``: fused computation ->
        the fusion whose body it is."""
        self.boundary = boundary
        self._links = []

        def op(name: str, computation: str | None = None) -> str:
            computation = computation or boundary.computation
            caller = None if computation == boundary.computation else callers.get(computation)
            self._links.append(OpLink(name, computation, caller))
            link = f"<a href='op:{len(self._links) - 1}'>{esc(name, 120)}</a>"
            if computation == boundary.computation:
                return link
            return f"{link} <span class='muted'>in {esc(computation, 80)}</span>"

        b = boundary
        value = (
            f"<span class='mono'>{esc(b.value, 120)}</span> · "
            f"<span class='mono'>{esc(b.shape, 160)}</span> · {human_bytes(b.value_bytes)}"
        )
        producer = f"{op(b.producer)} <span class='muted'>in {esc(b.computation, 80)}</span>"
        moved = (
            f"<b>{human_bytes(b.bytes)}</b> written and read back; removing it would save "
            f"<b>{human_bytes(b.saved_bytes)}</b>"
        )
        rows = [("value", value), ("producer", producer), ("bytes", moved)]
        if b.suggestion:
            rows.append(("suggestion", esc(b.suggestion, 1000)))
        evidence = []
        for i, fact in enumerate(b.evidence):
            decides = " <span class='muted'>(decides)</span>" if i == 0 else ""
            ops = " · ".join(op(o.instruction, o.computation) for o in fact.ops[:OPS_SHOWN])
            if len(fact.ops) > OPS_SHOWN:
                ops += f" <span class='muted'>and {len(fact.ops) - OPS_SHOWN} more</span>"
            evidence.append(
                f"<p class='ev'>{chip(fact.reason)}{decides} {esc(fact.text, 2000)}"
                + (f"<br>→ {ops}" if ops else "")
                + "</p>"
            )
        rows.append(("evidence", "".join(evidence)))
        # Last: a value read by dozens of ops must not push the evidence out of sight.
        count = (
            f"<span class='muted'>{len(b.consumers)} ops:</span> " if len(b.consumers) > 4 else ""
        )
        rows.append(("read by", count + (", ".join(op(c) for c in b.consumers) or "–")))
        table = "".join(f"<tr><td class='k'>{k}</td><td>{v}</td></tr>" for k, v in rows)
        head = (
            f"<p style='margin-bottom:4px'>{chip(b.reason)} "
            f"<span class='muted'>{esc(MEANING[b.reason])}</span></p>"
        )
        parts = [head, f"<table>{table}</table>"]
        self.setHtml("".join(parts))

    def links(self) -> list[OpLink]:
        """The ops the page names, in the order their links appear."""
        return list(self._links)

    def _on_anchor_clicked(self, url: QUrl) -> None:
        scheme, _, rest = url.toString().partition(":")
        if scheme == "op" and rest.isdigit() and int(rest) < len(self._links):
            self.op_activated.emit(self._links[int(rest)])
        elif scheme == "reason" and rest in REASONS:
            self.reason_activated.emit(rest)
