"""The error catalog: JAX's sharp bits explained for a student, as plain data.

``explain`` turns any exception raised by user code into an ``Explanation``:
a stable ``kind``, a one-line title, a hint a student can act on, the JAX doc
link, and the editor line. The knowledge lives in ``ENTRIES``, a table of plain
rows (exception class names and/or a message pattern), so adding a case is one
row and a GUI can list them all with ``catalog_entries()``.

Where the line comes from, best first: the innermost editor frame of the
exception (or of its ``__cause__``/``__context__`` chain; JAX's traceback
filtering removes only its own frames, never the editor's), then the function
the caller passes (for errors JAX raises after tracing, such as grad of a
non-scalar output), then an ``editor.py:N`` mentioned in JAX's message.

Each row may name an extractor that reads the specifics of one error (the
undefined name, the operand shapes, the traced value's type) from the
exception's message and attributes and from the failing editor expression and
the values it names; the title and hint stay the row's teaching text, except
where the failing code makes that hint mislead (``adapted_hint``: a function
under its own ``jax.jit``, a condition used with ``and``/``or``/``not``).
"""

from __future__ import annotations

import ast
import builtins
import difflib
import functools
import inspect
import keyword
import linecache
import re
import sys
import traceback as _tb
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any

from workbench.engine.argspec import DTYPES
from workbench.engine.errors import Explanation

DOCS = "https://docs.jax.dev/en/latest"
ERRORS_PAGE = f"{DOCS}/errors.html"
SHARP_BITS = f"{DOCS}/notebooks/Common_Gotchas_in_JAX.html"
TITLE_MAX = 160
EXPRESSION_MAX = 60


_SHORT_DTYPES = {long: short for short, long in DTYPES.items()}
_LONG_TYPE = re.compile(
    r"\b(" + "|".join(sorted(_SHORT_DTYPES, key=len, reverse=True)) + r")(?=\[)"
)
_TRACED_TYPE = re.compile(r"traced array with shape (\S+?\[[^\]]*\])")


def _short(text: str) -> str:
    """JAX's ``float32[3]`` written the way the workbench writes types, ``f32[3]``."""
    return _LONG_TYPE.sub(lambda m: _SHORT_DTYPES[m.group(1)], text)


def _is_tracer(value: Any) -> bool:
    """Whether ``value`` is a JAX tracer (no tracer can exist before jax is imported)."""
    tracer = getattr(getattr(sys.modules.get("jax"), "core", None), "Tracer", None)
    return isinstance(tracer, type) and isinstance(value, tracer)


def _is_jax_array(value: Any) -> bool:
    array = getattr(sys.modules.get("jax"), "Array", None)
    return _is_tracer(value) or (isinstance(array, type) and isinstance(value, array))


def _value_type(value: Any, *, traced: bool = True) -> str | None:
    """``f32[3]`` for an array (``traced f32[3]``, ``NumPy f64[3]``); None for anything else."""
    try:
        shape, dtype = value.shape, value.dtype
    except Exception:  # noqa: BLE001 - a user object's attribute may raise anything
        return None
    if not isinstance(shape, tuple):
        return None
    text = f"{_SHORT_DTYPES.get(str(dtype), str(dtype))}[{','.join(str(d) for d in shape)}]"
    if _is_tracer(value):
        return f"traced {text}" if traced else text
    return f"NumPy {text}" if type(value).__module__ == "numpy" else text


def _clip(line: str, limit: int = TITLE_MAX) -> str:
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "\u2026"


def _lines(*lines: str | None) -> str:
    """The specifics: the given lines that are not empty, each clipped to one screen line."""
    return "\n".join(_clip(line) for line in lines if line)


def _innermost_editor_tb(exc: BaseException, filename: str) -> TracebackType | None:
    """The traceback entry of the innermost editor frame (same exception as ``editor_frames``)."""
    for e in exception_chain(exc):
        last = None
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                last = tb
            tb = tb.tb_next
        if last is not None:
            return last
    return None


Span = tuple[int, int, int, int]  # start line, end line, start column, end column (UTF-8 bytes)


def _position(tb: TracebackType) -> Span | None:
    """Where in the editor the expression was that was running when ``tb`` was recorded."""
    positions = list(tb.tb_frame.f_code.co_positions())
    index = tb.tb_lasti // 2
    if not 0 <= index < len(positions):
        return None
    start, end, col, end_col = positions[index]
    if start is None or end is None or col is None or end_col is None:
        return None
    return start, end, col, end_col


def _source_span(filename: str, span: Span | None) -> str:
    """The editor text of ``span``, on one line."""
    if span is None:
        return ""
    start, end, col, end_col = span
    # Columns are UTF-8 byte offsets.
    rows = [row.encode() for row in linecache.getlines(filename)[start - 1 : end]]
    if not rows:
        return ""
    if len(rows) == 1:
        text = rows[0][col:end_col]
    else:
        text = rows[0][col:] + b"".join(rows[1:-1]) + rows[-1][:end_col]
    return " ".join(text.decode(errors="replace").split())


