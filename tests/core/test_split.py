"""A big module read and priced by two processes (`xlaview.analysis.cost.two_processes`)
gives what one process gives, on real dumps; and whatever the helper does
(dies, lies, hangs, meets a body only the careful parser takes), the parent
still gives it, without waiting long."""

from __future__ import annotations

import os
import pickle
import re
import time
from pathlib import Path

import pytest

from xlaview.analysis.cost import two_processes as split
from xlaview.analysis.cost.two_processes import load_and_price
from xlaview.dump.modules import LoadedModule
from xlaview.resources import sample_dump

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the helper is forked")


def described(loaded: LoadedModule) -> list[tuple]:
    """What a parse decides of each computation, reading no deferred body."""
    return [
        (
            c.name,
            c.is_entry,
            c.span,
            c.signature,
            c.attribute_text,
            len(c),
            c.parsed.calls if c.parsed is not None else None,
        )
        for c in loaded.module.computations
    ]


def deferred(loaded: LoadedModule) -> int:
    return sum(
        1 for c in loaded.module.computations if c.parsed is not None and c.parsed.deferred_body
    )


def assert_same(path: Path, expect_split: bool = True) -> None:
    one_loaded, one = load_and_price(path, helper=False)
    two_loaded, two = load_and_price(path, helper=True)
    if expect_split:
        assert deferred(two_loaded), "the parent left the helper's bodies unread"
    assert described(two_loaded) == described(one_loaded)
    assert two_loaded.problems == one_loaded.problems
    assert two.ops == one.ops
    assert (two.totals, two.executed, two.loops) == (one.totals, one.executed, one.loops)
    # Anything asked of a body the helper read is read here on demand.
    for a, b in zip(one_loaded.module.computations, two_loaded.module.computations, strict=True):
        assert b.instructions == a.instructions
        for instr in a.instructions[:3]:
            assert two.op(instr.name) == one.op(instr.name)
            assert two.executions(a.name) == one.executions(a.name)
    assert not deferred(two_loaded)


def sample_final() -> Path:
    return next(sample_dump().glob("*cpu_after_optimizations.txt"))


def test_two_processes_price_a_real_train_step_as_one(gpt_dump: Path) -> None:
    for path in sorted(gpt_dump.glob("*after_optimizations.txt")):
        assert_same(path)


def test_two_processes_on_loops_branches_and_spmd(zoo: dict[str, Path]) -> None:
    for program in ("scan", "cond", "spmd", "attention"):
        for path in sorted(zoo[program].glob("*after_optimizations.txt")):
            assert_same(path, expect_split=False)


@pytest.mark.slow
def test_two_processes_on_the_corpus(corpus: Path) -> None:
    """GPU, ROCm and TPU dumps (memory spaces, library calls, async pairs)
    and 2020-era TF names: every after-optimizations module of the corpus."""
    paths = sorted(corpus.glob("real_dumps/**/*after_optimizations*.txt"))
    assert len(paths) > 100
    for path in paths:
        assert_same(path, expect_split=False)


def helper_doing(monkeypatch: pytest.MonkeyPatch, work) -> None:
    """Replace the helper's work (the fork copies the patched module)."""
    monkeypatch.setattr(split, "_help", work)


