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

from collections.abc import Iterable
from typing import Any

from oracle import ask_workers, decode_module, serve, xla_cost_totals


def _answer(module: Any) -> dict[str, Any]:
    """The module's structure, XLA's print of it, and its costs (None where
    XLA cannot price it)."""
    try:
        costs: dict[str, float] | None = xla_cost_totals(module)
    except Exception:  # XLA raises its own status errors
        costs = None
    return {
        **decode_module(module.as_serialized_hlo_module_proto()),
        "text": module.to_string(),
        "costs": costs,
    }


def _worker() -> None:
    serve(_answer)


def read_by_xla(paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{path: {"ok", "name", "entry", "computations", "text", "costs"}}: the
    module XLA reads from each file (`oracle.decode_module`), as XLA prints it,
    and its cost totals (None where XLA cannot price it)."""
    return ask_workers(__file__, paths, "XLA's parser aborted")


if __name__ == "__main__":
    _worker()
