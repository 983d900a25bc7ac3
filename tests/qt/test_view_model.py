"""The view model: what is shown is what was asked last, however fast the
user asks; late results never land; quitting is quick; memory stays flat."""

from __future__ import annotations

import gc
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QTextDocument

from xlaview.hlo import parse_module
from xlaview.resources import sample_dump

SAMPLE = sample_dump()
SCORE_FUSION = "convert_exponential_fusion"  # fused_computation.2
OTHER_FUSION = "convert_convert_fusion"


@pytest.fixture
def hooked(monkeypatch) -> list[BaseException]:
    """Exceptions that reach sys.excepthook."""
    seen: list[BaseException] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, tb: seen.append(value))
    return seen


def opened(window, folder: Path = SAMPLE):
    window.open_dump(folder)
    window.wait_idle()
    return window.model.module


def body_of(window, fusion: str) -> str:
    return window.model.loaded.module.instruction(fusion).called_computations[0]


def test_late_fusion_layout_never_lands(window, qtbot, hooked) -> None:
    """Select fusion B, then A, then B again quickly: B's body under B's title."""
    opened(window)
    for pump in (False, True):
        for first, second in ((SCORE_FUSION, OTHER_FUSION), (OTHER_FUSION, SCORE_FUSION)):
            window.select_instruction(first)
            if pump:
                QCoreApplication.processEvents()
            window.select_instruction(second)
            window.select_instruction(first)
            window.wait_idle()
            state = window.view_state()
            assert state["selection"] == first
            assert state["fusion_computation"] == body_of(window, first)
            fused = window.graph_pane.fused.graph
            assert fused is not None and fused.computation == body_of(window, first), (
                f"the fused pane shows {fused and fused.computation} under {first}"
            )
            assert first in window.graph_pane.fusion_title.text()
    assert not hooked


def test_click_on_a_node_gone_in_the_new_pass(window, qtbot, hooked) -> None:
    """A node still drawn from the previous pass, clicked after a step to a pass
    without it: a message, not an error."""
    module = opened(window)
    points = module.points()
    fusion = next(i for i, p in enumerate(points) if "after fusion" in p.title)
    window.select_pass(points[fusion - 1].key)
    window.wait_idle()
    view = window.graph_pane.main
    assert "exp.1" in view.graph.nodes_of, "drawn before the fusion pass"
    window.select_pass(points[fusion].key)
    view.instruction_clicked.emit(view.graph.computation, "exp.1")  # the old graph, clicked
    window.wait_idle()
    assert window.view_state()["selection"] is None
    assert "exp.1" in window.status.text()
    assert not hooked


def test_there_and_back_shows_no_stale_diff(window, qtbot, hooked) -> None:
    module = opened(window)
    first, second = module.points()[:2]
    for i in range(20):
        window.select_pass(second.key)
        if i % 2:
            QCoreApplication.processEvents()
        window.select_pass(first.key)
        window.wait_idle()
        assert window.view_state()["diff"] is None, f"round {i}: a diff on the first dump"
        assert "first dump" in window.changes.title.text()
    window.select_pass(second.key)
    window.wait_idle()
    assert window.view_state()["diff"] == {"from": "before", "to": int(second.key)}
    assert not hooked


def test_history_and_change_sizes_stay_with_their_module(
    window, qtbot, zoo, tmp_path, hooked
) -> None:
    import shutil

    root = tmp_path / "two"
    shutil.copytree(zoo["cond"], root / "a")
    shutil.copytree(zoo["scan"], root / "b")
    window.open_dump(root)
    window.wait_idle()
    modules = window.model.index.modules
    a = next(m for m in modules if m.dump == "a" and m.passes)
    b = next(m for m in modules if m.dump == "b" and m.passes)
    window.select_module(a.key if a.name != b.name else f"a/{a.key}")
    window.wait_idle()
    name = window.model.loaded.module.entry.root.name
    window.select_instruction(name)
    window.select_module(f"b/{b.key}")  # before A's history or change sizes arrive
    window.wait_idle()
    assert window.view_state()["module"] == b.key
    keys = {p.key for p in b.points()}
    assert set(window.timeline.change_sizes) <= keys and window.timeline.change_sizes
    assert window.timeline.changed_marks == set()
    assert "Select an instruction" in window.changes.history_title.text()
    assert not hooked


