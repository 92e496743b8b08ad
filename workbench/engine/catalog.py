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
"""

from __future__ import annotations

import ast
import functools
import linecache
import re
import traceback as _tb
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from workbench.engine.errors import Explanation

DOCS = "https://docs.jax.dev/en/latest"
ERRORS_PAGE = f"{DOCS}/errors.html"
SHARP_BITS = f"{DOCS}/notebooks/Common_Gotchas_in_JAX.html"
TITLE_MAX = 160


@dataclass(frozen=True)
class Entry:
    """One row of the catalog.

    An exception matches when one of ``types`` names a class in its MRO (the
    most derived class wins) and ``pattern`` (a regex) is found in its message;
    a row with no ``types`` matches on the message alone. ``anchor`` says which
    line of the user's function to point at when no editor frame is on the
    traceback: its ``def`` or its last ``return``.
    """

    kind: str
    title: str
    hint: str
    doc_url: str | None = None
    types: tuple[str, ...] = ()
    pattern: str | None = None
    anchor: str = "def"


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


ENTRIES: tuple[Entry, ...] = (
    Entry(
        kind="tracer-bool",
        title="A traced value was used as a Python bool (if, while, and, or, not)",
        hint=(
            "Under jit, grad or vmap the value is abstract, so Python cannot pick a branch "
            "from it. Use jnp.where(cond, a, b) or lax.cond for a choice, lax.while_loop for "
            "a loop, or make the argument static."
        ),
        doc_url=_err("TracerBoolConversionError"),
        types=("TracerBoolConversionError",),
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
    ),
    Entry(
        kind="in-place-update",
        title="JAX arrays cannot be changed in place",
        hint="Write x = x.at[i].set(v) (or .add, .multiply, ...) instead of x[i] = v.",
        doc_url=f"{SHARP_BITS}#in-place-updates",
        types=("TypeError",),
        pattern=r"immutable and do(?:es)? not support in-place",
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
    ),
    Entry(
        kind="name",
        title="A name is used that is not defined",
        hint=(
            "Check the spelling, and define or import it above this line. jax, jnp, lax "
            "and np are already imported for you."
        ),
        types=("NameError",),
    ),
    Entry(
        kind="syntax",
        title="Syntax error",
        hint="Python could not read this line; check brackets, colons and indentation.",
        types=("SyntaxError",),
    ),
)

FALLBACK = Entry(
    kind="exception",
    title="<Type>: <first line of the message>",
    hint=(
        "Python raised this while running your code, at the marked line. Read the message "
        "below and check the values and shapes used on that line."
    ),
)


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


def match(exc: BaseException) -> Entry:
    """The catalog row for ``exc``: most derived matching type first, then message-only rows."""
    message = _text(exc)
    for cls in type(exc).__mro__:
        for entry in ENTRIES:
            if cls.__name__ in entry.types and _found(entry.pattern, message):
                return entry
    for entry in ENTRIES:
        if not entry.types and entry.pattern and _found(entry.pattern, message):
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
    output, still point at an editor line.
    """
    entry = match(exc)
    message = _text(exc)
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
    return Explanation(
        kind=entry.kind,
        title=title,
        hint=entry.hint,
        message=message,
        doc_url=_jax_doc_url(message) or entry.doc_url,
        file=filename if line is not None else None,
        line=line,
        column=column,
        exception_type=type(exc).__name__,
        traceback="".join(_tb.format_list(frames)),
    )
