"""xlaview: a desktop explorer for XLA compiler dumps.

``xlaview.collect(fn, *args)`` compiles a JAX function with every pass dumped
and returns the folder (jax is imported only then).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xlaview.version import __version__

__all__ = ["__version__", "collect"]


def collect(
    fn: Callable[..., Any],
    *args: Any,
    out: str | os.PathLike[str] | None = None,
    open: bool = False,
    profile: int = 0,
    force: bool = False,
    **kwargs: Any,
) -> Path:
    """`xlaview.collection.collect` (which see), then, with ``open=True``, the
    window on the folder (it returns when the window closes)."""
    from xlaview.collection import collect as compile_with_dumps

    folder = compile_with_dumps(fn, *args, out=out, profile=profile, force=force, **kwargs)
    if open:
        from xlaview.qt.app import run_gui  # the GUI only when asked for

        run_gui([str(folder)])
    return folder
