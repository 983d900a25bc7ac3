"""How an asked pass reaches the screen when nothing prepared it ahead: its
text first (read and indexed by line), then the graph shown now drawn from
that text alone, then its parse; three urgent jobs, in that order, on the
one worker thread, sharing one read of the file (`tasks.TextAhead`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from xlaview.dump.modules import ModuleCache
from xlaview.dump.records import DumpFile
from xlaview.qt.model import tasks
from xlaview.qt.model.graphs import Graphs
from xlaview.qt.model.host import JobHost, Notices
from xlaview.qt.model.workers import GRAPH_FIRST, TEXT_FIRST, URGENT
from xlaview.text.spans import LineSpans, lex_text


def read_pass(
    jobs: JobHost,
    cache: ModuleCache,
    graphs: Graphs,
    dump_file: DumpFile,
    on_text: Callable[[tasks.ReadText], None],
    on_parsed: Callable[[tasks.PreparedPass], None],
    on_failed: Callable[[BaseException], None],
    rushed: bool = False,
) -> None:
    """Read ``dump_file``: ``on_text`` hears its text, ``graphs`` its graph
    (when it can be drawn from the text alone), ``on_parsed`` the pass made
    ready, or ``on_failed`` why it cannot be (the parse says, located).
    ``rushed``: asked before the step before it showed (a held-down key):
    the text now, the rest once such steps pause."""
    ahead = tasks.TextAhead()
    jobs.submit(
        "pass",
        "pass-text",
        tasks.read_pass_text,
        cache,
        dump_file,
        ahead,
        on_done=on_text,
        on_error=lambda _error: None,  # the parse says why, located
        urgency=TEXT_FIRST,
    )
    rest = partial(_graph_and_parse, jobs, cache, graphs, dump_file, ahead, on_parsed, on_failed)
    if rushed:
        jobs.after_pause("pass", "read-rest", rest)
    else:
        rest()


def _graph_and_parse(
    jobs: JobHost,
    cache: ModuleCache,
    graphs: Graphs,
    dump_file: DumpFile,
    ahead: tasks.TextAhead,
    on_parsed: Callable[[tasks.PreparedPass], None],
    on_failed: Callable[[BaseException], None],
) -> None:
    file_key = str(dump_file.path)
    kept = graphs.laid_out_before(file_key)
    if kept is not None:
        # Queued all the same: it shows after the text, as a graph drawn from it would.
        jobs.submit(
            "graph", "early-graph", tasks.shown_again, kept,
            on_done=partial(graphs.show_early, file_key=file_key), urgency=GRAPH_FIRST,
        )  # fmt: skip
    else:
        _early_graph(jobs, cache, graphs, dump_file, ahead, file_key)
    jobs.submit(
        "pass",
        "pass",
        tasks.prepare_pass,
        cache,
        dump_file,
        ahead,
        on_done=on_parsed,
        on_error=on_failed,
        on_progress=lambda _fraction: None,
        urgency=URGENT,
    )


def _early_graph(
    jobs: JobHost,
    cache: ModuleCache,
    graphs: Graphs,
    dump_file: DumpFile,
    ahead: tasks.TextAhead,
    file_key: str,
) -> None:
    """The graph shown now, drawn for the pass (``file_key``) from its text alone."""
    target, shown, fold = graphs.early_request()
    jobs.submit(
        "graph",
        "early-graph",
        tasks.early_graph,
        cache,
        dump_file,
        ahead,
        target,
        shown,
        fold,
        on_done=partial(graphs.show_early, file_key=file_key),
        on_error=lambda _error: graphs.show_early(None, ""),  # the module's graph says why
        # (Reporting progress lets a step away stop it, as the parse below.)
        on_progress=lambda _fraction: None,
        urgency=GRAPH_FIRST,
    )


def colour(
    jobs: JobHost, notices: Notices, text: str, on_done: Callable[[LineSpans], None]
) -> None:
    """Colours for a whole (small) text, lexed in the view's helper process."""
    jobs.submit(
        "pass",
        "lex",
        lex_text,
        text,
        "hlo",
        on_done=on_done,
        on_progress=lambda f: notices.report_progress("highlighting", f),
        process="view",
    )
