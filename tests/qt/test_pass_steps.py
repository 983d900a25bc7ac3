"""Scrubbing shows change, not jitter: a pass step keeps in place the nodes
the pass did not touch (graph_positions, the contract), says when it laid the
graph out afresh, and animates the step unless told not to."""

from __future__ import annotations

import statistics
from itertools import pairwise

import pytest
from PySide6.QtCore import Qt

from xlaview.analysis.passes.diff import diff_modules
from xlaview.dump.index import index_dump
from xlaview.dump.modules import ModuleCache


def changed_in(old, new, computation: str) -> set[str]:
    diff = diff_modules(old, new)
    names = {a.name for a in diff.added if a.computation == computation}
    names |= {r.name for r in diff.removed if r.computation == computation}
    names |= {c.name for c in diff.changed if c.computation == computation}
    names |= {c.old_name for c in diff.changed if c.computation == computation and c.old_name}
    return names


@pytest.fixture
def stepping(window, gpt_dump):
    window.set_animate(False)
    # These check how the computation's own graph steps (its 329 nodes fold by default).
    window.set_graph_grouping("none")
    window.open_dump(gpt_dump)
    window.wait_idle()
    return window


@pytest.mark.slow
def test_small_steps_keep_unchanged_nodes_still(stepping, gpt_dump) -> None:
    window = stepping
    module = index_dump(gpt_dump).module(window.view_state()["module"])
    points = module.points()
    cache = ModuleCache()
    small, checked = 0, 0
    window.select_pass(points[0].key)
    window.wait_idle()
    before = window.graph_positions()
    for old_point, point in pairwise(points):
        window.select_pass(point.key)
        window.wait_idle()
        after = window.graph_positions()
        old, new = cache.load(old_point.file).module, cache.load(point.file).module
        entry = new.entry.name
        if old.entry is None or old.entry.name != entry:
            before = after
            continue
        changed = changed_in(old, new, entry)
        common = [n for n in before.keys() & after.keys() if n not in changed]
        moves = [abs(after[n][0] - before[n][0]) + abs(after[n][1] - before[n][1]) for n in common]
        if changed and len(changed) <= 5 and common and not window.graph_note.text():
            small += 1
            still = sum(m <= 1 for m in moves) / len(moves)
            assert still >= 0.95, f"{point.title}: only {still:.1%} of unchanged nodes stayed"
            assert statistics.median(moves) == 0, point.title
        checked += 1
        before = after
    assert checked > 20 and small >= 3, (checked, small)


def test_a_fresh_layout_is_announced(stepping) -> None:
    """The fusion pass changes nearly every node: laid out afresh, and said."""
    window = stepping
    points = window.model.points
    fusion = next(i for i, p in enumerate(points) if p.after == "fusion")
    window.select_pass(points[fusion - 1].key)
    window.wait_idle()
    window.select_pass(points[fusion].key)
    window.wait_idle()
    assert "afresh" in window.graph_note.text()
    window.select_pass(points[fusion + 1].key)
    window.wait_idle()
    assert window.graph_note.text() == "", "the note goes once a step keeps the picture"


def test_a_step_is_animated_and_a_click_ends_it(window, qtbot, gpt_dump) -> None:
    window.set_animate(True)
    window.open_dump(gpt_dump)
    window.wait_idle()
    view = window.graph_pane.main
    # A move that cannot end by itself while the test looks at it, however
    # slowly a loaded machine runs the event loop (200 ms ran out once).
    view.transition_ms = 10 * 60 * 1000
    points = window.model.points
    # A step that moves a few nodes: the first one whose layout was kept.
    for old, new in pairwise(points[10:]):
        window.select_pass(old.key)
        window.wait_idle()
        view.finish_transition()
        window.select_pass(new.key)
        window.wait_idle()
        if view.canvas.in_transition:
            break
    else:
        pytest.fail("no pass step was animated")
    final = window.graph_positions()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.RightButton)
    assert not view.canvas.in_transition, "a click ends the transition"
    assert window.graph_positions() == final, "positions are the final ones throughout"
    window.set_animate(False)
    window.select_pass(points[0].key)
    window.wait_idle()
    window.select_pass(points[1].key)
    window.wait_idle()
    assert not view.canvas.in_transition, "animations off: none"


