from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.engine.argspec import (
    DTYPES,
    ArgSpecError,
    ArraySpec,
    LiteralSpec,
    SequenceSpec,
    abstract_values,
    example_values,
    format_args,
    parse_args,
    placeholders,
    static_positions,
    substitute,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("f32[1000]", (ArraySpec("f32", (1000,)),)),
        ("f32[3,3]", (ArraySpec("f32", (3, 3)),)),
        ("i32[]", (ArraySpec("i32", ()),)),
        ("bf16[8, 128]", (ArraySpec("bf16", (8, 128)),)),
        ("bool[4]", (ArraySpec("bool", (4,)),)),
        ("3", (LiteralSpec(3),)),
        ("2.5", (LiteralSpec(2.5),)),
        ("-1e-3", (LiteralSpec(-0.001),)),
        ("True", (LiteralSpec(True),)),
        ("f32[1000], f32[1000]", (ArraySpec("f32", (1000,)), ArraySpec("f32", (1000,)))),
        (
            "(f32[3], f32[3]), i32[]",
            (
                SequenceSpec((ArraySpec("f32", (3,)), ArraySpec("f32", (3,)))),
                ArraySpec("i32", ()),
            ),
        ),
        ("[i32[2], 4]", (SequenceSpec((ArraySpec("i32", (2,)), LiteralSpec(4)), "list"),)),
        ("(f32[2],)", (SequenceSpec((ArraySpec("f32", (2,)),)),)),
        ("f32[N]", (ArraySpec("f32", ("N",)),)),
        ("", ()),
    ],
)
def test_parse(text, expected):
    assert parse_args(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("f33[3]", "argument 1 (column 1 of 'f33[3]'): unknown dtype 'f33'"),
        ("f32[3], f32[3", "argument 2 (the end of 'f32[3], f32[3'): unclosed shape"),
        ("f32[3], (f32[3], i32[]", "argument 2 (the end of"),
        ("f32[3], (f32[3], i32[]", "unclosed '(' opened at column 9"),
        ("f32[3] f32[3]", "argument 1 (column 8 of 'f32[3] f32[3]'): expected ','"),
        ("f32[3],", "argument 2 (the end of 'f32[3],'): missing argument"),
        ("f32[-1]", "argument 1 (column 5 of 'f32[-1]'): bad dimension '-1'"),
        ("f32[2.5]", "not a whole number"),
        ("f32", "argument 1 (the end of 'f32'): expected '['"),
        ("f32[3] @", "unexpected character '@' at column 8"),
    ],
)
def test_errors_name_the_argument(text, fragment):
    with pytest.raises(ArgSpecError) as err:
        parse_args(text)
    assert fragment in str(err.value)


_dims = st.one_of(st.integers(0, 4096), st.sampled_from(["N", "M"]))
_array = st.builds(
    ArraySpec, st.sampled_from(sorted(DTYPES)), st.lists(_dims, max_size=3).map(tuple)
)
_literal = st.builds(
    LiteralSpec,
    st.one_of(
        st.booleans(),
        st.integers(-(10**6), 10**6),
        st.floats(allow_nan=False, allow_infinity=False, width=64),
        st.none(),
    ),
)
_spec = st.recursive(
    st.one_of(_array, _literal),
    lambda inner: st.builds(
        SequenceSpec, st.lists(inner, max_size=3).map(tuple), st.sampled_from(["tuple", "list"])
    ),
    max_leaves=8,
)


@given(st.lists(_spec, max_size=4).map(tuple))
def test_format_parse_round_trip(specs):
    text = format_args(specs)
    assert parse_args(text) == specs
    assert format_args(parse_args(text)) == text


def test_example_values_are_fixed_and_typed():
    specs = parse_args("f32[4], (i32[2], bool[3]), bf16[2,2], 7")
    first = example_values(specs)
    again = example_values(specs)
    np.testing.assert_array_equal(np.asarray(first[0]), np.asarray(again[0]))
    assert first[0].dtype == np.float32 and first[0].shape == (4,)
    assert first[1][0].dtype == np.int32 and first[1][1].dtype == np.bool_
    assert str(first[2].dtype) == "bfloat16"
    assert first[3] == 7
    assert static_positions(specs) == (3,)


def test_placeholders_and_substitute():
    specs = parse_args("f32[N], (f32[N, M], i32[])")
    assert placeholders(specs) == ("N", "M")
    filled = substitute(specs, {"N": 10, "M": 2})
    assert format_args(filled) == "f32[10], (f32[10,2], i32[])"
    with pytest.raises(ArgSpecError, match="placeholder"):
        example_values(specs)
    assert abstract_values(filled)[1][0].shape == (10, 2)
