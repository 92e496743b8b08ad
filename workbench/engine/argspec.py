"""Argument specs: the little language that says what to call a function with.

``f32[1000]`` is an array, ``3``/``2.5``/``True`` are Python literals passed as
concrete (static) values, and ``(f32[3], f32[3])`` or ``[i32[], i32[]]`` build
pytree arguments. A dimension may be a name (``f32[N]``), a placeholder that a
size sweep fills in. Example values come from a fixed PRNG key, so the same
spec always gives the same numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from workbench.engine.errors import UsageError

# Short names, as jaxprs print them, to NumPy/JAX dtype names.
DTYPES: dict[str, str] = {
    "bool": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "c64": "complex64",
    "c128": "complex128",
}


class ArgSpecError(UsageError):
    """A malformed spec; the message names the argument and the column."""

    field = "args"


@dataclass(frozen=True)
class ArraySpec:
    dtype: str  # short name, a key of DTYPES
    shape: tuple[int | str, ...]

    @property
    def placeholders(self) -> tuple[str, ...]:
        return tuple(d for d in self.shape if isinstance(d, str))


@dataclass(frozen=True)
class LiteralSpec:
    value: bool | int | float | None


@dataclass(frozen=True)
class SequenceSpec:
    items: tuple[Spec, ...]
    kind: str = "tuple"  # "tuple" or "list"


Spec = ArraySpec | LiteralSpec | SequenceSpec

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<number>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
      | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
      | (?P<punct>[\[\](),])
    )""",
    re.VERBOSE,
)


