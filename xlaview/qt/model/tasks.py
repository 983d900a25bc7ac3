"""The work the window hands to its worker thread: pure core calls, plus the
painter paths a view needs, built off the GUI thread so that the GUI thread
only shows them. No QObject is made here (`build_document` says why)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial

from PySide6.QtCore import QPointF

from xlaview.analysis.drawing import GraphLayout, LayoutStep
from xlaview.analysis.drawing.graph import ComputationGraph, build_graph, same_drawing
from xlaview.analysis.drawing.pass_layout import step_layout
from xlaview.analysis.drawing.step.incremental import SMALL_CHANGE, SMALL_CHANGE_SHARE
from xlaview.analysis.folding import (
    APART,
    FOLDED_BOXES,
    SMALL_GRAPH_NODES,
    FoldedView,
    Folding,
    Frame,
    Grouping,
    Phases,
    box_order,
    bundle_bytes,
    crowded,
    find_group,
    first_open,
    fold_graph,
    folded_graph,
    group_paths,
    open_by_paths,
    open_frames,
    patched,
)
from xlaview.analysis.inspect import kernel_argument_map
from xlaview.analysis.marks import DiffMarks, diff_marks
from xlaview.analysis.passes.diff import ModuleDiff, diff_modules
from xlaview.dump.files import read_text
from xlaview.dump.modules import LoadedModule, ModuleCache
from xlaview.dump.records import DumpFile, DumpModule
from xlaview.dump.reports import ModuleReports, load_reports
from xlaview.hlo import Computation, Module
from xlaview.hlo.parse.early import lone_module, read_computation
from xlaview.qt.model.workers import settle
from xlaview.qt.render.canvas_parts import CanvasParts, bundle_labels, prepare_canvas
from xlaview.qt.render.code import LoadedCode, load_code
from xlaview.qt.render.documents import TextSource, text_source
from xlaview.qt.render.transition import Transition, prepare_transition


@dataclass(frozen=True, slots=True)
class Fold:
    """How to fold the main graph: by ``grouping`` when it has more than
    ``small`` nodes, with the groups of paths ``open_paths`` open (None: as
    `first_open` says for at most ``budget`` boxes), and the groups holding
    instruction ``reveal``; ``phases``: a JAX scope's forward and backward
    apart or together."""

    grouping: Grouping = "scope"
    open_paths: frozenset[str] | None = None
    reveal: str | None = None
    small: int = SMALL_GRAPH_NODES
    budget: int = FOLDED_BOXES
    phases: Phases = APART


NO_FOLD = Fold("none")


@dataclass(frozen=True, slots=True)
class Folded:
    """A graph drawn folded: its group tree, the groups' paths, those open,
    the boxes shown and the frames of the open groups around their members."""

    folding: Folding
    paths: tuple[str, ...]
    open_groups: frozenset[int]
    view: FoldedView
    frames: tuple[Frame, ...] = ()
    # The bytes on each bundled edge (traffic widths), and where the canvas says them.
    bundles: dict[tuple[str, str], int] = field(default_factory=dict)
    labels: tuple[tuple[QPointF, str], ...] = ()

    @property
    def open_paths(self) -> frozenset[str]:
        return frozenset(self.paths[g] for g in self.open_groups)

    def find(self, name: str) -> int | None:
        """The group named ``name`` (its path, or a name only it has)."""
        return find_group(self.folding, self.paths, name)


@dataclass(frozen=True, slots=True)
class GraphResult:
    """A computation's graph laid out, what its canvas paints, and (for a pass
    step from a layout shown) what the step did and how to animate it.
    Folded (``folded``), ``graph`` is what is drawn: a closed group is one node."""

    graph: ComputationGraph
    layout: GraphLayout
    parts: CanvasParts
    step: LayoutStep | None = None
    transition: Transition | None = None
    base: GraphLayout | None = None  # the layout this one was stepped from
    source: object = None  # what it was built from: the parse of the computation's text
    folded: Folded | None = None
    fold: Fold = NO_FOLD  # what was asked

    @property
    def full_graph(self) -> ComputationGraph:
        """The computation's graph, every node in it."""
        return self.folded.folding.graph if self.folded is not None else self.graph

    def matches(self, fold: Fold) -> bool:
        """Whether this result draws the graph as ``fold`` asks."""
        if (fold.grouping, fold.small, fold.phases) != (
            self.fold.grouping,
            self.fold.small,
            self.fold.phases,
        ):
            return False
        folded = self.folded
        if folded is None:
            return True
        reveal = fold.reveal
        hidden = reveal is not None and reveal not in self.graph.nodes_of
        if hidden and reveal in self.full_graph.nodes_of:
            return False
        if fold.open_paths is None:
            return self.fold.open_paths is None
        return folded.open_paths == fold.open_paths & frozenset(folded.paths)


