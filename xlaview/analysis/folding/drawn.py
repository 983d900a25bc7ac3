"""A folded graph as the graph view draws it: a `ComputationGraph` in which
each closed group is one node (its key ``group:`` and the group's path), with
the edges between boxes bundled, and the frames of the open groups around
what they show once that graph is laid out.

The drawn graph goes through the same layout, step layout and painting as a
computation's own graph: a node shown as itself keeps its key (so its place
carries over between a folded and an opened picture), and a group's key is
its path of names (so it carries over a pass step that renumbers groups).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Generator, Mapping
from dataclasses import dataclass
from typing import TypeVar

from xlaview.analysis.drawing import ComputationGraph, GraphNode
from xlaview.analysis.drawing.graph import NAME_CHAR, GraphEdge
from xlaview.analysis.folding.tree import Folding, GroupKind
from xlaview.analysis.folding.view import (
    FoldedView,
    aggregating,
    default_open,
    finished,
    folded_view,
)
from xlaview.analysis.kinds import Kind
from xlaview.units import human_bytes

T = TypeVar("T")
GROUP_KEY = "group:"  # no HLO name holds a colon: a group's key is never an instruction's
# A first picture of fewer boxes than this says nothing: its largest group
# opens, unless that shows more than MOST_BOXES (a picture that cannot be read).
FEWEST_BOXES = 12
MOST_BOXES = 200
# Around an open group's members: the margin, and the strip at its top that names it.
FRAME_MARGIN = 6.0
FRAME_HEADER = 16.0


Rect = tuple[float, float, float, float]  # left, top, right, bottom


@dataclass(frozen=True, slots=True)
class Frame:
    """An open group drawn around its members: ``path`` names it (as
    `group_paths`); ``parts`` are the rectangles it is made of, ``header``
    the strip naming it at its top, (left, top, right, bottom) their bounds,
    ``outline`` its border as line segments (x0, y0, x1, y1)."""

    group: int
    path: str
    left: float
    top: float
    right: float
    bottom: float
    parts: tuple[Rect, ...]
    header: Rect
    outline: tuple[Rect, ...] = ()

    def in_header(self, x: float, y: float) -> bool:
        left, top, right, bottom = self.header
        return left <= x <= right and top <= y <= bottom


def group_paths(folding: Folding) -> tuple[str, ...]:
    """Each group's path: its name after those of the groups around it, with
    ``/`` (``jit(step)/block x 48/block 3 of 48``); unique in a folding."""
    out: list[str] = []
    for group in folding.groups:  # parents first
        out.append(group.name if group.parent is None else f"{out[group.parent]}/{group.name}")
    return tuple(out)


def group_key(path: str) -> str:
    """The key of the node that draws a closed group."""
    return GROUP_KEY + path


def find_group(folding: Folding, paths: tuple[str, ...], name: str) -> int | None:
    """The group named ``name``: its path, or a name only one group has."""
    if name in paths:
        return paths.index(name)
    if name.startswith(GROUP_KEY) and name[len(GROUP_KEY) :] in paths:
        return paths.index(name[len(GROUP_KEY) :])
    found = [g.id for g in folding.groups if g.name == name]
    return found[0] if len(found) == 1 else None


def first_open(folding: Folding, small: int, budget: int) -> set[int]:
    """The groups open in a graph's first picture: `default_open`'s, then,
    while that shows fewer than `FEWEST_BOXES` boxes, its largest folded group
    (the ``jit(step)`` around everything), if the picture stays within
    `MOST_BOXES` (a train step's ``jit(step)`` holding 290 weight updates side
    by side stays folded)."""
    opened = set(default_open(folding, small, budget))
    groups = folding.groups
    shown = len(folded_view(folding, opened).boxes)
    while shown < FEWEST_BOXES:
        folded = [
            g for g in groups if g.id not in opened and (g.parent is None or g.parent in opened)
        ]
        if not folded:
            break
        largest = max(folded, key=lambda g: (g.size, -g.id))
        more = len(largest.children) + len(largest.nodes) - 1
        if shown + more > MOST_BOXES:
            break
        opened.add(largest.id)
        shown += more
    return opened


def open_by_paths(folding: Folding, paths: tuple[str, ...], wanted: Collection[str]) -> set[int]:
    """The groups whose paths are in ``wanted`` (those a pass step still has)."""
    return {g for g, path in enumerate(paths) if path in wanted}


def folded_graph(
    folding: Folding, open_groups: Collection[int], paths: tuple[str, ...]
) -> tuple[ComputationGraph, FoldedView]:
    """The graph to lay out and draw with ``open_groups`` open: the nodes
    shown as themselves as they are, each closed group shown as one node
    (``opcode`` its kind, ``label`` its name, ``members`` the nodes inside,
    ``repeats`` its instances), the edges of the graph between nodes as they
    are, and one edge per pair of boxes where a group is an end (its
    ``shape`` says how many edges it bundles and the bytes they carry)."""
    view = folded_view(folding, open_groups)
    graph = folding.graph
    position = folding.position
    nodes: list[GraphNode] = []
    nodes_of: dict[str, tuple[str, ...]] = {}
    for box in view.boxes:
        if isinstance(box, str):
            node = graph.nodes[position[box]]
            nodes.append(node)
            nodes_of[node.instruction] = (*nodes_of.get(node.instruction, ()), box)
            continue
        group = folding.groups[box]
        key = group_key(paths[box])
        nodes.append(
            GraphNode(
                key,
                key,
                group.kind.value,
                _members_line(group.size, group.repeats, group.kind),
                Kind.OTHER,
                label=group.name,
                members=group.size,
                repeats=group.repeats,
            )
        )
    box_key = [n.key for n in nodes]
    key_of = dict(zip(view.boxes, box_key, strict=True))
    edges = [graph.edges[k] for k in view.direct]
    for bundle in view.edges:
        if isinstance(bundle.source, int) or isinstance(bundle.target, int):
            many = f"{bundle.count:,} edges" if bundle.count > 1 else "1 edge"
            edges.append(
                GraphEdge(
                    key_of[bundle.source],
                    key_of[bundle.target],
                    f"{many}, {human_bytes(bundle.bytes)}",
                )
            )
    for node in nodes:
        if node.members:
            nodes_of[node.key] = (node.key,)
    return ComputationGraph(graph.computation, tuple(nodes), tuple(edges), nodes_of), view


def _members_line(size: int, repeats: int, kind: GroupKind) -> str:
    nodes = f"{size:,} node{'' if size == 1 else 's'}"
    return f"× {repeats} · {nodes}" if kind is GroupKind.REPEAT else nodes


def box_order(
    folding: Folding,
    view: FoldedView,
    paths: tuple[str, ...],
    positions: Mapping[str, tuple[float, float]],
) -> dict[str, float]:
    """Box key -> its rank left to right once the boxes of each open group
    are side by side: ordered by the mean x of the open groups around them,
    outermost first, then by their own x. The x of a box is its centre in
    ``positions`` (a layout of this folded graph, or of the one before a
    group opened: a box it lacks takes the x of the closed group that showed
    it, then goes in graph order). Laid out again in that order
    (``keep_order``), an open group's members stay together in every layer."""
    groups = folding.groups
    group_index, position = folding.group_index, folding.position
    holder: dict[str, int] = {}  # box key -> the open group directly around it (-1: none)
    xs: dict[str, tuple[float, int]] = {}
    sums: dict[int, list[float]] = {}
    for k, box in enumerate(view.boxes):
        if isinstance(box, int):
            parent = groups[box].parent
            key, g = group_key(paths[box]), -1 if parent is None else parent
        else:
            key, g = box, group_index[position[box]]
        holder[key] = g
        found = positions.get(key)
        up = g
        while found is None and up >= 0:  # the group that showed it, folded
            found = positions.get(group_key(paths[up]))
            parent = groups[up].parent
            up = -1 if parent is None else parent
        x = found[0] if found is not None else 0.0
        xs[key] = (x, k)
        while g >= 0:  # every open group around it counts it
            total = sums.setdefault(g, [0.0, 0.0])
            total[0] += x
            total[1] += 1
            parent = groups[g].parent
            g = -1 if parent is None else parent
    mean = {g: total[0] / total[1] for g, total in sums.items()}
    keys: list[tuple[tuple[float, ...], str]] = []
    for key, g in holder.items():
        chain: list[float] = []
        while g >= 0:
            chain.append(mean[g])
            chain.append(g)  # two groups with the same mean stay apart
            parent = groups[g].parent
            g = -1 if parent is None else parent
        pairs = [(chain[i], chain[i + 1]) for i in range(0, len(chain), 2)]
        pairs.reverse()
        keys.append(((*(v for pair in pairs for v in pair), *xs[key]), key))
    keys.sort()
    return {key: float(rank) for rank, (_, key) in enumerate(keys)}


