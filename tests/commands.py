"""Running ``xlaview`` as a user runs it, for the command-line tests."""

from __future__ import annotations

import os
import subprocess
import sys


def xlaview(
    *args: str, check: bool = True, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``python -m xlaview ARGS`` in a process of its own; with ``check``, it
    must succeed without a traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "xlaview", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, **(env or {})},
    )
    if check:
        assert proc.returncode == 0, f"xlaview {' '.join(args)}: {proc.stderr}"
        assert "Traceback" not in proc.stderr, proc.stderr
    return proc
