"""Why is this boundary here? A reason for every materialized intermediate.

A boundary is a value one top-level op writes to memory and other top-level ops
read back (xlaview.analysis.traffic finds them). Each gets one reason from a
fixed list, the evidence that decided it (instructions, and the ops inside
fused computations that show it), and a suggestion where a known rewrite
applies:

``multi-pass``
    a reduction over the value (or over what is computed from it element by
    element) must finish before its elements are read again: softmax, layer
    norm. No fusion removes it; a one-pass algorithm does (online softmax /
    flash attention; Welford for a variance). The reduction's result on its
    way to the second pass, and a value computed from the first for the second
    reduction, are multi-pass too.
``library-call``
    the producer or a consumer runs as its own library kernel: an unfused dot,
    convolution or custom call, a library fusion (YNN, oneDNN, cuDNN...), or a
    fusion around a dot/convolution (CPU and TPU output fusions, Triton GEMMs).
``layout-change``
    a transpose or copy moves the data to another layout between producer and
    consumer (memory space included).
``shared-read``
    two or more ops read the value separately; one multi-output (sibling)
    fusion could read it once.
``collective``
    a collective (or an async op around one) writes or reads it.
``control-flow``
    a while loop, conditional or call (or an async call) writes or reads it, or
    it leaves a loop body or branch.
``output``
    the program returns it.
``other``
    none of those: the evidence lists what the producer and the consumers are
    and do (the value is a reduction's result; a consumer broadcasts it, so a
    fused producer would run once per use; two stages of one reduction) and
    claims no reason.

When several apply, the first in this order decides; every one's facts stay in
the evidence:

1. ``output``: the value is written whatever else happens.
2. ``collective``: communication reads and writes buffers in memory.
3. ``control-flow``: loops, branches and calls take and give values in memory.
4. ``layout-change`` when the producer only re-lays out data: the value exists
   only as a re-laid-out copy; reading the original layout removes it, whatever
   the consumer is (a transpose feeding a dot: the dot could read the original).
5. ``multi-pass``: fusing more cannot remove it; only a one-pass algorithm can
   (and that rewrite removes a library boundary too: flash attention).
6. ``library-call``: XLA cannot fuse into a library kernel. A transpose fused
   into the producer of a dot's operand ranks here: without the transpose the
   value would still be written for the dot.
7. ``layout-change`` when a consumer re-lays it out, or the producer moves data
   to another layout as it computes.
8. ``shared-read``.
9. ``other``.

Bytes come from one function, ``value_bytes``: the traffic model's, the
value written once and read as XLA's cost model says each consumer reads it,
loop bodies counted by their known trip count. A boundary costs what is written
plus what is read (``Intermediate.traffic_bytes``); removing it saves all of
that, except what must stay: an output's write, and one whole read of a shared
value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from xlaview.analysis.boundaries.evidence import AS_STAGES, Evidence, OpRef, ReasonFinder
from xlaview.analysis.boundaries.multipass import Flow
from xlaview.analysis.boundaries.op_facts import OpIndex
from xlaview.analysis.cost.interior import interior_of, is_opaque
from xlaview.analysis.reasons import PRECEDENCE, REASONS
from xlaview.analysis.traffic import Intermediate, Traffic, analyze_traffic
from xlaview.dump.reports import ModuleReports
from xlaview.hlo import Module
from xlaview.turns import let_go, turn

_T = TypeVar("_T")
# Values explained between two progress reports: 60-90 µs each on most of
# the benchmark programs, but a value that 250 fusions read takes their
# bodies' reading, a millisecond each (the 48-layer train step before its
# layout passes), and 256 values took up to a second.
REPORT_EVERY = 16
# Levels what found the reasons is opened up when freed (`let_go`).
FINDING_DEPTH = 4

__all__ = [
    "PRECEDENCE",
    "REASONS",
    "Boundaries",
    "Boundary",
    "BoundaryBytes",
    "Evidence",
    "OpRef",
    "module_boundaries",
    "saved_bytes",
    "value_bytes",
]


@dataclass(frozen=True, slots=True)
class Boundary:
    """One materialized intermediate and why it is there."""

    producer: str  # the top-level instruction writing the value
    value: str  # the value: ``producer``, or ``producer#index`` for an element of its tuple
    computation: str  # the step computation (entry, loop body...) both live in
    shape: str
    value_bytes: int  # the value's size
    bytes: int  # what it costs: bytes written + bytes read through main memory, loops counted
    saved_bytes: int  # what removing it would save (see the module docstring)
    consumers: tuple[str, ...]
    reason: str  # one of REASONS
    evidence: tuple[Evidence, ...]  # the deciding facts first, then every other applicable reason's
    suggestion: str | None
    # The library kernel whose body computes the value (None: a top-level
    # boundary). Such a value *may* be materialized: the library may keep it
    # on chip (see xlaview.analysis.cost.interior).
    inside: str | None = None

    @property
    def reasons(self) -> tuple[str, ...]:
        """Every reason that applies, deciding one first."""
        return tuple(dict.fromkeys(e.reason for e in self.evidence))

    def to_json(self) -> dict[str, Any]:
        return {
            "producer": self.producer,
            "value": self.value,
            "shape": self.shape,
            "bytes": self.bytes,
            "consumers": list(self.consumers),
            "reason": self.reason,
            "evidence": [
                {
                    "reason": e.reason,
                    "text": e.text,
                    "ops": [
                        {"computation": o.computation, "instruction": o.instruction} for o in e.ops
                    ],
                }
                for e in self.evidence
            ],
            "suggestion": self.suggestion,
            "inside": self.inside,
        }


@dataclass(frozen=True, slots=True)
class Boundaries:
    """Every boundary of a module, costliest first (as Traffic ranks its
    intermediates: ``Boundary.value`` is ``Intermediate.producer``)."""

    module: str
    boundaries: tuple[Boundary, ...]
    # Values inside library kernels that may be materialized (`Boundary.inside`).
    interior: tuple[Boundary, ...] = ()
    # The sums and lookups below, made once (`warm`: by the job that found
    # them, not by the window's GUI thread: 12,000 boundaries of a pass took
    # it 50-90 ms at each step).
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def by_reason(self) -> dict[str, int]:
        """Bytes of the boundaries of each reason (every reason, zero included;
        the values inside library kernels apart)."""
        return self._once("by_reason", lambda: _by_reason(self.boundaries, lambda b: b.bytes))

    def saved_by_reason(self) -> dict[str, int]:
        """Bytes removing the boundaries of each reason would save."""
        return self._once("saved", lambda: _by_reason(self.boundaries, lambda b: b.saved_bytes))

    def counts(self) -> dict[str, int]:
        """How many boundaries each reason has (every reason, zero included)."""
        return self._once("counts", lambda: _by_reason(self.boundaries, lambda b: 1))

    def by_value(self) -> dict[str, Boundary]:
        """Each boundary by its value (``name`` or ``name#index``)."""
        return self._once("by_value", lambda: {b.value: b for b in self.boundaries})

    def reasons(self) -> dict[str, str]:
        """Each value's reason."""
        return self._once("reasons", lambda: {b.value: b.reason for b in self.boundaries})

    def warm(self) -> Boundaries:
        """Itself, its sums and lookups made."""
        self.by_reason(), self.saved_by_reason(), self.counts(), self.by_value(), self.reasons()
        return self

    def _once(self, key: str, make: Callable[[], _T]) -> _T:
        found: _T | None = self.memo.get(key)
        if found is None:
            found = self.memo[key] = make()
        return found

    def find(self, value: str) -> Boundary | None:
        """The boundary of a value (``name`` or ``name#index``), as Traffic labels it."""
        return next((b for b in self.boundaries if b.value == value), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            # The values inside library kernels are listed too (``inside``
            # names the kernel), and counted in ``by_reason``: the bytes of
            # the boundaries listed, what they cost if materialized.
            "boundaries": [b.to_json() for b in (*self.boundaries, *self.interior)],
            "by_reason": _by_reason((*self.boundaries, *self.interior), lambda b: b.bytes),
        }


def _by_reason(
    boundaries: tuple[Boundary, ...], figure: Callable[[Boundary], int]
) -> dict[str, int]:
    out = dict.fromkeys(REASONS, 0)
    for b in boundaries:
        out[b.reason] += figure(b)
    return out


@dataclass(frozen=True, slots=True)
class BoundaryBytes:
    """What one boundary moves through main memory, loops counted."""

    written: int  # by its producer
    read: int  # by its consumers, together
    whole: int  # one read of the whole value


def value_bytes(value: Intermediate) -> BoundaryBytes:
    """The one place boundary bytes come from: the traffic model's, which takes
    what each consumer reads from XLA's cost model (xlaview.analysis.cost.totals: a
    slice reads its slice) and counts loop bodies by their known trip count."""
    times = value.executions
    read = value.bytes * len(value.consumers) if value.read_bytes is None else value.read_bytes
    return BoundaryBytes(value.bytes * times, read * times, value.bytes * times)


def saved_bytes(reason: str, moved: BoundaryBytes) -> int:
    """What removing a boundary of ``reason`` saves (see the module docstring)."""
    if reason == "output":
        return moved.read  # the program returns it: the write stays
    if reason == "shared-read":
        return max(0, moved.read - moved.whole)  # one read of it stays
    return moved.written + moved.read


def _key(label: str) -> tuple[str, int | None]:
    name, _, index = label.partition("#")
    return name, (int(index) if index else None)


def module_boundaries(
    module: Module,
    traffic: Traffic | None = None,
    reports: ModuleReports | None = None,
    progress: Callable[[float], None] | None = None,
) -> Boundaries:
    """A reason for every materialized intermediate of ``module`` (an
    after-optimizations module). Pass its ``analyze_traffic`` if you have it;
    else it is made here, with ``reports`` (the buffer assignment: which ops
    update a buffer in place) when given. ``progress`` hears the fraction of
    the values explained every `REPORT_EVERY` of them (it may raise to stop:
    a window's user stepped away from a 40,000-value pass, 3 s of work)."""
    traffic = traffic if traffic is not None else analyze_traffic(module, reports)
    finding: list[object] = []
    try:
        out = _explained(module, traffic, progress, finding)
    finally:
        # What found the reasons (the op index, each computation's flow and
        # finder: 300,000 objects on the mixture of experts' module) freed a
        # piece at a time: dropped at once, 40-110 ms in C with the GIL held.
        let_go(finding, FINDING_DEPTH)
    out.sort(key=lambda b: (-b.bytes, b.value))
    interior = _interior(module, traffic)
    if progress is not None:
        progress(1.0)
    return Boundaries(module.name, tuple(out), interior)


def _explained(
    module: Module,
    traffic: Traffic,
    progress: Callable[[float], None] | None,
    finding: list[object],
) -> list[Boundary]:
    """The boundaries of `module_boundaries`, unsorted; what finds them is
    left in ``finding``, its holders after what they hold."""
    index = OpIndex(module)
    finders: dict[str, ReasonFinder] = {}
    finding += (index, finders)
    out = []
    values = len(traffic.intermediates)
    said = 0.0  # the fraction last told, told again while a computation or a value is read

    def again() -> None:
        assert progress is not None
        progress(said)

    check = again if progress is not None else None
    for done, value in enumerate(traffic.intermediates):
        turn()  # (60-90 µs a value: a window's GUI thread gets the interpreter between them)
        if progress is not None and done % REPORT_EVERY == 0:
            said = round(done / values, 2)
            progress(said)
        finder = finders.get(value.computation)
        if finder is None:
            flow = Flow(module.computation(value.computation))
            finder = ReasonFinder(module, flow, index, check)
            finders[value.computation] = finder
        moved = value_bytes(value)
        facts = finder.facts(
            _key(value.producer), value.consumers, saved_bytes("shared-read", moved)
        )
        reason = facts[0].evidence.reason
        out.append(
            Boundary(
                producer=value.producer_instruction,
                value=value.producer,
                computation=value.computation,
                shape=value.shape,
                value_bytes=value.bytes,
                bytes=moved.written + moved.read,
                saved_bytes=saved_bytes(reason, moved),
                consumers=value.consumers,
                reason=reason,
                evidence=tuple(f.evidence for f in facts),
                suggestion=next((f.suggestion for f in facts if f.suggestion), None),
            )
        )
    return out


def _interior(module: Module, traffic: Traffic) -> tuple[Boundary, ...]:
    """The values between the stages of each library kernel's body, with
    their reasons, as the body's stages would have them as top-level ops."""
    out: list[Boundary] = []
    for op in traffic.ops:
        instr = module.computation(op.computation).instruction(op.name)
        if not is_opaque(instr):
            continue
        interior = interior_of(module, instr)
        if interior is None or interior.module is None:
            continue
        staged = module_boundaries(interior.module)
        body = interior.computation
        for b in staged.boundaries:
            out.append(
                replace(
                    b,
                    computation=body,
                    bytes=b.bytes * op.executions,
                    saved_bytes=b.saved_bytes * op.executions,
                    evidence=tuple(_in_body(e, body) for e in b.evidence),
                    inside=op.name,
                )
            )
    out.sort(key=lambda b: (-b.bytes, b.inside or "", b.value))
    return tuple(out)


def _in_body(evidence: Evidence, body: str) -> Evidence:
    """Evidence about the stages, naming the library kernel's body instead."""
    ops = tuple(OpRef(body, ref.instruction) for ref in evidence.ops)
    text = evidence.text
    for said, inside in AS_STAGES:
        text = text.replace(said, inside)
    return replace(evidence, text=text, ops=ops)