def next_fold(shown: GraphResult | None) -> Fold:
    """The fold of the graph shown, carried to another pass: the same groups open."""
    if shown is None:
        return Fold()
    fold = shown.fold
    if shown.folded is not None:
        return replace(fold, open_paths=shown.folded.open_paths, reveal=None)
    return replace(fold, reveal=None)


def text_identity(module: Module, computation: str) -> object:
    """What a computation was parsed from: two passes whose copies of it have
    the same text share one parse (xlaview.hlo.parse.store), and so one graph."""
    comp = module.computation(computation)
    return comp.parsed if comp.parsed is not None else comp


def graph_and_layout(
    module: Module,
    computation: str,
    shown: GraphResult | None,
    fold: Fold | None = None,
    progress=None,
) -> GraphResult:
    """The graph of ``computation``, laid out from ``shown`` (its graph shown
    now, at another pass: what the pass did not touch stays where it is, and
    its picture is drawn again only where it changed; None: a fresh layout),
    folded as ``fold`` says (None: as ``shown`` was, `next_fold`). ``progress``
    hears each part done (and may raise there to stop the work)."""
    fold = fold if fold is not None else next_fold(shown)
    previous = shown.layout if shown is not None else None
    report = progress if progress is not None else _no_progress
    full = build_graph(module, computation, shown.full_graph if shown is not None else None)
    report(0.2)
    source = text_identity(module, computation)
    reuse = None
    before = shown.folded if shown is not None else None
    if (
        before is not None
        and shown is not None
        and (before.folding.grouping, shown.fold.phases) == (fold.grouping, fold.phases)
    ):
        # The step's graph keeps the group tree shown, patched where it changed.
        reuse = patched(before.folding, full)
        report(0.3)
    graph, folded = _fold(full, module.computation(computation), fold, reuse)
    report(0.4)
    if (
        reuse is not None
        and shown is not None
        and crowded(len(shown.graph.nodes), len(graph.nodes))
    ):
        graph, folded = _fold(full, module.computation(computation), fold, None)
        report(0.5)
    if shown is not None and same_drawing(shown.graph, graph):
        # The pass printed the computation otherwise (reordered it, say) but
        # drew nothing new: the picture shown is kept as it is.
        if folded is not None and shown.folded is not None:
            folded = replace(folded, frames=shown.folded.frames, labels=shown.folded.labels)
        settle()
        return replace(
            shown,
            graph=graph,
            step=None,
            transition=None,
            base=previous,
            source=source,
            folded=folded,
            fold=fold,
        )
    return _laid_out(graph, folded, fold, shown, source, progress)


def _no_progress(_fraction: float) -> None:
    pass


def refold(shown: GraphResult, fold: Fold, progress=None) -> GraphResult:
    """The graph ``shown`` with other groups open (or another grouping), laid
    out from it: what did not open or close stays where it is."""
    assert shown.folded is not None, "only a folded graph opens and closes groups"
    graph, folded = _fold(shown.full_graph, None, fold, shown.folded.folding)
    return _laid_out(graph, folded, fold, shown, shown.source, progress, toggled=True)


def _fold(
    full: ComputationGraph, computation: Computation | None, fold: Fold, reuse: Folding | None
) -> tuple[ComputationGraph, Folded | None]:
    """The graph to draw: ``full`` itself, or folded (``reuse``: its folding
    already made; else ``computation`` gives the op_names to fold by)."""
    if fold.grouping == "none" or len(full.nodes) <= fold.small:
        return full, None
    if reuse is not None:
        folding = reuse
    else:
        assert computation is not None
        folding = fold_graph(full, computation, fold.grouping, fold.phases)
    if not folding.groups:
        return full, None
    paths = group_paths(folding)
    if fold.open_paths is None:
        opened = first_open(folding, fold.small, fold.budget)
    else:
        opened = open_by_paths(folding, paths, fold.open_paths)
    if fold.reveal is not None and fold.reveal in full.nodes_of:
        opened.update(folding.chain(fold.reveal))
    graph, view = folded_graph(folding, opened, paths)
    return graph, Folded(folding, paths, frozenset(opened), view, (), bundle_bytes(view, paths))