def open_frames(
    folding: Folding,
    view: FoldedView,
    open_groups: Collection[int],
    paths: tuple[str, ...],
    positions: Mapping[str, tuple[float, float]],
    sizes: Mapping[str, tuple[float, float]],
    layers: Mapping[str, int],
) -> tuple[Frame, ...]:
    """The frames of the open groups that show something (a group inside a
    closed one shows nothing), outermost first so that inner frames paint
    over outer ones. A frame is a rectangle per layer around the boxes the
    group shows there (and the frames inside it), joined from layer to
    layer, with its header above its top layer: it hugs its members rather
    than covering what lies between them. One pass over the boxes, then
    over the groups children first."""
    groups = folding.groups
    count = len(groups)
    # group -> layer -> [left, top, right, bottom]
    extent: list[dict[int, list[float]]] = [{} for _ in range(count)]
    group_index, position = folding.group_index, folding.position
    for box in view.boxes:
        if isinstance(box, int):
            key, holder = group_key(paths[box]), groups[box].parent
        else:
            key, g = box, group_index[position[box]]
            holder = g if g >= 0 else None
        if holder is None:
            continue
        x, y = positions[key]
        w, h = sizes[key]
        _grow(extent[holder], layers[key], x - w / 2, y - h / 2, x + w / 2, y + h / 2)
    shown = _shown_open(folding, open_groups)
    frames: list[Frame] = []
    for g in range(count - 1, -1, -1):  # children first: a frame grows its parent's
        per_layer = extent[g]
        if not per_layer or g not in shown:
            continue
        order = sorted(per_layer)
        parts: list[tuple[float, float, float, float]] = []
        for i, layer in enumerate(order):
            left, top, right, bottom = per_layer[layer]
            top -= FRAME_MARGIN + (FRAME_HEADER if i == 0 else 0)
            parts.append((left - FRAME_MARGIN, top, right + FRAME_MARGIN, bottom + FRAME_MARGIN))
        joined = _joined(parts)
        # As wide as its name, where the top layer is narrower.
        name_width = 24 + NAME_CHAR * len(groups[g].name)
        left, top, right, _ = parts[0]
        header = (left, top, max(right, left + name_width), top + FRAME_HEADER)
        frame = Frame(
            g,
            paths[g],
            min(p[0] for p in joined),
            min(p[1] for p in joined),
            max(max(p[2] for p in joined), header[2]),
            max(p[3] for p in joined),
            tuple(joined),
            header,
            _outline(joined),
        )
        frames.append(frame)
        parent = groups[g].parent
        if parent is not None:
            for layer, part in zip(order, parts, strict=True):
                _grow(extent[parent], layer, *part)
    frames.reverse()  # parents before children
    return tuple(frames)


