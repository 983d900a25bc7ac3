"""The one-match path of `scan_attributes` (the common forms of ``, name=value``)
splits every text exactly as the careful scan does, items, offsets and errors
alike, and `split_attributes` (its items matched in C when they reach the end
of the text) gives what the careful scan's items make: on random texts of the
characters that matter, and on every instruction's attributes of real dumps."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlaview.hlo import attributes
from xlaview.hlo.attributes import ValueSyntaxError, scan_attributes, split_attributes

NEVER = re.compile(r"(?!)")
PIECES = st.sampled_from(
    [", ", ",", " ", "\n", "=", "a", "b_1", "x.y-z", "{", "}", "(", ")", "[", "]", '"', "'",
     '\\"', "/*c*/", "//c\n", "/", "0", "1,2", "op_name=", '"s"', "{0,1}", "%f.3", "->", "<="]
)  # fmt: skip


def both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    def run() -> object:
        try:
            return scan_attributes(text, 0)
        except ValueSyntaxError as err:
            return ("error", err.offset, str(err))

    fast = run()
    with monkeypatch.context() as m:
        m.setattr(attributes, "_PLAIN_ITEM", NEVER)
        careful = run()
    return fast, careful


def both_splits(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    split = split_attributes.__wrapped__  # the cache would answer the second call
    fast = split(text)
    with monkeypatch.context() as m:
        m.setattr(attributes, "_PLAIN_ITEM", NEVER)
        careful = split(text)
    return list(fast.items()), list(careful.items())


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=24).map("".join))
def test_random_texts_split_alike(text) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, careful = both(text, monkeypatch)
        fast_split, careful_split = both_splits(text, monkeypatch)
    assert fast == careful, text
    assert fast_split == careful_split, f"split_attributes({text!r})"


@pytest.mark.parametrize(
    "text",
    [", a=1, a=2", ", a=1 ", ", a=1, b={", ", a=1, b=x y", ', a="x\\"y", b=2', ", a=1,", ""],
)
def test_a_split_ending_otherwise_than_an_item_is_the_careful_one(text, monkeypatch) -> None:
    fast, careful = both_splits(text, monkeypatch)
    assert fast == careful, text


def test_a_real_dumps_attributes_split_alike(gpt_dump, monkeypatch) -> None:
    from xlaview.dump.modules import load_module

    texts: set[str] = set()
    for path in sorted(gpt_dump.glob("*.txt"))[::7]:
        module = load_module(path).module
        texts |= {i.attribute_text for c in module.computations for i in c.instructions}
    assert len(texts) > 500
    for text in texts:
        fast, careful = both(text, monkeypatch)
        assert fast == careful, text
        fast, careful = both_splits(text, monkeypatch)
        assert fast == careful, f"split_attributes({text!r})"


def heads_against_splits(paths) -> tuple[int, int]:
    """(fusions `fusion_head` read, fusions it declined) over the files
    ``paths``, each it read checked against a split of its attributes."""
    from xlaview.dump.modules import load_module
    from xlaview.hlo.attributes import fusion_head
    from xlaview.hlo.model import called_in, op_name_in

    read = declined = 0
    for path in paths:
        module = load_module(path).module
        for comp in module.computations:
            for instr in comp.instructions:
                if instr.opcode != "fusion":
                    continue
                head = fusion_head(instr.attribute_text)
                if head is None:
                    declined += 1
                    continue
                read += 1
                split = split_attributes(instr.attribute_text)
                op_name = op_name_in(split.get("metadata")) or ""
                assert head == (split["kind"], *called_in(split), op_name), instr.attribute_text
    return read, declined


def test_a_fusions_head_is_what_its_split_says(gpt_dump) -> None:
    """`fusion_head` (one anchored match) gives the kind, the computation and
    the op_name a split of the whole attribute list gives, for every fusion of
    real dumps (CPU with and without its library fusions, a GPT step), and
    declines what it does not read (then the graph splits them)."""
    from xlaview.hlo.attributes import fusion_head
    from xlaview.resources import sample_dump, sample_dump_default_flags

    paths = sorted(gpt_dump.glob("*after_optimizations.txt"))
    for folder in (sample_dump(), sample_dump_default_flags()):
        paths += sorted(folder.glob("*.txt"))
    read, declined = heads_against_splits(paths)
    assert read > 200 and read > 3 * declined, (read, declined)
    assert fusion_head(', kind=kLoop, calls=%f, metadata={op_type="T" op_name="x"}') is None
    assert fusion_head(", kind=kLoop, calls=%f, frontend_attributes={a=b}") is None
    assert fusion_head(", kind=kInput, calls=%f") == ("kInput", "f", "")
    assert fusion_head(', kind=kLoop, calls=%f, metadata={op_name="a\\"b"}') == (
        "kLoop", "f", 'a"b',
    )  # fmt: skip


def test_the_corpus_fusions_heads_are_what_their_splits_say(corpus) -> None:
    """The same on the peer corpus's dumps (GPU, ROCm, TPU, TensorFlow: its
    op_type first, declined)."""
    paths = sorted(corpus.glob("real_dumps/**/*after_optimizations.txt"))
    read, declined = heads_against_splits(paths[:60])
    assert read > 0, (read, declined)
