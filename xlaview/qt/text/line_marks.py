"""Background colours over line ranges of the HLO text, by kind (a diff's
added and changed lines, the selection, its operands and users, search hits,
a comparison's marks), drawn as a text view's extra selections."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from itertools import islice
from operator import itemgetter

from PySide6.QtGui import QColor, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import QTextEdit

from xlaview.analysis.marks import merged_ranges

# Later kinds paint over earlier ones: blocks, then neighbours, then the selection.
ORDER = (
    "compare-changed", "compare-regrouped", "compare-only",
    "diff-added", "diff-changed", "block", "operands", "users", "search", "selection",
)  # fmt: skip
# Marks are drawn over the lines in view and this many screens above and
# below; a scroll past them draws them again. Marks over the whole text cost a
# repaint per mark when they change (850 of a diff over a 5,000-line pass:
# 190 ms), however few are in view.
MARKED_SCREENS = 2
_LAST = itemgetter(1)  # a line range's last line

Ranges = Sequence[tuple[int, int]]


class LineMarks:
    """File line ranges (1-based, inclusive) and their colour, by kind, and
    the document blocks whose marks were drawn last."""

    def __init__(self) -> None:
        self._by_kind: dict[str, tuple[Ranges, str]] = {}
        self.blocks = (0, -1)  # the blocks drawn, first and last

    def set(self, kinds: Mapping[str, tuple[Ranges, str]], merged: bool) -> None:
        """``{kind: (ranges, colour)}``, the kinds not named kept; ``merged``:
        the ranges come sorted, none overlapping or touching."""
        for kind, (lines, colour) in kinds.items():
            self._by_kind[kind] = (lines if merged else merged_ranges(lines), colour)

    def clear(self) -> None:
        self._by_kind.clear()

    def ranges(self, kind: str) -> list[tuple[int, int]]:
        mark = self._by_kind.get(kind)
        return list(mark[0]) if mark else []

    def cover(self, top: int, bottom: int) -> bool:
        """Whether the blocks ``top`` to ``bottom`` were drawn."""
        return self.blocks[0] <= top and bottom <= self.blocks[1]

    def selections(
        self, document: QTextDocument, first: int, top: int, screen: int
    ) -> list[QTextEdit.ExtraSelection]:
        """The marks over the blocks of ``document`` (its first block file
        line ``first`` + 1) within `MARKED_SCREENS` screens of ``screen``
        lines of the block ``top`` in view."""
        shown = document.blockCount()
        low = max(0, top - MARKED_SCREENS * screen)
        high = min(shown - 1, top + (MARKED_SCREENS + 1) * screen)
        self.blocks = (low, high)
        selections = []
        for kind in ORDER:
            ranges, colour = self._by_kind.get(kind, ((), ""))
            # Only the ranges over the blocks marked (an unfused pass's diff
            # marks 50,000 ranges; a big text's window holds 1,200 lines).
            start = bisect_left(ranges, first + low + 1, key=_LAST)
            for one, last in islice(ranges, start, None):
                if one > first + high + 1:
                    break
                lo, hi = max(one - 1 - first, low), min(last - 1 - first, high)
                sel = QTextEdit.ExtraSelection()
                sel.format.setBackground(QColor(colour))
                sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                cursor = QTextCursor(document.findBlockByNumber(lo))
                if hi != lo:  # to the end of the last line: its start left it out
                    end = document.findBlockByNumber(hi)
                    cursor.setPosition(
                        end.position() + end.length() - 1, QTextCursor.MoveMode.KeepAnchor
                    )
                sel.cursor = cursor
                selections.append(sel)
        return selections
