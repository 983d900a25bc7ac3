"""What the view model keeps of the passes it showed or prepared: laid-out
graphs, the neighbouring passes prepared ahead (parsed, their text indexed),
and the layout each computation was last shown with (a pass step starts from
it, so that what the pass did not touch stays in place)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import replace

from xlaview.analysis.drawing.graph import ComputationGraph
from xlaview.qt.model.release import DEPTH, PASS_DEPTH
from xlaview.qt.model.tasks import GraphResult, PreparedPass

LAYOUT_CACHE = 24
# Laid-out graphs kept, by their nodes and edges: a 48-layer train step's entry
# (19,000 nodes, 93,000 edges) holds about 50 MB of layout and painter paths,
# and 24 of those would be most of the window's memory goal: two of those are
# kept (a step back to the pass before is shown without a layout). A folded
# graph also holds the whole computation's graph and its folding, about half
# as heavy a node or edge (a step that changed a U-Net's entry, 27,500 nodes
# and 35,400 edges: 10-25 MB for 113-238 boxes; the train step's, 15,600 and
# 93,400: 10-30 MB): each counted once, however many layouts share it.
LAYOUT_BUDGET = 300_000
PREPARED_PASSES = 4  # passes prepared ahead, the neighbours of the one shown


class ViewCache:
    """``release`` takes what the cache lets go of (`xlaview.qt.model.release`: a
    laid-out graph is freed a piece at a time, not in one 50 ms go)."""

    def __init__(self, release: Callable[[object, int], None] = lambda _gone, _depth: None) -> None:
        self._release = release
        self._layouts: OrderedDict[tuple[str, str], GraphResult] = OrderedDict()
        self._prepared: OrderedDict[str, PreparedPass] = OrderedDict()  # by file path
        self._shown: dict[str, GraphResult] = {}  # computation -> the graph last shown

    def clear(self) -> None:
        for result in (*self._layouts.values(), *self._shown.values()):
            self._release(result, DEPTH)
        self._layouts.clear()
        for prepared in self._prepared.values():
            self._drop_prepared(prepared)
        self._prepared.clear()
        self._shown.clear()

    # -- graphs, by (file path, computation) -------------------------------------
    def layout(self, key: tuple[str, str]) -> GraphResult | None:
        """A layout of the computation at that file, if it was laid out from the
        layout shown now, is the one shown, or is the one the shown layout was
        stepped from (a step back); one stepped from another history would jump."""
        result = self._layouts.get(key)
        if result is None:
            return None
        shown = self._shown.get(key[1])
        if result.base is None or shown is None:
            return result
        if shown.layout is result.base or shown.layout is result.layout:
            return result
        # A step back: where the shown layout came from, shown as it was (its
        # own step, from further back, is not the one to animate or report).
        return replace(result, step=None, transition=None) if shown.base is result.layout else None

    def same_graph(self, computation: str, source: object) -> GraphResult | None:
        """The graph shown for ``computation`` if it was built from the same
        text (a pass that did not touch it): shown again as it is."""
        shown = self._shown.get(computation)
        return shown if shown is not None and shown.source is source else None

    def store_layout(self, key: tuple[str, str], result: GraphResult) -> None:
        self._layouts[key] = result
        self._layouts.move_to_end(key)
        while len(self._layouts) > 1 and (
            len(self._layouts) > LAYOUT_CACHE or _weight(self._layouts.values()) > LAYOUT_BUDGET
        ):
            _, old = self._layouts.popitem(last=False)
            self._release(old, DEPTH)

    def shown_result(self, computation: str | None) -> GraphResult | None:
        """The graph of ``computation`` last shown (a step starts there)."""
        return self._shown.get(computation or "")

    def shown(self, computation: str, result: GraphResult) -> None:
        before = self._shown.get(computation)
        self._shown[computation] = result
        if before is not None:
            self._release(before, DEPTH)

    # -- prepared passes, by file path ---------------------------------------------
    def take_prepared(self, path: str) -> PreparedPass | None:
        return self._prepared.pop(path, None)

    def has_prepared(self, path: str) -> bool:
        return path in self._prepared

    def store_prepared(self, prepared: PreparedPass) -> None:
        self._prepared[str(prepared.file.path)] = prepared
        while len(self._prepared) > PREPARED_PASSES:
            self._drop_prepared(self._prepared.popitem(last=False)[1])

    def _drop_prepared(self, prepared: PreparedPass) -> None:
        """Freed a piece at a time: its module may have left the module cache
        already (then this was its last holder)."""
        self._release(prepared, PASS_DEPTH)


def _weight(results: Iterable[GraphResult]) -> int:
    """The nodes and edges ``results`` hold: each one's layout, and each
    whole graph folded into one (a step that changed nothing shares it)."""
    total = 0
    graphs: dict[int, ComputationGraph] = {}
    for result in results:
        total += len(result.layout.positions) + len(result.layout.edges)
        if result.folded is not None:
            graphs[id(result.full_graph)] = result.full_graph
    return total + sum(len(g.nodes) + len(g.edges) for g in graphs.values()) // 2
