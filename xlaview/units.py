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
