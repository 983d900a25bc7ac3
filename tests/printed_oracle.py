"""XLA's own reading of a text, printed back and priced, as a test oracle.

XLA parses the text (inferring the shapes it leaves out, naming the
instructions nested in operand lists) and prints the module as it holds it:
every instruction with its shape and layout, in XLA's syntax. Our parser
reads that printed text on its fast path, so comparing our parse of the
original with our parse of XLA's print compares shapes with XLA's. The same
worker answers what `oracle.parse_with_xla` (the module's structure) and
`cost_oracle.xla_costs` (``hlo_module_cost_analysis``) answer, so that one
process start serves all three. Run out of process: XLA aborts on some input.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import Any

from cost_oracle import KEYS
from oracle import ask_workers, decode_module


def _worker() -> None:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from jax._src import xla_bridge
    from jax._src.lib import xla_client

    backend = xla_bridge.get_backend("cpu")
    for line in sys.stdin:
        path = line.rstrip("\n")
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                module = xla_client.hlo.hlo_module_from_text(f.read())
            result: dict[str, Any] = {
                "ok": True,
                **decode_module(module.as_serialized_hlo_module_proto()),
                "text": module.to_string(),
            }
            try:
                costs = xla_client._xla.hlo_module_cost_analysis(backend, module)
                result["costs"] = {k: float(costs.get(k, 0.0)) for k in KEYS}
            except Exception:
                result["costs"] = None
        except Exception as e:  # XLA raises its own status errors
            result = {"ok": False, "error": str(e)[:500]}
        print(json.dumps(result), flush=True)


def read_by_xla(paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{path: {"ok", "name", "entry", "computations", "text", "costs"}}: the
    module XLA reads from each file (`oracle.decode_module`), as XLA prints it,
    and its cost totals (None where XLA cannot price it)."""
    return ask_workers(__file__, paths, "XLA's parser aborted")


if __name__ == "__main__":
    _worker()
