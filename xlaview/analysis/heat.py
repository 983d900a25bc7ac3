"""A heat scale for per-op figures (estimated or measured time): which step
of a few each op falls in, on a log scale, so that a graph coloured by it shows
where the time goes at a glance."""

from __future__ import annotations

import math
from dataclasses import dataclass

STEPS = 6


@dataclass(frozen=True, slots=True)
class HeatScale:
    """``step`` of each op (0 = coolest, ``STEPS - 1`` = hottest) and the lower
    edge of each step, in the figures' unit."""

    step: dict[str, int]
    edges: tuple[float, ...]


def heat_scale(values: dict[str, float], steps: int = STEPS) -> HeatScale:
    """Ops with a positive figure, placed on ``steps`` log-spaced steps from the
    largest down to a thousandth of it (anything smaller is the coolest step)."""
    positive = {k: v for k, v in values.items() if v and v > 0}
    if not positive:
        return HeatScale({}, ())
    top = max(positive.values())
    bottom = top / 1000
    span = math.log(top / bottom)
    edges = tuple(bottom * math.exp(span * i / steps) for i in range(steps))
    step = {}
    for name, value in positive.items():
        if value <= bottom:
            step[name] = 0
        else:
            step[name] = min(steps - 1, int(math.log(value / bottom) / span * steps))
    return HeatScale(step, edges)
