"""The helper process that colours text off the window's GIL, and the packed
spans it sends back."""

from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from xlaview import helper as helper_module
from xlaview import turns
from xlaview.helper import HelperProcess
from xlaview.resources import sample_dump
from xlaview.text.spans import lex_text


class Outcomes:
    """Collects what a helper delivers, on its thread."""

    def __init__(self) -> None:
        self.items: list[tuple[bool, object, str]] = []
        self.progress: list[float] = []
        self._event = threading.Event()

    def deliver(self, ok: bool, value: object, trace: str) -> None:
        self.items.append((ok, value, trace))
        self._event.set()

    def next(self, timeout: float = 60) -> tuple[bool, object, str]:
        assert self._event.wait(timeout), "the helper delivered nothing"
        self._event.clear()
        return self.items[-1]


@pytest.fixture
def helper():
    h = HelperProcess()
    yield h
    h.close()


def sample_text() -> str:
    (path,) = sample_dump().glob("*after_optimizations.txt")
    return path.read_text()


def fail_on_purpose(message: str) -> None:
    raise ValueError(message)


def print_and_return(value: int) -> int:
    print("a job that prints must not disturb the results")
    return value


COLLECTOR_ON: list[bool] = []  # whether the collector ran as each result was loaded


def _loaded() -> str:
    COLLECTOR_ON.append(gc.isenabled())
    return "loaded"


class NotesItsLoading:
    """A result that, unpickled in the window, notes whether the collector was on."""

    def __reduce__(self):
        return (_loaded, ())


def make_noting_result() -> NotesItsLoading:
    return NotesItsLoading()


def test_a_result_is_loaded_with_the_collector_paused(helper) -> None:
    """A big result's hundreds of thousands of records, loaded with the
    collector on, set off a full collection of the window's heap on the
    helper's reader thread: 855 ms with the GIL held on a U-Net pass's boundaries."""
    out = Outcomes()
    COLLECTOR_ON.clear()
    helper.submit(make_noting_result, (), out.deliver)
    assert out.next() == (True, "loaded", "")
    assert COLLECTOR_ON == [False], "the result was loaded with the collector on"
    assert gc.isenabled(), "and it runs again after"


def many_records(count: int) -> list[tuple[str, int]]:
    return [(f"fusion.{k}", k) for k in range(count)]


def test_a_big_result_is_loaded_in_turns(helper, monkeypatch) -> None:
    """``pickle.loads`` of a 7.7 MB result held the GIL 182 ms on the reader
    thread (a U-Net pass's analysis), a GUI stall: it is loaded a frame at a
    time, and while the GUI thread has the right of way the reader waits at
    its turns between frames."""
    monkeypatch.setattr(turns, "RIGHT_OF_WAY_AT_MOST_S", 5.0)
    out = Outcomes()
    with turns.right_of_way():
        helper.submit(many_records, (200_000,), out.deliver)
        time.sleep(3)  # the child makes and sends it, the reader reaches its first turn
        assert not out.items, "the reader loaded the whole result past its turns"
    assert out.next() == (True, many_records(200_000), "")


def test_a_job_runs_in_the_helper_and_matches_the_same_job_here(helper) -> None:
    text = sample_text()
    out = Outcomes()
    helper.submit(lex_text, (text, "hlo"), out.deliver)
    ok, spans, _ = out.next()
    assert ok
    here = lex_text(text, "hlo")
    assert len(spans) == len(here) == text.count("\n") + 1
    assert all(spans[i] == here[i] for i in range(len(here)))


def test_spans_cover_the_coloured_tokens_of_each_line() -> None:
    text = sample_text()
    spans = lex_text(text, "hlo")
    lines = text.split("\n")
    entry = next(i for i, line in enumerate(lines) if line.startswith("ENTRY"))
    assert {"Token.Keyword", "Token.Name.Function"} & {t for _, _, t in spans[entry]}
    for number, line in enumerate(lines):
        for column, length, token in spans[number]:
            assert column >= 0 and column + length <= len(line), (number, column, length)
            assert line[column : column + length].strip(), (number, token)
    # Packed in arrays: a few bytes per span, and the same after a round trip.
    packed = pickle.dumps(spans)
    assert len(packed) < 16 * len(spans.data) + 4096
    again = pickle.loads(packed)
    assert [again[i] for i in range(len(again))] == [spans[i] for i in range(len(spans))]


