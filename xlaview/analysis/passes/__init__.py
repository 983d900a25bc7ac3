"""What passes did: a pass's changes to a module (`diff`), and an instruction's
life over the pass timeline (`history`)."""

from __future__ import annotations

from xlaview.analysis.passes.diff import ModuleDiff, diff_modules
from xlaview.analysis.passes.history import Event, change_sizes, instruction_history

__all__ = ["Event", "ModuleDiff", "change_sizes", "diff_modules", "instruction_history"]
