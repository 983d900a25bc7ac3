"""Values read in two passes: a reduction over a value (or over what is computed
from it element by element) has to finish before some op reads the value's
elements again. Softmax (max, then exp(x - max); sum, then divide) and layer
norm (mean, then x - mean; variance, then normalise) are the usual cases.

Two shapes are found, at the level of top-level ops (``Flow``):

* across ops: op R reduces X, and op C reads X again together with a value
  computed from R's result (smaller than X: it is broadcast back over X);
* inside one op: its fused computation reduces X and then uses X's elements
  with the result (one kernel that reads X twice).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from xlaview.analysis.boundaries.op_facts import OpFacts, OpIndex
from xlaview.analysis.traffic import _DONE_ELEMENT, ALIASING
from xlaview.hlo import Computation, Instruction
from xlaview.turns import stepped

ValueKey = tuple[str, "int | None"]
SEARCH_DEPTH = 6  # top-level ops walked back from the reduction's result to the reduction
SEARCH_BUDGET = 48  # ops visited per walk: normalisations are a few ops long
DERIVE_DEPTH = 3  # element-wise ops between a value and the reduced value computed from it
# Reads kept per value: backward passes read one activation in two passes many
# ways over (thousands of reads on a big model); a few explain it.
ENOUGH = 8
# Ops read between two calls of `TwoPassFinder.find`'s check (256 took up
# to a second on the 48-layer train step before its layout passes, where an
# op's reads are followed back through hundreds of others).
CHECK_EVERY = 16


def value_label(key: ValueKey) -> str:
    name, index = key
    return name if index is None else f"{name}#{index}"


class Flow:
    """The values one step computation's top-level ops read, seen through the
    ops that move no data (bitcasts, tuples, get-tuple-elements) and the ``-done``
    halves of asynchronous pairs, as xlaview.analysis.traffic sees them."""

    def __init__(self, comp: Computation) -> None:
        self.comp = comp
        self.by_name = {i.name: i for i in comp.instructions}
        self.operands: dict[str, tuple[ValueKey | None, ...]] = {}
        self.readers: dict[ValueKey, list[tuple[str, int]]] = {}
        self._positions: dict[tuple[str, ValueKey], int] = {}
        for instr in stepped(comp.instructions):
            if instr.opcode in ALIASING or instr.opcode in _DONE_ELEMENT:
                continue  # a -done hands on its start's buffer: its readers read that
            values = tuple(self.value(name) for name in instr.operand_names)
            self.operands[instr.name] = values
            for position, value in enumerate(values):
                if value is not None:
                    self.readers.setdefault(value, []).append((instr.name, position))
                    self._positions.setdefault((instr.name, value), position)
        self._elements: dict[ValueKey, int] = {}
        self.root_values: set[ValueKey] = set()
        root = comp.root
        if root is not None:
            self._collect_root(root.name, self.root_values, 0)

    def lookup(self, name: str) -> Instruction | None:
        return self.by_name.get(name)

    def value(self, name: str, index: int | None = None) -> ValueKey | None:
        """The (producer, tuple index) whose memory ``name`` names."""
        for _ in range(64):
            instr = self.by_name.get(name)
            if instr is None:
                return None
            if instr.opcode == "get-tuple-element":
                idx = instr.attribute("index")
                if not instr.operand_names or idx is None:
                    return None
                name, index = instr.operand_names[0], int(idx)
            elif instr.opcode == "bitcast" and instr.operand_names:
                name = instr.operand_names[0]
            elif instr.opcode == "tuple" and index is not None and index < len(instr.operand_names):
                name, index = instr.operand_names[index], None
            elif instr.opcode in _DONE_ELEMENT and instr.operand_names and index is None:
                name, index = instr.operand_names[0], _DONE_ELEMENT[instr.opcode]
            else:
                return (instr.name, index)
        return None

    def _collect_root(self, name: str, out: set[ValueKey], depth: int) -> None:
        instr = self.by_name.get(name)
        if instr is None or depth > 16:
            return
        if instr.opcode == "tuple":
            for operand in instr.operand_names:
                self._collect_root(operand, out, depth + 1)
            return
        value = self.value(name)
        if value is not None:
            out.add(value)

    def producer(self, key: ValueKey) -> Instruction | None:
        instr = self.by_name.get(key[0])
        return None if instr is None or instr.opcode in ALIASING else instr

    def position(self, reader: str, key: ValueKey) -> int | None:
        """Where ``reader`` reads ``key`` among its operands (None: not directly,
        e.g. through an in-place update)."""
        return self._positions.get((reader, key))

    def elements(self, key: ValueKey) -> int:
        count = self._elements.get(key)
        if count is None:
            instr = self.by_name.get(key[0])
            shape = instr.shape if instr is not None else None
            if (
                shape is not None
                and key[1] is not None
                and shape.is_tuple
                and key[1] < len(shape.elements)
            ):
                shape = shape.elements[key[1]]
            count = shape.element_count if shape is not None and shape.is_array else 0
            self._elements[key] = count
        return count


@dataclass(frozen=True, slots=True)
class TwoPass:
    """Value ``value`` is reduced by ``reducer`` and read again by ``consumer``."""

    value: ValueKey
    reducer: str  # the top-level op that reduces it (or ``reduced``)
    reductions: tuple[str, ...]  # the reduce ops, inside ``reducer``'s body
    reducer_kind: str  # "max", "sum", ...
    reduced: ValueKey  # what the reducer reads: ``value``, or a value computed from it
    derived: tuple[ValueKey, ...]  # values between ``value`` and ``reduced``, ``reduced`` last
    path: tuple[ValueKey, ...]  # the reduction's result on its way to ``consumer``
    consumer: str
    position: int  # of ``value`` among ``consumer``'s operands
    reread: str  # the op (in ``consumer``'s body) using the elements with the result
    reread_opcode: str


@dataclass(frozen=True, slots=True)
class _Source:
    reducer: str
    position: int
    reduced: ValueKey
    path: tuple[ValueKey, ...]  # from the reducer's result to the value searched from
    largest: int  # elements of the largest value on the path


class TwoPassFinder:
    """Finds every two-pass read in one step computation."""

    def __init__(self, flow: Flow, index: OpIndex) -> None:
        self.flow = flow
        self.index = index
        self._sources: dict[ValueKey, list[_Source]] = {}
        self._ancestors: dict[ValueKey, dict[ValueKey, tuple[ValueKey, ...]]] = {}
        self._told: dict[ValueKey, int] = {}  # reads found that explain each value
        self._match_cache: dict[
            ValueKey, dict[ValueKey, list[tuple[_Source, tuple[ValueKey, ...]]]]
        ] = {}

    def facts(self, name: str) -> OpFacts | None:
        instr = self.flow.by_name.get(name)
        if instr is None or instr.opcode in ALIASING:
            return None
        return self.index.facts(self.flow.comp, instr, self.flow.lookup)

    def _plain(self, facts: OpFacts | None) -> bool:
        """Ops a normalisation's statistics go through: no matmuls, collectives, loops
        (library fusions that reduce, like YNN's, are fine)."""
        return (
            facts is not None
            and not facts.matmul
            and not facts.collective
            and not facts.control_flow
        )

    def find(self, check: Callable[[], None] | None = None) -> list[TwoPass]:
        """The two-pass reads, at least ENOUGH for each value they explain when
        there are that many (at most ENOUGH more than that). ``check`` is
        called every `CHECK_EVERY` ops (it may raise to stop: a 40,000-op entry
        takes a second)."""
        found: list[TwoPass] = []
        for seen, (name, values) in enumerate(self.flow.operands.items()):
            if check is not None and seen % CHECK_EVERY == 0:
                check()
            facts = self.facts(name)
            if facts is None:
                continue
            first = {v: k for k, v in reversed(list(enumerate(values))) if v is not None}
            for value, position in first.items():
                if facts.rereads(position):  # inside one kernel
                    use = facts.use(position)
                    if use.reductions and use.rereads:
                        found.append(
                            TwoPass(
                                value,
                                name,
                                use.reductions,
                                self._kind(facts, use.reductions),
                                value,
                                (),
                                (),
                                name,
                                position,
                                use.rereads[0],
                                self._opcode(facts, use.rereads[0]),
                            )
                        )
            if len(first) < 2 or not self._plain(facts):
                continue
            for other, other_position in first.items():
                matches = self._matches(other)
                if not matches:
                    continue
                size = self.flow.elements(other)
                shared = (
                    [v for v in matches if v in first]
                    if len(matches) < len(first)
                    else [v for v in first if v in matches]
                )
                for value in shared:
                    position = first[value]
                    candidates = matches[value]
                    elements = self.flow.elements(value)
                    if value == other or elements <= size or not facts.is_elementwise(position):
                        continue
                    # The nearest reduction (sources come nearest first) tells it.
                    for source, chain in candidates:
                        if source.largest >= elements:
                            continue  # not a reduction's result any more: as big as the value
                        told = (value, *source.path, *chain)
                        if all(self._told.get(k, 0) >= ENOUGH for k in told):
                            break  # every value it would explain is explained enough already
                        reread = self.index.combination(
                            self.flow.by_name[name], position, other_position
                        )
                        if reread is None:
                            break
                        reducer = self.facts(source.reducer)
                        assert reducer is not None
                        reductions = reducer.use(source.position).reductions
                        found.append(
                            TwoPass(
                                value,
                                source.reducer,
                                reductions,
                                self._kind(reducer, reductions),
                                source.reduced,
                                chain,
                                source.path,
                                name,
                                position,
                                reread,
                                self._opcode(facts, reread),
                            )
                        )
                        for k in told:
                            self._told[k] = self._told.get(k, 0) + 1
                        break
        return found

    def _kind(self, facts: OpFacts, reductions: tuple[str, ...]) -> str:
        return self.index.reducer(facts.body, reductions[0]) if reductions else "reduction"

    def _opcode(self, facts: OpFacts, name: str) -> str:
        body = self.index.body(facts.body)
        instr = body.by_name.get(name) if body else None
        return instr.opcode if instr else ""

    def _matches(
        self, start: ValueKey
    ) -> dict[ValueKey, list[tuple[_Source, tuple[ValueKey, ...]]]]:
        """Values a reduction ``start`` is computed from reduces, directly or through
        values computed from them element by element: value -> (source, chain)."""
        if start not in self._match_cache:
            out: dict[ValueKey, list[tuple[_Source, tuple[ValueKey, ...]]]] = {}
            for source in self._reduction_sources(start):
                out.setdefault(source.reduced, []).append((source, ()))
                for ancestor, chain in self._ancestors_of(source.reduced).items():
                    out.setdefault(ancestor, []).append((source, chain))
            self._match_cache[start] = out
        return self._match_cache[start]

    def _reduction_sources(self, start: ValueKey) -> list[_Source]:
        """Reductions ``start`` is computed from, walking back over plain ops."""
        if start in self._sources:
            return self._sources[start]
        out: list[_Source] = []
        queue: deque[tuple[ValueKey, tuple[ValueKey, ...], int]] = deque([(start, (start,), 0)])
        seen = {start}
        while queue and len(seen) <= SEARCH_BUDGET:
            key, path, depth = queue.popleft()
            producer = self.flow.producer(key)
            facts = self.facts(producer.name) if producer else None
            if producer is None or not self._plain(facts):
                continue
            assert facts is not None
            for position, operand in enumerate(self.flow.operands.get(producer.name, ())):
                if operand is None:
                    continue
                if facts.reduces(position):
                    out.append(
                        _Source(
                            producer.name,
                            position,
                            operand,
                            tuple(reversed(path)),
                            max(self.flow.elements(k) for k in path),
                        )
                    )
                if depth + 1 < SEARCH_DEPTH and operand not in seen:
                    seen.add(operand)
                    queue.append((operand, (*path, operand), depth + 1))
        self._sources[start] = out
        return out

    def _ancestors_of(self, reduced: ValueKey) -> dict[ValueKey, tuple[ValueKey, ...]]:
        """Values ``reduced`` is computed from element by element (a few ops back),
        each with the chain of values from it (left out) to ``reduced``."""
        if reduced not in self._ancestors:
            found: dict[ValueKey, tuple[ValueKey, ...]] = {}
            frontier: list[tuple[ValueKey, tuple[ValueKey, ...]]] = [(reduced, (reduced,))]
            for _ in range(DERIVE_DEPTH):
                following = []
                for key, chain in frontier:
                    producer = self.flow.producer(key)
                    facts = self.facts(producer.name) if producer else None
                    if producer is None or not self._plain(facts):
                        continue
                    assert facts is not None
                    for position, operand in enumerate(self.flow.operands.get(producer.name, ())):
                        if (
                            operand is None
                            or operand in found
                            or operand == reduced
                            or not facts.is_elementwise(position)
                        ):
                            continue
                        found[operand] = chain
                        following.append((operand, (operand, *chain)))
                frontier = following
            self._ancestors[reduced] = found
        return self._ancestors[reduced]