def _many_boxes_changed(previous: GraphLayout, graph: ComputationGraph) -> bool:
    """Whether opening or closing groups changed more boxes than a pass step
    keeps in place (`xlaview.analysis.drawing.step.incremental`'s small change)."""
    known = previous.positions
    added = sum(1 for node in graph.nodes if node.key not in known)
    removed = len(known) - (len(graph.nodes) - added)
    return added + removed > max(SMALL_CHANGE, SMALL_CHANGE_SHARE * len(graph.nodes))


def _laid_out(
    graph: ComputationGraph,
    folded: Folded | None,
    fold: Fold,
    shown: GraphResult | None,
    source: object,
    progress,
    toggled: bool = False,
) -> GraphResult:
    """``graph`` laid out from ``shown``'s layout; ``toggled``: groups opened
    or closed (not a pass step)."""
    previous = shown.layout if shown is not None else None
    order, start = None, previous
    if folded is not None:
        # An open group's members side by side in every layer: in the order
        # of the picture shown, or of a first layout when there is none.
        basis = previous or step_layout(None, graph).layout
        order = box_order(folded.folding, folded.view, folded.paths, basis.positions)
        if toggled and previous is not None and _many_boxes_changed(previous, graph):
            # Laid out afresh in the order shown, which keeps the picture left
            # to right: not also stepped in place to weigh against (twice the time).
            start = None
    step = step_layout(start, graph, keep_order=order, progress=progress)
    parts = prepare_canvas(
        graph, step.layout, None if shown is None or step.fresh else (shown.layout, shown.parts)
    )
    transition = prepare_transition(step, previous, parts)
    if folded is not None:
        layout = step.layout
        frames = open_frames(
            folded.folding, folded.view, folded.open_groups, folded.paths,
            layout.positions, layout.sizes, layout.layers,
        )  # fmt: skip
        labels = tuple(bundle_labels(graph, layout))
        folded = replace(folded, frames=frames, labels=labels)
    result = GraphResult(
        graph,
        step.layout,
        parts,
        step if previous is not None else None,
        transition,
        previous,
        source,
        folded,
        fold,
    )
    settle()
    return result


def early_graph(
    cache: ModuleCache,
    dump_file: DumpFile,
    ahead: TextAhead,
    computation: str | None,
    shown: GraphResult | None,
    fold: Fold,
    progress=None,
) -> GraphResult | None:
    """The graph of ``computation`` (None: the entry) of the pass whose text
    ``ahead`` holds, read from that text alone before the pass is parsed (its
    parse shared with the module's through ``cache``'s store); ``shown`` and
    ``fold`` as for `graph_and_layout`. None when it must wait for the module:
    the computation is not printed as XLA prints one,
    or it holds an ``async-start`` (labelled by the computation it calls)."""
    read = read_pass_text(cache, dump_file, ahead)
    text = read.source.text
    # A big computation the pass edited: read from its version read or parsed
    # last (a neighbour, its graph's instructions built).
    comp = read_computation(text, computation, cache.store, read.source.line_of, cache.nearest())
    if comp is None or comp.parsed is None or "async-start" in comp.parsed.opcodes():
        return None
    if shown is not None and shown.source is comp.parsed and shown.graph.computation == comp.name:
        # The pass left it as it was: the version read before, built, stays the nearest.
        return replace(shown, step=None, transition=None)
    alone = lone_module(text, comp)
    cache.note_read(alone)
    if shown is not None and shown.graph.computation != comp.name:
        shown = None  # (an entry renamed: laid out afresh, as the module's would be)
    return graph_and_layout(alone, comp.name, shown, fold, progress)


def shown_again(result: GraphResult) -> GraphResult:
    """``result``, a graph laid out before, handed back by the worker in its
    turn: after the pass's text, as the graph drawn from it would come."""
    return result


@dataclass
class PreparedPass:
    """A pass dump made ready off the GUI thread: parsed, its lines indexed and
    mapped to instructions, the instructions of its entry built (the graph
    reads them)."""

    file: DumpFile
    loaded: LoadedModule
    source: TextSource
    line_owners: Mapping[int, tuple[str, str | None]]


@dataclass(frozen=True, slots=True)
class ReadText:
    """A pass's text, read and indexed by line for the view before it is
    parsed, as the file was then."""

    file: DumpFile
    source: TextSource
    stat: tuple[int, int]  # the file's size and mtime (ns) when read


class TextAhead:
    """Where `read_pass_text` leaves what it read for `prepare_pass`, the next
    job on the one worker thread, so that the file is read and indexed once."""

    __slots__ = ("read",)

    def __init__(self) -> None:
        self.read: ReadText | None = None


