"""Long calls into C taken in turns (`xlaview.turns`): the same results as
the builtins, and another thread gets the interpreter between the turns."""

from __future__ import annotations

import sys
import threading
import time
import weakref

from hypothesis import given
from hypothesis import strategies as st

from xlaview import turns


@given(st.lists(st.integers(), max_size=3 * turns.CHUNK + 5))
def test_listed_and_dict_of_are_list_and_dict(items: list[int]) -> None:
    assert turns.listed(map(abs, items)) == list(map(abs, items))
    pairs = list(zip(items, range(len(items)), strict=True))
    assert turns.dict_of(iter(pairs)) == dict(pairs)  # a repeated key keeps its last value


@given(st.lists(st.integers(), max_size=40), st.integers(1, 6))
def test_stepped_gives_every_item_in_order_across_chunks(items: list[int], chunk: int) -> None:
    old, turns.CHUNK = turns.CHUNK, chunk
    try:
        assert list(turns.stepped(iter(items))) == items
    finally:
        turns.CHUNK = old


@given(st.lists(st.booleans(), max_size=40), st.integers(1, 6))
def test_every_is_all_across_chunks(items: list[bool], chunk: int) -> None:
    old, turns.CHUNK = turns.CHUNK, chunk  # a false item in any chunk, or at a seam
    try:
        assert turns.every(iter(items)) == all(items)
    finally:
        turns.CHUNK = old


@given(st.lists(st.integers(0, 9), max_size=40), st.integers(1, 6))
def test_dict_of_is_dict_across_chunks_with_keys_met_again(keys: list[int], chunk: int) -> None:
    # Chunks of a few pairs, keys from ten: a chunk whose keys repeat adds
    # fewer than a chunk's worth, and must not end the dict there.
    old, turns.CHUNK = turns.CHUNK, chunk
    try:
        pairs = list(zip(keys, range(len(keys)), strict=True))
        assert turns.dict_of(iter(pairs)) == dict(pairs)
    finally:
        turns.CHUNK = old


@given(
    st.text(alphabet="ab}\n", max_size=60),
    st.text(alphabet="ab}\n", max_size=4),
    st.integers(0, 70),
    st.one_of(st.none(), st.integers(0, 70)),
    st.integers(1, 7),
)
def test_find_is_str_find(text: str, sub: str, start: int, end: int | None, span: int) -> None:
    old, turns.SPAN = turns.SPAN, span  # spans of a few characters: every seam is crossed
    try:
        assert turns.find(text, sub, start, end) == text.find(sub, start, end)
    finally:
        turns.SPAN = old


@given(
    st.text(alphabet="ab\n", max_size=60),
    st.integers(0, 70),
    st.integers(0, 70),
    st.integers(1, 7),
)
def test_split_lines_is_slice_and_split(text: str, a: int, b: int, span: int) -> None:
    start, stop = sorted((min(a, len(text)), min(b, len(text))))
    old, turns.SPAN = turns.SPAN, span  # spans of a few characters: every seam is crossed
    try:
        assert turns.split_lines(text, start, stop) == text[start:stop].split("\n")
    finally:
        turns.SPAN = old


def _longest_wait_beside(work) -> float:
    """The longest another thread waited for the interpreter while ``work`` ran here."""
    stop, longest = threading.Event(), [0.0]

    def watch() -> None:
        while not stop.is_set():
            t = time.perf_counter()
            time.sleep(0.0002)  # lets go of the interpreter, then asks for it again
            longest[0] = max(longest[0], time.perf_counter() - t)

    watcher = threading.Thread(target=watch)
    watcher.start()
    time.sleep(0.01)
    try:
        work()
    finally:
        stop.set()
        watcher.join()
    return longest[0]


