"""The attributes whose values xlaview reads, decoded, and checked when the
module is parsed.

An attribute is kept as the raw text XLA printed (`xlaview.hlo.attributes`);
the few whose values an analysis reads (windows, convolution labels,
dimension lists, tuple indices, group counts) have a grammar here. The
parser checks every one of them (`check_attributes` per instruction on the
careful path, `bad_values` over a computation on the fast path), so that an
instruction whose ``window={size=1xa}`` does not read is a located problem
of the parse, and the analyses decode only text known to be good: they never
turn dump text into ValueError or IndexError far from its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from xlaview.hlo.attributes import ValueSyntaxError, scan_attributes
from xlaview.hlo.scan import findall_by_lines

_COUNT = r"\d{1,19}"  # int64, as XLA prints it: a longer run is damage
_INT = r"-?\d{1,19}"
_BRACED = re.compile(rf"\{{\s*(?:{_INT}(?:\s*,\s*{_INT})*)?\s*\}}")
_WINDOW_FIELD = re.compile(
    rf"(size|stride|lhs_dilate|rhs_dilate)=({_COUNT}(?:x{_COUNT})*)"
    rf"|(pad)=({_INT}_{_INT}(?:x{_INT}_{_INT})*)"
    r"|(rhs_reversal)=([01](?:x[01])*)"
)
# "?" marks a dimension the convolution does not use (XLA accepts it anywhere).
_DIM_LABELS = re.compile(r"([0-9a-z?]+)_([0-9a-z?]+)->([0-9a-z?]+)")
_WHOLE_COUNT = re.compile(_COUNT)
# Windows and labels decoded, by their text: a U-Net's 4,287 convolutions
# print 9 windows and one labelling, which pricing decoded again for each.
_DECODED = 1024
_INTS = re.compile(_INT)


@dataclass(frozen=True, slots=True)
class WindowDimension:
    """One dimension of an HLO ``window={...}`` attribute."""

    size: int = 1
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1
    base_dilation: int = 1


@dataclass(frozen=True, slots=True)
class ConvolutionLabels:
    """``dim_labels=b01f_01io->b01f`` decoded into dimension numbers."""

    input_batch: int
    input_feature: int
    input_spatial: tuple[int, ...]
    kernel_input_feature: int
    kernel_output_feature: int
    kernel_spatial: tuple[int, ...]
    output_batch: int
    output_feature: int
    output_spatial: tuple[int, ...]


@lru_cache(maxsize=_DECODED)
def parse_window(text: str | None) -> tuple[WindowDimension, ...]:
    """``{size=3x3 stride=2x2 pad=1_1x1_1}`` -> one `WindowDimension` per
    spatial dimension; raises `ValueSyntaxError` (offset in ``text``) when it
    does not read as XLA prints windows."""
    if not text:
        return ()
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueSyntaxError("expects a window in braces: {size=... stride=...}", 0)
    fields: dict[str, list[str]] = {}
    pos, end = 1, len(text) - 1
    while pos < end:
        if text[pos] == " ":
            pos += 1
            continue
        m = _WINDOW_FIELD.match(text, pos, end)
        if m is None or (m.end() < end and text[m.end()] != " "):
            bad = text[pos:end].split(" ", 1)[0]
            raise ValueSyntaxError(f"window field {bad[:40]!r} does not read", pos)
        key = m.group(1) or m.group(3) or m.group(5)
        if key in fields:
            raise ValueSyntaxError(f"window gives {key} twice", pos)
        fields[key] = (m.group(2) or m.group(4) or m.group(6)).split("x")
        pos = m.end()
    ranks = {len(v) for v in fields.values()}
    if len(ranks) > 1:
        raise ValueSyntaxError(
            "window fields of different lengths: "
            + ", ".join(f"{k} has {len(v)}" for k, v in fields.items()),
            1,
        )
    rank = ranks.pop() if ranks else 0

    def ints(key: str, default: int) -> list[int]:
        values = fields.get(key)
        return [int(v) for v in values] if values else [default] * rank

    sizes, strides = ints("size", 1), ints("stride", 1)
    lhs, rhs = ints("lhs_dilate", 1), ints("rhs_dilate", 1)
    pads = [p.split("_") for p in fields.get("pad", ["0_0"] * rank)]
    if 0 in sizes or 0 in strides or 0 in lhs or 0 in rhs:
        raise ValueSyntaxError("window sizes, strides and dilations are at least 1", 1)
    return tuple(
        WindowDimension(sizes[k], strides[k], int(pads[k][0]), int(pads[k][1]), rhs[k], lhs[k])
        for k in range(rank)
    )


@lru_cache(maxsize=_DECODED)
def parse_dim_labels(text: str | None) -> ConvolutionLabels | None:
    """``b01f_01io->b01f`` -> dimension numbers (None: no labels); raises
    `ValueSyntaxError` for labels that do not name each dimension once."""
    if not text:
        return None
    m = _DIM_LABELS.fullmatch(text)
    if m is None:
        raise ValueSyntaxError("expects dim_labels as lhs_rhs->out (b01f_01io->b01f)", 0)
    lhs, rhs, out = m.groups()
    for labels, needs in ((lhs, "bf"), (rhs, "io"), (out, "bf")):
        digits = [c for c in labels if c.isdigit()]
        letters = [c for c in labels if not c.isdigit() and c != "?"]
        if sorted(letters) != sorted(needs) or sorted(digits) != [
            str(k) for k in range(len(digits))
        ]:
            raise ValueSyntaxError(
                f"dim_labels part {labels!r} names its dimensions other than once each", 0
            )
    if not len(lhs) == len(rhs) == len(out):
        raise ValueSyntaxError("dim_labels parts of different lengths", 0)

    def spatial(labels: str) -> tuple[int, ...]:
        digits = sorted((int(c), k) for k, c in enumerate(labels) if c.isdigit())
        return tuple(k for _, k in digits)

    return ConvolutionLabels(
        lhs.index("b"),
        lhs.index("f"),
        spatial(lhs),
        rhs.index("i"),
        rhs.index("o"),
        spatial(rhs),
        out.index("b"),
        out.index("f"),
        spatial(out),
    )


def braced_ints(value: str) -> tuple[int, ...]:
    """``{1,0}`` -> ``(1, 0)``: the integers in a value (each at most int64's
    19 digits: the parser refused longer ones)."""
    return tuple(int(x) for x in _INTS.findall(value))


def count(value: str | None, default: int) -> int:
    """A count attribute (``feature_group_count=2``), ``default`` when absent."""
    return int(value) if value else default


def _check_braced(value: str) -> str | None:
    return None if _BRACED.fullmatch(value) else "expects integers in braces, as {0,1}"


def _check_count(value: str) -> str | None:
    return None if _WHOLE_COUNT.fullmatch(value) else "expects a count (digits)"


def _check_group_count(value: str) -> str | None:
    if not _WHOLE_COUNT.fullmatch(value) or int(value) < 1:
        return "expects a count of at least 1"
    return None


def _check_window(value: str) -> str | None:
    try:
        parse_window(value)
    except ValueSyntaxError as err:
        return str(err)
    return None


def _check_dim_labels(value: str) -> str | None:
    try:
        parse_dim_labels(value)
    except ValueSyntaxError as err:
        return str(err)
    return None


# Each attribute an analysis reads, and what its value must be.
CHECKS = {
    "window": _check_window,
    "dim_labels": _check_dim_labels,
    "feature_group_count": _check_group_count,
    "batch_group_count": _check_group_count,
    "dimensions": _check_braced,
    "lhs_contracting_dims": _check_braced,
    "rhs_contracting_dims": _check_braced,
    "lhs_batch_dims": _check_braced,
    "rhs_batch_dims": _check_braced,
    "rhs_group_dims": _check_braced,
    "fft_length": _check_braced,
    "index": _check_count,
}
# Where such an attribute starts in a computation's text as XLA prints it, and
# its value up to the next attribute: for `bad_values` (a superset of the real
# ones: a string holding ", index=" is checked too, and only costs the careful
# parser's look at that computation).
_INTERPRETED = re.compile(r", (" + "|".join(CHECKS) + r")=(\{[^{}\n]*\}|[^,{}\s]*)")
# Values known to read: a module repeats the same few thousand.
_GOOD: set[tuple[str, str]] = set()
_MAX_GOOD = 200_000


def bad_values(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (a computation's body) holds an attribute
    of `CHECKS` whose value does not read: then the careful parser takes the
    computation and says which instruction is wrong."""
    good = _GOOD
    for found in set(findall_by_lines(_INTERPRETED, text, start, end)).difference(good):
        if CHECKS[found[0]](found[1]) is not None:
            return True
        if len(good) >= _MAX_GOOD:
            good.clear()
        good.add(found)
    return False


def names_checked(attribute_text: str) -> bool:
    """Whether an attribute list (as XLA prints it) may hold one of `CHECKS`."""
    return _INTERPRETED.search(attribute_text) is not None


def check_items(items: list[tuple[str, str, int]]) -> tuple[int, str] | None:
    """The first of `scan_attributes`'s items that `CHECKS` refuses: (its
    value's offset, what is wrong), or None."""
    for name, value, offset in items:
        check = CHECKS.get(name)
        if check is not None:
            message = check(value)
            if message is not None:
                return offset, f"{name}={value[:60]}: {message}"
    return None


def check_attributes(attribute_text: str) -> tuple[int, str] | None:
    """`check_items` of an attribute list's text (None also when the list
    itself does not scan: that is the parser's to report)."""
    if not attribute_text or "=" not in attribute_text:
        return None
    try:
        items, _ = scan_attributes(attribute_text, 0)
    except ValueSyntaxError:
        return None
    return check_items(items)