def read_pass_text(cache: ModuleCache, dump_file: DumpFile, ahead: TextAhead) -> ReadText:
    """A pass's text, for the view to show while the pass is parsed (a 45 MB
    text is read and indexed in a tenth of the time its parse takes); what
    ``ahead`` holds if it holds that file's already, and the text of its
    module if ``cache`` keeps it parsed (a pass stepped back to): read
    again, a 45 MB text is a new string of as many bytes, whose pages the
    worker first touches with the GIL held (11,000 page faults: 56-256 ms
    of the GUI thread's wait in the window, 28 ms alone)."""
    if ahead.read is not None and ahead.read.file.path == dump_file.path:
        return ahead.read
    st = dump_file.path.stat()
    kept = cache.cached(dump_file)
    text = kept.module.text if kept is not None else read_text(dump_file.path)
    read = ReadText(dump_file, text_source(text), (st.st_size, st.st_mtime_ns))
    ahead.read = read
    return read


def prepare_pass(
    cache: ModuleCache, dump_file: DumpFile, ahead: TextAhead | None = None, progress=None
) -> PreparedPass:
    """The pass parsed and made ready to show; from the text ``ahead`` read
    when the file is still as it was then. ``progress`` is called as the
    parse goes (it may raise to stop it: the user stepped on)."""
    check = (lambda: progress(0.5)) if progress is not None else None
    read = ahead.read if ahead is not None else None
    if read is not None:
        st = dump_file.path.stat()
        if read.file.path != dump_file.path or read.stat != (st.st_size, st.st_mtime_ns):
            read = None
    if read is not None:
        loaded = cache.load(dump_file, read.source.text, check)
        source = read.source
    else:
        loaded = cache.load(dump_file, check=check)
        source = text_source(loaded.module.text)
    module = loaded.module
    # Each part below runs to its end (the entry of a 48,000-op pass is
    # built in 60 ms): a step away stops the job between them.
    check = check or _no_check
    check()
    if module.entry is not None:
        module.entry.instructions  # built here, not on the GUI thread  # noqa: B018
    check()
    module.instruction_count  # counted here (7,000 computations: 10 ms)  # noqa: B018
    owners = module.line_owners()
    check()
    prepared = PreparedPass(dump_file, loaded, source, owners)
    settle()
    return prepared


def _no_check() -> None:
    pass


def prefetch(
    cache: ModuleCache, files: list[DumpFile], computation: str | None, shown: GraphResult | None
) -> list[tuple[PreparedPass, GraphResult | None]]:
    """Prepare the neighbouring passes before the user steps, and the graph of
    ``computation`` where the pass changed it from the one ``shown``."""
    out = []
    for dump_file in files:
        prepared = prepare_pass(cache, dump_file)
        module, graph = prepared.loaded.module, None
        if (
            computation
            and module.has_computation(computation)
            and (shown is None or text_identity(module, computation) is not shown.source)
        ):
            graph = graph_and_layout(module, computation, shown)
        out.append((prepared, graph))
    return out


def diff_files(
    cache: ModuleCache, before: DumpFile, after: DumpFile, progress=None
) -> tuple[ModuleDiff, DiffMarks]:
    """The diff of two pass dumps and its marks on the later one's text and
    graph (made here: 0.3 s on the GUI thread for a U-Net pass that fused
    thousands of ops); ``progress`` as for `diff_modules`, and asked first (a
    step away before it starts loads nothing)."""
    check = None
    if progress is not None:
        progress(0.0)
        check = partial(progress, 0.0)  # (a pass the cache let go is parsed again: 0.3 s)
    module = cache.load(after, check=check).module
    diff = diff_modules(cache.load(before, check=check).module, module, progress)
    return diff, diff_marks(diff, module, partial(progress, 1.0) if progress else None)


def read_reports(module: DumpModule) -> ModuleReports:
    """A module's reports, their lookup by instruction built here rather than
    on the first selection (half a second on a 45 MB module)."""
    reports = load_reports(module)
    if reports.buffer_assignment is not None:
        reports.buffer_assignment.index()
    return reports


def load_kernel(
    dump_file: DumpFile,
    kind: str,
    function: str | None,
    module: Module | None,
    instruction: str,
    reports: ModuleReports | None,
) -> tuple[LoadedCode, list[dict]]:
    """A kernel's code and its arguments mapped to HLO."""
    text = read_text(dump_file.path)
    code = load_code(dump_file, kind, function, text)
    rows: list[dict] = []
    if module is not None and kind == "ll":
        try:
            rows = kernel_argument_map(module, instruction, text, reports, function=function)
        except KeyError:
            rows = []
    return code, rows
