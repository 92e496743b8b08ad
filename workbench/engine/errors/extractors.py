"""The extractors: each reads the specifics of one kind of error from its ``Clues``.

A catalog row (``entries.Entry``) names the extractor for its error: the
undefined name, the operand shapes, the traced value's type, read from the
exception's message and attributes and from the failing editor expression and
the values it names. Each returns the lines to show, or "" when it finds nothing.
"""

from __future__ import annotations

import builtins
import difflib
import inspect
import re
import sys
from collections.abc import Callable
from typing import Any

from workbench.engine.errors.clues import (
    SHORT_DTYPES,
    Clues,
    is_tracer,
    join_lines,
    value_type,
)

_LONG_TYPE = re.compile(
    r"\b(" + "|".join(sorted(SHORT_DTYPES, key=len, reverse=True)) + r")(?=\[)"
)
_TRACED_TYPE = re.compile(r"traced array with shape (\S+?\[[^\]]*\])")


def _short(text: str) -> str:
    """JAX's ``float32[3]`` written the way the workbench writes types, ``f32[3]``."""
    return _LONG_TYPE.sub(lambda m: SHORT_DTYPES[m.group(1)], text)


Extractor = Callable[[Clues], str]


def depends_on(message: str) -> str | None:
    """JAX's "depends on the value of the argument x", reworded; None if it does not say."""
    found = re.search(r"depends on the values? of the (arguments? .+?)\.(?:\s|$)", message)
    return f"it depends on the {found.group(1)}" if found else None


def condition(c: Clues) -> str:
    """tracer-bool: what the condition is, and the traced values it reads."""
    where = f" {c.code}" if c.code else ""
    found = _TRACED_TYPE.search(c.message)
    if found:
        first = f"the condition{where} is a traced {_short(found.group(1))}"
    elif "more than one element" in c.message:
        traced = any(is_tracer(v) for v in c.values().values())
        what = "a traced array" if traced else "an array"
        first = f"the condition{where} is {what} with more than one element"
    elif "empty array" in c.message:
        first = f"the condition{where} is an empty array"
    else:
        first = f"the condition{where} is traced"
    return join_lines(first, c.operands())


def traced_value(c: Clues) -> str:
    """tracer-int, tracer-to-numpy, concretization: the traced value, where, and its source."""
    found = _TRACED_TYPE.search(c.message)
    first = f"traced value: {_short(found.group(1))}" if found else "traced value"
    function = re.search(r"problem arose with the `(\w+)` function", c.message)
    if c.code:
        first += f" in {c.code}"
    elif function:
        first += f" given to {function.group(1)}()"
    return join_lines(first, depends_on(c.message) or c.operands())


def mask(c: Clues) -> str:
    """boolean-mask: the traced mask's type and the expression that indexes with it."""
    found = re.search(r"indices must be concrete; got (\S+)", c.message)
    first = f"mask: traced {_short(found.group(1))}" if found else "mask: traced"
    return join_lines(f"{first} in {c.code}" if c.code else first, c.operands())


def leak(c: Clues) -> str:
    """leaked-tracer: the leaked value's type and the function whose trace made it."""
    value = re.search(r"intermediate value with type (\S+) wrapped in a (\w+)", c.message)
    origin = re.search(
        r"function being traced when the value leaked was (.+?)\.?$", c.message, re.MULTILINE
    )
    first = f"leaked value: {_short(value.group(1))}" if value else "leaked value"
    if origin:
        first += f", made while tracing {origin.group(1)}"
    return join_lines(first, f"used again in {c.code}" if c.code else None)


def key_reuse(c: Clues) -> str:
    """key-reuse: which key was used twice, by name where the expression shows it."""
    keys = [n for n, v in c.values().items() if "key<" in (value_type(v) or "")]
    if keys:
        first = f"key used twice: {', '.join(keys)}"
        return join_lines(f"{first} in {c.code}" if c.code else first)
    index = re.search(r"argument (\d+) is already consumed|at index (\d+)", c.message)
    if index:
        return f"an already used key is argument {index.group(1) or index.group(2)}"
    return join_lines(f"in {c.code}" if c.code else None)


def traced_shape(c: Clues) -> str:
    """traced-shape: the shape JAX got, with traced dimensions marked."""
    found = re.search(r", got (.+?)\.?$", c.message, re.MULTILINE)
    if found is None:
        return join_lines(f"in {c.code}" if c.code else None, depends_on(c.message))
    shape = _short(re.sub(r"\w*Tracer\(([^()]*)\)", r"traced \1", found.group(1)))
    first = f"shape: {shape}" + (f" in {c.code}" if c.code else "")
    return join_lines(first, depends_on(c.message))


def in_place(c: Clues) -> str:
    # JAX's message is the same for every assignment: the specifics come from the editor.
    """in-place-update: the assignment, from the editor (JAX's message is always the same)."""
    return join_lines(f"assignment to {c.code}" if c.code else None, c.operands())


