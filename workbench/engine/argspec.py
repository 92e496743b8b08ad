"""Argument specs: the little language that says what to call a function with.

``f32[1000]`` is an array, ``3``/``2.5``/``True`` are Python literals passed as
concrete (static) values, and ``(f32[3], f32[3])`` or ``[i32[], i32[]]`` build
pytree arguments. A dimension may be a name (``f32[N]``), a placeholder that a
size sweep fills in. Example values come from a fixed PRNG key, so the same
spec always gives the same numbers.

Any text either parses or raises ``ArgSpecError`` (a ``UsageError``): the length,
the nesting, the numbers and the array sizes are bounded before Python's own
limits (recursion, int conversion) or XLA's (a 64-bit byte count) are reached.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from workbench.engine.dtypes import DTYPES
from workbench.engine.errors import UsageError

# Bounds on what a spec may say; each is far past any real use and far below the limit
# that would otherwise fail with an internal error (or abort the engine process).
MAX_SPEC_CHARS = 10_000
"""Longest spec read: the longest real one is a few hundred characters."""
MAX_DEPTH = 32
"""Deepest nesting of ( ) and [ ]: the parser recurses once per level."""
MAX_NUMBER_DIGITS = 100
"""Longest integer literal: Python refuses to convert past 4300 digits."""
MAX_RANK = 64
"""Most dimensions in one shape: NumPy's own limit (example values pass through NumPy);
XLA compiles a random array of rank 3000 for minutes."""
MAX_ELEMENTS = 2**48
"""Most elements in one array (~2.8e14, 4.5 PB as c128): XLA counts bytes in 64 bits
and aborts the process, not raises, when a shape's byte count overflows."""
_MAX_DIM_DIGITS = len(str(MAX_ELEMENTS))

