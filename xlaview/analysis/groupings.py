"""How a graph folds into groups: the names `xlaview.analysis.folding` takes,
kept apart from it so that the command line lists them without importing the
folding (and the drawing and analyses it reads: 150 ms of every command's start)."""

from __future__ import annotations

from typing import Literal

Grouping = Literal["scope", "repeats", "none"]
GROUPINGS: tuple[Grouping, ...] = ("scope", "repeats", "none")
