"""The view model's cache of laid-out graphs (`xlaview.qt.model.view_cache`)
weighs what each layout holds: a folded graph's few boxes, and the whole
computation's graph behind them, once however many layouts share it."""

from __future__ import annotations

from dataclasses import replace

from xlaview.dump.index import index_dump
from xlaview.dump.modules import ModuleCache
from xlaview.qt.model import tasks, view_cache


def _folded_results(gpt_dump) -> list[tasks.GraphResult]:
    """The train step's entry at each pass that changed its graph, folded
    (a small fold threshold: the 2-layer entry has a few hundred nodes)."""
    module = max(index_dump(gpt_dump).modules, key=lambda m: len(m.passes))
    cache = ModuleCache()
    shown, results = None, []
    for point in module.points():
        loaded = cache.load(point.file).module
        fold = tasks.Fold(small=20, budget=10) if shown is None else None
        result = tasks.graph_and_layout(loaded, loaded.entry.name, shown, fold)
        if shown is None or result.full_graph is not shown.full_graph:
            results.append(result)
        shown = result
    assert all(r.folded is not None for r in results)
    return results


def _whole(result: tasks.GraphResult) -> int:
    graph = result.full_graph
    return len(graph.nodes) + len(graph.edges)


def test_whole_graphs_count_against_the_layout_budget(qapp, gpt_dump, monkeypatch) -> None:
    results = _folded_results(gpt_dump)
    assert len(results) >= 4, "passes that changed the entry"
    budget = max(map(_whole, results))  # room for two whole graphs at most
    boxes = [len(r.layout.positions) + len(r.layout.edges) for r in results]
    assert sum(boxes) < budget, "the boxes drawn alone would all fit"
    monkeypatch.setattr(view_cache, "LAYOUT_BUDGET", budget)
    released: list[object] = []
    views = view_cache.ViewCache(lambda gone, _depth: released.append(gone))
    for k, result in enumerate(results):
        views.store_layout((f"pass {k}", result.graph.computation), result)
    kept = [r for k, r in enumerate(results) if views.layout((f"pass {k}", r.graph.computation))]
    assert 1 <= len(kept) <= 4, "folded layouts kept whole graphs past the budget"
    assert kept == results[-len(kept) :], "the latest are kept"
    assert len(released) == len(results) - len(kept)


def test_layouts_sharing_a_whole_graph_count_it_once(qapp, gpt_dump, monkeypatch) -> None:
    result = _folded_results(gpt_dump)[-1]
    boxes = len(result.layout.positions) + len(result.layout.edges)
    # The same graph at ten passes that left it alone: ten layouts, one whole graph.
    monkeypatch.setattr(view_cache, "LAYOUT_BUDGET", _whole(result) + 10 * boxes)
    views = view_cache.ViewCache()
    for k in range(10):
        views.store_layout((f"pass {k}", result.graph.computation), replace(result, step=None))
    assert all(views.layout((f"pass {k}", result.graph.computation)) for k in range(10))
