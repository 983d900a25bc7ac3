"""Attribute lists of instructions and module headers, parsed on demand.

The parser keeps each instruction's attributes as the raw text it found
(``, dimensions={0}, metadata={...}``); these functions split that text when a
view asks for it. Values stay as text unless a helper here decodes them, so an
attribute XLA adds later is kept, not rejected.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from operator import methodcaller
from typing import Any

from xlaview.errors import XlaviewError

_SKIP = re.compile(r"(?:\s+|/\*.*?\*/|//[^\n]*)*", re.S)
_ATTR_NAME = re.compile(r"[A-Za-z_][\w.\-]*")
# A string may hold raw newlines (XLA prints an origin_recovery_table so):
# the careful parser checks where an instruction holding one ends.
STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"|\'[^\'\\]*+(?:\\.[^\'\\]*+)*+\'', re.S)
_OPEN = {"{": "}", "(": ")", "[": "]"}
_PLAIN_RUN = re.compile(r"[^\"'{}()\[\]/]+")
_BARE_STOP = frozenset(" \t\r\n,)}]")
_TYPED_LITERAL_SHAPE = re.compile(r"[a-z][a-z0-9]*\[[^\]]*\](?:\{[^}]*\})?")
_SCALAR_LITERAL = re.compile(r"-?(?:inf|nan|true|false|[0-9.]+(?:[eE][+-]?\d+)?)")


class ValueSyntaxError(XlaviewError, ValueError):
    """A value does not end where it should; ``offset`` is where scanning stopped."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def scan_balanced(text: str, pos: int) -> int:
    """End offset of the bracketed group that opens at ``pos`` (strings respected)."""
    stack = [_OPEN[text[pos]]]
    i = pos + 1
    n = len(text)
    plain = _PLAIN_RUN.match
    while i < n:
        run = plain(text, i)  # a stretch with nothing to look at, skipped in C
        if run is not None:
            i = run.end()
            if i >= n:
                break
        c = text[i]
        if c == '"' or c == "'":
            m = STRING.match(text, i)
            if not m:
                raise ValueSyntaxError("unterminated string", i)
            i = m.end()
            continue
        if c in _OPEN:
            stack.append(_OPEN[c])
        elif c in ")}]":
            if c != stack[-1]:
                raise ValueSyntaxError(f"expects {stack[-1]!r} but sees {c!r}", i)
            stack.pop()
            if not stack:
                return i + 1
        elif c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ValueSyntaxError("unterminated /* comment", i)
            i = end + 2
            continue
        i += 1
    raise ValueSyntaxError(f"expects {stack[-1]!r} before the end of the text", n)


def scan_value(text: str, pos: int) -> int:
    """End offset of one attribute value starting at ``pos``.

    A value is a bracketed group, a string, or a bare word that may itself hold
    brackets (``[2,4]<=[8]T(1,0)``, ``b01f_01io->b01f``, ``%computation``).
    """
    n = len(text)
    if pos >= n:
        raise ValueSyntaxError("expects a value", pos)
    c = text[pos]
    if c == '"' or c == "'":
        m = STRING.match(text, pos)
        if not m:
            raise ValueSyntaxError("unterminated string", pos)
        return m.end()
    if c in _OPEN:
        return scan_balanced(text, pos)
    i = pos
    while i < n:
        c = text[i]
        if c in _OPEN:
            i = scan_balanced(text, i)
            continue
        if c in _BARE_STOP:
            break
        i += 1
    if i == pos:
        raise ValueSyntaxError(f"expects a value but sees {text[pos]!r}", pos)
    # Two values hold a space: a mesh replica-group list
    # (``replica_groups=mesh['x'=2] {'x'}``) and a typed literal
    # (``literal=s32[2]{0} {1, 2}``).
    j = i
    while j < n and text[j] in " \t":
        j += 1
    if j > i and j < n and text[i - 1] in "]}":
        if text[j] == "{":
            return scan_balanced(text, j)
        if _TYPED_LITERAL_SHAPE.fullmatch(text, pos, i):
            m = _SCALAR_LITERAL.match(text, j)
            if m:
                return m.end()
    return i


# One `, name=value` item of the common forms, matched as `scan_attributes`
# reads it step by step: a double-quoted string; braces holding strings,
# square brackets and braces of those, two deep (``dimensions={0,1}``,
# ``metadata={op_name="..." source_line=3}``, ``slice={[0:2], [0:128]}``, a
# backend config's JSON ``{"a":[],"fusion_config":{"kind":"__ynn_fusion"}}``);
# or a bare word without brackets, quotes or slashes; then only space before
# the next comma or the end. Anything else (comments, deeper brackets, a value
# of two parts) goes the careful way. Splitting attributes was half the time
# of drawing a 16,000-op graph.
# A string as runs of plain characters between escapes: the same strings as
# ``"(?:[^"\\]|\\.)*+"``, matched a run at a time rather than through an
# alternation per character (a fifth of the time of splitting a fusion's attributes).
_STR = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_PLAIN = r"[^{}\"'/()\[\]]++"
_LIST = rf"\[(?:{_PLAIN}|{_STR})*+\]"
_INNER = rf"\{{(?:{_PLAIN}|{_STR}|{_LIST})*+\}}"
_PLAIN_ITEM = re.compile(
    r"\s*+,\s*+([A-Za-z_][\w.\-]*+)\s*+=\s*+"
    rf"({_STR}|\{{(?:{_PLAIN}|{_STR}|{_LIST}|{_INNER})*+\}}|[^\s,(){{}}\[\]\"'/]++)"
    r"(?=\s*+(?:,|\Z))",
    re.S,
)