def test_another_thread_gets_turns_in_a_long_map() -> None:
    items = range(400_000)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0001)  # as the window sets it
    try:
        whole = _longest_wait_beside(lambda: list(map(str, items)))
        # The best of three: on a busy machine one wait of the watcher can be
        # the scheduler's (15 ms seen in CI), not a turn left out.
        chunked = min(_longest_wait_beside(lambda: turns.listed(map(str, items))) for _ in range(3))
    finally:
        sys.setswitchinterval(interval)
    assert chunked < whole / 4, (chunked, whole)


class _Part:
    __slots__ = ("parts", "__weakref__")

    def __init__(self, parts: object) -> None:
        self.parts = parts


def _big(shared: object) -> _Part:
    """A structure of about a million objects, one part held elsewhere too."""
    rows = [_Part((str(i), float(i), (i, i + 1))) for i in range(120_000)]
    return _Part([rows, {i: [i, str(i)] for i in range(60_000)}, shared])


def test_let_go_frees_what_only_it_holds_and_leaves_the_rest_whole() -> None:
    shared = {"kept": [1.5, 2.5]}
    holder = _Part([_big(shared), _big(shared)])
    gone = [weakref.ref(holder), weakref.ref(holder.parts[0])]  # type: ignore[index]
    parts: list[object] = [holder]
    del holder
    turns.let_go(parts, 4)
    assert parts == []
    assert all(ref() is None for ref in gone)
    assert shared == {"kept": [1.5, 2.5]}


def _freed_per_call(apart: turns.Apart, leaves: list[weakref.ref]) -> list[int]:
    """How many of ``leaves`` each `Apart.free` call freed, to the end."""
    alive = len(leaves)
    counts = []
    while apart.free(16):
        now = sum(ref() is not None for ref in leaves)
        counts.append(alive - now)
        alive = now
    assert alive == 0
    return counts


def test_a_long_container_at_the_last_level_is_freed_a_chunk_at_a_time() -> None:
    rows = tuple(_Part(None) for _ in range(5 * turns.CHUNK_LEN))
    leaves = [weakref.ref(row) for row in rows]
    apart = turns.Apart(1)
    apart.add(_Part(rows), 1)  # the holder opened, the rows tuple met at the last level
    del rows
    counts = _freed_per_call(apart, leaves)
    assert max(counts) <= turns.CHUNK_LEN, counts  # dropped whole: all in one call
    assert len(counts) < len(leaves) / 100  # chunks, not one row a call


class _Heavy:
    """Holds a long tuple: `Apart` opens it where it would drop it whole."""

    __slots__ = ("rows", "__weakref__")
    apart_levels = 1

    def __init__(self, rows: tuple) -> None:
        self.rows = rows


def test_an_object_whose_class_says_it_is_heavy_is_opened_below_the_last_level() -> None:
    shared = [_Part(None) for _ in range(turns.HEAVY_LEN)]
    rows = tuple(_Part(None) for _ in range(5 * turns.CHUNK_LEN))
    leaves = [weakref.ref(row) for row in rows]
    apart = turns.Apart(0)
    apart.add(_Heavy(rows), 0)  # at the last level at once
    apart.add(_Heavy(tuple(shared)), 0)  # its rows held elsewhere: left alone
    del rows
    counts = _freed_per_call(apart, leaves)
    assert max(counts) <= turns.CHUNK_LEN, counts
    assert all(isinstance(part, _Part) for part in shared)


