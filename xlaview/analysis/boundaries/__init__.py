"""Why is this boundary here? A reason for every materialized intermediate
(the reasons, their meaning and precedence: `explain`).

`explain` decides each boundary's reason from the facts `evidence` gathers;
those come from what each op does with a value inside its fused computation
(`op_facts`, `body_flow`) and from values read in two passes (`multipass`).
`from_file` works a module's boundaries out for a window, from a file in a
helper process for a big module. Modules of this room import each other
directly, never this facade.
"""

from __future__ import annotations

from xlaview.analysis.boundaries.explain import (
    Boundaries,
    Boundary,
    Evidence,
    OpRef,
    module_boundaries,
)
from xlaview.analysis.boundaries.from_file import (
    FileBoundaries,
    explained,
    file_boundaries,
    fusion_callers,
)

__all__ = [
    "Boundaries", "Boundary", "Evidence", "FileBoundaries", "OpRef", "explained",
    "file_boundaries", "fusion_callers", "module_boundaries",
]  # fmt: skip
