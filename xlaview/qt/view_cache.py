"""What the view model keeps of the passes it showed or prepared: laid-out
graphs, text documents built ahead for the neighbouring passes, and where
each computation's nodes stood (so that a pass step keeps them in place)."""

from __future__ import annotations

from collections import OrderedDict

from xlaview.qt.jobs import GraphResult, PreparedPass

LAYOUT_CACHE = 24
PREPARED_PASSES = 4  # documents built ahead for the neighbouring passes


class ViewCache:
    def __init__(self) -> None:
        self._layouts: OrderedDict[tuple[str, str], GraphResult] = OrderedDict()
        self._prepared: OrderedDict[str, PreparedPass] = OrderedDict()  # by file path
        self._last_x: dict[str, dict[str, float]] = {}  # computation -> node x

    def clear(self) -> None:
        self._layouts.clear()
        for prepared in self._prepared.values():
            prepared.document.deleteLater()
        self._prepared.clear()
        self._last_x.clear()

    # -- graphs, by (file path, computation) -------------------------------------
    def layout(self, key: tuple[str, str]) -> GraphResult | None:
        return self._layouts.get(key)

    def store_layout(self, key: tuple[str, str], result: GraphResult) -> None:
        self._layouts[key] = result
        self._layouts.move_to_end(key)
        while len(self._layouts) > LAYOUT_CACHE:
            self._layouts.popitem(last=False)

    def node_x(self, computation: str | None) -> dict[str, float] | None:
        """Where the nodes of ``computation`` stood when it was last shown."""
        return self._last_x.get(computation or "")

    def shown(self, computation: str, result: GraphResult) -> None:
        self._last_x[computation] = {k: p[0] for k, p in result[1].positions.items()}

    # -- prepared passes, by file path ---------------------------------------------
    def take_prepared(self, path: str) -> PreparedPass | None:
        return self._prepared.pop(path, None)

    def has_prepared(self, path: str) -> bool:
        return path in self._prepared

    def store_prepared(self, prepared: PreparedPass) -> None:
        self._prepared[str(prepared.file.path)] = prepared
        while len(self._prepared) > PREPARED_PASSES:
            _, old = self._prepared.popitem(last=False)
            old.document.deleteLater()