@dataclass(frozen=True)
class Clues:
    """What an extractor reads: the exception, its text and the failing editor expression.

    ``frame`` is the innermost editor frame (None when JAX raised after tracing,
    as for grad of a non-scalar output); ``expression`` is the source of the
    expression it was running, such as ``x > 0`` or ``jnp.dot(a, b)``.
    """

    exc: BaseException
    message: str
    frame: FrameType | None = None
    expression: str = ""
    span: Span | None = None

    @classmethod
    def gather(cls, exc: BaseException, filename: str) -> Clues:
        tb = _innermost_editor_tb(exc, filename)
        if tb is None:
            return cls(exc, _text(exc))
        span = _position(tb)
        return cls(exc, _text(exc), tb.tb_frame, _source_span(filename, span), span)

    @property
    def code(self) -> str:
        """The expression in backquotes, clipped, for a line of specifics."""
        return f"`{_clip(self.expression, EXPRESSION_MAX)}`" if self.expression else ""

    def names(self) -> list[str]:
        """The names the expression reads, left to right, once each."""
        try:
            tree = ast.parse(self.expression, mode="eval")
        except SyntaxError:
            found = re.findall(r"(?<![\w.])[A-Za-z_]\w*", self.expression)
            return list(dict.fromkeys(n for n in found if not keyword.iskeyword(n)))
        nodes = sorted(
            (n for n in ast.walk(tree) if isinstance(n, ast.Name)),
            key=lambda n: n.col_offset,
        )
        return list(dict.fromkeys(n.id for n in nodes))

    def values(self) -> dict[str, Any]:
        """The expression's names bound in the failing frame, and their values."""
        if self.frame is None:
            return {}
        scopes = (self.frame.f_locals, self.frame.f_globals)
        return {
            name: next(s[name] for s in scopes if name in s)
            for name in self.names()
            if any(name in s for s in scopes)
        }

    def operands(self, limit: int = 3) -> str:
        """``x: traced f32[1000], w: f32[3,4]``: the arrays the expression names."""
        typed = [(n, t) for n, v in self.values().items() if (t := _value_type(v)) is not None]
        return ", ".join(f"{n}: {t}" for n, t in typed[:limit])

    def jax_involved(self) -> bool:
        """Whether JAX raised it (a JAX frame is innermost) or the expression reads a JAX array."""
        for e in exception_chain(self.exc):
            frames = [f for f, _ in _tb.walk_tb(e.__traceback__)]
            if frames and str(frames[-1].f_globals.get("__name__", "")).split(".")[0] == "jax":
                return True
        return any(_is_jax_array(v) for v in self.values().values())

    def frames(self) -> Iterator[FrameType]:
        """Every frame JAX's traceback filtering left on the exception and its chain."""
        for e in exception_chain(self.exc):
            for frame, _ in _tb.walk_tb(e.__traceback__):
                yield frame


Extractor = Callable[[Clues], str]


def _depends(message: str) -> str | None:
    found = re.search(r"depends on the values? of the (arguments? .+?)\.(?:\s|$)", message)
    return f"it depends on the {found.group(1)}" if found else None


def _condition(c: Clues) -> str:
    """tracer-bool: what the condition is, and the traced values it reads."""
    where = f" {c.code}" if c.code else ""
    found = _TRACED_TYPE.search(c.message)
    if found:
        first = f"the condition{where} is a traced {_short(found.group(1))}"
    elif "more than one element" in c.message:
        traced = any(_is_tracer(v) for v in c.values().values())
        what = "a traced array" if traced else "an array"
        first = f"the condition{where} is {what} with more than one element"
    elif "empty array" in c.message:
        first = f"the condition{where} is an empty array"
    else:
        first = f"the condition{where} is traced"
    return _lines(first, c.operands())


def _traced_value(c: Clues) -> str:
    """tracer-int, tracer-to-numpy, concretization: the traced value, where, and its source."""
    found = _TRACED_TYPE.search(c.message)
    first = f"traced value: {_short(found.group(1))}" if found else "traced value"
    function = re.search(r"problem arose with the `(\w+)` function", c.message)
    if c.code:
        first += f" in {c.code}"
    elif function:
        first += f" given to {function.group(1)}()"
    return _lines(first, _depends(c.message) or c.operands())


def _mask(c: Clues) -> str:
    found = re.search(r"indices must be concrete; got (\S+)", c.message)
    first = f"mask: traced {_short(found.group(1))}" if found else "mask: traced"
    return _lines(f"{first} in {c.code}" if c.code else first, c.operands())


def _leak(c: Clues) -> str:
    value = re.search(r"intermediate value with type (\S+) wrapped in a (\w+)", c.message)
    origin = re.search(
        r"function being traced when the value leaked was (.+?)\.?$", c.message, re.MULTILINE
    )
    first = f"leaked value: {_short(value.group(1))}" if value else "leaked value"
    if origin:
        first += f", made while tracing {origin.group(1)}"
    return _lines(first, f"used again in {c.code}" if c.code else None)


def _key_reuse(c: Clues) -> str:
    keys = [n for n, v in c.values().items() if "key<" in (_value_type(v) or "")]
    if keys:
        first = f"key used twice: {', '.join(keys)}"
        return _lines(f"{first} in {c.code}" if c.code else first)
    index = re.search(r"argument (\d+) is already consumed|at index (\d+)", c.message)
    if index:
        return f"an already used key is argument {index.group(1) or index.group(2)}"
    return _lines(f"in {c.code}" if c.code else None)


def _traced_shape(c: Clues) -> str:
    found = re.search(r", got (.+?)\.?$", c.message, re.MULTILINE)
    if found is None:
        return _lines(f"in {c.code}" if c.code else None, _depends(c.message))
    shape = _short(re.sub(r"\w*Tracer\(([^()]*)\)", r"traced \1", found.group(1)))
    first = f"shape: {shape}" + (f" in {c.code}" if c.code else "")
    return _lines(first, _depends(c.message))


def _in_place(c: Clues) -> str:
    # JAX's message is the same for every assignment: the specifics come from the editor.
    return _lines(f"assignment to {c.code}" if c.code else None, c.operands())


def _output_shape(c: Clues) -> str:
    found = re.search(r"Output had shape: (\([^)]*\))", c.message)
    return f"output shape: {found.group(1)}; grad needs shape ()" if found else ""


def _dtype_got(c: Clues, which: str) -> str:
    found = re.search(r"but got (\w+)", c.message)
    if found is None:
        return ""
    return f"{which} dtype: {_SHORT_DTYPES.get(found.group(1), found.group(1))}"


def _input_dtype(c: Clues) -> str:
    return _dtype_got(c, "input")


def _output_dtype(c: Clues) -> str:
    return _dtype_got(c, "output")


