"""What the readers of XLA's memory reports share: the located error they
collect instead of raising, and numbers as XLA prints them."""

from __future__ import annotations

import re

from xlaview.errors import LocatedError


class ReportError(LocatedError, ValueError):
    """A report line that does not read as expected: where, and what was expected.

    Readers collect these in ``diagnostics`` rather than raising them.
    """


def split_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only, so line numbers match editors even on junk
    holding form feeds or the other breaks ``str.splitlines`` honours."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text.split("\n")


def index_key(shape_index: str) -> tuple[int, ...]:
    digits = shape_index.strip("{}").replace(" ", "")
    try:
        return tuple(int(d) for d in digits.split(",")) if digits else ()
    except ValueError:
        return (1 << 62,)  # unreadable indices sort last


# Numbers as XLA prints them: int64 has at most 19 digits, so a longer run
# is damage, and never reaches int() (which refuses over 4300 digits and would
# take quadratic time below that).
NUMBER = r"\d{1,20}"
GROUPED = r"\d[\d ]{0,40}"  # "506 734 612": digit groups split by spaces
# A memory-usage row starts ``   6.9KiB(  1%);`` (the running total and its
# share). No "(" in the first field and no "%" in the share: with ``\S+?`` and
# ``[^)]*`` a line of brackets took quadratic time.
CUMULATIVE = r"\s*([^\s(]+)\([^)%]*%\);"


def grouped_int(text: str) -> int:
    """An integer XLA may print with spaces between digit groups ("8 288")."""
    return int(text.replace(" ", ""))


_HUMAN_BYTES = re.compile(r"(-?\d{1,20}(?:\.\d{1,20})?)([KMGTPE]i)?B$")
_UNIT: dict[str | None, int] = {None: 1}
_UNIT.update((f"{prefix}i", 1 << (10 * n)) for n, prefix in enumerate("KMGTPE", start=1))


def human_bytes(text: str) -> int | None:
    """``"6.9KiB"`` -> 7066 (XLA rounded it; exact only when printed in bytes)."""
    match = _HUMAN_BYTES.match(text)
    if match is None:
        return None
    return round(float(match[1]) * _UNIT[match[2]])


TOTAL_USED = re.compile(rf"Total bytes used: ({NUMBER})")


def read_total_used(
    line: str, path: str | None, number: int, diagnostics: list[ReportError]
) -> int | None:
    """N of a ``Total bytes used: N`` line (both reports end a section with one)."""
    match = TOTAL_USED.match(line)
    if match is None:
        diagnostics.append(ReportError("expected 'Total bytes used: N'", path, number))
        return None
    return int(match[1])