def test_empty_text_and_lines_without_tokens() -> None:
    assert len(lex_text("", "hlo")) == 1
    spans = lex_text("HloModule m\n\n\n", "hlo")
    assert len(spans) == 4
    assert spans[1] == spans[2] == spans[3] == []


def test_errors_come_back_with_their_trace_and_the_helper_goes_on(helper) -> None:
    out = Outcomes()
    helper.submit(fail_on_purpose, ("on purpose",), out.deliver)
    ok, error, trace = out.next()
    assert not ok and isinstance(error, ValueError) and "on purpose" in str(error)
    assert "fail_on_purpose" in trace
    helper.submit(print_and_return, (7,), out.deliver)
    assert out.next() == (True, 7, "")


def test_a_job_no_longer_wanted_never_runs(helper) -> None:
    out = Outcomes()
    helper.submit(print_and_return, (1,), out.deliver, wanted=lambda: False)
    helper.submit(print_and_return, (2,), out.deliver)
    assert out.next() == (True, 2, "")
    assert [value for _, value, _ in out.items] == [2]


def test_a_running_job_no_longer_wanted_is_stopped(helper) -> None:
    """Stepping on while a big file is coloured: its child is stopped at the
    job's next progress report, and the next job runs in a new one."""
    out = Outcomes()
    wanted = threading.Event()
    wanted.set()
    first_report = threading.Event()

    def report(fraction: float) -> None:
        wanted.clear()  # the user stepped on
        first_report.set()

    helper.submit(
        lex_text, (sample_text() * 20, "hlo"), out.deliver, wanted=wanted.is_set, progress=report
    )
    assert first_report.wait(60)
    helper.submit(os.getpid, (), out.deliver)
    ok, pid, _ = out.next()
    assert ok and pid != os.getpid()
    assert len(out.items) == 1, "the stopped job delivered nothing"


def test_progress_reports_arrive_before_the_result(helper) -> None:
    out = Outcomes()
    text = sample_text() * 4
    helper.submit(lex_text, (text, "hlo"), out.deliver, progress=out.progress.append)
    ok, _, _ = out.next()
    assert ok and out.progress and out.progress == sorted(out.progress)
    assert 0 < out.progress[0] <= out.progress[-1] <= 1


def test_a_helper_that_dies_is_replaced(helper) -> None:
    out = Outcomes()
    helper.submit(print_and_return, (1,), out.deliver)
    out.next()
    first = helper._process
    first.kill()  # as the out-of-memory killer would
    first.wait()
    # A child found dead before a job is replaced: the job runs in a new one.
    helper.submit(print_and_return, (2,), out.deliver)
    assert out.next() == (True, 2, "")
    helper.submit(os.getpid, (), out.deliver)
    ok, pid, _ = out.next()
    assert ok and pid not in (os.getpid(), first.pid)


def test_where_no_child_can_start_jobs_run_here(monkeypatch) -> None:
    monkeypatch.setattr(helper_module, "helper_command", lambda: ["/nonexistent/python"])
    h = HelperProcess()
    out = Outcomes()
    try:
        for n in range(helper_module.MAX_DEATHS + 1):
            h.submit(os.getpid, (), out.deliver)
            assert out.next() == (True, os.getpid(), ""), n
        h.submit(fail_on_purpose, ("here too",), out.deliver)
        ok, error, trace = out.next()
        assert not ok and "here too" in str(error) and "fail_on_purpose" in trace
    finally:
        h.close()


def test_a_script_without_a_main_guard_is_not_run_again(tmp_path: Path) -> None:
    """multiprocessing's spawn would import the user's script in the child and
    open a second window; the helper starts from ``python -c``."""
    script = tmp_path / "no_guard.py"
    script.write_text(
        "import threading\n"
        "from xlaview.helper import HelperProcess\n"
        "from xlaview.text.spans import lex_text\n"
        "print('script ran', flush=True)\n"
        "done = threading.Event()\n"
        "h = HelperProcess()\n"
        "h.submit(lex_text, ('HloModule m', 'hlo'), "
        "lambda ok, v, t: (print(ok, v[0]), done.set()))\n"
        "assert done.wait(60)\n"
        "h.close()\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("script ran") == 1
    assert "True [(0, 9, 'Token.Keyword')" in proc.stdout


BLOCKING_JOB = """
import threading

def block_for_ever(progress):
    progress(0.5)  # tells the parent the job has started
    threading.Event().wait()
"""

PARENT_SCRIPT = """
import os, sys
sys.path.insert(0, {folder!r})
from blocking_job import block_for_ever
from xlaview.helper import HelperProcess

h = HelperProcess()
def started(fraction):
    print(h._process.pid, flush=True)
h.submit(block_for_ever, (), lambda *outcome: None, progress=started)
import threading; threading.Event().wait()
"""


def _wait_for_exit(pid: int, timeout: float) -> bool:
    """Whether process ``pid`` (not our child) ends within ``timeout`` seconds:
    a pidfd becomes readable when it does, so nothing polls on a timer."""
    import select

    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(timeout * 1000))
    finally:
        os.close(fd)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs pidfd_open (Linux 5.3)")