def _dot_operands(c: Clues) -> tuple[Any, Any] | None:
    """``lhs`` and ``rhs`` of the innermost ``jax.lax.dot_general`` call on the traceback.

    Only there when JAX's traceback filtering kept its frames (the kernel's
    IPython mode does; the default outside IPython does not). The names are
    the public function's parameters.
    """
    function = getattr(getattr(sys.modules.get("jax"), "lax", None), "dot_general", None)
    code = getattr(inspect.unwrap(function), "__code__", None) if function else None
    found = [f for f in c.frames() if code is not None and f.f_code is code]
    if not found:
        return None
    scope = found[-1].f_locals
    return scope.get("lhs"), scope.get("rhs")


def _dot(c: Clues) -> str:
    axes = re.search(r"got (\([^)]*\)) and (\([^)]*\))", c.message)
    contracted = f"contracted axes: {axes.group(1)} vs {axes.group(2)}" if axes else None
    operands = _dot_operands(c)
    types = [_value_type(v, traced=False) for v in operands] if operands else []
    if len(types) == 2 and None not in types:
        joint = "@" if "@" in c.expression else "and"
        return _lines(f"shapes: {types[0]} {joint} {types[1]}", contracted)
    return _lines(contracted, c.operands())


def _broadcast(c: Clues) -> str:
    found = re.search(
        r"(\w+) got incompatible shapes for broadcasting: (.+?)\.?$", c.message, re.MULTILINE
    )
    shapes = " and ".join(re.findall(r"\([^()]*\)", found.group(2))) if found else ""
    first = f"shapes: {shapes} (in {found.group(1)})" if found and shapes else None
    return _lines(first, c.operands())


def _list_argument(c: Clues) -> str:
    found = re.search(
        r"(\w+) requires ndarray or scalar arguments, got <class '(\w+)'> at position (\d+)",
        c.message,
    )
    if found is None:
        return _lines(f"in {c.code}" if c.code else None)
    first = f"{found.group(1)}() got a Python {found.group(2)} as argument {found.group(3)}"
    return _lines(f"{first} in {c.code}" if c.code else first)


def _axis_sizes(c: Clues) -> str:
    rows = re.findall(
        r"(?:(\d+) of them\) )?had size (\d+)(?::|, e\.g\.) axis (\d+) of argument (\S+) "
        r"of type (\S+?);?$",
        c.message, re.MULTILINE,
    )
    parts = []
    for count, size, axis, arg, typ in rows:
        more = f" and {int(count) - 1} more" if count else ""
        parts.append(f"{arg}{more}: size {size} (axis {axis} of {_short(typ)})")
    return _lines("mapped axes: " + "; ".join(parts)) if parts else ""


def _branch_types(c: Clues) -> str:
    found = re.search(
        r"The output of (.+?)(?: at path (\S+))? has type (\S+) but the corresponding output "
        r"of (.+?) has type (\S+), so the ([\w ]+?) do not match",
        c.message,
    )
    if found is None:
        return ""
    first, path, t1, second, t2, what = found.groups()
    at = f"output {path}: " if path else ""
    return f"{at}{first} returns {_short(t1)}, {second} returns {_short(t2)} ({what} differ)"


def _carry_types(c: Clues) -> str:
    found = re.search(
        r"input carry(?: component)?(?: (\S+))? has type (\S+) but the corresponding output "
        r"carry component has type (\S+), so the ([\w ]+?) do not match",
        c.message,
    )
    if found is None:
        return ""
    name, t_in, t_out, what = found.groups()
    carry = f"carry {name}" if name else "carry"
    return f"{carry}: {_short(t_in)} in, {_short(t_out)} out ({what} differ)"


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _callback_error(c: Clues) -> str:
    """The exception the host callback raised, out of the runtime error that carries it."""
    raised = re.findall(r"^(\w+(?:Error|Exception|Warning)): (.+)$", c.message, re.MULTILINE)
    return f"your callback raised {raised[-1][0]}: {raised[-1][1]}" if raised else ""


def _memory(c: Clues) -> str:
    raw = re.search(r"allocat\w*\s+(\d+)\s+bytes", c.message)
    if raw:
        where = f"in {c.code}" if c.code else None
        return _lines(f"tried to allocate {_size(int(raw.group(1)))}", where)
    sized = re.search(
        r"allocate ([\d.]+ ?[KMGTP]?i?B)(?: for an array with shape (\([^)]*\)))?", c.message
    )
    if sized:
        shape = f" for shape {sized.group(2)}" if sized.group(2) else ""
        return f"tried to allocate {sized.group(1)}{shape}"
    return ""


def _exit_status(c: Clues) -> str:
    code = getattr(c.exc, "code", None)
    return "exit status " + (repr(code)[:60] if code is not None else "None (success)")


def _undefined_name(c: Clues) -> str:
    name = getattr(c.exc, "name", None)
    if not isinstance(name, str):
        found = re.search(r"'(\w+)'", c.message)
        name = found.group(1) if found else None
    if not name:
        return ""
    scopes: dict[str, Any] = dict(vars(builtins))
    if c.frame is not None:
        scopes.update(c.frame.f_globals)
        scopes.update(c.frame.f_locals)
    # Private names (the kernel's _, _i1, ...) only when the typo is private too.
    private = name.startswith("_")
    known = {k.lower(): k for k in scopes if k != name and (private or not k.startswith("_"))}
    close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.75)
    return f"name: {name}" + (f" (did you mean {known[close[0]]}?)" if close else "")


def syntax_specifics(text: str | None, offset: int | None, end_offset: int | None = None) -> str:
    """Where Python stopped reading: ``at `*`, column 15`` (offsets 1-based, as SyntaxError's)."""
    if not text or not offset:
        return ""
    line = text.rstrip("\n")
    start = offset - 1
    if end_offset and end_offset > offset:
        token = line[start : end_offset - 1].strip()
    else:
        found = re.match(r"\s*(\w+|\S)", line[start:])
        token = found.group(1) if found else ""
    return f"at `{token}`, column {offset}" if token else f"at the end of the line, column {offset}"


