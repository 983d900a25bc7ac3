"""Graph layout, pure Python, no Qt: the graph view runs it in a worker.

``layered_layout`` lays a dataflow graph out from scratch (layered.py tells
the pipeline); ``relayout`` steps an earlier layout of the same computation
to a new version of it, keeping what the change did not touch in place
(incremental.py decides, stepping.py steps); ``layout_quality`` measures a
layout (quality.py).
"""

from __future__ import annotations

from xlaview.analysis.layout.incremental import relayout
from xlaview.analysis.layout.layered import layered_layout
from xlaview.analysis.layout.model import (
    EdgeRoute,
    GraphLayout,
    LayoutNode,
    LayoutStep,
    Point,
    ProgressFn,
)
from xlaview.analysis.layout.quality import LayoutQuality, layout_quality

__all__ = [
    "EdgeRoute", "GraphLayout", "LayoutNode", "LayoutQuality", "LayoutStep", "Point",
    "ProgressFn", "layered_layout", "layout_quality", "relayout",
]  # fmt: skip
