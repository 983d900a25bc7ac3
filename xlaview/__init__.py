"""xlaview: a desktop explorer for XLA compiler dumps.

``xlaview.collect(fn, *args)`` compiles a JAX function with every pass dumped
and returns the folder (jax is imported only then).
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "collect"]


def __getattr__(name: str) -> Any:
    if name == "collect":
        from xlaview.collect import collect

        return collect
    raise AttributeError(f"module 'xlaview' has no attribute {name!r}")