def _syntax(c: Clues) -> str:
    exc = c.exc
    if not isinstance(exc, SyntaxError):
        return ""
    return syntax_specifics(exc.text, exc.offset, exc.end_offset)


@dataclass(frozen=True)
class Entry:
    """One row of the catalog.

    An exception matches when one of ``types`` names a class in its MRO (the
    most derived class wins) and ``pattern`` (a regex) is found in its message;
    a row with no ``types`` matches on the message alone. ``anchor`` says which
    line of the user's function to point at when no editor frame is on the
    traceback: its ``def`` or its last ``return``. ``specifics`` reads what this
    error adds to the title (None where nothing specific exists; the row says
    why). A ``jax_only`` row matches only when JAX raised the error or the
    failing expression reads a JAX array, so NumPy's identical message in
    plain Python stays generic.
    """

    kind: str
    title: str
    hint: str
    doc_url: str | None = None
    types: tuple[str, ...] = ()
    pattern: str | None = None
    anchor: str = "def"
    specifics: Extractor | None = None
    jax_only: bool = False


@dataclass(frozen=True)
class CatalogEntry:
    """What a help page shows for one kind of error."""

    kind: str
    title: str
    hint: str
    doc_url: str | None


def _err(name: str) -> str:
    return f"{ERRORS_PAGE}#jax.errors.{name}"


def _api(name: str) -> str:
    return f"{DOCS}/_autosummary/{name}.html"


TRACER_BOOL_TITLE = "A traced value was used as a Python bool (if, while, and, or, not)"
TRACER_BOOL_HINT = (
    "The workbench traces your function with JAX (as jit, grad and vmap do), so the value "
    "has no numbers yet and Python cannot pick a branch from it. Choose element by element with "
    "jnp.where(cond, a, b); branch with lax.cond(pred, f, g, x) or lax.select(pred, a, b); "
    "loop with lax.while_loop; or make the argument static."
)

