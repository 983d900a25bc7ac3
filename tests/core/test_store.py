"""Computations shared between passes: a module parsed with a store is the
module parsed alone, spans included; the cache keeps within its budget."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlaview.analysis.passes.diff import diff_modules
from xlaview.dump.index import index_dump
from xlaview.dump.modules import ModuleCache, load_module
from xlaview.dump.settings import SettingError
from xlaview.hlo import Module, parse_module, parse_module_tolerant
from xlaview.hlo.parse import edited as edited_parse
from xlaview.hlo.parse.store import ComputationStore
from xlaview.resources import sample_dump


def model(module: Module) -> list[tuple]:
    """Everything a module says, spans included, as plain values."""
    return [
        (
            c.name,
            c.is_entry,
            tuple(c.span),
            c.signature,
            c.attribute_text,
            [(*i[:2], str(i.shape), *i[3:6], tuple(i.span), *i[7:]) for i in c.instructions],
        )
        for c in module.computations
    ]


def timeline_texts(folder: Path) -> list[tuple[str, str]]:
    module = max(index_dump(folder).modules, key=lambda m: len(m.passes))
    return [(label, f.path.read_text()) for label, f in module.timeline()]


@pytest.fixture(scope="module")
def passes() -> list[tuple[str, str]]:
    texts = timeline_texts(sample_dump())
    assert len(texts) > 20
    return texts


def test_a_shared_parse_is_the_parse_alone_spans_included(passes) -> None:
    store = ComputationStore(1 << 30)
    for label, text in passes:
        shared = parse_module(text, store=store)
        assert model(shared) == model(parse_module(text)), f"pass {label} differs"
        for comp in shared.computations:  # a span's text is its instruction's, in this file
            for instr in comp.instructions:
                assert text[instr.span.offset :].startswith(("ROOT", "%", instr.name)), (
                    f"pass {label}: {instr.name} at {instr.span}"
                )
    assert store.hits > store.misses, "pass dumps share most computations"


def test_moved_computations_get_their_own_spans() -> None:
    first = GOOD_PAIR
    second = "// two lines\n// on top\n" + GOOD_PAIR
    store = ComputationStore(1 << 20)
    a = parse_module(first, store=store)
    b = parse_module(second, store=store)
    assert store.hits == 2, "both computations reused"
    for comp_a, comp_b in zip(a.computations, b.computations, strict=True):
        assert comp_b.parsed is comp_a.parsed
        assert comp_b.span.line == comp_a.span.line + 2
        for ia, ib in zip(comp_a.instructions, comp_b.instructions, strict=True):
            assert ib.span.line == ia.span.line + 2 and ib.span.column == ia.span.column
            assert second[ib.span.offset : ib.span.end] == first[ia.span.offset : ia.span.end]


GOOD_PAIR = """\
HloModule m

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %c = f32[] constant(0)
  ROOT %r = f32[] reduce(%p, %c), dimensions={0}, to_apply=%add
}
"""


def test_line_owners_answer_like_the_spans(passes) -> None:
    _, text = passes[-1]
    module = parse_module(text)
    owners = module.line_owners()
    expected: dict[int, tuple[str, str | None]] = {}
    for comp in module.computations:
        expected[comp.span.line] = (comp.name, None)
        for instr in comp.instructions:
            for line in range(instr.span.line, module.last_line(instr.span) + 1):
                expected[line] = (comp.name, instr.name)
    assert dict(owners) == expected
    assert all(module.line_owner(line) == owner for line, owner in expected.items())
    assert module.line_owner(2) is None and owners.get(10**9) is None


def test_line_owners_of_a_text_with_inline_computations() -> None:
    text = """\
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(p, c), dimensions={0}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }
}
"""
    module = parse_module(text)
    assert module.line_owner(3) == ("main", "p")
    assert module.line_owner(5) == ("main", "r") and module.line_owner(8) == ("main", "r")


def test_diff_from_keys_is_the_diff_of_everything(passes) -> None:
    store = ComputationStore(1 << 30)
    shared = [parse_module(text, store=store) for _, text in passes]
    alone = [parse_module(text) for _, text in passes]
    for k in range(1, len(passes)):
        assert diff_modules(shared[k - 1], shared[k]) == diff_modules(alone[k - 1], alone[k]), (
            f"pass {passes[k][0]}"
        )


def test_the_cache_keeps_within_its_budget() -> None:
    folder = sample_dump()
    module = max(index_dump(folder).modules, key=lambda m: len(m.passes))
    files = [f for _, f in module.timeline()]
    one = load_module(files[-1].path).nbytes
    cache = ModuleCache(size=100, budget=int(one * 3 / (1 - 0.6)))
    for f in files:
        loaded = cache.load(f)
        assert loaded.module.computations
        memory = cache.memory()
        assert memory["modules"] <= memory["budget"] * 0.4 + 1
        assert memory["computations"] <= memory["budget"] * 0.6 + 1
    assert cache.cached(files[-1]) is not None and cache.cached(files[0]) is None
    cache.set_budget(0)
    assert cache.memory()["total"] == 0 and cache.cached(files[-1]) is None


def test_the_budget_is_a_setting(monkeypatch) -> None:
    assert ModuleCache().budget == 768 << 20
    monkeypatch.setenv("XLAVIEW_MEMORY_BUDGET", "2G")
    assert ModuleCache().budget == 2 << 30
    monkeypatch.setenv("XLAVIEW_MEMORY_BUDGET", "most of it")
    with pytest.raises(SettingError, match="XLAVIEW_MEMORY_BUDGET='most of it'"):
        ModuleCache()


def test_tolerant_parse_with_a_store_keeps_diagnostics() -> None:
    store = ComputationStore(1 << 20)
    broken = GOOD_PAIR.replace("add(%a, %b)", "add(%a, %nope)")
    result = parse_module_tolerant(broken, store=store)
    assert result.diagnostics and "nope" in result.diagnostics[0].message
    again = parse_module_tolerant(broken, store=store).diagnostics
    assert [(d.message, d.line, d.column) for d in again] == [
        (d.message, d.line, d.column) for d in result.diagnostics
    ]


def test_find_by_text_agrees_with_the_index(passes) -> None:
    _, text = passes[-1]
    searched, indexed = parse_module(text), parse_module(text)
    indexed._instr_index = indexed._index_names()
    names = [i.name for c in searched.computations for i in c.instructions][::37]
    for name in names[:8]:  # the first few go through the text
        (a, ia), (b, ib) = searched.find(name), indexed.find(name)
        assert (a.name, ia) == (b.name, ib), name
    twice = GOOD_PAIR.replace("%c = f32[] constant(0)", "%a = f32[] constant(0)").replace(
        "%c)", "%a)"
    )
    module = parse_module_tolerant(twice).module
    assert module.find("a")[0].name == "add", "the first definition wins"
    with pytest.raises(KeyError):
        module.find("nope")


def test_a_parse_that_takes_from_the_pass_before_is_the_parse_alone(passes) -> None:
    previous = None
    reused = 0
    for label, text in passes:
        module = parse_module(text, previous=previous)
        assert model(module) == model(parse_module(text)), f"pass {label} differs"
        if previous is not None:
            reused += sum(c in previous.computations for c in module.computations)
        previous = module
    assert reused, "passes repeat computations at the same place"
    # Shifted, and changed after the shift: the moved ones get their own spans.
    first = parse_module(GOOD_PAIR)
    second_text = "// a line\n" + GOOD_PAIR.replace("dimensions={0}", "dimensions={0}, x=1")
    second = parse_module(second_text, previous=first)
    assert model(second) == model(parse_module(second_text))
    assert second.computation("add").parsed is first.computation("add").parsed


def tolerant_model(text: str, **kwargs) -> tuple:
    result = parse_module_tolerant(text, **kwargs)
    return model(result.module), [(d.message, d.line, d.column) for d in result.diagnostics]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_edited_passes_parse_alike_with_or_without_what_they_share(data: st.DataObject) -> None:
    """Any edit of a pass (a character replaced, inserted or removed
    anywhere): taking computations from the pass before and from a store
    gives the parse of the text alone, diagnostics included."""
    (path,) = sample_dump().glob("*cpu_after_optimizations.txt")
    original = path.read_text()
    store = ComputationStore(1 << 30)
    before = parse_module_tolerant(original, store=store).module
    edited = original
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(edited)))
        piece = data.draw(st.sampled_from(["", "\n", "}", "{", " ", "%", "x", ",", "\n}\n"]))
        cut = data.draw(st.integers(0, 3))
        edited = edited[:at] + piece + edited[at + cut :]
    assert tolerant_model(edited, store=store, previous=before) == tolerant_model(edited)


def calls_model(module: Module) -> list[tuple]:
    """What each computation of the fast path calls, as a multiset."""
    return [(c.name, sorted(c.parsed.calls)) for c in module.computations if c.parsed]


def test_an_edited_computation_parses_as_its_text_alone(passes) -> None:
    """A computation a pass edited is parsed from its version in the pass
    before and the lines that changed: every line, span, check and call is
    the parse of the text alone (every computation here counts as big)."""
    previous = None
    edited = 0
    with mock.patch.object(edited_parse, "EDITED_FROM", 1):
        for label, text in passes:
            module = parse_module(text, previous=previous)
            alone = parse_module(text)
            assert model(module) == model(alone), f"pass {label} differs"
            assert calls_model(module) == calls_model(alone), f"pass {label} calls otherwise"
            if previous is not None:
                before = {id(c.parsed) for c in previous.computations}
                edited += sum(
                    c.parsed is not None and c.parsed.built and id(c.parsed) not in before
                    for c in module.computations
                )
            for comp in module.computations:  # what an edit is made from
                assert comp.instructions
            previous = module
    assert edited, "passes edit computations"


def edited_by_lines(data: st.DataObject, text: str) -> str:
    """``text`` with one to four lines dropped, copied, swapped or renamed, or
    a character of one changed, as ``data`` draws."""
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["drop", "copy", "swap", "char", "rename"]))
        if how == "drop":
            del lines[at]
        elif how == "copy":
            lines.insert(data.draw(st.integers(0, len(lines))), lines[at])
        elif how == "swap":
            other = data.draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif how == "rename":
            lines[at] = lines[at].replace("%", "%x", 1)
        else:
            column = data.draw(st.integers(0, len(lines[at])))
            pieces = ["", "{", "}", " ", "%", "x", "1", ", ", "ROOT "]
            piece = data.draw(st.sampled_from(pieces))
            lines[at] = lines[at][:column] + piece + lines[at][column + 1 :]
    return "\n".join(lines)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_any_edit_of_a_computation_parses_as_its_text_alone(data: st.DataObject) -> None:
    """Lines replaced, inserted, removed, swapped, or characters changed
    anywhere: a parse from the previous version gives the parse of the text
    alone, refusals (the careful parser's diagnostics) included."""
    (path,) = sample_dump().glob("*cpu_after_optimizations.txt")
    original = path.read_text()
    with mock.patch.object(edited_parse, "EDITED_FROM", 1):
        before = parse_module_tolerant(original).module
        for comp in before.computations:
            assert comp.instructions
        edited = edited_by_lines(data, original)
        result = parse_module_tolerant(edited, previous=before)
        assert tolerant_model(edited, previous=before) == tolerant_model(edited)
        assert calls_model(result.module) == calls_model(parse_module_tolerant(edited).module)


def test_a_name_not_written_anywhere_is_absent_at_once(passes) -> None:
    """Asking for a name the text does not hold answers without indexing the
    module's names (inspect asked for an op's sanitized kernel name, and each
    answer built the index of a 95k-instruction module)."""
    _, text = passes[-1]
    module = parse_module(text)
    with pytest.raises(KeyError):
        module.find("no_such_fusion_1535")
    assert module._instr_index is None


class _Stop(Exception):
    pass


def test_a_parse_is_asked_to_stop_after_the_header_and_inside_a_check(
    gpt_dump, monkeypatch
) -> None:
    """A step away stops a pass's parse within milliseconds: the check is
    asked once the module's header is read (a scanned model's takes 11 ms)
    before any computation, and between the columns the fast path checks of
    a big computation (20 ms of a 30,000-line body went on after a step
    away; here "big" is made small)."""
    from xlaview.hlo.parse import printed

    text = max(timeline_texts(gpt_dump), key=lambda lt: len(lt[1]))[1]
    store = ComputationStore(1 << 30)

    def stop() -> None:
        raise _Stop

    with pytest.raises(_Stop):
        parse_module_tolerant(text, store=store, check=stop)
    assert len(store) == 0, "stopped after the header, before any computation"
    entry = parse_module(text).entry
    assert entry is not None and entry.parsed is not None
    start = entry.span.offset
    found = printed.ComputationEnds(text).end(start)
    assert found is not None
    close, _ = found
    asked = 0

    def count() -> None:
        nonlocal asked
        asked += 1

    body = text.index("\n", start) + 1  # the line after the header
    rows = printed.findall_by_lines(printed._LINE, text, body, close)
    assert printed._check(rows, len(rows), count) == printed._check(rows, len(rows))
    assert asked == 0, "a small computation is checked without asking"
    monkeypatch.setattr(printed, "CHUNK", 16)
    assert printed._check(rows, len(rows), count) == printed._check(rows, len(rows))
    assert asked >= 3, f"asked {asked} times over {len(rows)} lines"


def test_a_parse_stopped_midway_leaves_its_work_in_the_store(gpt_dump, monkeypatch) -> None:
    """The window stops a pass's parse when the user steps on (its ``check``
    raises); what it parsed stays in the store, and the next parse of the text
    takes it from there and is the plain parse; the one computation read
    ahead (the graph's) is the module's."""
    from xlaview.hlo.parse import driver, runs
    from xlaview.hlo.parse.early import read_computation

    monkeypatch.setattr(driver, "CHECK_CHARS", 4096)  # a small module: checked often
    monkeypatch.setattr(runs, "RUN_CHARS", 4096)  # (a run is read between two checks)
    text = max(timeline_texts(gpt_dump), key=lambda lt: len(lt[1]))[1]
    store = ComputationStore(1 << 30)
    calls = 0

    def check() -> None:
        nonlocal calls
        calls += 1
        if calls == 20:
            raise _Stop

    with pytest.raises(_Stop):
        parse_module_tolerant(text, store=store, check=check)
    kept = len(store)
    assert kept > 0, "the computations parsed before the stop are kept"
    entry = read_computation(text, None, store)
    assert entry is not None
    module = parse_module_tolerant(text, store=store).module
    assert store.hits >= kept, "the second parse took what the first left"
    assert model(module) == model(parse_module(text))
    assert module.entry.parsed is entry.parsed and tuple(module.entry.span) == tuple(entry.span)


def test_the_graphs_computation_is_read_from_its_edit_and_shared(passes) -> None:
    """A step reads the graph's computation of the next pass alone, before the
    module; an edited one from its version in the pass before (built, as the
    graph shown has it): the parse of the text alone, kept in the store so
    that the module's parse takes that one, and so does the next step when
    the pass after leaves it as it was."""
    from xlaview.hlo.parse.early import lone_module, read_computation

    store = ComputationStore(1 << 30)
    previous = None
    edited = shared = 0
    with mock.patch.object(edited_parse, "EDITED_FROM", 1):
        for label, text in passes:
            entry = read_computation(text, None, store, previous=[previous] if previous else [])
            assert entry is not None
            module = parse_module(text, store=store, previous=previous)
            alone = parse_module(text).entry
            assert model(lone_module(text, entry)) == model(lone_module(text, alone)), label
            assert module.entry.parsed is entry.parsed, f"pass {label}: two parses"
            if previous is not None:
                if entry.parsed is previous.entry.parsed:
                    shared += 1
                elif entry.parsed.built:
                    edited += 1
            assert module.entry.instructions  # built, as the graph shown has it
            previous = module
    assert edited and shared, (edited, shared)


def test_an_entry_the_store_holds_is_read_without_searching_for_its_end(passes) -> None:
    """A step that leaves the entry as it was takes it from the store by its
    text up to the last closing line, without searching the text for its
    end; where something follows the entry (a computation printed after it,
    a stray brace), that text is not one the store holds, and the entry is
    found and read as the parse alone reads it."""
    from xlaview.hlo.parse import early
    from xlaview.hlo.parse.early import lone_module, read_computation

    text = passes[-1][1]
    store = ComputationStore(1 << 30)
    first = read_computation(text, None, store)
    assert first is not None
    with mock.patch.object(early.ComputationEnds, "end", side_effect=AssertionError("searched")):
        again = read_computation(text, None, store)
    assert again is not None and again.parsed is first.parsed
    head, entry = text.rsplit("\nENTRY ", 1)
    other = text[: text.index("\n}", text.index("\n%")) + 3]  # up to the first computation's end
    callee = other[other.index("\n%") + 1 :]
    for followed in (
        f"{head}\nENTRY {entry.rstrip()}\n\n{callee}",  # a computation after the entry
        text.rstrip() + "\n}\n",  # a stray closing brace
    ):
        read = read_computation(followed, None, store)
        assert read is not None
        alone = parse_module_tolerant(followed).module.entry
        assert model(lone_module(followed, read)) == model(lone_module(followed, alone))


def test_a_step_reads_from_the_computation_read_last_until_a_module_is_used(
    passes, tmp_path
) -> None:
    """While the user scrubs, each step's parse is stopped by the next one: the
    module used last may be the pass the window opened on, far away. The
    step's read edits the version the step before read alone instead (the
    nearest), once that one is built; a module used since is nearer."""
    from xlaview.hlo.parse.early import lone_module, read_computation

    files = []
    for k, (_label, text) in enumerate(passes):
        files.append(tmp_path / f"{k:04d}.txt")
        files[-1].write_text(text)
    cache = ModuleCache(budget=1 << 30)
    far = cache.load(files[-1]).module
    assert far.entry.instructions  # built: the window's graph read them
    assert cache.nearest() == (far,)
    text = passes[5][1]
    read = read_computation(text, None, cache.store, previous=cache.nearest())
    assert read is not None
    alone = lone_module(text, read)
    cache.note_read(alone)
    assert cache.nearest() == (alone, far)
    olds = []
    real = edited_parse.parse_fast_edit

    def edit(*args, **kwargs):
        olds.append(args[5])
        return real(*args, **kwargs)

    with (
        mock.patch.object(edited_parse, "EDITED_FROM", 1),
        mock.patch("xlaview.hlo.parse.early.parse_fast_edit", edit),
    ):
        entry = text.split("\nENTRY")[-1]
        next_text = next(t for _label, t in passes[6:] if t.split("\nENTRY")[-1] != entry)
        read_computation(next_text, None, ComputationStore(1 << 20), previous=cache.nearest())
        assert olds[-1] is far.entry, "a version not built yet is not edited"
        assert read.instructions  # built, as the graph drawn of it
        again = read_computation(
            next_text, None, ComputationStore(1 << 20), previous=cache.nearest()
        )
        assert olds[-1] is read, "the version read last is edited"
        assert model(lone_module(next_text, again)) == model(
            lone_module(next_text, parse_module(next_text).entry)
        )
    used = cache.load(files[0]).module
    assert cache.nearest() == (used,), "a module used since is the nearest"


def test_an_edit_reads_its_changed_lines_a_slice_at_a_time(passes, monkeypatch) -> None:
    """The lines an edit reads go through the line pattern a slice at a time,
    asking whether to stop between slices (one call over them all held the
    GIL for 90 ms on a moe step, and the window's GUI thread waited); a
    computation rewritten more than edited is parsed afresh."""
    from xlaview.hlo import scan
    from xlaview.hlo.parse.edited import parse_fast_edit
    from xlaview.hlo.parse.printed import ComputationEnds

    _, text = passes[-1]
    old_module = parse_module(text)
    old = max(old_module.computations, key=len)
    assert old.instructions
    start, stop = old.instructions[0].span.offset, old.instructions[-1].span.end
    body = text[start:stop]
    # Two names changed where they are defined and used alike.
    names = [i.name for i in old.instructions if i.opcode != "parameter"][:2]
    edited_body = body
    for name in names:
        edited_body = (
            edited_body.replace(f"%{name} ", f"%{name}_e ")
            .replace(f"%{name},", f"%{name}_e,")
            .replace(f"%{name})", f"%{name}_e)")
        )
    edited = text[:start] + edited_body + text[stop:]
    pos = old.span.offset
    close, end = ComputationEnds(edited).end(pos)
    asked = 0

    def check() -> None:
        nonlocal asked
        asked += 1

    assert parse_fast_edit(edited, pos, close, end, old.span.line, old, text, check)
    in_one, asked = asked, 0
    monkeypatch.setattr(scan, "SLICE", 128)
    parsed = parse_fast_edit(edited, pos, close, end, old.span.line, old, text, check)
    assert parsed is not None
    alone = parse_module(edited).computation(old.name)
    assert parsed.instructions == alone.instructions
    assert asked > in_one, f"asked {asked} times in slices, {in_one} in one"
    rewritten = text[:start] + body.replace(" = ", "  = ") + text[stop:]
    close, end = ComputationEnds(rewritten).end(pos)
    assert parse_fast_edit(rewritten, pos, close, end, old.span.line, old, text) is None
