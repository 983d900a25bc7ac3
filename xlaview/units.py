"""Numbers for people: one way to write each kind of figure, the same in the
window's tables, tooltips and cards and on the command line.

Bytes in binary units (KiB, MiB: memory is counted so), counts and rates in
decimal ones (GFLOP, TB/s: as FLOP counts and bandwidths are quoted), times
from seconds down to picoseconds; three significant digits.
"""

from __future__ import annotations

from collections.abc import Sequence

MISSING = "–"  # a figure that is not known


def whole_number(text: str) -> int | None:
    """``"0012"`` -> 12: ASCII digits, at most 19 of them (int64), else None
    (``str.isdigit`` takes "²", which ``int`` refuses; 5,000 digits are not a
    sequence number or an id, and ``int`` is slow on them)."""
    if 0 < len(text) <= 19 and text.isascii() and text.isdigit():
        return int(text)
    return None


def human_bytes(n: float | None, digits: int = 1, missing: str = MISSING) -> str:
    """``268435456`` -> ``256.0 MiB`` (binary units; whole bytes below 1 KiB)."""
    if n is None:
        return missing
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.{digits}f} {unit}"
        n /= 1024
    return f"{n} B"


_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def signed_bytes(value: int) -> str:
    """A change in bytes: ``+2.0 GiB``, ``-8.0 MiB``, ``0``."""
    if value == 0:
        return "0"
    return ("+" if value > 0 else "-") + human_bytes(abs(value))


def signed_seconds(value: float | None) -> str:
    """A change in time: ``+1.20 ms``, ``-46.0 µs``, ``0``; `MISSING` for unknown."""
    if value is None:
        return MISSING
    if value == 0:
        return "0"
    return ("+" if value > 0 else "-") + seconds(abs(value))


def exact_bytes(n: int | None, missing: str = MISSING) -> str:
    """``406880316`` -> ``406,880,316 bytes``: the count itself, for tooltips."""
    return missing if n is None else f"{n:,} bytes"


def byte_ticks(top: float, most: int = 5) -> list[int]:
    """Axis ticks for bytes from 0 up to ``top``: multiples of a power of two
    (``0, 128 MiB, 256 MiB, 384 MiB``), at most ``most`` steps, the last at or
    below ``top``."""
    step = 1
    while top / step > most:
        step *= 2
    return [i * step for i in range(int(top // step) + 1)]


def byte_tick_label(n: int) -> str:
    """``134217728`` -> ``128 MiB``, ``1572864`` -> ``1.5 MiB``: as few decimals
    as say the tick exactly (two at most)."""
    for digits in (0, 1, 2):
        text = human_bytes(n, digits)
        number, unit = text.split()
        if float(number) * 1024 ** _BYTE_UNITS.index(unit) == n:
            return text
    return human_bytes(n, 2)


def seconds(value: float | None, missing: str = MISSING) -> str:
    """``4.6e-05`` -> ``46.0 µs`` (s, ms, µs, ns, ps: tiny ops on a fast device)."""
    if value is None:
        return missing
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


def count(value: float | None, unit: str = "", missing: str = MISSING) -> str:
    """``60129542144, "FLOP"`` -> ``60.1 GFLOP`` (decimal prefixes)."""
    if value is None:
        return missing
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{_three(value / scale)} {prefix}{unit}"
    return f"{value:.0f} {unit}".rstrip()


def rate(value: float | None, unit: str) -> str:
    """``9.894e14, "FLOP/s"`` -> ``989 TFLOP/s``; bytes/s in decimal units
    (``3.35 TB/s``), as bandwidths are quoted."""
    return count(value, unit)


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


def elided(items: Sequence[str], shown: int = 4) -> str:
    """The first few items and how many more: a value read 180 times is not
    listed on one line."""
    head = ", ".join(items[:shown])
    return head + (f", ... and {len(items) - shown} more" if len(items) > shown else "")
