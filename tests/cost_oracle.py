"""XLA's own cost model as a test oracle, run out of process.

``hlo_module_cost_analysis`` with jax's CPU client is XLA:CPU's
``HloCostAnalysis`` (the base class with the CPU shape size). XLA aborts on some
input, so it runs in a worker subprocess that reads one path per line and
answers one JSON line per path; a crash is blamed on that path and a fresh
worker takes the rest (`oracle.ask_workers`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from oracle import ask_workers

KEYS = ("flops", "transcendentals", "bytes accessed")


def _worker() -> None:
    import os

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from jax._src import xla_bridge
    from jax._src.lib import xla_client

    backend = xla_bridge.get_backend("cpu")
    for line in sys.stdin:
        path = line.rstrip("\n")
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                module = xla_client.hlo.hlo_module_from_text(f.read())
            costs = xla_client._xla.hlo_module_cost_analysis(backend, module)
            result = {"ok": True, **{k: float(costs.get(k, 0.0)) for k in KEYS}}
        except Exception as e:
            result = {"ok": False, "error": str(e)[:500]}
        print(json.dumps(result), flush=True)


def xla_costs(paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{path: {"ok", "flops", "transcendentals", "bytes accessed"}} from XLA:CPU."""
    return ask_workers(__file__, paths, "XLA aborted")


def relative_difference(ours: float, theirs: float) -> float:
    """|ours - theirs| relative to XLA's figure (absolute below 1)."""
    return abs(ours - theirs) / max(abs(theirs), 1.0)


if __name__ == "__main__":
    _worker()