def _joined(parts: list[Rect]) -> list[Rect]:
    """The rectangles of consecutive layers, each pair touching: the gap
    between them filled over both widths, an overlap cut in the middle."""
    joined = [parts[0]]
    for below in parts[1:]:
        above = joined[-1]
        if below[1] > above[3]:
            joined.append((min(above[0], below[0]), above[3], max(above[2], below[2]), below[1]))
        elif below[1] < above[3]:
            middle = (below[1] + above[3]) / 2
            joined[-1] = (above[0], above[1], above[2], middle)
            below = (below[0], middle, below[2], below[3])
        joined.append(below)
    return joined


def _outline(joined: list[Rect]) -> tuple[Rect, ...]:
    """The border of a stack of touching rectangles, as line segments
    (x0, y0, x1, y1): their sides, the top of the first, the bottom of the
    last, and where two meet, the ends of the wider one's edge."""
    lines: list[Rect] = []
    for left, top, right, bottom in joined:
        lines += [(left, top, left, bottom), (right, top, right, bottom)]
    first, last = joined[0], joined[-1]
    lines += [(first[0], first[1], first[2], first[1]), (last[0], last[3], last[2], last[3])]
    for above, below in zip(joined, joined[1:], strict=False):
        y = below[1]
        if above[0] != below[0]:
            lines.append((min(above[0], below[0]), y, max(above[0], below[0]), y))
        if above[2] != below[2]:
            lines.append((min(above[2], below[2]), y, max(above[2], below[2]), y))
    return tuple(lines)


