"""The catalog's table: one ``Entry`` per kind of error, its teaching text and its match.

The knowledge lives in ``ENTRIES``, plain rows (exception class names and/or a
message pattern), so adding a case is one row; ``match`` picks the row for an
exception and ``catalog_entries()`` lists every kind for a help page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.engine.errors.clues import Clues, message_of
from workbench.engine.errors.extractors import (
    Extractor,
    axis_sizes,
    branch_types,
    broadcast,
    callback_error,
    carry_types,
    condition,
    dot,
    exit_status,
    in_place,
    input_dtype,
    key_reuse,
    leak,
    list_argument,
    mask,
    memory,
    output_dtype,
    output_shape,
    syntax,
    traced_shape,
    traced_value,
    undefined_name,
)

DOCS = "https://docs.jax.dev/en/latest"
ERRORS_PAGE = f"{DOCS}/errors.html"
SHARP_BITS = f"{DOCS}/notebooks/Common_Gotchas_in_JAX.html"


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
        specifics=condition,
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
        specifics=condition,
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
        specifics=traced_value,
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
        specifics=traced_value,
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
        specifics=mask,
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
        specifics=leak,
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
        specifics=key_reuse,
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
        specifics=traced_value,
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
        specifics=traced_shape,
    ),
    Entry(
        kind="in-place-update",
        title="JAX arrays cannot be changed in place",
        hint="Write x = x.at[i].set(v) (or .add, .multiply, ...) instead of x[i] = v.",
        doc_url=f"{SHARP_BITS}#in-place-updates",
        types=("TypeError",),
        pattern=r"immutable and do(?:es)? not support in-place",
        specifics=in_place,
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
        specifics=output_shape,
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
        specifics=input_dtype,
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
        specifics=output_dtype,
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
        specifics=dot,
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
        specifics=broadcast,
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
        specifics=list_argument,
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
        specifics=axis_sizes,
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
        specifics=branch_types,
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
        specifics=carry_types,
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
        specifics=carry_types,
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
        specifics=callback_error,
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
        specifics=memory,
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
        specifics=memory,
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
        specifics=exit_status,
    ),
    Entry(
        kind="name",
        title="A name is used that is not defined",
        hint=(
            "Check the spelling, and define or import it above this line. jax, jnp, lax "
            "and np are already imported for you."
        ),
        types=("NameError",),
        specifics=undefined_name,
    ),
    Entry(
        kind="syntax",
        title="Syntax error",
        hint="Python could not read this line; check brackets, colons and indentation.",
        types=("SyntaxError",),
        specifics=syntax,
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


def catalog_entries() -> tuple[CatalogEntry, ...]:
    """Every kind the catalog knows, once each, in table order, then the fallback."""
    out: dict[str, CatalogEntry] = {}
    for e in (*ENTRIES, FALLBACK):
        out.setdefault(e.kind, CatalogEntry(e.kind, e.title, e.hint, e.doc_url))
    return tuple(out.values())


def match(exc: BaseException, clues: Clues | None = None) -> Entry:
    """The catalog row for ``exc``: most derived matching type first, then message-only rows.

    Without ``clues`` (the failing editor spot) no ``jax_only`` row matches.
    """
    message = message_of(exc)

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
