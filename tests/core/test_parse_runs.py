"""Runs of small computations read at once (`xlaview.hlo.parse.runs`) give
what reading them one at a time gives, on real dumps and on any edit of one,
and are what a module of many small computations is read by."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_store import calls_model, edited_by_lines, timeline_texts, tolerant_model

from xlaview.hlo.parse import driver, runs
from xlaview.hlo.parse.store import ComputationStore
from xlaview.resources import sample_dump


def _one_at_a_time(monkeypatch) -> None:
    monkeypatch.setattr(runs.RunParser, "read", lambda self, pos, line: [])


def _runs_read(monkeypatch) -> list[int]:
    """The size of each run read as one from now on (0: one a test refused)."""
    sizes: list[int] = []
    parse_run = runs.parse_run

    def counted(text, run):
        parsed = parse_run(text, run)
        sizes.append(0 if parsed is None else len(parsed))
        return parsed

    monkeypatch.setattr(runs, "parse_run", counted)
    return sizes


def _read(text: str, **kwargs) -> tuple:
    return tolerant_model(text, **kwargs), calls_model(driver.parse_module_tolerant(text).module)


def _both(monkeypatch, text: str, **kwargs) -> tuple[tuple, tuple]:
    """(read with runs, read one at a time)."""
    with monkeypatch.context() as m:
        _one_at_a_time(m)
        alone = _read(text, **kwargs)
    return _read(text, **kwargs), alone


def test_every_pass_of_real_programs_reads_alike(zoo, monkeypatch) -> None:
    """Each pass of each program (with a store and the pass before, as the
    window reads them, and alone): spans, instructions, calls and diagnostics
    as one at a time."""
    for folder in zoo.values():
        texts = [text for _, text in timeline_texts(folder)]
        for text in texts[:: max(1, len(texts) // 12)]:
            together, alone = _both(monkeypatch, text)
            assert together == alone
        store = ComputationStore(1 << 30)
        previous = None
        for text in texts[:12]:
            together, alone = _both(monkeypatch, text, store=store, previous=previous)
            assert together == alone
            previous = driver.parse_module_tolerant(text, store=store, previous=previous).module


def test_a_module_of_small_computations_is_read_in_runs(zoo, monkeypatch) -> None:
    """Most computations of a program's optimized module come in runs read as
    one (a fused computation's parameters print out of order, and two
    computations share no instruction names): none falls back."""
    sizes = _runs_read(monkeypatch)
    read = 0
    for folder in zoo.values():
        (path,) = folder.glob("*cpu_after_optimizations.txt")
        module = driver.parse_module_tolerant(path.read_text()).module
        read += len(module.computations)
    assert 0 not in sizes, "a run of a real module was refused"
    assert sum(sizes) >= read * 0.6, (sum(sizes), read)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_any_edit_reads_alike(data: st.DataObject) -> None:
    """Lines dropped, copied, swapped or renamed, or a character changed, in
    a real module: what runs read is what one at a time reads, refusals (the
    careful parser's diagnostics) included."""
    (path,) = sample_dump().glob("*cpu_after_optimizations.txt")
    edited = edited_by_lines(data, path.read_text())
    with pytest.MonkeyPatch.context() as monkeypatch:
        together, alone = _both(monkeypatch, edited)
    assert together == alone


def test_a_computation_twice_in_one_run_is_reported(monkeypatch) -> None:
    """Two computations of one name next to each other (a run reads both):
    the second is reported, as one at a time reports it."""
    text = next(sample_dump().glob("*cpu_after_optimizations.txt")).read_text()
    start = text.index("\n%", text.index("\n}\n")) + 1  # the second computation
    end = text.index("\n}\n", start) + 3
    doubled = text[:end] + "\n" + text[start:end] + text[end:]
    together, alone = _both(monkeypatch, doubled)
    assert together == alone
    assert any("is defined twice" in message for message, _, _ in together[0][1])


def test_runs_put_what_they_read_in_the_store_as_misses(zoo) -> None:
    """A run's computations go into the store, each counted a miss once
    (none twice where a run stops short); the next parse of the text takes
    every one from there, and a pass after it misses only what it adds."""
    texts = [text for _, text in timeline_texts(zoo["mlp_grad"])]
    store = ComputationStore(1 << 30)
    module = driver.parse_module_tolerant(texts[-1], store=store).module
    fast = sum(c.parsed is not None for c in module.computations)
    assert store.misses == len(store) == fast > 2
    driver.parse_module_tolerant(texts[-1], store=store)
    assert (store.hits, store.misses) == (fast, fast)
    for text in texts:
        before = len(store), store.misses
        driver.parse_module_tolerant(text, store=store)
        assert store.misses - before[1] == len(store) - before[0]


def test_a_text_the_fast_path_refuses_tries_few_runs(monkeypatch) -> None:
    """A comment line in every body (as operand shapes in operand lists, in
    an old dump): the careful parser reads every computation, and a run is
    tried now and then, not once per computation (each framed and read a
    run: an old dump's parse took twice as long)."""
    text = "".join(
        f"%c.{k} (p: f32[]) -> f32[] {{\n  // made by hand\n  %p.{k} = f32[] parameter(0)\n"
        f"  ROOT %n.{k} = f32[] negate(%p.{k})\n}}\n\n"
        for k in range(2000)
    )
    sizes = _runs_read(monkeypatch)
    together = _read(text)
    assert len(sizes) <= 8, len(sizes)
    assert set(sizes) == {0}
    with monkeypatch.context() as m:
        _one_at_a_time(m)
        assert together == _read(text)
    assert len(together[0][0]) == 2000 and not together[0][1]