def scan_attributes(text: str, pos: int) -> tuple[list[tuple[str, str, int]], int]:
    """Parse ``, name=value`` pairs from ``pos``; returns them and the end offset.

    Each item is (name, raw value, value offset). Scanning stops at the first
    character after a value that is not a comma.
    """
    items: list[tuple[str, str, int]] = []
    fast = _PLAIN_ITEM.match
    while True:
        m = fast(text, pos)
        if m is not None:  # the common forms in one match, in C
            items.append((m.group(1), m.group(2), m.start(2)))
            pos = m.end()
            continue
        p = _SKIP.match(text, pos).end()  # type: ignore[union-attr]
        if p >= len(text) or text[p] != ",":
            return items, pos
        p = _SKIP.match(text, p + 1).end()  # type: ignore[union-attr]
        m = _ATTR_NAME.match(text, p)
        if not m:
            raise ValueSyntaxError("expects attribute name", p)
        p = _SKIP.match(text, m.end()).end()  # type: ignore[union-attr]
        if p >= len(text) or text[p] != "=":
            raise ValueSyntaxError(f"expects '=' after attribute {m.group()!r}", p)
        p = _SKIP.match(text, p + 1).end()  # type: ignore[union-attr]
        end = scan_value(text, p)
        items.append((m.group(), text[p:end], p))
        pos = end


_NAME_VALUE = methodcaller("group", 1, 2)


@lru_cache(maxsize=8192)
def split_attributes(text: str) -> dict[str, str]:
    """``", a=1, b={2}"`` -> ``{"a": "1", "b": "{2}"}`` (raw values, text order)."""
    # A scanner's match() tries where the last match ended, as `scan_attributes`
    # calls the one-match form: when those matches reach the end of the text,
    # they are all the items it would find, and no careful step would follow.
    # Matched and gathered in C: no Python step per item.
    matches = list(iter(_PLAIN_ITEM.scanner(text).match, None))  # type: ignore[attr-defined]
    if matches and matches[-1].end() == len(text):
        return dict(map(_NAME_VALUE, matches))
    try:
        items, _ = scan_attributes(text, 0)
    except ValueSyntaxError:
        return {}
    return {name: value for name, value, _ in items}


# A fusion's attributes as XLA prints them: its kind, the computation it calls,
# then its metadata, op_name first (JAX's; TensorFlow's puts op_type first:
# split then), or nothing more.
_FUSION_HEAD = re.compile(
    r", kind=(k[A-Za-z]+), calls=%?([A-Za-z_][\w.\-]*)"
    r'(?:, metadata=\{op_name="([^"\\\n]*+(?:\\.[^"\\\n]*+)*+)"(?=[ }])|\Z)'
)


def fusion_head(attribute_text: str) -> tuple[str, str, str] | None:
    """A fusion's kind, the computation it calls and its op_name, when its
    attributes start as XLA prints them (``, kind=kLoop, calls=%f,
    metadata={op_name="..."``), read with one match anchored at the start;
    None otherwise (`split_attributes` then). A graph reads these of every
    fusion of a 60,000-op entry: splitting all of each's attributes took 6 µs
    of a node's 17."""
    m = _FUSION_HEAD.match(attribute_text)
    if m is None:
        return None
    op_name = m.group(3) or ""  # (none: the attributes end after calls)
    return m.group(1), m.group(2), unquote(f'"{op_name}"') if "\\" in op_name else op_name


_META_ITEM = re.compile(r'([A-Za-z_]\w*)=("[^"\\]*+(?:\\.[^"\\]*+)*+"|[^\s}]+)')


@lru_cache(maxsize=8192)
def parse_metadata(value: str) -> dict[str, str | int]:
    """``{op_name="x" source_line=3}`` -> ``{"op_name": "x", "source_line": 3}``."""
    out: dict[str, str | int] = {}
    for key, raw in _META_ITEM.findall(value):
        if raw.startswith('"'):
            out[key] = unquote(raw)
        else:
            try:
                out[key] = int(raw)
            except ValueError:
                out[key] = raw
    return out


# C escapes, as XLA's CEscape writes them; an unknown one (`\m`) stays as it is.
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|.)", re.S)
_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "?": "?",
}


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] == "x" and len(code) > 1:
        return chr(int(code[1:], 16))
    if code[0] in "01234567":
        return chr(int(code, 8))
    return _SIMPLE_ESCAPES.get(code, match.group())


def unquote(value: str) -> str:
    """The content of a C-escaped HLO string literal (quotes removed)."""
    if len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0]:
        body = value[1:-1]
        return _ESCAPE.sub(_unescape, body) if "\\" in body else body
    return value


_MODULE_NAME = re.compile(r'"(?:[^"\\\n]|\\.)*"|[^\s,]+')


def read_module_name(text: str, pos: int) -> tuple[str, int] | None:
    """The module name that starts at ``pos`` (after ``HloModule``), quoted
    (``"jit my, module"``) or bare, and where it ends; None if there is none.
    The parser and the index both read names with this."""
    m = _MODULE_NAME.match(text, pos)
    if m is None:
        return None
    raw = m.group()
    return (unquote(raw) if raw.startswith('"') else raw.rstrip(":")), m.end()


_NAME_IN_LIST = re.compile(r"%?([A-Za-z_][\w.\-]*)")


def computation_names(value: str) -> tuple[str, ...]:
    """``%c`` or ``{%a, %b}`` -> names without ``%``."""
    return tuple(_NAME_IN_LIST.findall(value))


def decode_backend_config(value: str) -> Any:
    """The backend_config as a Python object when it is JSON, else its text."""
    raw = unquote(value) if value[:1] in "\"'" else value
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past any config
        return raw
