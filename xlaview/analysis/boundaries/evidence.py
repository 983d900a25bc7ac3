"""The facts behind each boundary's reason: what its producer and consumers are,
what the ops inside their fused computations do with the value.

Each fact supports one reason and carries a precedence rank (lower wins); the
ranks and why they are in that order are documented in
xlaview.analysis.boundaries.explain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xlaview.analysis.boundaries.body_flow import MEMORY_SPACE_MOVE, OperandUse
from xlaview.analysis.boundaries.multipass import (
    Flow,
    TwoPass,
    TwoPassFinder,
    ValueKey,
    value_label,
)
from xlaview.analysis.boundaries.op_facts import OpFacts, OpIndex
from xlaview.analysis.reasons import RANK
from xlaview.hlo import Module
from xlaview.units import human_bytes

SOFTMAX = (
    "online softmax: one pass over each row with a running max and sum, so the value is read "
    "once (with the matmul that produces it: flash attention)"
)
WELFORD = (
    "Welford's algorithm: mean and variance in one pass over the value (one-pass normalisation "
    "statistics)"
)

MAX_TWO_PASS = 3  # multi-pass facts kept per boundary
PATTERN_SAMPLE = 64  # two-pass reads of one value looked at to tell its pattern
READERS_BETWEEN_CHECKS = 16  # consumers of a value read between two checks


def _a(words: str) -> str:
    return ("an " if words[:1] in "aeiou" else "a ") + words


@dataclass(frozen=True, slots=True)
class OpRef:
    """An instruction named by the evidence: top-level, or inside a fused computation."""

    computation: str
    instruction: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """One fact, the reason it supports, and the instructions it names."""

    reason: str
    text: str
    ops: tuple[OpRef, ...]


OWN_KERNEL_WRITES = "it runs as its own kernel and writes its result to memory"
OWN_KERNEL_READS = "it runs as its own kernel and reads its operands from memory"
# The same facts about the stages of a library kernel's body, which the
# library may run as one kernel (xlaview.analysis.cost.interior).
AS_STAGES = (
    ("is a fusion around a", "is a stage around a"),
    (OWN_KERNEL_WRITES, "run as a kernel of its own, it writes its result to memory"),
    (OWN_KERNEL_READS, "run as a kernel of its own, it reads its operands from memory"),
)

# A consumer: its name, what it is, what it does with the value (None: unknown).
Reader = tuple[str, "OpFacts | None", "OperandUse | None"]


@dataclass(frozen=True, slots=True)
class Fact:
    rank: int
    evidence: Evidence
    suggestion: str | None = None


class ReasonFinder:
    """Gathers the facts of every boundary of one step computation."""

    def __init__(
        self, module: Module, flow: Flow, index: OpIndex, check: Callable[[], None] | None = None
    ) -> None:
        """``check``: called as the computation's ops are read (it may raise to stop)."""
        self.module = module
        self.flow = flow
        self.index = index
        self.comp = flow.comp.name
        self.multi_pass: dict[ValueKey, list[tuple[int, TwoPass]]] = {}
        self.groups: dict[ValueKey, list[TwoPass]] = {}  # by the value read twice
        self._patterns: dict[ValueKey, str | None] = {}
        self._check = check
        self._add_two_pass(TwoPassFinder(flow, index).find(check))

    def facts_of(self, name: str) -> OpFacts | None:
        instr = self.flow.producer((name, None))
        return self.index.facts(self.flow.comp, instr, self.flow.lookup) if instr else None

    def _ref(self, name: str) -> OpRef:
        return OpRef(self.comp, name)

    # -- multi-pass ------------------------------------------------------------
    # Backward passes find the same reads by many ways (thousands on a big model):
    # each boundary keeps references to them, and words are made for the few shown.
    def _add_two_pass(self, found: list[TwoPass]) -> None:
        seen: set[tuple[int, ValueKey, ValueKey, str, str, ValueKey]] = set()
        for record in found:
            self.groups.setdefault(record.value, []).append(record)
            entries = (
                [(0, record.value)]
                + [(1, key) for key in record.path]
                + [(2, key) for key in record.derived]
            )
            for order, key in entries:
                mark = (order, key, record.value, record.consumer, record.reducer, record.reduced)
                if mark not in seen:
                    seen.add(mark)
                    self.multi_pass.setdefault(key, []).append((order, record))

    def _multi_facts(self, key: ValueKey) -> list[Fact]:
        """The value read twice itself first, then the reduction's result on its way,
        then values computed from the first for the reduction; at most MAX_TWO_PASS."""
        entries = self.multi_pass.get(key, ())
        # Reads that show a known pattern first: they carry the suggestion.
        ranked = sorted(
            entries, key=lambda entry: (entry[0], self._group_pattern(entry[1].value) is None)
        )
        suggestion = next((p for p in (self._group_pattern(r.value) for _, r in ranked) if p), None)
        out = [
            self._two_pass_fact(key, order, record, suggestion)
            for order, record in ranked[:MAX_TWO_PASS]
        ]
        if len(ranked) > MAX_TWO_PASS:
            out.append(
                Fact(
                    RANK["multi-pass"],
                    Evidence(
                        "multi-pass", "and more two-pass reads through this value (not listed)", ()
                    ),
                    suggestion,
                )
            )
        return out

    def _group_pattern(self, value: ValueKey) -> str | None:
        if value not in self._patterns:
            self._patterns[value] = self._pattern(value, self.groups[value])
        return self._patterns[value]

    def _two_pass_fact(self, key: ValueKey, order: int, r: TwoPass, suggestion: str | None) -> Fact:
        consumer = self.facts_of(r.consumer)
        reducer = self.facts_of(r.reducer)
        ops = (
            self._ref(r.consumer),
            OpRef(consumer.body if consumer else self.comp, r.reread),
            self._ref(r.reducer),
            *(OpRef(reducer.body if reducer else self.comp, n) for n in r.reductions),
        )
        x = value_label(r.value)
        reduce = f"{r.reducer_kind} {r.reductions[0]}" if r.reductions else r.reducer_kind
        if order == 0 and r.reducer == r.consumer:
            text = (
                f"{r.consumer} reduces {x} ({reduce}) and then reads its elements again "
                f"({r.reread}, {r.reread_opcode}): two passes over {x} in one kernel"
            )
        elif order == 0:
            what = "it" if r.reduced == r.value else f"{value_label(r.reduced)} (computed from it)"
            text = (
                f"{r.consumer} reads {x} again ({r.reread}, {r.reread_opcode}) after "
                f"{r.reducer} reduces {what} ({reduce}): {x} is read in two passes"
            )
        elif order == 1:
            over = x if r.reduced == r.value else f"{value_label(r.reduced)} (computed from {x})"
            head = (
                f"{value_label(key)} is the {r.reducer_kind} over {over}"
                if key[0] == r.reducer
                else f"{value_label(key)} carries the {r.reducer_kind} over {over} "
                f"(from {r.reducer})"
            )
            text = f"{head}, which {r.consumer} needs before it reads {x} again ({r.reread})"
            ops = (self._ref(key[0]), *ops)
        else:
            text = (
                f"{value_label(key)} is computed from {x} and reduced by {r.reducer} ({reduce}) "
                f"before {r.consumer} reads {x} again ({r.reread}): a second pass over {x}"
            )
            ops = (self._ref(key[0]), *ops)
        evidence = Evidence("multi-pass", text, tuple(dict.fromkeys(ops)))
        return Fact(RANK["multi-pass"], evidence, suggestion)

    def _pattern(self, value: ValueKey, records: list[TwoPass]) -> str | None:
        """The known one-pass rewrite for these reads, if the ops show one."""
        producer = self.facts_of(value[0])
        made_by_exp = producer is not None and "exponential" in producer.opcodes
        centered = spread = False
        for r in records[:PATTERN_SAMPLE]:
            consumer = self.facts_of(r.consumer)
            if consumer is None:
                continue
            later = consumer.use(r.position).opcodes
            if (r.reducer_kind == "max" and "exponential" in later) or (
                r.reducer_kind == "sum" and made_by_exp
            ):
                return SOFTMAX
            if r.reducer_kind == "sum" and r.reread_opcode == "subtract":
                centered = True
            # A variance: the square of what is reduced, or a square root of the result.
            path_ops = set(later)
            for key in r.path:
                facts = self.facts_of(key[0])
                path_ops |= facts.opcodes if facts else set()
            squared = [self.facts_of(key[0]) for key in (r.derived or (r.value,))] + [
                self.facts_of(r.reducer)
            ]
            if {"rsqrt", "sqrt"} & path_ops or any(f is not None and f.squares for f in squared):
                spread = True
        if centered and spread:
            return WELFORD
        return None

    # -- everything else -------------------------------------------------------
    def facts(self, key: ValueKey, consumers: tuple[str, ...], read_once_saves: int) -> list[Fact]:
        """Every fact found for one boundary, by rank. ``read_once_saves``: the bytes
        one read of it by all its consumers would save."""
        out: list[Fact] = []
        label = value_label(key)
        producer = self.facts_of(key[0])
        readers: list[Reader] = []
        for seen, name in enumerate(consumers, 1):
            if self._check is not None and not seen % READERS_BETWEEN_CHECKS:
                self._check()  # (each reader's fused body read: a value 250 fusions read, 0.5 s)
            facts = self.facts_of(name)
            position = self.flow.position(name, key)
            readers.append(
                (name, facts, facts.use(position) if facts and position is not None else None)
            )
        root = self.flow.comp.root
        if key in self.flow.root_values and root is not None:
            if self.flow.comp is self.module.entry:
                out.append(
                    self._fact(
                        "output",
                        f"{label} is an output of the program (ROOT {root.name}): "
                        "it is written to memory whatever the consumers do",
                        (root.name,),
                    )
                )
            else:
                kind = self.module.computation_kind(self.comp)
                out.append(
                    self._fact(
                        "control-flow",
                        f"{label} leaves {kind} {self.comp} (ROOT "
                        f"{root.name}): the loop's next iteration or the caller reads it "
                        "from memory",
                        (root.name,),
                    )
                )
        if producer is not None:
            if producer.collective:
                out.append(
                    self._fact(
                        "collective",
                        f"producer {producer.name} is a collective "
                        f"({producer.description}): it writes its result to memory",
                        (producer.name,),
                        producer.body,
                        producer.collective,
                    )
                )
            if producer.control_flow:
                out.append(
                    self._fact(
                        "control-flow",
                        f"producer {producer.name} is "
                        f"{_a(producer.description)}: its results live in memory",
                        (producer.name,),
                    )
                )
            if producer.moves:
                op, how = producer.moves[0]
                moved = tuple(m for m, _ in producer.moves)
                if how.startswith(MEMORY_SPACE_MOVE):
                    out.append(
                        self._fact(
                            "layout-change/producer",
                            f"producer {producer.name} only copies "
                            f"data to another memory space ({op}: {how})",
                            (producer.name,),
                            producer.body,
                            moved,
                        )
                    )
                else:
                    out.append(
                        self._fact(
                            "layout-change/producer",
                            f"producer {producer.name} only re-lays "
                            f"out data ({op}: {how}): reading the original layout would "
                            "remove this value",
                            (producer.name,),
                            producer.body,
                            moved,
                            suggestion="read the data in its original layout (fold the "
                            "transpose or copy into the consumer, or assign the layout it "
                            "needs upstream)",
                        )
                    )
        for name, facts, _ in readers:
            if facts is None:
                continue
            if facts.collective:
                out.append(
                    self._fact(
                        "collective",
                        f"consumer {name} is a collective "
                        f"({facts.description}): it reads its operand from memory",
                        (name,),
                        facts.body,
                        facts.collective,
                    )
                )
            if facts.control_flow:
                out.append(
                    self._fact(
                        "control-flow",
                        f"consumer {name} is {_a(facts.description)}: "
                        "it reads its operands from memory",
                        (name,),
                    )
                )
        out.extend(self._multi_facts(key))
        if producer is not None and producer.library_what:
            out.append(
                self._fact(
                    "library-call",
                    f"producer {producer.name} is {producer.library_what}: {OWN_KERNEL_WRITES}",
                    (producer.name,),
                    producer.body,
                    producer.library,
                )
            )
        for name, facts, _ in readers:
            if facts is not None and facts.library_what:
                out.append(
                    self._fact(
                        "library-call",
                        f"consumer {name} is {facts.library_what}: {OWN_KERNEL_READS}",
                        (name,),
                        facts.body,
                        facts.library,
                    )
                )
        if producer is not None and producer.relayouts and not producer.moves:
            op, how = producer.relayouts[0]
            out.append(
                self._fact(
                    "layout-change/other",
                    f"producer {producer.name} moves data to "
                    f"another layout as it computes ({op}: {how})",
                    (producer.name,),
                    producer.body,
                    tuple(m for m, _ in producer.relayouts),
                )
            )
        for name, facts, use in readers:
            if use is not None and use.relayouts:
                op, how = use.relayouts[0]
                out.append(
                    self._fact(
                        "layout-change/other",
                        f"consumer {name} re-lays it out ({op}: {how})",
                        (name,),
                        facts.body if facts else self.comp,
                        tuple(m for m, _ in use.relayouts),
                    )
                )
        if len(consumers) >= 2:
            names = ", ".join(consumers)
            fusible = all(
                f is not None and not (f.library_what or f.collective or f.control_flow)
                for _, f, _ in readers
            )
            out.append(
                self._fact(
                    "shared-read",
                    f"{len(consumers)} ops read {label} separately ({names}): "
                    f"reading it once would save {human_bytes(read_once_saves)}",
                    consumers,
                    suggestion=f"one multi-output (sibling) fusion of {names} reads it once"
                    if fusible
                    else None,
                )
            )
        if not out:
            out.extend(self._other(label, key[1], producer, readers))
        if not out:
            out.append(self._fact("other", f"nothing is known of {label}'s producer", (key[0],)))
        out.sort(key=lambda f: f.rank)
        return out

    def _fact(
        self,
        rank_key: str,
        text: str,
        top: tuple[str, ...],
        body: str | None = None,
        inner: tuple[str, ...] = (),
        suggestion: str | None = None,
    ) -> Fact:
        reason = rank_key.split("/")[0]
        ops = tuple(self._ref(n) for n in top) + tuple(
            OpRef(body, n) for n in inner if body is not None
        )
        return Fact(RANK[rank_key], Evidence(reason, text, tuple(dict.fromkeys(ops))), suggestion)

    def _other(
        self, label: str, index: int | None, producer: OpFacts | None, readers: list[Reader]
    ) -> list[Fact]:
        """Facts only: what the producer and the consumer are and do with the value."""
        out = []
        reduced = producer.reduced_output(index) if producer is not None else ()
        if producer is not None:
            text = f"producer {producer.name} is {_a(producer.description)}"
            if reduced:
                kind = self.index.reducer(producer.body, reduced[0])
                text += f"; {label} is the result of a reduction ({kind} {reduced[0]})"
            out.append(self._fact("other", text, (producer.name,), producer.body, reduced))
        for name, facts, use in readers:
            if facts is None:
                continue
            text = f"consumer {name} is {_a(facts.description)}"
            inner: tuple[str, ...] = use.reductions if use else ()
            if use is None:
                pass  # read through an in-place update, or not directly
            elif use.reductions:
                kind = self.index.reducer(facts.body, use.reductions[0])
                text += f" and reduces {label} ({kind} {use.reductions[0]})"
            elif use.broadcast:
                op, times = use.broadcast
                inner = (op,)
                text += (
                    f" and reads {label} through a broadcast ({op}), each element {times:,} times: "
                    f"fused into it, the producer would compute each element {times:,} times"
                )
            elif use.elementwise:
                text += f" and reads {label} element by element"
            out.append(self._fact("other", text, (name,), facts.body, inner))
        if producer is not None and reduced:
            kind = self.index.reducer(producer.body, reduced[0])
            for name, facts, use in readers:
                reductions = use.reductions if use else ()
                if facts and reductions and self.index.reducer(facts.body, reductions[0]) == kind:
                    out.append(
                        self._fact(
                            "other",
                            f"{producer.name} and {name} both take a {kind}: "
                            f"{label} is a partial result, one reduction split in stages",
                            (producer.name, name),
                        )
                    )
                    break
        return out
