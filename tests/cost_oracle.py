"""XLA's own cost model as a test oracle, run out of process.

``hlo_module_cost_analysis`` with jax's CPU client is XLA:CPU's
``HloCostAnalysis`` (the base class with the CPU shape size). XLA aborts on some
input, so it runs in a worker subprocess that reads one path per line and
answers one JSON line per path; a crash is blamed on that path and a fresh
worker takes the rest (`oracle.ask_workers`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from oracle import KEYS, ask_workers, serve, xla_cost_totals

__all__ = ["KEYS", "relative_difference", "xla_costs"]


def _worker() -> None:
    serve(xla_cost_totals)


def xla_costs(paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{path: {"ok", "flops", "transcendentals", "bytes accessed"}} from XLA:CPU."""
    return ask_workers(__file__, paths, "XLA aborted")


def relative_difference(ours: float, theirs: float) -> float:
    """|ours - theirs| relative to XLA's figure (absolute below 1)."""
    return abs(ours - theirs) / max(abs(theirs), 1.0)


if __name__ == "__main__":
    _worker()
