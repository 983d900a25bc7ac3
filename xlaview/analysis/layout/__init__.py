"""Graph layout, pure Python, no Qt: the graph view runs it in a worker.

``layered_layout`` lays a dataflow graph out from scratch (layered.py tells
the pipeline); ``relayout`` steps an earlier layout of the same computation
to a new version of it, keeping what did not change in place
(incremental.py); ``layout_quality`` measures a layout (quality.py).
"""

from __future__ import annotations

from xlaview.analysis.layout.layered import layered_layout
from xlaview.analysis.layout.model import EdgeRoute, GraphLayout, LayoutNode, Point

__all__ = ["EdgeRoute", "GraphLayout", "LayoutNode", "Point", "layered_layout"]