@pytest.mark.parametrize("when", ["at once", "after saying what it read"])
def test_a_helper_that_dies_leaves_the_work_to_the_parent(
    monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    real = split._help

    def dies(text: str, mid: int, send, claims) -> None:
        if when == "at once":
            os._exit(3)
        real(text, mid, lambda message: (send(message), os._exit(3)), claims)

    helper_doing(monkeypatch, dies)
    assert_same(sample_final(), expect_split=False)


def test_a_helper_that_dies_holding_the_claims_lock_is_given_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = split._help

    class TakesTheLockAndDies:
        def __init__(self, claims) -> None:
            self.claims = claims

        def take(self, **_) -> None:
            self.claims._acquire(None)
            os._exit(3)

    helper_doing(
        monkeypatch,
        lambda text, mid, send, claims: real(text, mid, send, TakesTheLockAndDies(claims)),
    )
    start = time.monotonic()
    assert_same(sample_final(), expect_split=False)
    assert time.monotonic() - start < 10


def test_the_processes_meet_where_their_speeds_put_them(
    gpt_dump: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent takes the entry's instructions from the front, the helper
    from the back, until they meet: a helper slowed down takes fewer, one
    that takes none is not waited for, one beside a slow parent takes
    nearly all (reading the bodies of the parent's half too), and the
    prices are always one process's."""
    path = max(gpt_dump.glob("*after_optimizations.txt"), key=lambda p: p.stat().st_size)
    monkeypatch.setattr(split, "CLAIM", 4)
    real_take, real_prices = split._Claims.take, split._ParentShare.prices
    taken: list[int] = []
    entry: list[int] = []

    def prices(share) -> object:
        taken.append(len(share.theirs or ()))
        entry.append(len(share.module.entry))
        return real_prices(share)

    monkeypatch.setattr(split._ParentShare, "prices", prices)
    for slow_front, pause in ((False, 0.0), (False, 0.02), (False, 60.0), (True, 0.02)):

        def take(claims, *, front: bool, pause=pause, slow_front=slow_front, **kwargs):
            if front == slow_front:
                time.sleep(pause)
            return real_take(claims, front=front, **kwargs)

        monkeypatch.setattr(split._Claims, "take", take)
        start = time.monotonic()
        assert_same(path, expect_split=not pause)  # (a slow helper's bodies are read here)
        assert time.monotonic() - start < 30
    helper, slowed, stuck, beside_slow_parent = taken
    assert helper > slowed > 0 == stuck
    assert beside_slow_parent > entry[0] * 3 // 4 > helper


def test_prices_cross_the_pipe_as_they_were(gpt_dump: Path) -> None:
    from xlaview.analysis.cost.totals import SharePrices, price_share

    path = next(gpt_dump.glob("*after_optimizations.txt"))
    loaded, _ = load_and_price(path, helper=False)
    prices = price_share(loaded.module, lambda entry: [entry.instructions])
    assert any(r is not None and r.collective is None for r in prices.records.values())
    assert SharePrices.unpacked(pickle.loads(pickle.dumps(prices.packed()))) == prices
    with pytest.raises((TypeError, ValueError)):
        SharePrices.unpacked(("not", "prices"))


def test_a_helper_that_reads_another_module_is_not_believed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def lies(text: str, mid: int, send, claims) -> None:
        send([(mid, "not_there", ())])
        send("not prices either")

    helper_doing(monkeypatch, lies)
    assert_same(sample_final(), expect_split=False)


def test_a_helper_that_hangs_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "HELPER_TIMEOUT_S", 0.5)
    helper_doing(monkeypatch, lambda text, mid, send, claims: time.sleep(60))
    start = time.monotonic()
    assert_same(sample_final(), expect_split=False)
    assert time.monotonic() - start < 10


def test_no_helper_outlives_the_work() -> None:
    load_and_price(sample_final(), helper=True)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # no child left, not even a zombie


def test_a_body_only_the_careful_parser_takes(tmp_path: Path) -> None:
    """Hand-written: a comment inside a computation in each half. The fast
    path refuses both; the module, its problems and its cost are still those
    of one process, a bad operand included."""
    path = sample_final()
    text = path.read_text()
    bodies = [m.end() for m in re.finditer(r"^%\S+ .*\{\n", text, re.MULTILINE)]
    first = bodies[0]
    second = next(b for b in bodies if b > len(text) * split.PARENT_SHARE)
    hand = (
        text[:first]
        + "  /* a comment */\n"
        + text[first:second]
        + "  %broken = f32[] add(f32[] %nowhere)\n"
        + text[second:]
    )
    broken = tmp_path / path.name
    broken.write_text(hand)
    one_loaded, _ = load_and_price(broken, helper=False)
    assert one_loaded.problems, "the bad operand is reported"
    assert_same(broken, expect_split=False)


def test_a_fork_that_fails_leaves_one_process_and_no_descriptor_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fails() -> int:
        raise OSError("no more processes")

    if not Path("/proc/self/fd").is_dir():
        pytest.skip("open descriptors are counted in /proc (Linux)")
    one_loaded, one = load_and_price(sample_final(), helper=False)
    monkeypatch.setattr(os, "fork", fails)
    before = len(os.listdir("/proc/self/fd"))
    loaded, cost = load_and_price(sample_final(), helper=True)
    assert len(os.listdir("/proc/self/fd")) == before
    assert cost.ops == one.ops and described(loaded) == described(one_loaded)


def test_small_modules_stay_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args, **kwargs):
        raise AssertionError("forked for a small module")

    monkeypatch.setattr(split._Helper, "start", forbidden)
    loaded, cost = load_and_price(sample_final())
    assert cost.ops and not deferred(loaded)


@pytest.mark.parametrize(
    "command",
    [
        ["cost", "--json"],
        ["traffic", "--json"],
        ["cost"],
        ["traffic"],
        ["boundaries", "--json"],
        ["inspect", "--json", "-i", "fusion.1"],
    ],
)
def test_commands_print_the_same_with_a_helper(
    gpt_dump: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    from xlaview.cli import main

    path = next(gpt_dump.glob("*after_optimizations.txt"))
    if command[0] == "inspect":
        loaded, _ = load_and_price(path, helper=False)
        fusion = next(i.name for i in loaded.module.entry.instructions if i.opcode == "fusion")
        command = [*command[:-1], fusion]
    outputs = []
    for split_from in (1 << 62, 0):
        monkeypatch.setattr(split, "SPLIT_FROM", split_from)
        assert main([command[0], *command[1:2], str(path), *command[2:]]) == 0
        outputs.append(capsys.readouterr())
    assert outputs[1] == outputs[0]


@pytest.mark.parametrize("helper", [False, True])
def test_work_meanwhile_runs_once_in_this_process(helper: bool) -> None:
    ran: list[int] = []
    one_loaded, one = load_and_price(sample_final(), helper=False)
    loaded, cost = load_and_price(
        sample_final(), helper=helper, meanwhile=lambda: ran.append(os.getpid())
    )
    assert ran == [os.getpid()]
    assert cost.ops == one.ops and described(loaded) == described(one_loaded)


def test_callers_read_only_the_computations_that_call(gpt_dump: Path) -> None:
    """Asking who calls a fusion's body reads no body the helper read (the
    parser says what each computation calls), and answers as a reading of
    every instruction would."""
    path = max(gpt_dump.glob("*after_optimizations.txt"), key=lambda p: p.stat().st_size)
    loaded, _ = load_and_price(path, helper=True)
    module = loaded.module
    unread = deferred(loaded)
    assert unread
    body = next(c.name for c in module.computations if c.parsed and c.parsed.calls == ())
    assert module.callers(body)
    assert deferred(loaded) == unread
    expected: dict[str, list[str]] = {}
    for comp in module.computations:
        for instr in comp.instructions:
            for called in instr.called_computations:
                expected.setdefault(called, []).append(instr.name)
    for comp in module.computations:
        assert [i.name for i in module.callers(comp.name)] == expected.get(comp.name, [])