@pytest.mark.slow
def test_memory_stays_flat_over_sweeps(window, qtbot) -> None:
    """Ten sweeps of every pass of the sample: no growth of memory, of frozen
    objects or of documents left behind."""
    module = opened(window)
    keys = [p.key for p in module.points()]

    def rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    sizes, documents, frozen = [], [], []
    for sweep in range(10):
        for key in keys if sweep % 2 == 0 else reversed(keys):
            window.select_pass(key)
            window.wait_idle()
        gc.collect()
        sizes.append(rss())
        documents.append(sum(isinstance(o, QTextDocument) for o in gc.get_objects()))
        frozen.append(gc.get_freeze_count())
    # Frozen once per pass loaded; what dies is freed all the same: no growth.
    assert max(frozen[2:]) <= frozen[1] * 1.05, frozen
    assert max(sizes[2:]) <= sizes[1] * 1.05, [s >> 20 for s in sizes]
    assert documents[-1] <= documents[1] + 1, documents


def test_bursts_of_requests_show_what_was_asked_last(window, qtbot, gpt_dump, hooked) -> None:
    """25+ requests without waiting, on a real train step: the state after
    wait_idle is the last asked, and the text is that pass's file."""
    module = opened(window, gpt_dump)
    points = module.points()
    rng = random.Random(11)
    texts = {p.key: p.file.path.read_text() for p in points}
    names = {
        p.key: sorted(parse_module(texts[p.key]).entry.instructions, key=lambda i: i.name)
        for p in points[:: max(1, len(points) // 12)] + [points[-1]]
    }
    for burst in range(6):
        asked_pass, asked_name = None, None
        for _ in range(rng.randint(25, 40)):
            if rng.random() < 0.6 or asked_pass is None:
                asked_pass = rng.choice(list(names))
                window.select_pass(asked_pass)
            else:
                asked_name = rng.choice(names[asked_pass]).name
                window.select_instruction(asked_name)
            if rng.random() < 0.2:
                QCoreApplication.processEvents()
        assert window.wait_idle(), "idle again"
        state = window.view_state()
        module_text = parse_module(texts[asked_pass])
        expected = (
            asked_name
            if asked_name and any(asked_name in c for c in module_text.computations)
            else None
        )
        assert state["pass"] == (int(asked_pass) if asked_pass.isdigit() else asked_pass)
        assert state["text_pass"] == state["pass"] and state["graph_pass"] == state["pass"]
        assert state["selection"] == expected, f"burst {burst}"
        assert window.text.toPlainText() == texts[asked_pass], "the text is that pass's file"
        assert window.graph_pane.main.graph.computation == state["computation"]
        if expected:
            instr = module_text.instruction(expected)
            body = instr.called_computations[0] if instr.opcode == "fusion" else None
            assert state["fusion_computation"] == body
    assert not hooked


QUIT_DRIVER = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from xlaview.qt.app import application, run_gui

app = application()

def quit_when_busy():
    windows = [w for w in QApplication.topLevelWidgets() if hasattr(w, "view_state")]
    if windows and windows[0].busy:
        print("quitting", flush=True)
        app.quit()
    else:
        QTimer.singleShot(5, quit_when_busy)

QTimer.singleShot(0, quit_when_busy)
sys.exit(run_gui([sys.argv[1]]))
"""


def big_module(path: Path, instructions: int) -> Path:
    """A long module (one instruction per line): its parse keeps the worker
    busy for a second or more."""
    lines = [
        "HloModule big",
        "",
        "ENTRY main {",
        "  p = f32[8,8]{1,0} parameter(0)",
        "  a0 = f32[8,8]{1,0} add(p, p)",
    ]
    lines += [f"  a{i} = f32[8,8]{{1,0}} add(a{i - 1}, p)" for i in range(1, instructions)]
    lines += [f"  ROOT r = f32[8,8]{{1,0}} negate(a{instructions - 1})", "}", ""]
    path.write_text("\n".join(lines))
    return path


def children_of(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.add(int(entry.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def test_quit_while_a_job_runs(tmp_path: Path) -> None:
    """The window closes while a long parse runs: the process and its helpers
    are gone within 2 s, and nothing is printed."""
    path = big_module(tmp_path / "big.hlo", 400_000)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path)}
    with subprocess.Popen(
        [sys.executable, "-c", QUIT_DRIVER, str(path)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            assert proc.stdout.readline().strip() == "quitting"
            quit_at = time.monotonic()
            helpers = children_of(proc.pid)
            proc.wait(timeout=2)
            assert time.monotonic() - quit_at < 2.0
            stderr = proc.stderr.read()
        finally:
            proc.kill()
    assert proc.returncode == 0 and stderr == "", stderr
    deadline = time.monotonic() + 2
    while helpers and time.monotonic() < deadline:
        helpers = {
            pid
            for pid in helpers
            if Path(f"/proc/{pid}").exists()
            and "Z" not in (Path(f"/proc/{pid}/stat").read_text().split()[2:3] or ["Z"])
        }
    assert not helpers, f"helper processes outlived the window: {helpers}"


@pytest.mark.slow
def test_scrubbing_prepares_each_pass_once(window, qtbot, gpt_dump, monkeypatch, hooked) -> None:
    """Stepping forward as fast as passes show: a pass the prefetch is preparing
    when the user steps to it is waited for, not read a second time."""
    from xlaview.qt.model import tasks as jobs

    prepared: list[str] = []
    real = jobs.prepare_pass

    def counted(cache, dump_file, ahead=None, progress=None):
        prepared.append(dump_file.rel)
        return real(cache, dump_file, ahead, progress)

    monkeypatch.setattr(jobs, "prepare_pass", counted)
    module = opened(window, gpt_dump)
    keys = [p.key for p in module.points()]
    window.select_pass(keys[0])
    window.wait_idle()
    prepared.clear()
    for key in keys[1:]:
        window.select_pass(key)
        want = int(key) if key.isdigit() else key
        qtbot.waitUntil(
            lambda want=want: (
                window.view_state()["text_pass"] == want
                and window.view_state()["graph_pass"] == want
            ),
            timeout=60000,
        )
    window.wait_idle()
    twice = {rel for rel in prepared if prepared.count(rel) > 1}
    assert not twice, f"read twice: {sorted(twice)}"
    assert not hooked


def test_a_pass_kept_parsed_is_shown_without_reading_its_file(
    window, qtbot, gpt_dump, monkeypatch, hooked
) -> None:
    """Going back and forth between two passes (comparing them) shows the
    text of the module kept parsed: its file is not read again, and the text
    shown is that module's own."""
    from xlaview.qt.model import tasks

    reads: list[str] = []
    real = tasks.read_text

    def counted(path, *args, **kwargs):
        reads.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(tasks, "read_text", counted)
    module = opened(window, gpt_dump)
    keys = [p.key for p in module.points()]
    there, back = keys[len(keys) // 2], keys[len(keys) // 2 + 1]
    for key in (there, back):
        window.select_pass(key)
        window.wait_idle()
    reads.clear()
    shown: list[str] = []
    window.model.text_read.connect(lambda read: shown.append(read.source.text))
    for key in (there, back, there, back):
        shown.clear()
        window.select_pass(key)
        window.wait_idle()
        want = int(key) if key.isdigit() else key
        assert window.view_state()["text_pass"] == window.view_state()["graph_pass"] == want
        assert shown and all(text is window.model.loaded.module.text for text in shown)
    assert not reads, f"read again: {reads}"
    assert not hooked


def test_a_step_back_shows_the_layout_it_came_from(
    window, qtbot, gpt_dump, monkeypatch, hooked
) -> None:
    """Forward through the passes, then back: each pass going back shows the
    very layout it had going forward, laid out again for none of them."""
    from xlaview.qt.model import tasks as jobs

    laid_out: list[str] = []
    real = jobs.graph_and_layout

    def counted(module, computation, *args, **kwargs):
        laid_out.append(computation)
        return real(module, computation, *args, **kwargs)

    monkeypatch.setattr(jobs, "graph_and_layout", counted)
    module = opened(window, gpt_dump)
    keys = [p.key for p in module.points()][:8]
    forward = {}
    for key in keys:
        window.select_pass(key)
        window.wait_idle()
        forward[key] = window.model.views.shown_result(window.model.graph_path[-1]).layout
    laid_out.clear()
    for key in reversed(keys[:-1]):
        window.select_pass(key)
        window.wait_idle()
        assert (
            window.model.views.shown_result(window.model.graph_path[-1]).layout is forward[key]
        ), key
    assert not laid_out and not hooked


def test_a_step_shows_before_the_other_work_starts(window, qtbot, gpt_dump, monkeypatch) -> None:
    """The one worker thread runs a step's pass and graph before anything else
    asked meanwhile (a module's reports, the diff): a job
    started first kept the 45 MB module's text off screen 0.3 s longer."""
    from xlaview.qt.model import tasks

    started: list[str] = []

    def logged(fn):
        def run(*args, **kwargs):
            started.append(fn.__name__)
            return fn(*args, **kwargs)

        return run

    for name in ("prepare_pass", "graph_and_layout", "read_reports", "diff_files"):
        monkeypatch.setattr(tasks, name, logged(getattr(tasks, name)))
    opened(window, gpt_dump)
    parsed = started.index("prepare_pass")
    assert "graph_and_layout" in started[:parsed], f"the graph, from the text: {started}"
    assert {"read_reports", "diff_files"} <= set(started[parsed:]), started
    keys = [p.key for p in window.model.points]
    started.clear()
    window.select_pass(keys[len(keys) // 2])
    window.wait_idle()
    assert started.index("diff_files") > started.index("prepare_pass"), started
    if "graph_and_layout" in started:  # (a pass that left the graph alone lays out none)
        assert started.index("diff_files") > started.index("graph_and_layout"), started


def test_a_pass_text_shows_before_its_parse(window, qtbot, gpt_dump) -> None:
    """A step shows the pass's text as soon as it is read, with the line that
    was on top kept on top, and the parse attaches to it when it lands (the
    45 MB text of a 1 GB dump shows in a tenth of its parse's time)."""
    from xlaview.analysis.navigation import carried_line

    opened(window, gpt_dump)
    model = window.model
    keys = [p.key for p in model.points]
    window.select_pass(keys[len(keys) // 2])
    window.wait_idle()
    before = model.loaded.module
    entry = before.entry
    window.select_instruction(entry.instructions[len(entry.instructions) // 2].name)
    window.wait_idle()
    top = window.text_top_line()
    seen: list[tuple] = []
    model.text_read.connect(
        lambda read: seen.append(
            (
                "text",
                window.view_state()["text_pass"],
                model.loaded.module is before,
                window.text.source,
            )
        )
    )
    model.pass_shown.connect(lambda shown: seen.append(("parsed", window.text_top_line())))
    target = keys[len(keys) // 2 + 3]  # not a neighbour: the prefetch has not read it
    window.select_pass(target)
    window.wait_idle()
    assert [s[0] for s in seen] == ["text", "parsed"], seen
    _, drawn, still_old, source = seen[0]
    assert drawn == (int(target) if target.isdigit() else target)
    assert still_old, "the text showed before its parse landed"
    after = model.loaded.module
    assert source.text == after.text
    expected = carried_line(before, top, after)
    assert expected is not None and seen[1][1] == window.text_top_line() == expected


@pytest.mark.parametrize("busy", [False, True], ids=["idle worker", "busy worker"])
def test_the_worker_runs_the_most_urgent_job_first(qtbot, busy: bool) -> None:
    """A step's jobs run text, graph, parse, whatever the worker was doing
    (Qt's own priorities ran 3, 2, 1 as 2, 1, 3 when its thread was idle)."""
    from xlaview.qt.model.workers import Worker

    worker = Worker()
    ran: list[str] = []

    def job(name: str, seconds: float = 0.0) -> str:
        ran.append(name)
        time.sleep(seconds)
        return name

    worker.submit("warm", job, "warm", on_done=lambda _r: None)
    assert worker.wait(), "warmed"
    ran.clear()
    if busy:
        worker.submit("slow", job, "slow", 0.2, on_done=lambda _r: None)
        time.sleep(0.05)
    for name, urgency in (("parse", 1), ("text", 3), ("other", 0), ("graph", 2)):
        worker.submit(name, job, name, 0.02, on_done=lambda _r: None, urgency=urgency)
    assert worker.wait(), "done"
    assert ran == ["slow"] * busy + ["text", "graph", "parse", "other"], ran


def test_a_held_job_superseded_is_let_go_and_the_held_ones_start_after_a_stay(qtbot) -> None:
    """While steps come in a row the jobs they hold wait: one superseded by a
    newer job of its slot is let go at once (each step's parse holds its
    pass's text), and the newest starts once no step came for a moment."""
    import gc
    import weakref

    from xlaview.qt.model.workers import STAY_SHOWN_MS, Worker

    class Text:  # what a held parse holds: its pass's text
        pass

    worker = Worker()
    ran: list[int] = []
    texts = [Text() for _ in range(5)]
    gone = [weakref.ref(t) for t in texts]
    for k in range(5):
        worker.hold()
        worker.submit("parse", lambda k, _text: ran.append(k), k, texts[k], on_done=lambda _r: None)
        worker.release_after_stay()
    del texts
    gc.collect()
    assert [ref() is None for ref in gone] == [True] * 4 + [False], "the superseded ones let go"
    assert ran == []
    qtbot.wait(STAY_SHOWN_MS * 3)
    assert worker.wait()
    assert ran == [4], ran


def test_what_a_job_built_is_not_left_to_a_young_collection(qtbot) -> None:
    """As a job ends, what it built joins the oldest generation: the first
    allocation after it does not walk it all with the interpreter held. Its
    progress reaches the GUI thread only when the fraction changes."""
    import gc

    from xlaview.qt.model.workers import Worker

    worker = Worker()
    heard: list[float] = []

    def build(progress) -> list:
        for k in range(300):
            progress(0.5 if k < 200 else 1.0)
        return [[k] for k in range(200_000)]  # tracked objects, each a list

    walked: list[int] = []  # the objects each young collection walks

    def watch(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] < 2:
            walked.append(len(gc.get_objects(generation=info["generation"])))

    got: list[list] = []
    gc.callbacks.append(watch)
    try:
        worker.submit("build", build, on_done=got.append, on_progress=heard.append)
        assert worker.wait()
        qtbot.waitUntil(lambda: bool(got))
        junk = [[k] for k in range(5_000)]  # allocations after the job: collections
        del junk
    finally:
        gc.callbacks.remove(watch)
    assert walked and max(walked) < 50_000, walked
    qtbot.waitUntil(lambda: heard == [0.5, 1.0])


def test_a_step_draws_its_graph_from_the_text_before_the_parse(
    window, qtbot, gpt_dump, monkeypatch
) -> None:
    """The entry's graph is drawn from the pass's text alone, before the pass
    is parsed; the parse then shows that same graph, laid out once."""
    from xlaview.qt.model import tasks

    layouts: list[str] = []  # the texts of the modules laid out
    real = tasks.graph_and_layout

    def counted(module, computation, *args, **kwargs):
        layouts.append(module.text)
        return real(module, computation, *args, **kwargs)

    monkeypatch.setattr(tasks, "graph_and_layout", counted)
    opened(window, gpt_dump)
    model = window.model
    keys = [p.key for p in model.points]
    window.select_pass(keys[2])
    window.wait_idle()
    seen: list[tuple] = []
    model.graph_shown.connect(
        lambda shown: seen.append(("graph", model.text_pass, shown.result if shown else None))
    )
    model.pass_shown.connect(lambda shown: seen.append(("parsed", shown.pass_key, None)))
    for key in keys[4::2]:  # never a neighbour: the prefetch prepares those, parsed
        seen.clear()
        layouts.clear()
        window.select_pass(key)
        window.wait_idle()
        kinds = [s[0] for s in seen]
        assert kinds[:2] == ["graph", "parsed"], f"pass {key}: {kinds}"
        assert seen[0][1] is None, f"pass {key}: drawn before its parse landed"
        graphs = [s[2] for s in seen if s[0] == "graph"]
        assert all(g.graph is graphs[0].graph for g in graphs), f"pass {key}: drawn twice"
        mine = [text for text in layouts if text is model.loaded.module.text]  # (not a prefetch)
        assert len(mine) <= 1, f"pass {key}: laid out {len(mine)} times"
        assert model.graphs.main_result.source is model.loaded.module.entry.parsed


def test_a_held_key_reads_the_graph_of_the_pass_it_stops_on(
    window, qtbot, gpt_dump, monkeypatch
) -> None:
    """Steps asked faster than they show (a held-down arrow key) show each
    pass's text, and lay out a graph only where the steps pause: every graph
    started meanwhile held the one worker thread until it ended."""
    from xlaview.qt.model import tasks

    graphs: list[str] = []
    real = tasks.early_graph

    def counted(cache, dump_file, *args, **kwargs):
        graphs.append(dump_file.rel)
        return real(cache, dump_file, *args, **kwargs)

    monkeypatch.setattr(tasks, "early_graph", counted)
    opened(window, gpt_dump)
    keys = [p.key for p in window.model.points]
    texts: list[object] = []
    window.model.text_read.connect(lambda read: texts.append(read.file.rel))
    for key in keys[:12]:
        window.select_pass(key)
        until = time.perf_counter() + 0.02  # a keyboard repeats every 33 ms
        while time.perf_counter() < until:
            QCoreApplication.processEvents()
    window.wait_idle()
    last = window.model.module.file_at(keys[11]).rel
    assert window.view_state()["graph_pass"] == window.view_state()["pass"] == int(keys[11])
    assert len(graphs) <= 3 and graphs[-1] == last, graphs
    assert len(texts) >= 3, "the texts show as the key is held"


def test_a_folder_is_listed_on_the_worker(window, tmp_path: Path) -> None:
    """The model's `open_dump` returns before the folder is indexed (a folder
    of thousands of kernel files took 100 ms of the GUI thread); the open
    asked last is the one shown; a folder that cannot be read is said;
    `MainWindow.open_dump` returns with the folder shown."""
    model = window.model
    big = tmp_path / "big"
    shutil.copytree(SAMPLE, big)
    for k in range(2000):
        (big / f"module_0001.jit_f.add_fusion.{k}.ir-no-opt.ll").write_text("; ModuleID\n")
    said: list[str] = []
    model.status.connect(said.append)
    model.open_dump(big)
    assert model.index is None, "indexed on the GUI thread"
    model.open_dump(SAMPLE)  # asked before the first is listed: it wins
    assert model.wait_opened(60000) and window.wait_idle()
    assert model.index is not None and model.index.root == SAMPLE.absolute()
    assert window.view_state()["text_pass"] == "after"
    model.open_dump(tmp_path / "missing")
    assert model.wait_opened(60000)
    assert any(s.startswith(f"cannot open {tmp_path / 'missing'}") for s in said), said
    assert model.index.root == SAMPLE.absolute(), "the folder shown stays"
    window.open_dump(big)
    assert model.index.root == big.absolute(), "MainWindow.open_dump returns with it shown"
    assert window.view_state()["module"] is not None


def test_a_superseded_job_stops_at_its_next_turn_not_its_next_report(qtbot) -> None:
    """A job that reports progress and is superseded (the user stepped on)
    stops at the next turn of its loops (`xlaview.turns.stepped`), not at
    its next progress report: a pass's graph is read, built and folded
    between two, and a held-down key waited a second for a stale one."""
    from xlaview.qt.model.workers import Worker
    from xlaview.turns import stepped

    worker = Worker()
    started, looped = [], []

    def long_loop(progress) -> str:
        progress(0.0)
        started.append(time.perf_counter())
        for k in stepped(range(50_000_000)):  # seconds of Python, no report
            if k % 1_000_000 == 0:
                looped.append(k)
        progress(1.0)
        return "done"

    got: list[str] = []
    worker.submit("graph", long_loop, on_done=got.append, on_progress=lambda _f: None)
    qtbot.waitUntil(lambda: bool(started))
    worker.submit("graph", lambda: "newer", on_done=got.append)  # supersedes it
    superseded = time.perf_counter()
    assert worker.wait()
    qtbot.waitUntil(lambda: got == ["newer"])
    assert time.perf_counter() - superseded < 1.0
    assert len(looped) < 10, "the loop ran on"
