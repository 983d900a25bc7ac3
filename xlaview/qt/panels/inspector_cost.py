"""The inspector's cards about cost and time: what one execution of the
selected op costs on the chosen device, what a profile measured of it, and
the buffer of each element of its result. HTML from a `describe_instruction`
result (its ``cost``, ``buffers`` and the window's ``measured``)."""

from __future__ import annotations

from typing import Any

from xlaview import units
from xlaview.analysis.cost.devices import DEVICES
from xlaview.qt.safe_text import esc_whole


def _rows(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><td class='k'>{k}</td><td>{v}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def cost_html(d: dict[str, Any]) -> str:
    """The Cost card (empty while the pass is being priced)."""
    c = d.get("cost")
    if not c:
        return ""
    device = DEVICES.get(c.get("device") or "")
    title = f"Cost on {esc_whole(device.title)}" if device else "Cost"
    if not c["known"]:
        return (
            f"<h3>{title}</h3><p class='muted'>A custom call nobody can price: XLA's cost "
            "analysis counts it as nothing.</p>"
        )
    work = f"<span class='big'>{units.count(c['flops'], 'FLOP')}</span>"
    if c["transcendentals"]:
        work += f" + {units.count(c['transcendentals'])} transcendentals"
    read = c["bytes_read"]
    reads = (
        (" + ".join(units.human_bytes(b) for b in read) or "0")
        if len(read) <= 4
        else (f"{units.human_bytes(sum(read))} from {len(read)} operands")
    )
    moved = (
        f"<span class='big'>{units.human_bytes(c['bytes_accessed'])}</span> "
        f"<span class='muted'>(reads {reads}; writes {units.human_bytes(c['bytes_written'])})"
        "</span>"
    )
    rows = [("FLOPs", work), ("bytes", moved)]
    if c["memory_bytes"] != c["bytes_accessed"]:
        rows.append(("in main memory", units.human_bytes(c["memory_bytes"])))
    if "time_s" in c:
        ridge = device.ridge(c["precision"]) if device else None
        rows.append(
            (
                "intensity",
                f"{units.intensity(c['intensity'])} FLOP/byte"
                + (
                    f" <span class='muted'>(ridge {units.intensity(ridge)} at "
                    f"{esc_whole(c['precision'])})</span>"
                    if ridge
                    else ""
                ),
            )
        )
        peak = device.peak(c["precision"]) if device else None
        bound = f"<b>{esc_whole(c['bound'])}-bound</b>" + (
            f" <span class='muted'>({esc_whole(c['precision'])} peak "
            f"{units.rate(peak, 'FLOP/s')}, memory "
            f"{units.rate(device.memory_bandwidth, 'B/s')})</span>"
            if device
            else ""
        )
        runs = f" × {c['executions']} per step" if c["executions"] != 1 else ""
        rows.append(
            ("time", (f"<span class='big'>{units.seconds(c['time_s'])}</span>{runs} · {bound}"))
        )
        rows.append(("share", f"{units.percent(c['share'])} of the module's estimated time"))
    parts = [f"<h3>{title}</h3>", _rows(rows)]
    if not c["top_level"]:
        parts.append(
            "<p class='muted'>Inside a fusion: priced as XLA prices it alone; its "
            "bytes stay in the fusion, which is what runs.</p>"
        )
    return "".join(parts)


def measured_html(d: dict[str, Any]) -> str:
    """The Measured card (empty without a profile of this pass)."""
    m = d.get("measured")
    if not m:
        return ""
    rows = [
        (
            "events",
            (f"{m['count']} <span class='muted'>in {m['runs']} run{'s' * (m['runs'] != 1)}</span>"),
        ),
        ("mean", f"<span class='big'>{units.seconds(m['mean_s'])}</span>"),
        (
            "total",
            (
                f"{units.seconds(m['measured_s'])} <span class='muted'>(self "
                f"{units.seconds(m['self_s'])}), {units.percent(m['share'])} of the "
                "module's measured time</span>"
            ),
        ),
        (
            "achieved",
            (
                f"{units.rate(m['achieved_flops_per_s'], 'FLOP/s')}, "
                f"{units.rate(m['achieved_bytes_per_s'], 'B/s')}"
            ),
        ),
    ]
    if m["roofline_fraction"] is not None:
        rows.append(
            (
                "of roofline",
                (
                    f"<span class='big'>{units.percent(m['roofline_fraction'])}"
                    f"</span> <span class='muted'>on {esc_whole(m['device'])}</span>"
                ),
            )
        )
    else:
        rows.append(
            (
                "of roofline",
                (
                    "<span class='muted'>– (no device: the dump names no "
                    "accelerator; pick one in the Cost tab)</span>"
                ),
            )
        )
    return "<h3>Measured</h3>" + _rows(rows)


def buffers_html(d: dict[str, Any]) -> str:
    """Every element of a tuple-shaped result with its buffer slice."""
    buffers = d.get("buffers") or []
    if len(buffers) < 2 and not any(b["allocation"] is None and b["memory_space"] for b in buffers):
        return ""
    rows = []
    for b in buffers:
        where = (
            f"allocation <b>#{b['allocation']}</b> at {b['offset']:,}, "
            f"{units.human_bytes(b['size'])}"
            if b["allocation"] is not None
            else "<span class='muted'>no buffer-assignment entry</span>"
        )
        rows.append(
            (
                f"<span class='mono'>{esc_whole(b['index'])}</span>",
                (
                    f"<span class='mono'>{esc_whole(b['shape'])}</span><br>{where} · "
                    f"{esc_whole(b['memory_space_name'])}"
                ),
            )
        )
    return "<p class='muted'>Result buffers, one per element:</p>" + _rows(rows)
