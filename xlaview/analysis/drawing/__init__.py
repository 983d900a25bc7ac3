"""Drawing a computation's dataflow graph (pure Python, no Qt): the graph the
views draw (`graph`), its layered layout from scratch (`layered/`), a pass step
that keeps what the pass did not touch in place (`step/`), how good a drawing
is (`quality`), and the layout of a computation as the user steps through
passes (`pass_layout`).

Modules of this room import each other directly, never this facade; code
outside imports the names below from here.
"""

from __future__ import annotations

from xlaview.analysis.drawing.graph import (
    NODE_HEIGHT,
    ComputationGraph,
    GraphNode,
    build_graph,
    layout_inputs,
    node_height,
    node_width,
    same_drawing,
)
from xlaview.analysis.drawing.layered.pipeline import layered_layout
from xlaview.analysis.drawing.pass_layout import instruction_positions, step_layout
from xlaview.analysis.drawing.quality import LayoutQuality, layout_quality
from xlaview.analysis.drawing.records import (
    EdgeRoute,
    GraphLayout,
    LayoutNode,
    LayoutStep,
    Point,
    ProgressFn,
)
from xlaview.analysis.drawing.step.incremental import relayout

__all__ = [
    "NODE_HEIGHT", "ComputationGraph", "EdgeRoute", "GraphLayout", "GraphNode", "LayoutNode",
    "LayoutQuality", "LayoutStep", "Point", "ProgressFn", "build_graph", "instruction_positions",
    "layered_layout", "layout_inputs", "layout_quality", "node_height", "node_width", "relayout",
    "same_drawing", "step_layout",
]  # fmt: skip