# Bytes per element, for the memory check before example arrays are made.
_ITEMSIZE = {name: 1 if name == "bool" else int(name.lstrip("bfiuc")) // 8 for name in DTYPES}


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

# [0-9], not \d: \d also takes other scripts' digits, which no spec needs.
_TOKEN = re.compile(
    r"""\s*(?:
        (?P<number>[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?)
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


_SPACE = re.compile(r"\s*")


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    while True:
        start = _space_end(text, pos)
        if start == len(text):
            return toks
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ArgSpecError(f"unexpected character {text[start]!r} at column {start + 1}")
        kind = m.lastgroup or "punct"
        toks.append(_Tok(kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()


def _space_end(text: str, pos: int) -> int:
    m = _SPACE.match(text, pos)
    assert m is not None  # \s* always matches
    return m.end()


def _excerpt(text: str, width: int = 60) -> str:
    """TEXT, shortened so that a message quoting it stays one readable line."""
    return text if len(text) <= width else text[: width - 3] + "..."


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0
        self.arg = 1
        self.depth = 0

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def fail(self, what: str, tok: _Tok | None = None) -> ArgSpecError:
        tok = tok if tok is not None else self.peek()
        where = f"column {tok.col}" if tok else "the end"
        quoted = _excerpt(self.text.strip())
        return ArgSpecError(f"argument {self.arg} ({where} of {quoted!r}): {what}")

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
            value = self.number(tok)
            self.i += 1
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
        if self.depth >= MAX_DEPTH:
            raise self.fail(f"brackets nested more than {MAX_DEPTH} deep", open_tok)
        self.depth += 1
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
        self.depth -= 1
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
            if len(dims) == MAX_RANK:
                raise self.fail(f"more than {MAX_RANK} dimensions in one shape", d)
            if d.kind == "number":
                dims.append(self.dimension(d))
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
        spec = ArraySpec(tok.text, tuple(dims))
        problem = _size_problem(spec)
        if problem:
            raise self.fail(problem, tok)
        return spec

    def number(self, tok: _Tok) -> int | float:
        """A literal's value; never inf, never an int past ``MAX_NUMBER_DIGITS``."""
        text = tok.text
        if re.search(r"[.eE]", text):
            value = float(text)
            if math.isinf(value):
                raise self.fail(f"number {_excerpt(text, 20)} is too large for a float", tok)
            return value
        digits = text.lstrip("+-").lstrip("0") or "0"
        if len(digits) > MAX_NUMBER_DIGITS:
            raise self.fail(f"integer {_excerpt(text, 20)} is too large "
                            f"(more than {MAX_NUMBER_DIGITS} digits)", tok)
        return -int(digits) if text.startswith("-") else int(digits)

    def dimension(self, tok: _Tok) -> int:
        if not re.fullmatch(r"[0-9]+", tok.text):
            raise self.fail(f"bad dimension {_excerpt(tok.text, 20)!r}: "
                            "not a whole number >= 0", tok)
        digits = tok.text.lstrip("0") or "0"
        if len(digits) > _MAX_DIM_DIGITS or int(digits) > MAX_ELEMENTS:
            raise self.fail(f"dimension {_excerpt(digits, 20)} is too large (at most "
                            f"2**48 = {MAX_ELEMENTS} elements in one array)", tok)
        return int(digits)


def _size_problem(spec: ArraySpec) -> str:
    """Why an array spec's numeric dimensions are too large, or ''."""
    count = 1
    for d in spec.shape:
        if isinstance(d, int):
            if d == 0:
                return ""
            count = min(count * d, MAX_ELEMENTS + 1)  # stays a small int whatever the rank
    if count > MAX_ELEMENTS:
        return (f"{_excerpt(format_spec(spec))} has more than 2**48 = {MAX_ELEMENTS} elements, "
                "the most one array may have")
    return ""


def parse_args(text: str) -> tuple[Spec, ...]:
    """Parse a comma-separated list of argument specs (one per positional argument)."""
    if len(text) > MAX_SPEC_CHARS:
        raise ArgSpecError(f"the argument spec is {len(text):,} characters long; "
                           f"specs may be at most {MAX_SPEC_CHARS:,}")
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

    _check_memory(specs)
    key = jax.random.key(seed)
    counter = [0]

    def next_key() -> Any:
        counter[0] += 1
        return jax.random.fold_in(key, counter[0])

    return tuple(_example_value(s, next_key) for s in specs)


def _example_value(s: Spec, next_key: Callable[[], Any]) -> Any:
    """One example argument. A module function, not a closure: a recursive closure is a
    reference cycle, which kept the last PRNG key alive until the cyclic collector ran."""
    import jax
    import jax.numpy as jnp

    if isinstance(s, LiteralSpec):
        return s.value
    if isinstance(s, SequenceSpec):
        values = [_example_value(i, next_key) for i in s.items]
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
        problem = _size_problem(s)  # a sweep's sizes can make a parsed shape too large
        if problem:
            raise ArgSpecError(problem)
        return jax.ShapeDtypeStruct(s.shape, jnp.dtype(DTYPES[s.dtype]))

    return tuple(make(s) for s in specs)


def _arrays(specs: Sequence[Spec]) -> list[ArraySpec]:
    out: list[ArraySpec] = []
    for s in specs:
        if isinstance(s, ArraySpec):
            out.append(s)
        elif isinstance(s, SequenceSpec):
            out.extend(_arrays(s.items))
    return out


def _check_memory(specs: Sequence[Spec]) -> None:
    """Refuse example arrays larger than this machine's memory before allocating them.

    XLA does not raise on such an allocation: the process aborts (or is killed), and the
    engine with it. Arrays that fit but exceed free memory still fail, with JAX's
    RESOURCE_EXHAUSTED, which the error catalog explains.
    """
    total = 0
    for s in _arrays(specs):
        problem = _size_problem(s)
        if problem:
            raise ArgSpecError(problem)
        if s.placeholders:
            continue  # example_values names them when it gets there
        total += math.prod(cast(tuple[int, ...], s.shape)) * _ITEMSIZE[s.dtype]
    ceiling = _memory_ceiling()
    if ceiling is not None and total > ceiling:
        raise ArgSpecError(
            f"example arguments {_excerpt(format_args(specs))} need {_size(total)}, more than "
            f"the {_size(ceiling)} of memory this process can use"
        )


def _memory_ceiling() -> int | None:
    """The machine's physical memory, or the process's address-space limit when lower."""
    limits: list[int] = []
    with contextlib.suppress(AttributeError, ValueError, OSError):  # not POSIX
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    with contextlib.suppress(ImportError, OSError, ValueError):
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            limits.append(soft)
    return min(limits) if limits else None


def _size(n: int) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"