def output_shape(c: Clues) -> str:
    """grad-non-scalar: the output's shape, where grad needs ()."""
    found = re.search(r"Output had shape: (\([^)]*\))", c.message)
    return f"output shape: {found.group(1)}; grad needs shape ()" if found else ""


def _dtype_got(c: Clues, which: str) -> str:
    found = re.search(r"but got (\w+)", c.message)
    if found is None:
        return ""
    return f"{which} dtype: {SHORT_DTYPES.get(found.group(1), found.group(1))}"


def input_dtype(c: Clues) -> str:
    """grad-int-input: the integer dtype grad was given."""
    return _dtype_got(c, "input")


def output_dtype(c: Clues) -> str:
    """grad-int-output: the integer dtype the function returned."""
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


def dot(c: Clues) -> str:
    """dot-shape: both operands' types (when JAX's frames are kept) and the contracted axes."""
    axes = re.search(r"got (\([^)]*\)) and (\([^)]*\))", c.message)
    contracted = f"contracted axes: {axes.group(1)} vs {axes.group(2)}" if axes else None
    operands = _dot_operands(c)
    types = [value_type(v, traced=False) for v in operands] if operands else []
    if len(types) == 2 and None not in types:
        joint = "@" if "@" in c.expression else "and"
        return join_lines(f"shapes: {types[0]} {joint} {types[1]}", contracted)
    return join_lines(contracted, c.operands())


def broadcast(c: Clues) -> str:
    """broadcast-shape: the shapes that do not broadcast, and the operation."""
    found = re.search(
        r"(\w+) got incompatible shapes for broadcasting: (.+?)\.?$", c.message, re.MULTILINE
    )
    shapes = " and ".join(re.findall(r"\([^()]*\)", found.group(2))) if found else ""
    first = f"shapes: {shapes} (in {found.group(1)})" if found and shapes else None
    return join_lines(first, c.operands())


def list_argument(c: Clues) -> str:
    """list-argument: the jnp function that got a Python list, and where."""
    found = re.search(
        r"(\w+) requires ndarray or scalar arguments, got <class '(\w+)'> at position (\d+)",
        c.message,
    )
    if found is None:
        return join_lines(f"in {c.code}" if c.code else None)
    first = f"{found.group(1)}() got a Python {found.group(2)} as argument {found.group(3)}"
    return join_lines(f"{first} in {c.code}" if c.code else first)


def axis_sizes(c: Clues) -> str:
    """vmap-axis-size: each mapped argument's axis size."""
    rows = re.findall(
        r"(?:(\d+) of them\) )?had size (\d+)(?::|, e\.g\.) axis (\d+) of argument (\S+) "
        r"of type (\S+?);?$",
        c.message, re.MULTILINE,
    )
    parts = []
    for count, size, axis, arg, typ in rows:
        more = f" and {int(count) - 1} more" if count else ""
        parts.append(f"{arg}{more}: size {size} (axis {axis} of {_short(typ)})")
    return join_lines("mapped axes: " + "; ".join(parts)) if parts else ""


def branch_types(c: Clues) -> str:
    """cond-branch-types: what each branch returns."""
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


def carry_types(c: Clues) -> str:
    """scan-carry-type, while-carry-type: the carry's type going in and coming out."""
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


def callback_error(c: Clues) -> str:
    """The exception the host callback raised, out of the runtime error that carries it."""
    raised = re.findall(r"^(\w+(?:Error|Exception|Warning)): (.+)$", c.message, re.MULTILINE)
    return f"your callback raised {raised[-1][0]}: {raised[-1][1]}" if raised else ""


def memory(c: Clues) -> str:
    """out-of-memory: how much the device was asked for."""
    raw = re.search(r"allocat\w*\s+(\d+)\s+bytes", c.message)
    if raw:
        where = f"in {c.code}" if c.code else None
        return join_lines(f"tried to allocate {_size(int(raw.group(1)))}", where)
    sized = re.search(
        r"allocate ([\d.]+ ?[KMGTP]?i?B)(?: for an array with shape (\([^)]*\)))?", c.message
    )
    if sized:
        shape = f" for shape {sized.group(2)}" if sized.group(2) else ""
        return f"tried to allocate {sized.group(1)}{shape}"
    return ""


def exit_status(c: Clues) -> str:
    """exit: the status the code passed to sys.exit / exit()."""
    code = getattr(c.exc, "code", None)
    return "exit status " + (repr(code)[:60] if code is not None else "None (success)")


def undefined_name(c: Clues) -> str:
    """name: the undefined name, and the defined one it is closest to."""
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


def syntax(c: Clues) -> str:
    """syntax: where Python stopped reading (see ``syntax_specifics``)."""
    exc = c.exc
    if not isinstance(exc, SyntaxError):
        return ""
    return syntax_specifics(exc.text, exc.offset, exc.end_offset)
