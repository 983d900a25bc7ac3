"""XLA's own cost model as a test oracle, run out of process.

``hlo_module_cost_analysis`` with jax's CPU client is XLA:CPU's
``HloCostAnalysis`` (the base class with the CPU shape size). XLA aborts on some
input, so it runs in a worker subprocess that reads one path per line and
answers one JSON line per path; a crash is blamed on that path and a fresh
worker takes the rest (as in `oracle.py`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from typing import Any

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
        except Exception as e:  # noqa: BLE001 -- XLA raises its own status errors
            result = {"ok": False, "error": str(e)[:500]}
        print(json.dumps(result), flush=True)


def xla_costs(paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{path: {"ok", "flops", "transcendentals", "bytes accessed"}} from XLA:CPU."""
    pending = list(paths)
    results: dict[str, dict[str, Any]] = {}
    while pending:
        with subprocess.Popen(
            [sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True,
        ) as proc:
            assert proc.stdin and proc.stdout
            while pending:
                path = pending.pop(0)
                try:
                    proc.stdin.write(path + "\n")
                    proc.stdin.flush()
                    line = proc.stdout.readline()
                except BrokenPipeError:
                    line = ""
                if not line:
                    results[path] = {"ok": False, "crashed": True, "error": "XLA aborted"}
                    break
                results[path] = json.loads(line)
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
    return results


def relative_difference(ours: float, theirs: float) -> float:
    """|ours - theirs| relative to XLA's figure (absolute below 1)."""
    return abs(ours - theirs) / max(abs(theirs), 1.0)


if __name__ == "__main__":
    _worker()