ENTRIES: tuple[Entry, ...] = (
    Entry(
        kind="tracer-bool",
        title=TRACER_BOOL_TITLE,
        hint=TRACER_BOOL_HINT,
        doc_url=_err("TracerBoolConversionError"),
        types=("TracerBoolConversionError",),
        specifics=_condition,
    ),
    Entry(  # `if x > 0` on a JAX array of more than one element: NumPy's words, JAX's problem
        kind="tracer-bool",
        title=TRACER_BOOL_TITLE,
        hint=TRACER_BOOL_HINT + (
            " NumPy's advice (a.any() or a.all()) does not help: the result is still traced."
        ),
        doc_url=_err("TracerBoolConversionError"),
        types=("ValueError",),
        pattern=r"truth value of an (?:empty )?array",
        specifics=_condition,
        jax_only=True,
    ),
    Entry(
        kind="tracer-int",
        title="A traced value was used as a Python int (range, list index, len)",
        hint=(
            "range(n) or a list index needs a concrete integer, but n is traced. Pass it as "
            "a static argument (a literal in the argument spec, or static_argnums), or loop "
            "with lax.fori_loop and index arrays instead of lists."
        ),
        doc_url=_err("TracerIntegerConversionError"),
        types=("TracerIntegerConversionError",),
        specifics=_traced_value,
    ),
    Entry(
        kind="tracer-to-numpy",
        title="A NumPy function was given a traced JAX value",
        hint=(
            "np.* functions need real numbers and cannot be traced. Use the jnp.* twin "
            "(jnp.sin instead of np.sin) inside functions you transform."
        ),
        doc_url=_err("TracerArrayConversionError"),
        types=("TracerArrayConversionError",),
        specifics=_traced_value,
    ),
    Entry(
        kind="boolean-mask",
        title="Boolean-mask indexing needs concrete values under jit",
        hint=(
            "x[x > 0] has a size that depends on the data, and jit needs fixed shapes. Keep "
            "the shape with jnp.where(x > 0, x, 0), or pass size= to jnp.nonzero/jnp.where."
        ),
        doc_url=_err("NonConcreteBooleanIndexError"),
        types=("NonConcreteBooleanIndexError",),
        specifics=_mask,
    ),
    Entry(
        kind="leaked-tracer",
        title="A traced value escaped its transformation (leaked tracer)",
        hint=(
            "A value from inside jit/grad/vmap was saved in a global, a list or an object "
            "and used later. Return every result from the function instead of storing it."
        ),
        doc_url=_err("UnexpectedTracerError"),
        types=("UnexpectedTracerError",),
        specifics=_leak,
    ),
    Entry(
        kind="key-reuse",
        title="A random key was used twice",
        hint=(
            "Reusing a PRNG key gives the same 'random' numbers again. Split it first: "
            "key, sub = jax.random.split(key), and use each key once."
        ),
        doc_url=_err("KeyReuseError"),
        types=("KeyReuseError",),
        specifics=_key_reuse,
    ),
    Entry(
        kind="concretization",
        title="A concrete Python value was needed but the value is traced",
        hint=(
            "float(), int() and Python control flow need a real number, which a traced "
            "value does not have. Stay in jnp (x.astype(jnp.float32)), or make the "
            "argument static."
        ),
        doc_url=_err("ConcretizationTypeError"),
        types=("ConcretizationTypeError",),
        specifics=_traced_value,
    ),
    Entry(
        kind="traced-shape",
        title="An array shape depends on a traced value",
        hint=(
            "Shapes must be known when the function is traced. Pass the size as a static "
            "argument (a literal such as 3 in the argument spec), or derive it from an "
            "input's .shape."
        ),
        doc_url=f"{SHARP_BITS}#dynamic-shapes",
        types=("TypeError",),
        pattern=r"[Ss]hapes must be 1D sequences of concrete values",
        specifics=_traced_shape,
    ),
    Entry(
        kind="in-place-update",
        title="JAX arrays cannot be changed in place",
        hint="Write x = x.at[i].set(v) (or .add, .multiply, ...) instead of x[i] = v.",
        doc_url=f"{SHARP_BITS}#in-place-updates",
        types=("TypeError",),
        pattern=r"immutable and do(?:es)? not support in-place",
        specifics=_in_place,
    ),
    Entry(
        kind="grad-non-scalar",
        title="grad needs a function that returns a single number",
        hint=(
            "Reduce the output to a scalar (for example jnp.sum(...)), or use jax.jacfwd / "
            "jax.jacrev for the full Jacobian, or vmap(grad(f)) for per-element derivatives."
        ),
        doc_url=_api("jax.grad"),
        types=("TypeError",),
        pattern=r"Gradient only defined for scalar-output functions",
        specifics=_output_shape,
        anchor="return",
    ),
    Entry(
        kind="grad-int-input",
        title="grad was asked to differentiate with respect to an integer input",
        hint=(
            "Derivatives need float inputs: pass f32[...] instead of i32[...], or convert "
            "with x.astype(jnp.float32) before calling the function."
        ),
        doc_url=_api("jax.grad"),
        types=("TypeError",),
        pattern=r"grad requires real- or complex-valued inputs",
        specifics=_input_dtype,
    ),
    Entry(
        kind="grad-int-output",
        title="grad was asked to differentiate a function with an integer output",
        hint=(
            "An integer result has no derivative (rounding and astype(int) are flat). "
            "Return a float value, e.g. drop the astype(jnp.int32) or jnp.round."
        ),
        doc_url=_api("jax.grad"),
        types=("TypeError",),
        pattern=r"grad requires real-valued outputs",
        specifics=_output_dtype,
        anchor="return",
    ),
    Entry(
        kind="dot-shape",
        title="Shapes do not line up for a dot / matrix product",
        hint=(
            "The last axis of the first operand must equal the contracted axis of the "
            "second: (n,) . (n,), (m, n) @ (n, k). Check the argument shapes, or transpose."
        ),
        doc_url=_api("jax.numpy.dot"),
        types=("TypeError", "ValueError"),
        pattern=r"dot_general requires contracting dimensions",
        specifics=_dot,
    ),
    Entry(
        kind="broadcast-shape",
        title="Array shapes cannot be broadcast together",
        hint=(
            "Elementwise operations need equal shapes, or shapes where one side is 1. "
            "Check the argument shapes, or add an axis with x[:, None]."
        ),
        types=("TypeError", "ValueError"),
        pattern=r"incompatible shapes for broadcasting",
        specifics=_broadcast,
    ),
    Entry(
        kind="list-argument",
        title="A jnp function was given a Python list",
        hint=(
            "jnp functions take arrays, not lists, so tracing stays fast. Wrap it: "
            "jnp.asarray([1.0, 2.0])."
        ),
        doc_url=f"{SHARP_BITS}#non-array-inputs-numpy-vs-jax",
        types=("TypeError",),
        pattern=r"requires ndarray or scalar arguments",
        specifics=_list_argument,
    ),
    Entry(
        kind="vmap-axis-size",
        title="vmap got mapped axes of different sizes",
        hint=(
            "Every argument that vmap maps must have the same length along its mapped "
            "axis. Fix the shapes, or use in_axes=None for arguments that are shared."
        ),
        doc_url=_api("jax.vmap"),
        types=("ValueError",),
        pattern=r"vmap got inconsistent sizes",
        specifics=_axis_sizes,
    ),
    Entry(
        kind="cond-branch-types",
        title="The branches of cond/switch return different types or shapes",
        hint=(
            "Both branches must return the same structure, shapes and dtypes, because "
            "only one compiled program is made. Pad, reshape or astype one branch to match."
        ),
        doc_url=_api("jax.lax.cond"),
        types=("TypeError",),
        pattern=r"branches must have equal output types|output must have identical types",
        specifics=_branch_types,
    ),
    Entry(
        kind="scan-carry-type",
        title="A lax.scan (or fori_loop) carry changes type in the loop body",
        hint=(
            "The body must return a carry with exactly the shape and dtype it received. "
            "Start it with the right type, e.g. 0.0 or jnp.zeros(3) instead of 0."
        ),
        doc_url=_api("jax.lax.scan"),
        types=("TypeError",),
        pattern=r"scan body function carry input and carry output",
        specifics=_carry_types,
    ),
    Entry(
        kind="while-carry-type",
        title="A lax.while_loop (or fori_loop) carry changes type in the loop body",
        hint=(
            "The body must return a carry with exactly the shape and dtype it received. "
            "Start it with the right type, e.g. 0.0 instead of 0, or astype in the body."
        ),
        doc_url=_api("jax.lax.while_loop"),
        types=("TypeError",),
        pattern=r"while_loop body function carry input and carry output",
        specifics=_carry_types,
    ),
    Entry(
        kind="callback",
        title="A Python callback raised while the computation ran",
        hint=(
            "jax.pure_callback, jax.debug.callback and io_callback run your Python function "
            "when the computation runs, not when it is traced: the error below is that "
            "function's. Check the values it received (they are concrete arrays there)."
        ),
        doc_url=f"{DOCS}/external-callbacks.html",
        types=("JaxRuntimeError", "XlaRuntimeError", "RuntimeError"),
        pattern=r"[Cc]allback error|calling callback",
        specifics=_callback_error,
    ),
    Entry(
        kind="out-of-memory",
        title="The device ran out of memory (RESOURCE_EXHAUSTED)",
        hint=(
            "An array or an intermediate is too large for this device. Use smaller sizes, "
            "process the data in chunks (lax.map, batches), or use a device with more memory."
        ),
        doc_url=f"{DOCS}/gpu_memory_allocation.html",
        types=("JaxRuntimeError", "XlaRuntimeError", "RuntimeError"),
        pattern=r"RESOURCE_EXHAUSTED|[Oo]ut of memory",
        specifics=_memory,
    ),
    Entry(
        kind="out-of-memory",
        title="The device ran out of memory (RESOURCE_EXHAUSTED)",
        hint=(
            "An array or an intermediate is too large for this device. Use smaller sizes, "
            "process the data in chunks (lax.map, batches), or use a device with more memory."
        ),
        doc_url=f"{DOCS}/gpu_memory_allocation.html",
        types=("MemoryError",),
        specifics=_memory,
    ),
    Entry(
        kind="exit",
        title="The code called sys.exit() (or exit())",
        hint=(
            "exit() ends a script, but here your code runs inside the engine, which keeps "
            "running: the call stopped at this line. Return from the function instead, or "
            "raise an exception to report a problem."
        ),
        types=("SystemExit",),
        specifics=_exit_status,
    ),
    Entry(
        kind="name",
        title="A name is used that is not defined",
        hint=(
            "Check the spelling, and define or import it above this line. jax, jnp, lax "
            "and np are already imported for you."
        ),
        types=("NameError",),
        specifics=_undefined_name,
    ),
    Entry(
        kind="syntax",
        title="Syntax error",
        hint="Python could not read this line; check brackets, colons and indentation.",
        types=("SyntaxError",),
        specifics=_syntax,
    ),
)

