"""The inspector's cards about cost and time: what one execution of the
selected op costs on the chosen device, what a profile measured of it, and
the buffer of each element of its result. HTML from a `describe_instruction`
result (its ``cost``, ``buffers`` and the window's ``measured``)."""

from __future__ import annotations

from typing import Any

from xlaview import units
from xlaview.qt.safe_text import esc_whole


def _rows(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><td class='k'>{k}</td><td>{v}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def cost_html(d: dict[str, Any]) -> str:
    """The Cost card (empty while the pass is being priced)."""
    c = d.get("cost")
    if not c:
        return ""
    title = f"Cost on {esc_whole(c['device_title'])}" if c.get("device_title") else "Cost"
    if not c["known"]:
        return (
            f"<h3>{title}</h3><p class='muted'>A custom call nobody can price (no body, "
            "no known formula): its cost is not known, and it is left out of the "
            "module's totals, times and shares.</p>"
        )
    rows = []
    run = c.get("run")
    if run is not None:  # a loop, call or conditional: what one run of it executes
        rows.append(
            (
                "executes",
                f"<span class='big'>{units.count(run['flops'], 'FLOP')}</span>, "
                f"{units.human_bytes(run['bytes_accessed'])}"
                + (
                    f"; <b>{units.seconds(run['time_s'])}</b> at best"
                    if run["time_s"] is not None
                    else ""
                )
                + " <span class='muted'>(loop bodies × trip count)</span>",
            )
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
    once = (", one iteration" if c["opcode"] == "while" else ", XLA's count") if run else ""
    rows += [(f"FLOPs{once}", work), (f"bytes{once}", moved)]
    if c["memory_bytes"] != c["bytes_accessed"]:
        rows.append(("in main memory", units.human_bytes(c["memory_bytes"])))
    if c["padding_bytes"]:
        rows.append(("tile padding", f"{units.human_bytes(c['padding_bytes'])} of those bytes"))
    if c["collective"] is not None:
        k = c["collective"]
        rows.append(
            (
                "sends",
                f"{units.human_bytes(k['wire_bytes'])} per device over the interconnect "
                f"<span class='muted'>({esc_whole(k['kind'])} of "
                f"{units.human_bytes(k['payload_bytes'])} in groups of {k['group_size']})</span>",
            )
        )
    if c["opaque"]:
        rows.append(
            (
                "interior",
                (
                    f"{units.human_bytes(c['interior_bytes'])} between the stages of its body, "
                    "if the library materializes them"
                    if c["interior_bytes"]
                    else "a library kernel: what it does inside is not in the dump"
                ),
            )
        )
    if c.get("time_s") is not None:
        rows += _time_rows(c)
    parts = [f"<h3>{title}</h3>", _rows(rows)]
    if not c["top_level"]:
        parts.append(
            "<p class='muted'>Inside a fusion: priced as XLA prices it alone; its "
            "bytes stay in the fusion, which is what runs.</p>"
        )
    return "".join(parts)


def _time_rows(c: dict[str, Any]) -> list[tuple[str, str]]:
    """Intensity, time (the executed figure first for an op in a loop) and share."""
    peak, bandwidth = c["peak_flops_per_s"], c["memory_bytes_per_s"]
    ridge = peak / bandwidth if peak and bandwidth else None
    rows = [
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
    ]
    bound = (
        f"<b>{esc_whole(c['bound'])}-bound</b> <span class='muted'>"
        f"({esc_whole(c['precision'])} peak {units.rate(peak, 'FLOP/s')}, memory "
        f"{units.rate(bandwidth, 'B/s')})</span>"
    )
    runs = c["executions"]
    run = c.get("run")
    label = "time" if run is None else "one iteration" if c["opcode"] == "while" else "XLA's time"
    if runs != 1:
        time = (
            f"<span class='big'>{units.seconds(c['time_s'] * runs)}</span> per step "
            f"<span class='muted'>({runs} × {units.seconds(c['time_s'])})</span> · {bound}"
        )
    else:
        time = f"<span class='big'>{units.seconds(c['time_s'])}</span> · {bound}"
    rows.append((label, time))
    if c.get("interior_time_s"):
        rows.append(
            (
                "if materialized",
                f"{units.seconds(c['interior_time_s'])} "
                "<span class='muted'>(its interior through memory too)</span>",
            )
        )
    if run is not None and run["share"] is not None:  # what one run executes, of the whole
        rows.append(
            ("share", f"{esc_whole(units.percent(run['share']))} of the module's executed estimate")
        )
    else:
        rows.append(
            ("share", f"{esc_whole(units.percent(c['share']))} of the module's estimated time")
        )
    return rows


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
                f"{units.seconds(m['self_s'])}), {esc_whole(units.percent(m['share']))} of the "
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
                    f"<span class='big'>{esc_whole(units.percent(m['roofline_fraction']))}"
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
