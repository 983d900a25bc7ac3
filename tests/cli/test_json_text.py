"""The command line's JSON writer prints what ``json.dumps(indent=1)`` prints."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xlaview.cli import json_text

PLAIN = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=30,
)


@given(PLAIN)
def test_same_text_as_the_standard_library(document: object) -> None:
    assert json_text.dumps(document) == json.dumps(document, indent=1, allow_nan=False)


@pytest.mark.parametrize(
    "document",
    [
        {1: "an int key"},
        {"a": {2.5: None}},
        [True, {None: 1}],
        {"set": frozenset()}.keys(),
    ],
)
def test_anything_else_is_the_standard_library_s(document: object) -> None:
    try:
        expected = json.dumps(document, indent=1, allow_nan=False)
    except TypeError:
        with pytest.raises(TypeError):
            json_text.dumps(document)
        return
    assert json_text.dumps(document) == expected


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_float_that_is_not_finite_is_refused(value: float) -> None:
    with pytest.raises(ValueError):
        json_text.dumps({"x": [value]})