# No extractor: the title already quotes the message's first line, and an arbitrary
# exception carries nothing the catalog knows how to read.
FALLBACK = Entry(
    kind="exception",
    title="<Type>: <first line of the message>",
    hint=(
        "Python raised this while running your code, at the marked line. Read the message "
        "below and check the values and shapes used on that line."
    ),
)


# ------------------------------------------------------------ hints that read the code
#
# A row's hint is its teaching text; two situations make it misleading, so the
# hint is rewritten from what the failing spot shows:
# * the function has its own ``@jax.jit``: that jit traces every argument its
#   decorator does not mark static, even one the argument spec gives as a
#   literal (which the workbench passes as a plain Python value, see
#   ``transforms.bind_static``), so "make the argument static" means the decorator;
# * the traced condition is an operand of ``and``/``or``/``not``: those need a
#   Python bool too, and jnp.logical_and/or/not are what replace them.

# What to do instead of a static argument, for the rows whose hint advises one.
TRACED_ALTERNATIVES: dict[str, str] = {
    "tracer-bool": (
        "choose element by element with jnp.where(cond, a, b) or lax.select(pred, a, b), "
        "or branch with lax.cond(pred, f, g, x)"
    ),
    "tracer-int": "loop with lax.fori_loop and index arrays instead of lists",
    "concretization": "stay in jnp (x.astype(jnp.float32) instead of float(x))",
    "traced-shape": "derive the size from an input's .shape",
}
_JNP_LOGICAL = {"and": "jnp.logical_and", "or": "jnp.logical_or", "not": "jnp.logical_not"}


@dataclass(frozen=True)
class OwnJit:
    """An editor function under its own ``jax.jit`` that traced the arguments the error needs.

    ``traced`` maps each such parameter to its position; ``literals`` holds
    those of them that the argument spec gave as literals, with their value.
    """

    function: str
    traced: dict[str, int]
    literals: dict[str, Any]


def _jit_of(frame: FrameType) -> Any:
    """The module-level ``jax.jit`` object whose Python function ``frame`` runs, or None."""
    obj = frame.f_globals.get(frame.f_code.co_name)
    if obj is None or not (hasattr(obj, "lower") and hasattr(obj, "__wrapped__")):
        return None
    try:
        inner = inspect.unwrap(obj)
    except ValueError:
        return None
    return obj if getattr(inner, "__code__", None) is frame.f_code else None


def _bound_literals(c: Clues, fn: Any) -> dict[int, Any]:
    """The literal arguments (position: value) the workbench bound when it called ``fn``.

    They live in the frame of the closure ``transforms.bind_static`` makes,
    which calls the user's function with them.
    """
    from workbench.engine.transforms import bind_static

    code = bind_static.__code__
    closures = [k for k in code.co_consts if isinstance(k, type(code))]
    for frame in c.frames():
        if any(frame.f_code is k for k in closures) and frame.f_locals.get("fn") is fn:
            statics = frame.f_locals.get("statics")
            return dict(statics) if isinstance(statics, dict) else {}
    return {}


def own_jit(c: Clues) -> OwnJit | None:
    """The innermost editor function on the traceback that has its own ``jax.jit`` and got
    traced parameters (those JAX's message names, if it names any), or None."""
    if c.frame is None:
        return None
    filename = c.frame.f_code.co_filename
    frames = list({id(f): f for f in c.frames() if f.f_code.co_filename == filename}.values())
    found = _depends(c.message) or ""
    for frame in reversed(frames):
        fn = _jit_of(frame)
        if fn is None:
            continue
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            continue
        traced = {
            p.name: i for i, p in enumerate(params) if _is_tracer(frame.f_locals.get(p.name))
        }
        named = {n: i for n, i in traced.items() if re.search(rf"\b{re.escape(n)}\b", found)}
        traced = named or traced
        if not traced:
            continue
        bound = _bound_literals(c, fn)
        literals = {n: bound[i] for n, i in traced.items() if i in bound}
        return OwnJit(frame.f_code.co_name, traced, literals)
    return None