def test_another_thread_gets_turns_while_a_big_structure_is_let_go() -> None:
    """Dropped at once, a structure's objects are all freed in one C call
    with the interpreter held (the reasons found on a 13 MB module: 40-110 ms)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0001)  # as the window sets it
    try:
        held = [_big(None)]
        whole = _longest_wait_beside(held.clear)
        waits = []
        for _ in range(3):  # the best of three, as above
            parts: list[object] = [_big(None)]
            waits.append(_longest_wait_beside(lambda parts=parts: turns.let_go(parts, 4)))
    finally:
        sys.setswitchinterval(interval)
    assert min(waits) < whole / 4, (waits, whole)


def _listing_thread(turns_count: int) -> tuple[threading.Thread, list[int]]:
    """A thread listing ``turns_count`` chunks (a worker's map chain), started."""
    done: list[int] = []
    worker = threading.Thread(
        target=lambda: done.append(len(turns.listed(map(str, range(turns_count * turns.CHUNK)))))
    )
    worker.start()
    return worker, done


def test_a_worker_waits_at_its_turns_while_the_gui_thread_has_the_right_of_way(
    monkeypatch,
) -> None:
    monkeypatch.setattr(turns, "RIGHT_OF_WAY_AT_MOST_S", 5.0)
    interval = sys.getswitchinterval()
    with turns.right_of_way():
        worker, done = _listing_thread(20)
        with turns.right_of_way():  # nested (a paint inside a result's delivery)
            pass
        time.sleep(0.05)
        assert not done, "the worker went on past its turns"
        # The thread with the right of way never waits at its own turns.
        assert turns.listed(range(3 * turns.CHUNK)) == list(range(3 * turns.CHUNK))
        assert abs(sys.getswitchinterval() - turns.RIGHT_OF_WAY_SWITCH_S) < 1e-6
    worker.join(5)
    assert done == [20 * turns.CHUNK]
    assert sys.getswitchinterval() == interval


def test_the_right_of_way_holds_a_worker_for_a_while_not_for_ever(monkeypatch) -> None:
    monkeypatch.setattr(turns, "RIGHT_OF_WAY_AT_MOST_S", 0.05)
    interval = sys.getswitchinterval()
    with turns.right_of_way():
        worker, done = _listing_thread(4)
        worker.join(2)  # 50 ms after the right of way was taken, though it is still held
        assert done == [4 * turns.CHUNK]
        # (and the interpreter changes hands as usual again)
        assert sys.getswitchinterval() == interval


def test_a_thread_that_waits_for_a_worker_lifts_its_right_of_way(monkeypatch) -> None:
    monkeypatch.setattr(turns, "RIGHT_OF_WAY_AT_MOST_S", 5.0)
    # The GUI thread, with the right of way, waits for a lock a worker holds
    # while it works in turns (a build, a parse): the worker must not wait
    # at its turns for the thread that waits for it.
    lock = threading.Lock()
    started = threading.Event()

    def work() -> None:
        with lock:
            started.set()
            turns.listed(map(str, range(50 * turns.CHUNK)))

    with turns.right_of_way():
        worker = threading.Thread(target=work)
        worker.start()
        started.wait(5)
        t = time.perf_counter()
        with turns.blocked(), lock:
            waited = time.perf_counter() - t
        assert abs(sys.getswitchinterval() - turns.RIGHT_OF_WAY_SWITCH_S) < 1e-6
    worker.join(5)
    assert waited < 1.0, waited  # not the 5 s the right of way would have held it


def test_work_stops_at_its_next_turn_once_its_check_raises() -> None:
    """`stopping`: a long map taken in turns stops at the first turn after
    its check raises, on this thread only, and the check before comes back."""

    class Unwanted(Exception):
        pass

    wanted = {"now": True}
    mapped: list[int] = []

    def check() -> None:
        if not wanted["now"]:
            raise Unwanted

    def each(k: int) -> int:
        mapped.append(k)
        if k == turns.CHUNK + 10:
            wanted["now"] = False  # the user stepped on, mid-chunk
        return k

    outer: list[str] = []
    with turns.stopping(lambda: outer.append("outer")):
        with turns.stopping(check):
            try:
                turns.listed(map(each, range(100 * turns.CHUNK)))
            except Unwanted:
                pass
            else:
                raise AssertionError("the work ran to its end")
            other = threading.Thread(target=turns.listed, args=(range(3 * turns.CHUNK),))
            other.start()  # another thread's turns do not ask this one's check
            other.join()
        assert len(mapped) == 2 * turns.CHUNK, "stopped at the turn after the check raised"
        turns.turn()
    assert outer == ["outer"]
    turns.turn()  # no check left
    assert outer == ["outer"]
