"""The room left in each layer of a layout: the x intervals its nodes take,
and the free spot nearest to where a node (or an edge waypoint) should go.

An incremental step places new nodes among nodes that must not move, so it
cannot pack a layer afresh: it looks for a gap wide enough, as close as can
be to where the node's neighbours are.
"""

from __future__ import annotations

import bisect

# Separations computed by a fresh layout touch exactly, up to rounding: a
# node put back in its own gap must fit.
EPS = 1e-6


class Bands:
    """Occupied x intervals per layer, disjoint and sorted (touching allowed).

    A node of width ``w`` at ``x`` takes ``[x - w/2 - gap/2, x + w/2 + gap/2]``,
    so that two nodes whose intervals do not overlap are at least ``gap``
    apart, as in a fresh layout.
    """

    __slots__ = ("_lefts", "_rights")

    def __init__(self) -> None:
        self._lefts: dict[int, list[float]] = {}
        self._rights: dict[int, list[float]] = {}

    def fill(self, layer: int, lefts: list[float], rights: list[float]) -> None:
        """Set the intervals of an empty ``layer``, sorted and disjoint."""
        self._lefts[layer] = lefts
        self._rights[layer] = rights

    def add(self, layer: int, left: float, right: float) -> None:
        lefts = self._lefts.setdefault(layer, [])
        rights = self._rights.setdefault(layer, [])
        i = bisect.bisect_left(lefts, left)
        lefts.insert(i, left)
        rights.insert(i, right)

    def remove(self, layer: int, left: float, right: float) -> None:
        lefts, rights = self._lefts[layer], self._rights[layer]
        i = bisect.bisect_left(lefts, left)
        while rights[i] != right or lefts[i] != left:
            i += 1
        del lefts[i], rights[i]

    def is_free(self, layer: int, left: float, right: float) -> bool:
        """Whether ``[left, right]`` overlaps no interval (touching is fine)."""
        lefts = self._lefts.get(layer)
        if not lefts:
            return True
        rights = self._rights[layer]
        i = bisect.bisect_left(lefts, right - EPS)
        # Only the interval starting just before ``right`` can overlap: the
        # intervals are disjoint, so those before it end before it starts.
        return i == 0 or rights[i - 1] <= left + EPS

    def nearest_free(self, layer: int, want: float, half: float, lowest: float) -> float:
        """The centre closest to ``want``, not below ``lowest``, whose interval
        ``[c - half, c + half]`` overlaps no interval of ``layer``."""
        want = max(want, lowest)
        lefts = self._lefts.get(layer)
        if not lefts:
            return want
        rights = self._rights[layer]
        count = len(lefts)
        # Gap j lies between interval j-1 and interval j (gap 0 before the
        # first, gap count after the last); want falls in gap i or in
        # interval i-1.
        i = bisect.bisect_right(lefts, want)
        best: float | None = None
        for j in range(i, count + 1):  # rightwards: the first gap that fits is the best
            low = max(lowest, rights[j - 1] + half if j else lowest)
            high = lefts[j] - half if j < count else float("inf")
            if low <= high + EPS:
                best = _clamp(want, low, high)
                break
        for j in range(i - 1, -1, -1):  # leftwards, while it can still beat best
            high = lefts[j] - half
            if high < lowest or (best is not None and want - high >= best - want):
                break
            low = max(lowest, rights[j - 1] + half if j else lowest)
            if low <= high + EPS:
                candidate = _clamp(want, low, high)
                if best is None or abs(candidate - want) < abs(best - want):
                    best = candidate
                break
        assert best is not None  # the gap after the last interval always fits
        return best


def _clamp(want: float, low: float, high: float) -> float:
    """``want`` itself when it fits up to rounding (a node put back where it
    was must not drift by a rounding error), else the nearest end."""
    if low - EPS <= want <= high + EPS:
        return want
    return min(max(want, low), high)