def strokes(path) -> list[tuple]:
    """A painter path's pieces (from one move to the next) in a canonical
    order: a band taken from before drew the same pieces in the order of the
    step before."""
    pieces: list[list] = []
    for k in range(path.elementCount()):
        e = path.elementAt(k)
        if e.isMoveTo() or not pieces:
            pieces.append([])
        pieces[-1].append((e.type.value, round(e.x, 6), round(e.y, 6)))
    return sorted(map(tuple, pieces))


@pytest.mark.slow
def test_a_step_draws_again_only_what_changed_and_draws_it_alike(qapp, gpt_dump) -> None:
    """Each step of the train step's entry through its passes: the picture
    built from the one before (bands the step left alone taken as they were)
    is the picture drawn from scratch, path for path."""
    from xlaview.qt.model import tasks as jobs
    from xlaview.qt.render.canvas_parts import prepare_canvas

    module = max(index_dump(gpt_dump).modules, key=lambda m: len(m.passes))
    cache = ModuleCache()
    shown, reused = None, 0
    for point in module.points():
        loaded = cache.load(point.file).module
        result = jobs.graph_and_layout(loaded, loaded.entry.name, shown)
        whole = prepare_canvas(result.graph, result.layout)
        parts = result.parts
        assert len(parts.bands) == len(whole.bands), point.key
        for b, (band, drawn) in enumerate(zip(parts.bands, whole.bands, strict=True)):
            where = f"pass {point.key}, band {b}"
            for name in ("edges", "stubs", "arrows", "roots"):
                assert strokes(getattr(band, name)) == strokes(getattr(drawn, name)), (where, name)
            assert {(k, c): strokes(p) for k, c, p in band.boxes} == {
                (k, c): strokes(p) for k, c, p in drawn.boxes
            }, where
            reused += shown is not None and band in shown.parts.bands[b : b + 1]
        assert [{id(r) for r in band} for band in parts.band_routes] == [
            {id(r) for r in band} for band in whole.band_routes
        ], point.key
        assert parts.node_routes == whole.node_routes, point.key
        assert {k: (p.left, p.top, p.width, p.height) for k, p in parts.placed.items()} == {
            k: (p.left, p.top, p.width, p.height) for k, p in whole.placed.items()
        }
        shown = result if shown is None or loaded.entry.name == shown.graph.computation else None
    assert reused, "no step kept a band"


def test_a_pass_that_reprints_the_entry_keeps_its_picture(qapp, gpt_dump) -> None:
    """A pass that reorders the entry without changing its graph: no layout,
    no canvas, the picture shown kept as it is (the test above checks it is
    the picture drawn from scratch)."""
    from xlaview.analysis.drawing.graph import same_drawing
    from xlaview.qt.model import tasks as jobs

    module = max(index_dump(gpt_dump).modules, key=lambda m: len(m.passes))
    cache = ModuleCache()
    shown, kept = None, 0
    for point in module.points():
        loaded = cache.load(point.file).module
        if shown is not None and jobs.text_identity(loaded, loaded.entry.name) is shown.source:
            continue  # the same text: the view shows it without a job
        result = jobs.graph_and_layout(loaded, loaded.entry.name, shown)
        if shown is not None and same_drawing(shown.graph, result.graph):
            assert (result.layout, result.parts) == (shown.layout, shown.parts), point.key
            assert result.step is None and result.transition is None, point.key
            assert result.graph is not shown.graph, "the pass's own graph (its instruction order)"
            kept += 1
        shown = result
    assert kept, "some pass reprints the entry alike"