def _own_jit_hint(kind: str, jit: OwnJit) -> tuple[str, str]:
    """(hint, specifics line) for a traced argument of a function with its own jit."""
    names = list(jit.traced)
    quoted = ", ".join(f'"{n}"' for n in names)
    argnames = quoted if len(names) == 1 else f"({quoted})"
    nums = ", ".join(str(i) for i in jit.traced.values())
    argnums = nums if len(names) == 1 else f"({nums})"
    fix = (
        f"@functools.partial(jax.jit, static_argnames={argnames}) above def {jit.function} "
        f"(or static_argnums={argnums})"
    )
    alternative = TRACED_ALTERNATIVES[kind]
    which = " and ".join(names)
    if jit.literals:
        literal = " and ".join(f"{n} as the literal {v!r}" for n, v in jit.literals.items())
        line = (
            f"{jit.function} has its own @jax.jit: it traces {which} although the argument "
            f"spec gives {literal}"
        )
        hint = (
            f"The argument spec's literal reaches {jit.function} as a plain Python value, "
            f"but {jit.function}'s own @jax.jit traces every argument its decorator does not "
            f"mark static, so {which} arrives traced. Mark it static in the decorator: "
            f"{fix}; or keep it traced and {alternative}."
        )
        return hint, line
    line = f"{jit.function} has its own @jax.jit, which traces {which}"
    hint = (
        f"{jit.function}'s own @jax.jit traces every argument its decorator does not mark "
        f"static, so {which} has no value yet: {alternative}; or make it static in the "
        f"decorator, {fix}, and give it a literal value in the argument spec."
    )
    return hint, line


def _span_of(node: ast.AST) -> Span | None:
    """``node``'s position in the form of ``co_positions`` (columns in UTF-8 bytes, as ast's)."""
    found = [getattr(node, a, None) for a in ("lineno", "end_lineno", "col_offset",
                                              "end_col_offset")]
    start, end, col, end_col = found
    if start is None or end is None or col is None or end_col is None:
        return None
    return start, end, col, end_col


@dataclass(frozen=True)
class BooleanUse:
    """A traced condition used with ``and``/``or``/``not``, as found in the editor's code.

    ``ops`` are the operators of the whole boolean expression around it,
    ``rewrite`` that expression with jnp.logical_* (``jnp.logical_and(x > 0,
    x % 2 == 0)``), ``in_test`` whether it is the test of an ``if``, ``while``,
    conditional expression or ``assert``.
    """

    ops: tuple[str, ...]
    rewrite: str
    in_test: bool


def boolean_use(c: Clues) -> BooleanUse | None:
    """The ``and``/``or``/``not`` the failing condition is an operand (or the whole) of.

    Read from the editor file's syntax tree, so ``x > 0 and y`` is told from a
    lone ``x > 0`` whose span is the same.
    """
    if c.frame is None or c.span is None:
        return None
    source = "".join(linecache.getlines(c.frame.f_code.co_filename))
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    parents = {id(child): up for up in ast.walk(tree) for child in ast.iter_child_nodes(up)}
    found = next(
        (
            n for n in ast.walk(tree)
            if _is_boolean(n) and c.span in [_span_of(m) for m in (n, *_operands(n))]
        ),
        None,
    )
    if found is None:
        return None
    while (parent := parents.get(id(found))) is not None and _is_boolean(parent):
        found = parent
    test = parents.get(id(found))
    in_test = isinstance(test, ast.If | ast.While | ast.IfExp | ast.Assert) and test.test is found
    ops = tuple(dict.fromkeys(_op(n) for n in ast.walk(found) if _is_boolean(n)))
    return BooleanUse(ops, _logical(source, found), in_test)


def _is_boolean(node: ast.AST) -> bool:
    return isinstance(node, ast.BoolOp) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    )


