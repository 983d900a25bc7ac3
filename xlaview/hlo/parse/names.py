"""XLA's name uniquifier (``NameUniquer``), for names the parser must invent.

XLA strips a numeric ``.N`` suffix, keeps one id set per root, and hands out
the next free id on a clash: ``p0`` then ``p0`` again gives ``p0.1``.
"""

from __future__ import annotations


class NameUniquer:
    __slots__ = ("_used", "_next")

    def __init__(self) -> None:
        self._used: dict[str, set[int]] = {}
        self._next: dict[str, int] = {}

    def unique(self, name: str) -> str:
        """Register ``name`` and return it, or its next free variant."""
        root, suffix, has_suffix = name, 0, False
        dot = name.rfind(".")
        if 0 < dot < len(name) - 1 and name[dot + 1 :].isdigit():
            root, suffix, has_suffix = name[:dot], int(name[dot + 1 :]), True
        used = self._used.setdefault(root, set())
        if suffix in used:
            suffix = self._next.get(root, 0)
            while suffix in used:
                suffix += 1
            self._next[root] = suffix + 1
        used.add(suffix)
        if suffix == 0:
            return f"{root}.0" if has_suffix else root
        return f"{root}.{suffix}"