@dataclass
class _Tok:
    kind: str
    text: str
    col: int  # 1-based column


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            col = pos + len(text[pos:]) - len(text[pos:].lstrip()) + 1
            raise ArgSpecError(f"unexpected character {text[col - 1]!r} at column {col}")
        kind = m.lastgroup or "punct"
        toks.append(_Tok(kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    return toks


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0
        self.arg = 1

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def fail(self, what: str, tok: _Tok | None = None) -> ArgSpecError:
        tok = tok if tok is not None else self.peek()
        where = f"column {tok.col}" if tok else "the end"
        return ArgSpecError(f"argument {self.arg} ({where} of {self.text.strip()!r}): {what}")

    def take(self, text: str) -> _Tok:
        tok = self.peek()
        if tok is None or tok.text != text:
            found = f"{tok.text!r}" if tok else "end of spec"
            raise self.fail(f"expected {text!r}, found {found}", tok)
        self.i += 1
        return tok

    def parse_top(self) -> tuple[Spec, ...]:
        if not self.toks:
            return ()
        items = [self.parse_item()]
        while self.peek() is not None:
            self.take(",")
            self.arg += 1
            if self.peek() is None:
                raise self.fail("missing argument after ','")
            items.append(self.parse_item())
        return tuple(items)

    def parse_item(self) -> Spec:
        tok = self.peek()
        if tok is None:
            raise self.fail("expected an argument")
        if tok.text in ("(", "["):
            return self.parse_sequence()
        if tok.kind == "number":
            self.i += 1
            value: int | float = float(tok.text) if re.search(r"[.eE]", tok.text) else int(tok.text)
            return LiteralSpec(value)
        if tok.kind == "name":
            if tok.text in ("True", "False"):
                self.i += 1
                return LiteralSpec(tok.text == "True")
            if tok.text == "None":
                self.i += 1
                return LiteralSpec(None)
            return self.parse_array()
        raise self.fail(f"unexpected {tok.text!r}")

    def parse_sequence(self) -> Spec:
        open_tok = self.peek()
        assert open_tok is not None
        close = ")" if open_tok.text == "(" else "]"
        self.i += 1
        items: list[Spec] = []
        trailing_comma = False
        while True:
            tok = self.peek()
            if tok is None:
                raise self.fail(f"unclosed {open_tok.text!r} opened at column {open_tok.col}")
            if tok.text == close:
                self.i += 1
                break
            items.append(self.parse_item())
            tok = self.peek()
            trailing_comma = False
            if tok is not None and tok.text == ",":
                self.i += 1
                trailing_comma = True
            elif tok is None:
                raise self.fail(f"unclosed {open_tok.text!r} opened at column {open_tok.col}")
            elif tok.text != close:
                raise self.fail(f"expected ',' or {close!r}")
        kind = "tuple" if close == ")" else "list"
        if kind == "tuple" and len(items) == 1 and not trailing_comma:
            return items[0]  # (f32[3]) is just f32[3], as in Python
        return SequenceSpec(tuple(items), kind)

    def parse_array(self) -> ArraySpec:
        tok = self.peek()
        assert tok is not None
        if tok.text not in DTYPES:
            known = ", ".join(DTYPES)
            raise self.fail(f"unknown dtype {tok.text!r} (known: {known})", tok)
        self.i += 1
        self.take("[")
        dims: list[int | str] = []
        while True:
            d = self.peek()
            if d is None:
                raise self.fail("unclosed shape '['")
            if d.text == "]":
                self.i += 1
                break
            if d.kind == "number":
                if not re.fullmatch(r"\d+", d.text):
                    raise self.fail(f"bad dimension {d.text!r}: not a whole number >= 0", d)
                dims.append(int(d.text))
            elif d.kind == "name" and d.text not in DTYPES:
                dims.append(d.text)
            else:
                raise self.fail(f"bad dimension {d.text!r}", d)
            self.i += 1
            nxt = self.peek()
            if nxt is not None and nxt.text == ",":
                self.i += 1
            elif nxt is None:
                raise self.fail("unclosed shape '['")
            elif nxt.text != "]":
                raise self.fail("expected ',' or ']' in shape")
        return ArraySpec(tok.text, tuple(dims))


def parse_args(text: str) -> tuple[Spec, ...]:
    """Parse a comma-separated list of argument specs (one per positional argument)."""
    return _Parser(text).parse_top()


def format_spec(spec: Spec) -> str:
    if isinstance(spec, ArraySpec):
        return f"{spec.dtype}[{','.join(str(d) for d in spec.shape)}]"
    if isinstance(spec, LiteralSpec):
        return repr(spec.value)
    inner = ", ".join(format_spec(s) for s in spec.items)
    if spec.kind == "list":
        return f"[{inner}]"
    return f"({inner},)" if len(spec.items) == 1 else f"({inner})"


def format_args(specs: Sequence[Spec]) -> str:
    return ", ".join(format_spec(s) for s in specs)


def placeholders(specs: Sequence[Spec]) -> tuple[str, ...]:
    """Names used as dimensions, in first-seen order."""
    seen: list[str] = []

    def walk(s: Spec) -> None:
        if isinstance(s, ArraySpec):
            seen.extend(p for p in s.placeholders if p not in seen)
        elif isinstance(s, SequenceSpec):
            for item in s.items:
                walk(item)

    for s in specs:
        walk(s)
    return tuple(seen)


def substitute(specs: Sequence[Spec], sizes: Mapping[str, int]) -> tuple[Spec, ...]:
    """Replace placeholder dimensions by sizes (for a sweep)."""

    def sub(s: Spec) -> Spec:
        if isinstance(s, ArraySpec):
            return ArraySpec(s.dtype, tuple(sizes.get(d, d) if isinstance(d, str) else d
                                            for d in s.shape))
        if isinstance(s, SequenceSpec):
            return SequenceSpec(tuple(sub(i) for i in s.items), s.kind)
        return s

    return tuple(sub(s) for s in specs)


def static_positions(specs: Sequence[Spec]) -> tuple[int, ...]:
    """Top-level positions holding literals: they are passed as concrete, static values."""
    return tuple(i for i, s in enumerate(specs) if isinstance(s, LiteralSpec))


def check_arity(specs: Sequence[Spec], params: Sequence[Any], name: str,
                n_required: int, has_varargs: bool = False) -> None:
    """Raise a UsageError when the spec gives too few or too many positional arguments."""
    n = len(specs)
    if n < n_required or (not has_varargs and n > len(params)):
        want = (f"{n_required}" if n_required == len(params) or has_varargs
                else f"{n_required} to {len(params)}")
        raise ArgSpecError(
            f"{name} takes {want} positional argument{'s' if want != '1' else ''}, "
            f"the spec gives {n}"
        )


def example_values(specs: Sequence[Spec], seed: int = 0) -> tuple[Any, ...]:
    """Concrete example arguments: arrays from a fixed PRNG key, literals as themselves."""
    import jax
    import jax.numpy as jnp

    key = jax.random.key(seed)
    counter = [0]

    def next_key() -> Any:
        counter[0] += 1
        return jax.random.fold_in(key, counter[0])

    def make(s: Spec) -> Any:
        if isinstance(s, LiteralSpec):
            return s.value
        if isinstance(s, SequenceSpec):
            values = [make(i) for i in s.items]
            return tuple(values) if s.kind == "tuple" else values
        if s.placeholders:
            raise ArgSpecError(
                f"{format_spec(s)} has placeholder dimension(s) {', '.join(s.placeholders)}: "
                "give sizes (a sweep) or write numbers"
            )
        shape = cast(tuple[int, ...], s.shape)  # no placeholders: every dimension is a number
        dtype = jnp.dtype(DTYPES[s.dtype])
        k = next_key()
        if s.dtype == "bool":
            return jax.random.bernoulli(k, 0.5, shape)
        if jnp.issubdtype(dtype, jnp.integer):
            lo = 0 if jnp.issubdtype(dtype, jnp.unsignedinteger) else -10
            return jax.random.randint(k, shape, lo, 10).astype(dtype)
        if jnp.issubdtype(dtype, jnp.complexfloating):
            re_, im = jax.random.normal(k, (2, *shape))
            return (re_ + 1j * im).astype(dtype)
        return jax.random.normal(k, shape).astype(dtype)

    return tuple(make(s) for s in specs)


def abstract_values(specs: Sequence[Spec]) -> tuple[Any, ...]:
    """ShapeDtypeStructs for arrays (literals stay concrete): tracing without data."""
    import jax
    import jax.numpy as jnp

    def make(s: Spec) -> Any:
        if isinstance(s, LiteralSpec):
            return s.value
        if isinstance(s, SequenceSpec):
            values = [make(i) for i in s.items]
            return tuple(values) if s.kind == "tuple" else values
        if s.placeholders:
            raise ArgSpecError(f"{format_spec(s)} has placeholder dimension(s)")
        return jax.ShapeDtypeStruct(s.shape, jnp.dtype(DTYPES[s.dtype]))

    return tuple(make(s) for s in specs)