@pytest.mark.slow
def test_every_step_shows_nodes_not_empty_space(stepping, gpt_dump) -> None:
    """A step keeps the view where it was, except onto a graph laid out
    afresh: there the old place means nothing (it showed empty space), and
    the view opens as on a new graph, on nodes."""
    window = stepping
    module = index_dump(gpt_dump).module(window.view_state()["module"])
    fresh = 0
    for point in [*module.points(), *reversed(module.points())]:
        window.select_pass(point.key)
        window.wait_idle()
        shown = window.graph_on_screen()
        assert shown, f"{point.title}: the graph view shows no node"
        if "afresh" in window.graph_note.text():
            fresh += 1
            positions = window.graph_positions()
            top = min(positions, key=lambda name: positions[name][1])
            top_y = positions[top][1]
            assert any(positions[n][1] == top_y for n in shown), (
                f"{point.title}: a graph laid out afresh opens on its top row"
            )
    assert fresh, "some step was laid out afresh"


def test_a_scrub_prices_only_the_pass_it_stays_on(window, qtbot, gpt_dump, monkeypatch) -> None:
    """The traffic of a big pass (its pricing: seconds on a 45 MB module) waits
    until its graph shows and the user stays on it: stepping on at once, as a
    held-down key or a scrub does, starts none of the passes left."""
    from xlaview.qt.model.analyses import changes

    monkeypatch.setattr(changes, "TRAFFIC_AFTER_STAY", 0)  # gpt_dump counts as big
    started: list[str] = []
    analyze = changes.analyze_traffic

    def counted(module, *args, **kwargs):
        started.append(module.name)
        return analyze(module, *args, **kwargs)

    monkeypatch.setattr(changes, "analyze_traffic", counted)
    window.open_dump(gpt_dump)
    window.wait_idle()
    priced: list = []
    window.model.changes.traffic_ready.connect(lambda t: priced.append(t) if t else None)
    started.clear()
    keys = [p.key for p in window.timeline.points][-8:]
    for key in keys:
        window.select_pass(key)
        want = int(key) if key.isdigit() else key
        qtbot.waitUntil(lambda w=want: window.view_state()["graph_pass"] == w, timeout=60_000)
    assert priced == [] and len(started) <= 1, f"passes stepped away from were priced: {started}"
    qtbot.waitUntil(lambda: bool(priced), timeout=60_000)  # the last one, once stayed on
    window.wait_idle()
    assert len(priced) == 1 and window.model.changes.traffic is priced[0]
    assert len(started) == 1


def scrub_window(qtbot, monkeypatch, gpt_dump, counted: str):
    """A window on ``gpt_dump`` for steps asked as the one before shows, and
    the files ``tasks.<counted>`` then runs for (cleared once it is open)."""
    from xlaview.qt.main_window import MainWindow
    from xlaview.qt.model import tasks, workers

    # A stay longer than a loaded machine takes from one step shown to the next asked.
    monkeypatch.setattr(workers, "STAY_SHOWN_MS", 2000)
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1600, 1000)
    window.show()
    window.set_animate(False)
    ran: list[str] = []
    task = getattr(tasks, counted)

    def count(cache, dump_file, *args, **kwargs):
        ran.append(dump_file.path.name)
        return task(cache, dump_file, *args, **kwargs)

    monkeypatch.setattr(tasks, counted, count)
    window.open_dump(gpt_dump)
    window.wait_idle()
    ran.clear()
    return window, ran


def step_shown(qtbot, window, point) -> None:
    """Ask for ``point`` and wait until its text and its graph show."""
    window.select_pass(point.key)
    want = int(point.key) if point.key.isdigit() else point.key
    qtbot.waitUntil(
        lambda: (
            window.view_state()["text_pass"] == want and window.view_state()["graph_pass"] == want
        ),
        timeout=60_000,
    )


def test_steps_in_a_row_parse_only_the_pass_stayed_on(qtbot, gpt_dump, monkeypatch) -> None:
    """A step asked as soon as the one before shows (a scrub, clicks in a row)
    starts no parse of the pass it leaves: each would be stopped by the next
    step, which waited for it to reach a point where it could stop. The pass
    stayed on is parsed."""
    window, started = scrub_window(qtbot, monkeypatch, gpt_dump, "prepare_pass")
    points = window.timeline.points[-8:]
    for point in points:
        step_shown(qtbot, window, point)
    assert started == [], f"passes stepped away from were parsed: {started}"
    window.wait_idle()
    assert started == [points[-1].file.path.name]


