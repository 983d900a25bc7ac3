"""Repeated structure in a graph: the same sub-graph again and again along
it, as an unrolled loop of identical blocks makes (a 48-layer transformer's
forward blocks, and its backward blocks).

How it is found, on the nodes of one group (integers, edges among them):

1. Each node is placed on a level. The longest path is the spine; the spine
   and what depends on it go as early as their operands let them (longest
   path from the start); what does not depend on the spine (a weight's
   transpose, made of parameters only) goes just before its first user. So a
   node sits at the same offset in every copy of a block, which is not true
   of plain longest-path levels (everything made of parameters would sit on
   level 0).
2. Each level gets a fingerprint: the sorted labels of its nodes (a label is
   what the caller says a node is: opcode, shape, ...). A run of blocks is a
   stretch of levels whose fingerprints repeat with some period ``p``. The
   periods tried are the commonest distances between two levels with the
   same fingerprint; for each, the longest stretch that repeats.
3. The stretch that covers most nodes wins. Its cut into blocks is turned to
   where the fewest edges cross from one block to the next. Consecutive
   blocks whose internal edges (labels and level offsets of both ends) are
   the same are the instances: the longest such run of at least two, grown
   by the blocks just before and after it that are mostly the same (the
   first layer of a stack, fed by something else, differs a little).
4. The levels before and after the run are searched the same way, until no
   run is left (a work list, no recursion).

Deterministic: ties go to the earlier level and the shorter period; nothing
depends on hash order.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence

# A block must hold this many nodes (a run of one op repeated is no block)...
MIN_INSTANCE_NODES = 2
# ...and appear at least this many times in a row.
MIN_INSTANCES = 2
# A block next to a run joins it when this share of its labels is an instance's.
SIMILAR = 0.75
# A stretch of this many levels repeating a period too small for a block is
# cut into blocks of several periods.
LONG_RUN = 64
# Periods tried in a stretch of levels: the commonest distances.
CANDIDATE_PERIODS = 8


def find_repeats(
    members: Sequence[int],
    successors: Sequence[Sequence[int]],
    labels: Sequence[int],
) -> list[list[list[int]]]:
    """The runs of repeated blocks among ``members`` (node numbers, in a
    topological order where there is one): each run a list of instances,
    each instance its nodes in ``members`` order. ``successors[v]`` are the
    users of node ``v`` (those outside ``members`` are ignored); ``labels[v]``
    its structural label. Runs are disjoint, in level order."""
    local = {v: i for i, v in enumerate(members)}
    n = len(members)
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    at = local.get
    for i, v in enumerate(members):
        out = succ[i]
        for w in successors[v]:
            j = at(w)
            if j is not None and j != i:
                out.append(j)
                pred[j].append(i)
    order = _topological(succ, pred)
    level = _levels(order, succ, pred)
    depth = max(level, default=-1) + 1
    at_level: list[list[int]] = [[] for _ in range(depth)]
    for i in range(n):
        at_level[level[i]].append(i)
    local_labels = [labels[v] for v in members]
    keys: dict[tuple[int, ...], int] = {}
    label_of = local_labels.__getitem__
    fingerprint = [
        keys.setdefault(tuple(sorted(map(label_of, nodes))), len(keys)) for nodes in at_level
    ]
    found: list[tuple[int, list[list[int]]]] = []
    todo = [(0, depth)]
    while todo:
        lo, hi = todo.pop()
        best = _best_run(lo, hi, fingerprint, at_level, succ, level, local_labels)
        if best is None:
            continue
        start, period, instances = best
        end = start + period * len(instances)
        found.append((start, [sorted(members[i] for i in inst) for inst in instances]))
        todo.append((end, hi))
        todo.append((lo, start))
    found.sort(key=lambda item: item[0])
    return [runs for _, runs in found]


def _topological(succ: list[list[int]], pred: list[list[int]]) -> list[int]:
    """Kahn's order, earliest member first; the members of a cycle (a
    hand-written graph may have one) follow in member order."""
    n = len(succ)
    waiting = list(map(len, pred))
    ready = deque(i for i in range(n) if waiting[i] == 0)
    order: list[int] = []
    take, put, add = ready.popleft, ready.append, order.append
    while ready:
        i = take()
        add(i)
        for j in succ[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                put(j)
    if len(order) < n:
        placed = set(order)
        order += [i for i in range(n) if i not in placed]
    return order


def _levels(order: list[int], succ: list[list[int]], pred: list[list[int]]) -> list[int]:
    """Step 1 of the module's description: levels from 0, the spine and what
    depends on it as early as possible, the rest just before its first user.
    Plain loops, no generator per node: this runs over every node of a group."""
    n = len(order)
    rank = [0] * n
    for k, i in enumerate(order):
        rank[i] = k
    longest = [0] * n
    for i in order:
        after, ri = longest[i] + 1, rank[i]
        for j in succ[i]:
            if longest[j] < after and rank[j] > ri:
                longest[j] = after
    anchored = [False] * n
    if n:
        # The longest path's end, the earliest in the order among ties.
        top = max(longest)
        tip = next(i for i in order if longest[i] == top)
        queue = deque([tip])
        while queue:  # the spine: back from its end, one operand a level up each step
            i = queue.popleft()
            anchored[i] = True
            for p in pred[i]:
                if longest[p] == longest[i] - 1 and rank[p] < rank[i]:
                    queue.append(p)
                    break
        for i in order:  # and what depends on it
            if not anchored[i]:
                ri = rank[i]
                for p in pred[i]:
                    if anchored[p] and rank[p] < ri:
                        anchored[i] = True
                        break
    level = [0] * n
    for i in order:
        if anchored[i]:
            ri, best = rank[i], 0  # an anchored operand's level is 0 or more
            for p in pred[i]:
                if anchored[p] and rank[p] < ri and level[p] >= best:
                    best = level[p] + 1
            level[i] = best
    for i in reversed(order):
        if not anchored[i]:
            ri, first = rank[i], None
            for j in succ[i]:
                if rank[j] > ri and (first is None or level[j] < first):
                    first = level[j]
            level[i] = first - 1 if first is not None else longest[i]
    low = min(level, default=0)
    return [v - low for v in level] if low else level


def _best_run(
    lo: int,
    hi: int,
    fingerprint: list[int],
    at_level: list[list[int]],
    succ: list[list[int]],
    level: list[int],
    labels: list[int],
) -> tuple[int, int, list[list[int]]] | None:
    """The run of blocks in levels [lo, hi) covering most nodes, as (first
    level, period, instances), or None."""
    last: dict[int, int] = {}
    gaps: Counter[int] = Counter()
    for t in range(lo, hi):
        key = fingerprint[t]
        if key in last:
            gaps[t - last[key]] += 1
        last[key] = t
    periods = sorted(gaps.items(), key=lambda kv: (-kv[1], kv[0]))[:CANDIDATE_PERIODS]
    stretches: list[tuple[int, int, int, int]] = []  # (-nodes, start, period, end)
    for period, _ in periods:
        t = lo
        while t + period < hi:
            if fingerprint[t] != fingerprint[t + period]:
                t += 1
                continue
            start = t
            while t + period < hi and fingerprint[t] == fingerprint[t + period]:
                t += 1
            end = t + period  # levels [start, end) repeat with this period
            step = _block_period(start, end, period, at_level)
            blocks = (end - start) // step
            if blocks >= MIN_INSTANCES:
                nodes = sum(len(at_level[u]) for u in range(start, start + blocks * step))
                stretches.append((-nodes, start, step, end))
    stretches.sort()
    for _, start, period, end in stretches:
        first = start + _turn(start, end, period, at_level, succ, level)
        found = _instances(first, end, period, at_level, succ, level, labels)
        if found is not None:
            return _extend(*found, lo, hi, at_level, labels)
    return None


def _block_period(start: int, end: int, period: int, at_level: list[list[int]]) -> int:
    """The period of the blocks of levels [start, end), which repeat every
    ``period``: itself, or for a stretch of `LONG_RUN` levels or more whose
    period holds fewer than `MIN_INSTANCE_NODES` nodes (a chain of 100,000
    adds), the multiple of it that holds that many."""
    if end - start < LONG_RUN:
        return period
    held = sum(len(at_level[u]) for u in range(start, start + period))
    if held >= MIN_INSTANCE_NODES:
        return period
    return period * -(-MIN_INSTANCE_NODES // max(held, 1))


def _extend(
    first: int,
    period: int,
    instances: list[list[int]],
    lo: int,
    hi: int,
    at_level: list[list[int]],
    labels: list[int],
) -> tuple[int, int, list[list[int]]]:
    """The run grown by the blocks just before and after it that are mostly
    the same (`SIMILAR` of their labels shared with an instance): the first
    layer of a stack, fed by the embedding rather than a layer, or the last
    one of a backward pass, differ a little from the others."""
    template = Counter(labels[i] for i in instances[0])

    def similar(nodes: list[int]) -> bool:
        shared = sum((Counter(labels[i] for i in nodes) & template).values())
        return shared >= SIMILAR * max(len(nodes), len(instances[0]))

    while first - period >= lo:
        nodes = [i for t in range(first - period, first) for i in at_level[t]]
        if not similar(nodes):
            break
        instances.insert(0, nodes)
        first -= period
    end = first + period * len(instances)
    while end + period <= hi:
        nodes = [i for t in range(end, end + period) for i in at_level[t]]
        if not similar(nodes):
            break
        instances.append(nodes)
        end += period
    return first, period, instances


def _turn(
    start: int,
    end: int,
    period: int,
    at_level: list[list[int]],
    succ: list[list[int]],
    level: list[int],
) -> int:
    """How far to move the first cut so that the fewest edges cross a cut:
    an edge from level a to b (b - a < period) crosses the cuts at offsets
    in (a, b] modulo the period."""
    crossing = [0] * (period + 1)
    for t in range(start, end):
        for i in at_level[t]:
            a = level[i] - start
            for j in succ[i]:
                b = level[j] - start
                if not (0 <= a < b < end - start) or b - a >= period:
                    continue
                lo, hi = (a + 1) % period, (b % period) + 1
                if lo < hi:
                    crossing[lo] += 1
                    crossing[hi] -= 1
                else:  # wraps around
                    crossing[lo] += 1
                    crossing[period] -= 1
                    crossing[0] += 1
                    crossing[hi] -= 1
    best, best_count, running = 0, None, 0
    for r in range(period):
        running += crossing[r]
        if best_count is None or running < best_count:
            best, best_count = r, running
    return best


def _instances(
    first: int,
    end: int,
    period: int,
    at_level: list[list[int]],
    succ: list[list[int]],
    level: list[int],
    labels: list[int],
) -> tuple[int, int, list[list[int]]] | None:
    """The longest run of consecutive blocks from level ``first`` with the
    same internal edges, as (first level, period, instances), or None."""
    blocks = (end - first) // period
    signatures: list[tuple[tuple[int, int, int, int], ...]] = []
    members: list[list[int]] = []
    for k in range(blocks):
        base = first + k * period
        nodes = [i for t in range(base, base + period) for i in at_level[t]]
        edges = sorted(
            (labels[i], level[i] - base, labels[j], level[j] - base)
            for i in nodes
            for j in succ[i]
            if base <= level[j] < base + period
        )
        signatures.append(tuple(edges))
        members.append(nodes)
    best_start, best_len, k = 0, 0, 0
    while k < blocks:
        run = 1
        while k + run < blocks and signatures[k + run] == signatures[k]:
            run += 1
        if run > best_len:
            best_start, best_len = k, run
        k += run
    if best_len < MIN_INSTANCES or len(members[best_start]) < MIN_INSTANCE_NODES:
        return None
    chosen = members[best_start : best_start + best_len]
    return first + best_start * period, period, chosen
