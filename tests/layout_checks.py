"""What every layout must hold, fresh or stepped, checked by the layout tests."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

from xlaview.analysis.drawing import GraphLayout, LayoutNode

EPS = 1e-6


def check_layer_boxes(
    name: str,
    layout: GraphLayout,
    size: Mapping[str, LayoutNode],
    keys: list[str],
    level: int,
    node_gap: float,
) -> None:
    """The boxes of layer ``level`` (``keys``) side by side, ``node_gap`` apart
    at least, and inside the layout's width and height."""
    keys = sorted(keys, key=lambda k: layout.positions[k][0])
    for left, right in pairwise(keys):
        room = (size[left].width + size[right].width) / 2 + node_gap
        gap = layout.positions[right][0] - layout.positions[left][0]
        assert gap >= room - EPS, f"{name}: {left!r} and {right!r} overlap in layer {level}"
    for key in keys:
        x, y = layout.positions[key]
        node = size[key]
        assert x - node.width / 2 >= -EPS and x + node.width / 2 <= layout.width + EPS, (
            f"{name}: {key!r} outside the width"
        )
        assert y - node.height / 2 >= -EPS and y + node.height / 2 <= layout.height + EPS, (
            f"{name}: {key!r} outside the height"
        )
