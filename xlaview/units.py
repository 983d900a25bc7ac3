"""Numbers for people."""

from __future__ import annotations


def human_bytes(n: float | None, digits: int = 1, missing: str = "-") -> str:
    """``268435456`` -> ``256.0 MiB`` (binary units; whole bytes below 1 KiB)."""
    if n is None:
        return missing
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.{digits}f} {unit}"
        n /= 1024
    return f"{n} B"


def human_count(n: float | None, unit: str = "", digits: int = 2, missing: str = "-") -> str:
    """``18122563584, "FLOP"`` -> ``18.12 GFLOP`` (decimal prefixes, as FLOP
    counts are quoted); ``0`` -> ``0`` (``0 FLOP`` with a unit)."""
    if n is None:
        return missing
    for prefix in ("", "k", "M", "G", "T", "P"):
        if abs(n) < 1000 or prefix == "P":
            text = f"{n:.0f}" if prefix == "" else f"{n:.{digits}f}"
            return f"{text} {prefix}{unit}".rstrip()
        n /= 1000
    return f"{n}"


def human_seconds(s: float | None, missing: str = "-") -> str:
    """``4.599e-05`` -> ``46.0 us`` (s, ms, us, ns)."""
    if s is None:
        return missing
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(s) >= scale:
            return f"{s / scale:.1f} {unit}"
    return f"{s / 1e-9:.1f} ns"