def _operands(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    return [node.operand] if isinstance(node, ast.UnaryOp) else []


def _op(node: ast.AST) -> str:
    if isinstance(node, ast.BoolOp):
        return "and" if isinstance(node.op, ast.And) else "or"
    return "not"


def _logical(source: str, node: ast.AST) -> str:
    """``node`` with every ``and``/``or``/``not`` written as jnp.logical_* (nested pairs)."""
    if not _is_boolean(node):
        return " ".join((ast.get_source_segment(source, node) or ast.unparse(node)).split())
    fn = _JNP_LOGICAL[_op(node)]
    parts = [_logical(source, n) for n in _operands(node)]
    if len(parts) == 1:
        return f"{fn}({parts[0]})"
    out = parts[-1]
    for left in reversed(parts[:-1]):
        out = f"{fn}({left}, {out})"
    return out


def _boolean_hint(use: BooleanUse) -> str:
    ops = " and ".join(f"`{o}`" for o in use.ops)
    verb = "needs" if len(use.ops) == 1 else "need"
    rewrite = _clip(use.rewrite, TITLE_MAX)
    others = ", ".join(f"{f} for `{o}`" for o, f in _JNP_LOGICAL.items() if o not in use.ops)
    also = f" ({others})" if others else ""
    if use.in_test:
        around = "it" if len(use.ops) == 1 else "them"
        return (
            f"{ops} and the branch around {around} each need one Python True or False, which a "
            f"traced array does not have. Write the condition element by element as "
            f"{rewrite}{also}, then choose values with jnp.where(cond, a, b) or "
            f"lax.select(pred, a, b) instead of the branch, or branch with "
            f"lax.cond(cond, f, g, x)."
        )
    return (
        f"{ops} {verb} one Python True or False of each operand, which a traced array does "
        f"not have. Write it element by element as {rewrite}{also}; to choose values with "
        f"the result use jnp.where(cond, a, b) or lax.select(pred, a, b), to branch "
        f"lax.cond(cond, f, g, x)."
    )


def adapted_hint(entry: Entry, c: Clues) -> tuple[str, str]:
    """The row's hint, or one written for what the failing code shows; and a specifics line."""
    if entry.kind in TRACED_ALTERNATIVES:
        jit = own_jit(c)
        if jit is not None and jit.literals:
            return _own_jit_hint(entry.kind, jit)
        if entry.kind == "tracer-bool":
            use = boolean_use(c)
            if use is not None:
                return _boolean_hint(use), ""
        if jit is not None:
            return _own_jit_hint(entry.kind, jit)
    return entry.hint, ""


def catalog_entries() -> tuple[CatalogEntry, ...]:
    """Every kind the catalog knows, once each, in table order, then the fallback."""
    out: dict[str, CatalogEntry] = {}
    for e in (*ENTRIES, FALLBACK):
        out.setdefault(e.kind, CatalogEntry(e.kind, e.title, e.hint, e.doc_url))
    return tuple(out.values())


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, then its causes and contexts (JAX's ``UnfilteredStackTrace`` among them)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [e.__cause__, e.__context__]


def editor_frames(exc: BaseException, filename: str) -> list[_tb.FrameSummary]:
    """The editor frames of the first exception in ``exc``'s chain that has any, outermost first."""
    for e in exception_chain(exc):
        frames = [f for f in _tb.extract_tb(e.__traceback__) if f.filename == filename]
        if frames:
            return frames
    return []


def _text(exc: BaseException) -> str:
    """``str(exc)``, even for a user exception whose ``__str__`` itself fails."""
    try:
        return str(exc)
    except Exception:
        return f"<{type(exc).__name__} with an unprintable message>"


def match(exc: BaseException, clues: Clues | None = None) -> Entry:
    """The catalog row for ``exc``: most derived matching type first, then message-only rows.

    Without ``clues`` (the failing editor spot) no ``jax_only`` row matches.
    """
    message = _text(exc)

    def fits(entry: Entry) -> bool:
        if not _found(entry.pattern, message):
            return False
        return not entry.jax_only or (clues is not None and clues.jax_involved())

    for cls in type(exc).__mro__:
        for entry in ENTRIES:
            if cls.__name__ in entry.types and fits(entry):
                return entry
    for entry in ENTRIES:
        if not entry.types and entry.pattern and fits(entry):
            return entry
    return FALLBACK


def _found(pattern: str | None, message: str) -> bool:
    return pattern is None or re.search(pattern, message) is not None


def _jax_doc_url(message: str) -> str | None:
    """The first JAX documentation link in JAX's own message, if it carries one."""
    found = re.search(r"https://(?:docs\.jax\.dev|jax\.readthedocs\.io)/[^\s<>\"'`]+", message)
    return found.group(0).rstrip(".,;:)>") if found else None


def _first_line(exc: BaseException) -> str:
    text = _text(exc).strip()
    line = text.splitlines()[0].strip() if text else ""
    if len(line) > TITLE_MAX:
        line = line[: TITLE_MAX - 1].rstrip() + "\u2026"
    name = type(exc).__name__
    return f"{name}: {line}" if line else name


def _user_code(function: Any, filename: str) -> Any:
    """The code object of the editor function behind jit/grad/vmap/static-binding wrappers."""
    seen: set[int] = set()
    obj = function
    while obj is not None and id(obj) not in seen:
        seen.add(id(obj))
        code = getattr(obj, "__code__", None)
        if code is not None and code.co_filename == filename:
            return code
        if isinstance(obj, functools.partial):
            obj = obj.func
            continue
        obj = getattr(obj, "__wrapped_user__", None) or getattr(obj, "__wrapped__", None)
    return None


def _anchor_line(function: Any, filename: str, anchor: str) -> int | None:
    """The ``def`` line of the user's function, or the line of its last ``return``."""
    code = _user_code(function, filename)
    if code is None:
        return None
    node = _function_node(code, filename)
    if node is None:
        return code.co_firstlineno
    if anchor == "return":
        returns = [n.lineno for n in _own_nodes(node) if isinstance(n, ast.Return)]
        if returns:
            return max(returns)
    return node.lineno


def _function_node(code: Any, filename: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == code.co_name:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if code.co_firstlineno in (first, node.lineno):
                return node
    return None


def _own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    """Nodes of ``func``'s body, not descending into nested functions, lambdas or classes."""
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
        ):
            todo.extend(ast.iter_child_nodes(node))


def _line_in_message(message: str, filename: str) -> int | None:
    found = re.search(rf"(?<![\w/.]){re.escape(filename)}:(\d+)", message)
    return int(found.group(1)) if found else None


def explain(
    exc: BaseException,
    filename: str,
    *,
    function: Callable[..., Any] | None = None,
) -> Explanation:
    """Explain an exception raised by user code compiled under ``filename``.

    ``function`` (optional: the user function, possibly wrapped by transforms)
    lets errors raised outside the user's frames, such as grad of a non-scalar
    output, still point at an editor line. ``message`` keeps the exception's
    own text; ``specifics`` adds what the row's extractor finds in it.
    """
    clues = Clues.gather(exc, filename)
    entry = match(exc, clues)
    message = clues.message
    frames = editor_frames(exc, filename)
    line: int | None = None
    column: int | None = None
    if frames:
        line = frames[-1].lineno
        colno = getattr(frames[-1], "colno", None)
        column = colno + 1 if colno is not None else None
    elif isinstance(exc, SyntaxError) and exc.filename == filename:
        line, column = exc.lineno, exc.offset
    else:
        if function is not None:
            line = _anchor_line(function, filename, entry.anchor)
        if line is None:
            line = _line_in_message(message, filename)
    if entry is FALLBACK:
        title = _first_line(exc)
    elif entry.kind == "syntax" and isinstance(exc, SyntaxError) and exc.msg:
        title = f"Syntax error: {exc.msg}"
    else:
        title = entry.title
    hint, found = adapted_hint(entry, clues)
    specifics = entry.specifics(clues) if entry.specifics is not None else ""
    return Explanation(
        kind=entry.kind,
        title=title,
        hint=hint,
        message=message,
        specifics=_lines(specifics, found),
        doc_url=_jax_doc_url(message) or entry.doc_url,
        file=filename if line is not None else None,
        line=line,
        column=column,
        exception_type=type(exc).__name__,
        traceback="".join(_tb.format_list(frames)),
    )
