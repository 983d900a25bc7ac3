"""Lines of big texts (`xlaview.text.lines`): where each line starts, found a
block at a time, is where a plain scan of every newline says."""

from __future__ import annotations

from bisect import bisect_right

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlaview.text import lines


def every_start(text: str) -> list[int]:
    return [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\n", max_size=60), st.integers(1, 8))
def test_line_starts_are_every_newline_whatever_the_blocks(text: str, block: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines, "BLOCK", block)
        starts = lines.LineStarts(text)
        expected = every_start(text)
        counted = lines.LineStarts(text)  # no block listed: lines are counted
        for offset in range(-1, len(text) + 2):
            assert counted.line_of(offset) == max(0, bisect_right(expected, offset) - 1)
        assert len(starts) == len(expected)
        assert list(starts) == expected
        assert starts[-1] == expected[-1] and starts[1:3] == expected[1:3]
        for offset in range(-1, len(text) + 2):  # every block listed now
            assert starts.line_of(offset) == max(0, bisect_right(expected, offset) - 1)
            assert bisect_right(starts, offset) == bisect_right(expected, offset)
        with pytest.raises(IndexError):
            starts[len(expected)]


def test_a_big_text_lists_only_the_blocks_asked() -> None:
    """Asking one line lists the starts of its block alone."""
    text = "".join(f"line {k}\n" for k in range(100_000))  # 1.1 MB: five blocks
    starts = lines.LineStarts(text)
    assert len(starts) == 100_001
    assert starts[70_000] == text.index("line 70000\n")
    listed = [b for b in starts._blocks if b is not None]
    assert len(listed) == 1 and len(starts._blocks) >= 4
