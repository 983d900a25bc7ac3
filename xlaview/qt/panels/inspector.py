"""The inspector: everything known about the selected instruction, as cards."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTextBrowser, QWidget

from xlaview.analysis.kinds import Kind
from xlaview.qt import theme
from xlaview.qt.model.records import Selection
from xlaview.qt.model.view_model import ViewModel
from xlaview.qt.panels.inspector_cost import buffers_html, cost_html, measured_html
from xlaview.qt.safe_text import esc_whole
from xlaview.units import human_bytes

_CSS = f"""
body {{ font-family: sans-serif; font-size: 9.5pt; color: {theme.TEXT}; }}
h2 {{ font-size: 12pt; margin: 2px 0 0 0; }}
h3 {{ font-size: 9pt; color: {theme.TEXT_SECONDARY}; margin: 10px 0 3px 0;
     text-transform: uppercase; letter-spacing: 1px; border-bottom: 1px solid {theme.RULE}; }}
table {{ border-collapse: collapse; }}
td {{ padding: 1px 10px 1px 0; vertical-align: top; }}
td.k {{ color: {theme.MUTED}; white-space: nowrap; }}
.mono {{ font-family: monospace; }}
.pill {{ background: {theme.PILL_BACKGROUND}; color: {theme.PILL_TEXT}; padding: 0 4px; }}
.big {{ font-size: 13pt; font-weight: 600; }}
.muted {{ color: {theme.MUTED}; }}
a {{ color: {theme.ACCENT}; text-decoration: none; }}
"""


NOTHING_SELECTED = "Select an instruction in the text or the graph."
OPERANDS_SHOWN = 40  # operand rows before "show all" (a 900-operand fusion is 150 KB of HTML)
TUPLE_SHOWN = 6  # elements of a tuple shape before "show all"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _rows(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><td class='k'>{k}</td><td>{v}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def _layout_text(layout: dict[str, Any]) -> str:
    if "dimension_order" not in layout:
        return "tuple" if layout.get("elements") else "–"
    parts = [esc_whole(layout["dimension_order"])]
    if layout["tiles"]:
        parts.append(
            "tiles <span class='mono'>"
            + esc_whole("".join(f"T{t}" for t in layout["tiles"]))
            + "</span>"
        )
    if layout.get("element_size_bits"):
        parts.append(f"{layout['element_size_bits']}-bit elements (packed)")
    if layout.get("memory_space"):
        parts.append(f"<b>{esc_whole(layout['memory_space_name'])}</b>")
    if layout.get("padding_bytes"):
        parts.append(f"{human_bytes(layout['padding_bytes'])} tile padding")
    return ", ".join(parts)


def _shape_html(shape: str, elements: list[str], whole: bool) -> str:
    """A shape; a tuple of many elements as its first few (all of them on
    demand, with the operands)."""
    if len(elements) <= TUPLE_SHOWN or whole:
        return f"<span class='mono'>{esc_whole(shape)}</span>"
    head = ", ".join(elements[:TUPLE_SHOWN])
    return (
        f"<span class='mono'>({esc_whole(head)}, …)</span> <span class='muted'>a tuple of "
        f"{len(elements):,}: <a href='more:operands'>show all</a></span>"
    )


def render(described: dict[str, Any], kind: Kind | None = None, all_operands: bool = False) -> str:
    """HTML for one `describe_instruction` result (the first `OPERANDS_SHOWN`
    operands unless ``all_operands``)."""
    d = described
    colour = theme.KIND_COLORS.get(kind, theme.PANEL) if kind else theme.PANEL
    label = d.get("label") or d["opcode"]  # custom-call __cublas$lt$matmul, fusion kLoop
    kind_label = (
        ""
        if d["fusion_kind"] or d.get("custom_call_target") or not kind
        else (f"{esc_whole(kind.value)} · ")
    )
    head = (
        f"<table width='100%'><tr><td style='background:{colour};padding:6px'>"
        f"<h2 class='mono'>{esc_whole(d['name'])}</h2>"
        f"<span class='mono'>{esc_whole(label)}</span> · {kind_label}"
        f"<span class='muted'>{esc_whole(d['computation'])}, line {d['line']}</span>"
        "</td></tr></table>"
    )
    parts = [head]
    out_layout = d["layout_decoded"]
    parts.append("<h3>Result</h3>")
    parts.append(_rows([
        ("shape", _shape_html(d["shape"], d.get("shape_elements", []), whole=all_operands)),
        ("layout", _layout_text(out_layout)),
        ("minor→major",
         f"<span class='mono'>{esc_whole(d['layout']['minor_to_major']) if d['layout'] else '–'}"
         "</span>"),
    ]))  # fmt: skip
    parts.append("<h3>Bytes</h3>")
    parts.append(_rows([
        ("writes", f"<span class='big'>{human_bytes(d['bytes']['output'])}</span>"),
        ("reads", f"<span class='big'>{human_bytes(d['bytes']['operands'])}</span> "
                  f"<span class='muted'>({_count(len(d['operands']), 'operand')})</span>"),
    ]))  # fmt: skip
    parts.append(cost_html(d) + measured_html(d))
    parts.append("<h3>Memory</h3>")
    a = d["allocation"]
    if a:
        share = (
            f"{d['peak_share']:.1%} of the peak of live values ({human_bytes(d['peak_bytes'])})"
            if d["peak_share"]
            else ("not live at the peak step" if d["peak_bytes"] else "–")
        )
        live = f"{d['live_range'][0]} … {d['live_range'][1]}" if d["live_range"] else "–"
        parts.append(_rows([
            ("allocation",
             f"<b>#{a['index']}</b> <span class='pill'>{esc_whole(a['kind'])}</span>"),
            ("offset", f"{a['offset']:,}"),
            ("size", f"{human_bytes(a['size'])} <span class='muted'>({a['size']:,} B) of "
                     f"{human_bytes(a['allocation_size'])}</span>"),
            ("live range", live),
            ("share of peak", share),
        ]))  # fmt: skip
    else:
        parts.append(
            "<p class='muted'>No buffer-assignment entry: reports describe the "
            "after-optimizations module only (or this value lives inside a fusion).</p>"
        )
    parts.append(buffers_html(d))
    if d["operand_layouts"]:
        parts.append("<h3>Operands</h3>")
        operands = d["operand_layouts"]
        shown = operands if all_operands else operands[:OPERANDS_SHOWN]
        rows = []
        for op in shown:
            rows.append(
                (
                    f"<a href='instr:{esc_whole(op['name'])}' class='mono'>"
                    f"{esc_whole(op['name'])}</a>",
                    f"<span class='mono'>{esc_whole(op['shape'])}</span><br>{_layout_text(op)}"
                    f" · {human_bytes(op['bytes'])}",
                )
            )
        parts.append(_rows(rows))
        if len(shown) < len(operands):
            parts.append(
                f"<p><a href='more:operands'>Show all {len(operands):,} operands</a> "
                f"<span class='muted'>({len(operands) - len(shown):,} more)</span></p>"
            )
    if d["called_computations"]:
        parts.append("<h3>Calls</h3>")
        parts.append(
            " ".join(
                f"<a href='comp:{esc_whole(c)}' class='mono'>{esc_whole(c)}</a>"
                for c in d["called_computations"]
            )
        )
    parts.append("<h3>Source</h3>")
    src_rows = [("op_name", f"<span class='mono'>{esc_whole(d['op_name'] or '–')}</span>")]
    for frame in d["source"][:6]:
        src_rows.append(("at", esc_whole(frame)))
    parts.append(_rows(src_rows))
    if d["backend_config"]:
        config = d["backend_config"]
        text = json.dumps(config, indent=1) if not isinstance(config, str) else config
        parts.append("<h3>Backend config</h3>")
        parts.append(f"<pre class='mono' style='font-size:8pt'>{esc_whole(text[:2000])}</pre>")
    return "".join(parts)


class InspectorView(QTextBrowser):
    """Links in the cards select operands and open called computations."""

    instruction_requested = Signal(str)
    computation_requested = Signal(str)

    def __init__(self, model: ViewModel, parent: QWidget | None = None) -> None:
        """The selection of ``model``; a link asks it for an op or a computation."""
        super().__init__(parent)
        self.setObjectName("inspector")
        self.setOpenLinks(False)
        self._shown: tuple[dict[str, Any], Kind | None] | None = None
        self.document().setDefaultStyleSheet(_CSS)
        self.anchorClicked.connect(self._on_anchor)
        self.show_message(NOTHING_SELECTED)
        model.selection_changed.connect(self._on_selection)
        model.selection_described.connect(self._on_selection)
        self.instruction_requested.connect(model.select_instruction)
        self.computation_requested.connect(model.enter_computation)

    def _on_selection(self, selection: Selection | None) -> None:
        if selection is None:
            self.show_message(NOTHING_SELECTED)
        else:
            self.show_instruction(selection.described, selection.kind)

    def show_message(self, text: str) -> None:
        self._shown = None
        self.setHtml(f"<p class='muted'>{esc_whole(text)}</p>")

    def show_instruction(self, described: dict[str, Any], kind: Kind | None) -> None:
        self._shown = (described, kind)
        self.setHtml(render(described, kind))

    def _on_anchor(self, url) -> None:
        target = url.toString()
        if target.startswith("instr:"):
            self.instruction_requested.emit(target[6:])
        elif target.startswith("comp:"):
            self.computation_requested.emit(target[5:])
        elif target == "more:operands" and self._shown is not None:
            position = self.verticalScrollBar().value()
            self.setHtml(render(*self._shown, all_operands=True))
            self.verticalScrollBar().setValue(position)
