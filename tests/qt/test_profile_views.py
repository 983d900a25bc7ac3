"""A real profile in the window: a JAX program dumped and run three times
under jax.profiler by ``xlaview.collect(fn, *args, profile=3)`` at test time.
The window finds its trace by itself; a trace taken elsewhere opens with
File > Open Profile; the measured figures are `profile_dump_module`'s."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from xlaview.analysis.cost.devices import DEVICES
from xlaview.dump.index import index_dump
from xlaview.profile import executed_file, find_trace, profile_dump_module, read_trace
from xlaview.resources import sample_dump


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dump folder, with the trace in its ``trace/``."""
    pytest.importorskip("jax")
    from programs.collected import generate

    return generate(tmp_path_factory.mktemp("collected") / "dump")


def expected_profile(dump: Path, trace: Path, device: str | None = None):
    index = index_dump(dump)
    (module,) = [
        m for m in index.modules if executed_file(m) is not None and m.name == "jit_mlp_scan"
    ]
    return profile_dump_module(read_trace(trace), index, module, device=device)


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
    }


def measured_keys(panel) -> dict[str, tuple]:
    """name -> (count, measured, mean, share) as the Cost table sorts them."""
    out = {}
    for _texts, keys, name in panel.rows_model.rows:
        if keys[8] is not None:
            out[name] = keys[8:12]
    return out


def test_a_collected_profile_fills_the_measured_views(window, collected: Path) -> None:
    before = listing(collected)
    window.open_dump(collected)
    window.wait_idle()
    window.bottom_tabs.setCurrentWidget(window.cost_panel)
    window.wait_idle()
    expected = expected_profile(collected, find_trace(collected))
    assert expected.ops, "the trace timed the module's ops"
    panel = window.cost_panel
    assert panel.measured_shown(), "a trace in the dump's trace/ opens by itself"
    measured = measured_keys(panel)
    for op in expected.ops:
        assert measured.get(op.name) == (op.count, op.measured_s, op.mean_s, op.share), (
            f"{op.name}: the Cost table's measured figures are profile_dump_module's"
        )
    assert "Measured: 3 runs" in panel.summary.text(), panel.summary.text()
    # The Profile tab names the roofline the Cost tab prices on.
    device = window.model.costing.shown.roof.device
    assert f"roofline on {device.title}" in window.profile_panel.summary.text()
    # Where the time went: ranked by self time, as measured.
    ranked = window.profile_panel.ranked()
    assert ranked == [op.name for op in sorted(expected.ops, key=lambda o: (-o.self_s, o.name))]
    # The graph by measured time, with a legend.
    panel.heat.setCurrentIndex(panel.heat.findData("measured"))
    window.wait_idle()
    fills = window.graph_pane.main.canvas.fills
    top = ranked[0]
    assert fills.get(top), f"the op with the most self time ({top}) is coloured: {fills}"
    title, stops = window.graph_pane.main.legend()
    assert title == "measured self time, 3 runs" and stops, (title, stops)
    # The inspector: measured count, mean, and % of this machine's roofline.
    window.select_instruction(top)
    window.wait_idle()
    text = window.inspector.toPlainText()
    op = expected.op(top)
    assert f"{op.count} in 3 runs" in text and "Measured".upper() in text.upper(), text
    assert expected.device == "cpu" and "of roofline" in text, text
    fraction = expected.op(top).roofline_fraction
    assert fraction is not None and fraction <= 1.05, "no op beats this machine's roofline"
    # A loop body's ops run once per iteration: the scan's trip count, 4.
    assert "executed (each loop body × its trip count)" in panel.summary.text()
    assert any(texts[5].endswith("×4") for texts, _, _ in panel.rows_model.rows), "loop body ops"
    # Another pass: the measured figures are of the HLO that ran, not of it.
    keys = [p.key for p in window.timeline.points]
    window.select_pass(keys[-2])
    window.wait_idle()
    assert not panel.measured_shown(), "no measured columns on a pass that did not run"
    assert "shown on the pass that ran (after)" in window.graph_pane.main.legend()[0]
    assert "measured on pass after" in window.profile_panel.summary.text()
    assert listing(collected) == before, "opening a dump and its trace writes nothing there"


def test_a_chosen_device_gives_the_roofline_fraction(window, collected: Path) -> None:
    window.open_dump(collected)
    window.wait_idle()
    window.model.costing.set_device("h100")
    window.wait_idle()
    expected = expected_profile(collected, find_trace(collected), device="h100")
    profile = window.model.costing.profile
    assert profile is not None and profile.device == "h100"
    assert f"roofline on {DEVICES['h100'].title}" in window.profile_panel.summary.text()
    for op in expected.ops:
        got = profile.op(op.name)
        assert got is not None and got.roofline_fraction == op.roofline_fraction, op.name


def test_open_profile_taken_elsewhere(window, collected: Path, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    shutil.copytree(collected, dump, ignore=shutil.ignore_patterns("trace"))
    before = listing(dump)
    window.open_dump(dump)
    window.wait_idle()
    assert window.profile_panel.shown is None, "no trace in this dump"
    trace = find_trace(collected)
    window.open_profile(trace)
    window.wait_idle()
    expected = expected_profile(dump, trace)
    ranked = window.profile_panel.ranked()
    assert set(ranked) == {op.name for op in expected.ops} and ranked, ranked
    assert listing(dump) == before, "File > Open Profile never writes into the dump"


def test_a_trace_of_another_program_is_a_listed_problem(window, collected: Path) -> None:
    window.open_dump(sample_dump())
    window.wait_idle()
    window.open_profile(find_trace(collected))
    window.wait_idle()
    problems = [p.message for p in window.problems.problems]
    assert any("times no op of jit_attention" in m and "jit_mlp_scan" in m for m in problems), (
        problems
    )
    assert not window.profile_panel.ranked()
    assert "It times no op of this module" in window.profile_panel.summary.text()


def test_without_a_trace_the_profile_tab_says_what_fills_it(window) -> None:
    window.open_dump(sample_dump())
    window.wait_idle()
    window.bottom_tabs.setCurrentWidget(window.profile_panel)
    window.wait_idle()
    said = window.profile_panel.summary.text()
    assert "File › Open Profile" in said and "profile=N" in said, said