def test_a_step_back_in_a_scrub_shows_the_graph_laid_out_before(
    qtbot, gpt_dump, monkeypatch
) -> None:
    """Scrubbing back over passes just shown (each step asked as the one
    before shows, before any pass is parsed) shows each pass's graph as it
    was laid out, not drawn again from its text (150-1,000 ms a step on a
    mixture of experts' 48,000-op entry)."""
    window, drawn = scrub_window(qtbot, monkeypatch, gpt_dump, "early_graph")
    # (Not the last pass: the dump opens on it, its layout not stepped to from these.)
    points = window.timeline.points[-9:-1]
    seen = {}
    for point in points:
        step_shown(qtbot, window, point)
        seen[point.key] = window.graph_positions()
    assert drawn, "passes shown forward are drawn from their text"
    drawn.clear()
    for point in reversed(points[:-1]):
        step_shown(qtbot, window, point)
        assert window.graph_positions() == seen[point.key], f"{point.title}: not as it was shown"
    assert drawn == [], f"passes stepped back to were drawn again: {drawn}"


def test_a_step_that_leaves_the_graph_alone_paints_it_not_again(window, gpt_dump) -> None:
    """A pass that prints the graph's computation as it was keeps its picture,
    and the view is not painted again for it (5 ms of every such step on a
    36,000-op entry): marks, fills, key and legend set as they were change nothing."""
    from PySide6.QtCore import QCoreApplication, QEvent, QObject
    from PySide6.QtWidgets import QGraphicsView

    from xlaview.qt.model import tasks

    window.set_animate(False)
    window.open_dump(gpt_dump)
    window.wait_idle()
    module = index_dump(gpt_dump).module(window.view_state()["module"])
    cache = ModuleCache()
    pair = None
    for a, b in pairwise(module.points()):
        old, new = cache.load(a.file).module, cache.load(b.file).module
        name = new.entry.name
        if old.entry.name == name and tasks.text_identity(old, name) is tasks.text_identity(
            new, name
        ):
            pair = a, b
            break
    assert pair is not None, "some pass leaves the entry as it was"
    window.select_pass(pair[0].key)
    window.wait_idle()
    view = window.findChild(QGraphicsView, "graphView")
    paints = []

    class Count(QObject):
        def eventFilter(self, watched, event) -> bool:
            if event.type() == QEvent.Type.Paint:
                paints.append(event)
            return False

    counter = Count()
    view.viewport().installEventFilter(counter)
    window.select_pass(pair[1].key)
    window.wait_idle()
    QCoreApplication.processEvents()
    view.viewport().removeEventFilter(counter)
    assert window.view_state()["graph_pass"] == (
        int(pair[1].key) if pair[1].key.isdigit() else pair[1].key
    )
    assert paints == [], "the picture kept was painted again"


def test_a_diff_stopped_while_its_passes_are_read_reads_no_more(gpt_dump) -> None:
    """The diff shown with a pass reads the pass before it first when the
    cache let it go (a U-Net pass: 0.3 s of parsing); a step away stops that
    reading at its next progress report, not once both passes are parsed."""
    from xlaview.qt.model import tasks

    (module,) = index_dump(gpt_dump).modules
    points = module.timeline()
    before, after = points[len(points) // 2][1], points[len(points) // 2 + 1][1]
    cache = ModuleCache()
    told: list[float] = []

    class SteppedAway(Exception):
        pass

    def progress(fraction: float) -> None:
        told.append(fraction)
        if len(told) > 1:
            raise SteppedAway

    with pytest.raises(SteppedAway):
        tasks.diff_files(cache, before, after, progress)
    assert cache.cached(after) is None and cache.cached(before) is None, "read on regardless"
