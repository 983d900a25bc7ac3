"""Two modules of one program, op by op: which op of one is which of the
other (`match_instructions`: by name, metadata, structure; fusions split and
merged), and what each difference does to the estimated time and memory
(`compare_instructions`)."""

from __future__ import annotations

from xlaview.analysis.matching.effects import (
    DELTA_KEYS,
    Effect,
    InstructionComparison,
    PricedModule,
    compare_instructions,
)
from xlaview.analysis.matching.instructions import (
    HOW,
    InstructionMatching,
    Match,
    match_instructions,
)
from xlaview.analysis.matching.regroup import Regroup

__all__ = [
    "DELTA_KEYS", "HOW", "Effect", "InstructionComparison", "InstructionMatching", "Match",
    "PricedModule", "Regroup", "compare_instructions", "match_instructions",
]  # fmt: skip
