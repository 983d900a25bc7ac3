"""The releaser frees big structures a piece at a time: what only it holds is
freed, what others still hold is left as it is."""

from __future__ import annotations

import weakref

from xlaview.qt.model.release import Releaser


class Holder:
    __slots__ = ("parts", "__weakref__")

    def __init__(self, parts: object) -> None:
        self.parts = parts


def test_what_only_the_releaser_holds_is_freed_and_shared_parts_stay_whole(qtbot) -> None:
    releaser = Releaser()
    shared = {"kept": [1.5, 2.5]}
    routes = tuple(Holder(((float(i), 0.0), (float(i), 60.0))) for i in range(5000))
    inner = Holder([routes, shared, {f"n{i}": (i, i) for i in range(5000)}])
    outer = Holder([inner, Holder(shared)])
    gone = [weakref.ref(inner), weakref.ref(outer), weakref.ref(routes[0])]
    releaser.release(outer)
    del outer, inner, routes
    qtbot.waitUntil(lambda: releaser.pending == 0, timeout=5000)
    assert all(ref() is None for ref in gone)
    assert shared == {"kept": [1.5, 2.5]}
