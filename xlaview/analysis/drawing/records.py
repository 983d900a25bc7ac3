"""The records every layout step reads and writes: the boxes to place, the
routes of edges, and the finished layout."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Point = tuple[float, float]
ProgressFn = Callable[[float], None]


@dataclass(frozen=True, slots=True)
class LayoutNode:
    """A box to place: its key and size in scene units."""

    key: str
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class EdgeRoute:
    """How to draw one input edge.

    ``points`` runs from the bottom centre of ``source`` to the top centre of
    ``target`` through one waypoint per crossed layer. When ``stub`` is true the
    edge is too long to route (or closes a cycle, or, after an incremental
    step, could not be made to point down): ``points`` is then only the start
    of the straight line from source to target and ``target_stub`` its end;
    the view draws the whole edge on hover or selection.
    """

    source: str
    target: str
    points: tuple[Point, ...]
    stub: bool
    target_stub: tuple[Point, ...] = ()


@dataclass(frozen=True, slots=True)
class GraphLayout:
    """Node centres, layers (0 = top), edge routes (``edges[i]`` for input
    edge i) and the bounding size, whose top left corner is (0, 0). Also the
    edge crossings left between adjacent layers (stubs not counted) and the
    number of waypoints routed edges needed, for benchmarks and tests.

    What the next pass step starts from (:func:`relayout`): ``layer_y`` is the
    centre y of every layer, empty ones included, ``sizes`` the (width,
    height) of every node, and ``former_places`` the (layer, x) where nodes
    moved or removed by recent steps stood, so that a node coming back
    returns there. ``reference`` is the quality of the fresh layout this one
    descends from, per distinct edge (crossings, length) and its width: a
    step as good as that needs no fresh layout to be weighed against.
    """

    positions: dict[str, Point]
    layers: dict[str, int]
    edges: tuple[EdgeRoute, ...]
    width: float
    height: float
    crossings: int = 0
    dummy_count: int = 0
    layer_y: tuple[float, ...] = ()
    sizes: dict[str, tuple[float, float]] = field(default_factory=dict)
    former_places: dict[str, tuple[int, float]] = field(default_factory=dict)
    reference: tuple[float, float, float] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class LayoutStep:
    """The layout of a pass step and what the step did to the picture.

    ``fresh``: laid out from scratch; ``reason`` says why when a previous
    layout was given but not kept (for the status bar), and is empty
    otherwise. ``added``: keys of nodes the previous layout did not have;
    ``removed``: keys of the previous layout's nodes gone; ``moved``: keys of
    nodes in both whose centre moved; ``renamed``: new key -> previous key
    for nodes the previous layout knew under another key (a renamed
    instruction, a copy standing in for another), so that a transition can
    move them from ``previous.positions[renamed.get(key, key)]``. ``upward``:
    edges an incremental step left pointing up (drawn as stubs).
    """

    layout: GraphLayout
    fresh: bool
    reason: str
    added: tuple[str, ...]
    removed: tuple[str, ...]
    moved: tuple[str, ...]
    renamed: dict[str, str] = field(default_factory=dict)
    upward: int = 0


def ignore_progress(_fraction: float) -> None:
    pass


def scaled(report: ProgressFn, start: float, end: float) -> ProgressFn:
    """``report`` with 0..1 mapped onto ``start``..``end``."""
    return lambda fraction: report(start + (end - start) * fraction)
