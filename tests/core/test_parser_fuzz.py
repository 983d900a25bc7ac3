"""Broken text never breaks the parser: only results or HloSyntaxError, fast."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlaview.hlo import HloSyntaxError, parse_module, parse_module_tolerant


@pytest.fixture(scope="module")
def real_text(zoo: dict[str, Path]) -> str:
    (path,) = zoo["mlp_grad"].glob("*cpu_after_optimizations.txt")
    return path.read_text()


def parse_both(text: str) -> None:
    try:
        parse_module(text)
    except HloSyntaxError as err:
        assert err.line >= 1 and err.column >= 1
    result = parse_module_tolerant(text)
    for d in result.diagnostics:
        assert isinstance(d.line, int) and d.line >= 1


@pytest.mark.slow
def test_truncation_at_every_line(real_text: str) -> None:
    offsets = [i for i, c in enumerate(real_text) if c == "\n"]
    assert len(offsets) > 100
    instructions = parse_module(real_text).instruction_count
    for offset in offsets:
        parse_both(real_text[:offset])
        partial = parse_module_tolerant(real_text[:offset]).module
        assert partial.instruction_count <= instructions


FUZZ = settings(
    max_examples=150, deadline=5000, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_truncation_anywhere(real_text: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(real_text)))
    parse_both(real_text[:cut])


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_random_byte_flips(real_text: str, data: st.DataObject) -> None:
    raw = bytearray(real_text.encode())
    for _ in range(data.draw(st.integers(1, 20))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    parse_both(raw.decode("utf-8", errors="replace"))


@FUZZ
@given(
    text=st.text(
        alphabet=st.sampled_from(list("%=(){}[],:; \n\"'/*ROOTENTRYf32abc0123.-#<>")), max_size=300
    )
)
def test_random_token_soup(text: str) -> None:
    parse_both(text)
