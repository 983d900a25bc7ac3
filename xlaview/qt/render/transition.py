"""The short animated transition between two layouts of a computation (a pass
step): nodes that moved travel from their old place to their new one, added
ones fade in, removed ones fade out, so that the eye can follow. Prepared off
the GUI thread with the layout; the canvas only paints it."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF

from xlaview.analysis.drawing import GraphLayout, LayoutStep
from xlaview.qt.render.canvas_parts import CanvasParts, Placed

DURATION_MS = 200
# A step that moves more nodes than this is not animated: a fresh layout (the
# fusion pass) moves everything, and drawing thousands of boxes one by one for
# each frame would stall the window; the status bar says it was laid out afresh.
MAX_ANIMATED = 600


@dataclass(frozen=True, slots=True)
class Transition:
    """``moving``: (where a node ends, its old top left); ``appearing``: added
    nodes; ``vanishing``: the old boxes of removed nodes."""

    moving: tuple[tuple[Placed, tuple[float, float]], ...]
    appearing: tuple[Placed, ...]
    vanishing: tuple[QRectF, ...]


def prepare_transition(
    step: LayoutStep, previous: GraphLayout | None, parts: CanvasParts
) -> Transition | None:
    """What to animate from ``previous`` to ``step.layout`` (None: nothing to
    animate, or too much)."""
    if previous is None or step.fresh:
        return None
    changed = len(step.moved) + len(step.added) + len(step.removed)
    if changed == 0 or changed > MAX_ANIMATED:
        return None
    moving = []
    for key in step.moved:
        placed = parts.placed.get(key)
        old = previous.positions.get(step.renamed.get(key, key))
        if placed is not None and old is not None:
            moving.append((placed, (old[0] - placed.width / 2, old[1] - placed.height / 2)))
    appearing = tuple(parts.placed[k] for k in step.added if k in parts.placed)
    vanishing = []
    for key in step.removed:
        centre, size = previous.positions.get(key), previous.sizes.get(key)
        if centre is not None and size is not None:
            vanishing.append(QRectF(centre[0] - size[0] / 2, centre[1] - size[1] / 2, *size))
    return Transition(tuple(moving), appearing, tuple(vanishing))
