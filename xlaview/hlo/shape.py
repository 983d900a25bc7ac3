"""HLO shapes and layouts: parsing, printing and byte sizes.

Shapes are parsed from their text once and interned (`parse_shape` is cached):
a module with 20k instructions typically has a few hundred distinct shapes.
``str(shape)`` gives back the text XLA printed.
"""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from xlaview.errors import XlaviewError

# Bits of storage per element when the layout gives no element size (E(n)).
# XLA stores sub-byte types one per byte unless the layout packs them.
ELEMENT_BITS: dict[str, int] = {
    "pred": 8,
    "s1": 8, "s2": 8, "s4": 8, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "u1": 8, "u2": 8, "u4": 8, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
    "f4e2m1fn": 8, "f8e8m0fnu": 8,
    "f8e5m2": 8, "f8e4m3": 8, "f8e4m3fn": 8, "f8e4m3b11fnuz": 8, "f8e5m2fnuz": 8,
    "f8e4m3fnuz": 8, "f8e3m4": 8,
    "c64": 64, "c128": 128,
    "token": 0, "opaque": 0,
}  # fmt: skip


# Logical width of each type, for readers (and E(n) defaults when packed).
@dataclass(frozen=True, slots=True)
class Layout:
    """A dense layout: ``{minor_to_major:attributes}``.

    ``tiles`` holds each tile as a tuple of dimensions (``-1`` for ``*``, a
    combined dimension). ``element_size_bits`` is ``E(n)``, ``memory_space``
    is ``S(n)``; anything else XLA adds later is kept in ``other``.
    """

    minor_to_major: tuple[int, ...]
    tiles: tuple[tuple[int, ...], ...] = ()
    element_size_bits: int | None = None
    memory_space: int | None = None
    other: tuple[str, ...] = ()
    text: str = ""

    @property
    def tile_strings(self) -> tuple[str, ...]:
        return tuple("(" + ",".join("*" if d < 0 else str(d) for d in t) + ")" for t in self.tiles)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Shape:
    """An array shape, a tuple of shapes, a token or an opaque value.

    ``dims`` are the (upper-bound) sizes; ``dynamic[i]`` is true for ``<=N``
    and ``?`` dimensions. Tuples have ``element_type == "tuple"`` and
    ``elements``.
    """

    element_type: str
    dims: tuple[int, ...] = ()
    dynamic: tuple[bool, ...] = ()
    layout: Layout | None = None
    elements: tuple[Shape, ...] = ()
    text: str = field(default="", compare=False)
    # byte_size(), kept once computed: shapes are shared by every instruction
    # of their text, and an analysis asks for them a hundred thousand times.
    _bytes: int = field(default=-1, init=False, compare=False, repr=False)

    @property
    def is_tuple(self) -> bool:
        return self.element_type == "tuple"

    @property
    def is_array(self) -> bool:
        return self.element_type not in ("tuple", "token", "opaque", "unknown")

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def element_count(self) -> int:
        return math.prod(self.dims)

    def leaves(self) -> tuple[Shape, ...]:
        """Every non-tuple shape inside, depth first."""
        if not self.is_tuple:
            return (self,)
        return tuple(leaf for e in self.elements for leaf in e.leaves())

    def padded_dims(self) -> tuple[int, ...]:
        """Dimensions in physical (major-to-minor) order, padded to the first tile."""
        order = self._major_to_minor()
        dims = [max(self.dims[i], 0) for i in order]  # '?' (unbounded) counts as 0
        if self.layout and self.layout.tiles:
            tile = self.layout.tiles[0]
            k = len(tile)
            if k <= len(dims):
                for j, t in enumerate(tile):
                    if t > 0:
                        d = len(dims) - k + j
                        dims[d] = -(-dims[d] // t) * t
        return tuple(dims)

    def byte_size(self) -> int:
        """Bytes of storage, padding to tiles included; tuples sum their leaves."""
        size = self._bytes
        if size < 0:
            if self.is_tuple:
                size = sum(e.byte_size() for e in self.elements)
            else:
                count = math.prod(self.padded_dims())
                if self.layout and len(self.layout.tiles) > 1:
                    count = self._count_with_subtiles()
                size = self._storage_bytes(count)
            object.__setattr__(self, "_bytes", size)  # frozen to users, a cache here
        return size

    def unpadded_byte_size(self) -> int:
        """Bytes the elements themselves take, without tile padding."""
        if self.is_tuple:
            return sum(e.unpadded_byte_size() for e in self.elements)
        return self._storage_bytes(math.prod(max(d, 0) for d in self.dims))

    def _storage_bytes(self, count: int) -> int:
        """Bytes of ``count`` elements: packed to the layout's element size
        (``E(n)``, rounded up to a byte), or at the type's width."""
        packed = self.layout.element_size_bits if self.layout else None
        if packed:
            return -(-count * packed // 8)
        return count * ELEMENT_BITS.get(self.element_type, 0) // 8

    def _count_with_subtiles(self) -> int:
        # Later tiles apply inside the first tile's shape (e.g. (2,1) packing
        # of bf16 inside an (8,128) tile): pad the tile, then count tiles.
        assert self.layout
        padded = self.padded_dims()
        first = [t for t in self.layout.tiles[0]]
        tile = [t if t > 0 else 1 for t in first]
        for sub in self.layout.tiles[1:]:
            k = min(len(sub), len(tile))
            for j in range(k):
                t = sub[len(sub) - k + j]
                if t > 0:
                    d = len(tile) - k + j
                    tile[d] = -(-tile[d] // t) * t
        per_tile = math.prod(tile)
        tiled = list(padded)
        n_tiles = 1
        for j, t in enumerate(first):
            d = len(tiled) - len(first) + j
            if t > 0 and d >= 0:
                n_tiles *= tiled[d] // t
        outer = math.prod(tiled[: len(tiled) - len(first)]) if len(first) <= len(tiled) else 1
        return outer * n_tiles * per_tile

    def _major_to_minor(self) -> list[int]:
        if self.layout and len(self.layout.minor_to_major) == len(self.dims):
            return list(reversed(self.layout.minor_to_major))
        return list(range(len(self.dims)))

    def __str__(self) -> str:
        return self.text or self._format()

    def _format(self) -> str:
        if self.element_type == "unknown":
            return ""
        if self.is_tuple:
            return "(" + ", ".join(str(e) for e in self.elements) + ")"
        dims = ",".join(
            f"<={d}" if dyn else str(d) for d, dyn in zip(self.dims, self.dynamic, strict=False)
        )
        layout = f"{{{self.layout.text}}}" if self.layout and self.layout.text else ""
        return f"{self.element_type}[{dims}]{layout}"


# The shape of an instruction written without one, until the parser infers it
# as XLA does (`xlaview.hlo.parse.inference`); kept where it cannot.
UNKNOWN_SHAPE = Shape("unknown")


class ShapeSyntaxError(XlaviewError, ValueError):
    """A shape's text does not parse; ``offset`` is relative to that text."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


# Tuples nest a few levels in real programs. Deeper ones are refused with an
# error: shapes are compared, hashed and printed recursively, and a thousand
# levels would end in RecursionError far from the text that caused it.
MAX_TUPLE_DEPTH = 64

_SKIP = re.compile(r"(?:\s+|/\*.*?\*/|//[^\n]*)*", re.S)
_LINE_COMMENT = re.compile(r"//[^\n]*")
_ARRAY = re.compile(r"([a-z][a-z0-9]*)\[([^\]]*)\]")
_ARRAY_ON_ONE_LINE = re.compile(r"[a-z][a-z0-9]*\[[^\]\n]*\](?:\{[^{}\n]*\})?")
_AFTER_ELEMENT = frozenset((",", ")", " "))  # what may follow a tuple's element
# Sizes are int64 in XLA: at most 19 digits (a longer run never reaches int(),
# which refuses 4,300 digits and is quadratic below that).
_DIM = re.compile(r"\s*(?:(<=)?\s*(\d{1,19})|(\?))\s*$")
_LAYOUT_ITEM = re.compile(r"([A-Z#*]+)\(")
_INT = re.compile(r"-?\d{1,19}")
_TILE_DIM = re.compile(r"\s*(?:(\d{1,19})|\*)\s*")
INT64_MAX = (1 << 63) - 1
MAX_ELEMENT_BITS = 64  # E(n): XLA packs sub-byte types; no element is wider


@lru_cache(maxsize=65536)
def parse_shape(text: str) -> Shape:
    """Parse one shape (``f32[2,3]{1,0}``, ``(s32[], f32[4]{0})``, ``token[]``).

    Raises `ShapeSyntaxError` with an offset into ``text``.
    """
    shape, end = _parse_at(text, 0)
    end = _SKIP.match(text, end).end()  # type: ignore[union-attr]
    if end != len(text):
        raise ShapeSyntaxError(f"unexpected {text[end : end + 10]!r} after shape", end)
    return shape


def scan_shape(text: str, pos: int) -> tuple[Shape, int]:
    """Parse a shape that starts at ``pos`` in a larger text; returns it and its end."""
    start = pos
    m = _ARRAY_ON_ONE_LINE.match(text, pos)
    if m is not None:  # the common case: the cached parse of its text
        try:
            return parse_shape(m.group()), m.end()
        except ShapeSyntaxError:
            pass  # located below
    shape, end = _parse_at(text, pos)
    raw = text[start:end]
    if "\n" in raw or "\r" in raw:
        raw = " ".join(_LINE_COMMENT.sub("", raw).split())
    return parse_shape(raw), end


def _parse_at(text: str, pos: int, depth: int = 0) -> tuple[Shape, int]:
    start = pos = _SKIP.match(text, pos).end()  # type: ignore[union-attr]
    if pos < len(text) and text[pos] == "(":
        if depth >= MAX_TUPLE_DEPTH:
            raise ShapeSyntaxError(f"tuple shapes nested more than {MAX_TUPLE_DEPTH} deep", pos)
        elements = []
        pos = _SKIP.match(text, pos + 1).end()  # type: ignore[union-attr]
        if pos < len(text) and text[pos] == ")":
            return Shape("tuple", text=text[start : pos + 1]), pos + 1
        while True:
            # An array element is the cached parse of its text: a train
            # step's parameter tuple repeats a few dozen shapes 3,000 times
            # (69 ms parsed one by one, on the graph's path at open).
            # Anything else (a layout cut short, a bad element) is parsed in
            # place, where its error is located.
            pos = _SKIP.match(text, pos).end()  # type: ignore[union-attr]
            m = _ARRAY_ON_ONE_LINE.match(text, pos)
            element = None
            if m is not None and text[m.end() : m.end() + 1] in _AFTER_ELEMENT:
                with contextlib.suppress(ShapeSyntaxError):
                    element, pos = parse_shape(m.group()), m.end()
            if element is None:
                element, pos = _parse_at(text, pos, depth + 1)
            elements.append(element)
            pos = _SKIP.match(text, pos).end()  # type: ignore[union-attr]
            if pos < len(text) and text[pos] == ",":
                pos += 1
                continue
            if pos < len(text) and text[pos] == ")":
                pos += 1
                return Shape("tuple", elements=tuple(elements), text=text[start:pos]), pos
            raise ShapeSyntaxError("expects ')' or ',' in tuple shape", pos)
    m = _ARRAY.match(text, pos)
    if not m:
        raise ShapeSyntaxError("expects a shape", pos)
    element_type = m.group(1)
    if element_type not in ELEMENT_BITS:
        raise ShapeSyntaxError(f"unknown element type {element_type!r}", pos)
    dims, dynamic = _parse_dims(m.group(2), m.start(2))
    pos = m.end()
    layout = None
    if pos < len(text) and text[pos] == "{":
        close = text.find("}", pos)
        if close < 0:
            raise ShapeSyntaxError("expects '}' at the end of the layout", pos)
        layout = _parse_layout(text[pos + 1 : close], pos + 1)
        m2m = layout.minor_to_major
        if m2m and sorted(m2m) != list(range(len(dims))):
            raise ShapeSyntaxError(
                f"layout {{{','.join(map(str, m2m))}}} is not an order of the "
                f"{len(dims)} dimensions of {element_type}[{m.group(2)}]",
                pos + 1,
            )
        pos = close + 1
    shape = Shape(element_type, dims, dynamic, layout, text=text[start:pos])
    if shape.byte_size() > INT64_MAX:
        raise ShapeSyntaxError(
            f"{element_type}[{m.group(2)}] holds more bytes than int64 counts", m.start(2)
        )
    return shape, pos


def _parse_dims(text: str, base: int) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    if not text.strip():
        return (), ()
    dims, dynamic = [], []
    for item in text.split(","):
        m = _DIM.match(item)
        if not m:
            raise ShapeSyntaxError(f"expects a dimension size, got {item.strip()!r}", base)
        if m.group(3):  # '?': unbounded dynamic
            dims.append(-1)
            dynamic.append(True)
        else:
            size = int(m.group(2))
            if size > INT64_MAX:
                raise ShapeSyntaxError(f"dimension size {size} is more than int64 holds", base)
            dims.append(size)
            dynamic.append(bool(m.group(1)))
        base += len(item) + 1
    return tuple(dims), tuple(dynamic)


def _parse_layout(text: str, base: int) -> Layout:
    head, _, attrs = text.partition(":")
    items = [x for x in head.split(",") if x.strip()]
    if not all(_INT.fullmatch(x.strip()) for x in items):
        raise ShapeSyntaxError("expects integers in layout", base)
    minor_to_major = tuple(int(x) for x in items)
    tiles: list[tuple[int, ...]] = []
    element_bits = memory_space = None
    other: list[str] = []
    pos = 0
    attrs = attrs.strip()
    while pos < len(attrs):
        m = _LAYOUT_ITEM.match(attrs, pos)
        if not m:
            raise ShapeSyntaxError(f"unexpected {attrs[pos : pos + 8]!r} in layout", base)
        kind = m.group(1)
        groups = []
        pos = m.end() - 1
        while pos < len(attrs) and attrs[pos] == "(":
            close = _matching_paren(attrs, pos)
            if close < 0:
                raise ShapeSyntaxError("expects ')' in layout", base + pos)
            groups.append(attrs[pos + 1 : close])
            pos = close + 1
            if kind != "T":
                break
        if not groups:
            raise ShapeSyntaxError(f"expects '(' after {kind} in layout", base + pos)
        if kind == "T":
            for g in groups:
                tiles.append(_tile(g, base + pos))
        elif kind == "E" and _INT.fullmatch(groups[0].strip()):
            element_bits = int(groups[0])
            if not 0 <= element_bits <= MAX_ELEMENT_BITS:
                raise ShapeSyntaxError(
                    f"element size E({element_bits}): expects 0 to {MAX_ELEMENT_BITS} bits",
                    base + pos,
                )
        elif kind == "S" and _INT.fullmatch(groups[0].strip()):
            memory_space = int(groups[0])
            if memory_space < 0:
                raise ShapeSyntaxError(f"memory space S({memory_space}) is negative", base + pos)
        elif kind in ("E", "S"):
            raise ShapeSyntaxError(f"expects an integer in {kind}({groups[0]})", base + pos)
        else:
            other.append(f"{kind}({groups[0]})")
        while pos < len(attrs) and attrs[pos] == " ":
            pos += 1
    return Layout(minor_to_major, tuple(tiles), element_bits, memory_space, tuple(other), text)


def _tile(text: str, base: int) -> tuple[int, ...]:
    """One tile's dimensions (``8,128``; ``*`` combines dimensions, -1 here)."""
    dims = []
    for item in text.split(","):
        m = _TILE_DIM.fullmatch(item)
        if m is None:
            raise ShapeSyntaxError(f"expects a tile size, got {item.strip()[:20]!r}", base)
        size = -1 if m.group(1) is None else int(m.group(1))
        if size == 0 or size > INT64_MAX:
            raise ShapeSyntaxError(f"tile size {size} is not a size", base)
        dims.append(size)
    return tuple(dims)


def _matching_paren(text: str, pos: int) -> int:
    depth = 0
    for i in range(pos, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def describe_dimension_order(shape: Shape) -> str:
    """Minor-to-major as words: ``row-major``, ``column-major`` or the order itself."""
    if not shape.layout or shape.rank < 2:
        return "row-major" if shape.rank < 2 else "default (row-major)"
    m2m = shape.layout.minor_to_major
    if list(m2m) == list(range(shape.rank - 1, -1, -1)):
        return "row-major"
    if list(m2m) == list(range(shape.rank)):
        return "column-major"
    major_to_minor = ",".join(str(d) for d in reversed(m2m))
    return f"dimensions {major_to_minor} from major to minor"