def _grow(
    per_layer: dict[int, list[float]],
    layer: int,
    left: float,
    top: float,
    right: float,
    bottom: float,
) -> None:
    box = per_layer.get(layer)
    if box is None:
        per_layer[layer] = [left, top, right, bottom]
    else:
        box[0], box[1] = min(box[0], left), min(box[1], top)
        box[2], box[3] = max(box[2], right), max(box[3], bottom)


def _shown_open(folding: Folding, open_groups: Collection[int]) -> set[int]:
    """The open groups all of whose enclosing groups are open too."""
    out: set[int] = set()
    for group in folding.groups:  # parents first
        if group.id in open_groups and (group.parent is None or group.parent in out):
            out.add(group.id)
    return out


def shown_groups(
    folding: Folding, open_groups: Collection[int], paths: tuple[str, ...]
) -> list[dict[str, object]]:
    """The groups on screen, folded or open, in group order: ``{"name"`` (its
    path), ``"kind"``, ``"open"``, ``"nodes"``, ``"repeats"}``."""
    shown = _shown_open(folding, open_groups)
    return [
        {
            "name": paths[g.id],
            "kind": g.kind.json_kind,
            "open": g.id in shown,
            "nodes": g.size,
            "repeats": g.repeats,
        }
        for g in folding.groups
        if g.parent is None or g.parent in shown
    ]


def group_marks(
    folding: Folding,
    paths: tuple[str, ...],
    values: Mapping[str, T],
    combine: Callable[[T, T], T],
) -> dict[str, T]:
    """Group key -> the summary of its members' ``values`` (instruction ->
    heat step, change, emphasis...), as `aggregate` folds them: what a
    folded group's box shows for what it holds."""
    return finished(group_marking(folding, paths, values, combine))


def group_marking(
    folding: Folding,
    paths: tuple[str, ...],
    values: Mapping[str, T],
    combine: Callable[[T, T], T],
) -> Generator[None, None, dict[str, T]]:
    """`group_marks` in slices: it pauses as `aggregating` does."""
    groups = yield from aggregating(folding, values, combine)
    return {group_key(paths[g]): v for g, v in groups.items()}


def bundle_bytes(view: FoldedView, paths: tuple[str, ...]) -> dict[tuple[str, str], int]:
    """(source key, target key) -> the bytes carried, for the bundled edges
    into or out of a folded group (edges between two nodes are the graph's own)."""

    def key(box: int | str) -> str:
        return box if isinstance(box, str) else group_key(paths[box])

    return {
        (key(e.source), key(e.target)): e.bytes
        for e in view.edges
        if isinstance(e.source, int) or isinstance(e.target, int)
    }