def test_a_child_blocked_in_a_job_dies_with_a_killed_parent(tmp_path: Path) -> None:
    """kill -9 of the window while its helper runs a job that never ends: the
    helper goes too (the kernel's parent-death signal, or the pipe watch)."""
    (tmp_path / "blocking_job.py").write_text(BLOCKING_JOB)
    with subprocess.Popen(
        [sys.executable, "-c", PARENT_SCRIPT.format(folder=str(tmp_path))],
        stdout=subprocess.PIPE,
        text=True,
    ) as parent:
        try:
            child = int(parent.stdout.readline())
        finally:
            parent.kill()
    assert _wait_for_exit(child, 5), f"helper {child} outlived its killed parent"


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs pidfd_open (Linux 5.3)")
def test_a_child_blocked_in_a_job_exits_when_its_pipe_closes(
    helper, tmp_path: Path, monkeypatch
) -> None:
    """The watch every OS has: the parent's end of the job pipe closing ends
    the child, even in the middle of a job that never returns."""
    (tmp_path / "blocking_job.py").write_text(BLOCKING_JOB)
    monkeypatch.syspath_prepend(str(tmp_path))
    from blocking_job import block_for_ever

    started = threading.Event()
    out = Outcomes()
    helper.submit(block_for_ever, (), out.deliver, progress=lambda f: started.set())
    assert started.wait(60)
    child = helper._process
    child.stdin.close()  # as the parent's exit would
    assert _wait_for_exit(child.pid, 5), "the child went on after its job pipe closed"
    # The job is reported, not run again here (where it would block the window's lane).
    ok, error, _ = out.next()
    assert not ok and isinstance(error, helper_module.HelperDied), error
    assert "block_for_ever" in str(error)


def test_close_returns_while_a_job_blocks(helper, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "blocking_job.py").write_text(BLOCKING_JOB)
    monkeypatch.syspath_prepend(str(tmp_path))
    from blocking_job import block_for_ever

    started = threading.Event()
    helper.submit(block_for_ever, (), lambda *outcome: None, progress=lambda f: started.set())
    assert started.wait(60)
    child = helper._process
    helper.close()
    assert child.poll() is not None and not helper._thread.is_alive()


def test_a_job_that_kills_its_child_fails_and_is_not_run_here(helper) -> None:
    out = Outcomes()
    helper.submit(os._exit, (3,), out.deliver)
    ok, error, _ = out.next()
    assert not ok and isinstance(error, helper_module.HelperDied), error
    assert "exit status 3" in str(error)
    helper.submit(print_and_return, (4,), out.deliver)
    assert out.next() == (True, 4, ""), "the next job runs in a new child"


def parse_sample_attributes() -> int:
    """In the helper: the sample's attributes split (filling the parse's cache)."""
    from xlaview.hlo import parse_module

    module = parse_module(sample_text())
    for c in module.computations:
        for i in c.instructions:
            i.attributes  # noqa: B018
    from xlaview.hlo.attributes import split_attributes

    return split_attributes.cache_info().currsize


def attribute_cache_size() -> int:
    from xlaview.hlo.attributes import split_attributes

    return split_attributes.cache_info().currsize


def test_the_helper_gives_its_memory_back_between_jobs(helper) -> None:
    """A cache the parse filled is cleared once a job is done: its values,
    made amid the module's objects, kept hundreds of MB of arenas (340 MB
    after a 45 MB module's boundaries; 60 MB cleared)."""
    out = Outcomes()
    helper.submit(parse_sample_attributes, (), out.deliver)
    ok, filled, trace = out.next()
    assert ok, trace
    assert filled > 10
    helper.submit(attribute_cache_size, (), out.deliver)
    ok, left, trace = out.next()
    assert ok and left == 0, (left, trace)
