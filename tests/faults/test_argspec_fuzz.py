"""Any text at all: the argument-spec parser returns specs or raises UsageError, nothing else."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.engine.argspec import DTYPES, parse_args
from workbench.engine.errors import UsageError

FRAGMENTS = [
    *(f"{d}[" for d in DTYPES), "[", "]", "(", ")", "{", "}", ",", "=", " ", "\t", "\n",
    "0", "7", "42", "-3", "+", "-", ".", "e", "E", "1e999", "2.5", "1e-400", "N", "M", "x",
    "True", "False", "None", "f33", "\u00a0", "\u0663", "\x1c", "*", "#",
]
_digit_runs = st.integers(1, 6000).map(lambda n: "9" * n)
_nesting = st.tuples(st.integers(1, 5000), st.sampled_from(["(", "["]), st.booleans()).map(
    lambda t: t[1] * t[0] + ("f32[2]" if t[2] else "") + {"(": ")", "[": "]"}[t[1]] * t[0]
)
_spec_like = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), _digit_runs, _nesting, st.text(max_size=3)),
    max_size=30,
).map("".join)

FUZZ = settings(max_examples=500, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _parses_or_usage_error(text: str) -> None:
    try:
        parse_args(text)
    except UsageError as exc:
        assert "\n" not in str(exc)  # one line, whatever the text held


@FUZZ
@given(st.text())
def test_any_text(text):
    _parses_or_usage_error(text)


@FUZZ
@given(_spec_like)
def test_spec_like_text(text):
    _parses_or_usage_error(text)
