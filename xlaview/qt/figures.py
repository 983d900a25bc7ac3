"""Figures of cost and time as the window writes them: three significant
digits and a unit, the same in every table, tooltip and card."""

from __future__ import annotations

from xlaview import units

MISSING = "–"


def seconds(value: float | None) -> str:
    """``4.6e-05`` -> ``46.0 µs`` (s, ms, µs, ns, ps: tiny ops on a fast device)."""
    if value is None:
        return MISSING
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(value) >= scale:
            return f"{_three(value / scale)} {unit}"
    if value == 0:
        return "0"
    if abs(value) >= 1e-9:
        return f"{_three(value / 1e-9)} ns"
    if abs(value) >= 1e-13:
        return f"{_three(value / 1e-12)} ps"
    return "<0.1 ps"


def count(value: float | None, unit: str = "") -> str:
    """``60129542144, "FLOP"`` -> ``60.1 GFLOP`` (decimal prefixes)."""
    if value is None:
        return MISSING
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{_three(value / scale)} {prefix}{unit}"
    return f"{value:.0f} {unit}".rstrip()


def rate(value: float | None, unit: str) -> str:
    """``9.894e14, "FLOP/s"`` -> ``989 TFLOP/s``; bytes/s in decimal units
    (``3.35 TB/s``), as bandwidths are quoted."""
    return count(value, unit)


def size(value: float | None) -> str:
    """Bytes in binary units (``112.0 MiB``), as memory is counted."""
    return units.human_bytes(value, digits=1, missing=MISSING)


def intensity(value: float | None) -> str:
    """FLOP per byte."""
    if value is None:
        return MISSING
    if value == 0:
        return "0"
    return _three(value) if value >= 0.01 else f"{value:.1e}"


def percent(fraction: float | None) -> str:
    """``0.1234`` -> ``12.3%``; a share too small to read says so."""
    if fraction is None:
        return MISSING
    if 0 < fraction < 0.001:
        return "<0.1%"
    return f"{fraction * 100:.1f}%"


def _three(value: float) -> str:
    """Three significant digits, without an exponent."""
    magnitude = abs(value)
    digits = 0 if magnitude >= 100 else 1 if magnitude >= 10 else 2
    return f"{value:.{digits}f}"
