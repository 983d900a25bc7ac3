"""The one root of xlaview's own errors.

Every error the core raises on purpose derives from `XlaviewError`, so that a
caller (the window's slots, the command line) can tell "this input is wrong"
from a bug with one ``except``. Each keeps the built-in base it had
(`ValueError`, `OSError`), so existing ``except`` clauses still hold.
"""

from __future__ import annotations


class XlaviewError(Exception):
    """Something in the input (a dump, a report, a file name) xlaview cannot use."""
