"""What a lesson step calls: its last call of a function the lesson defined, and the
arguments as the values the call passed (their shapes and dtypes in the namespace).

A notebook defines ``f`` in one cell and calls ``f(x)`` on real data in another. The
step's trace is then ``f`` at ``x``'s shape (``f32[1000,150,100]``), not a function
guessed from the step's definitions nor a default ``f32[1000]``. Only what can be read
without running anything again is used: a bare name as the callee (``f``, ``dfdx =
grad(f)``'s ``dfdx``, a jitted ``g``); names, literals, tuples and lists of them, and an
array indexed by integers and slices (``x[0]``, ``x[:, 1:3]``) as arguments. A call with
keywords, a star, or an argument that is an expression (it would run again) suggests
nothing.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from workbench.api.functions import CalledWith
from workbench.engine.argspec import ArraySpec, SequenceSpec, Spec, format_args
from workbench.engine.dtypes import DTYPES
from workbench.engine.source import describe_function

_SHORT = {numpy_name: short for short, numpy_name in DTYPES.items()}
_SCALARS = ((bool, "bool"), (int, "i32"), (float, "f32"), (complex, "c64"))
MAX_ITEMS = 64  # a tuple argument longer than this is data, not a call to show


def last_call(source: str, namespace: Mapping[str, Any],
              user_files: Collection[str]) -> CalledWith | None:
    """The step's last top-level call of a user function with arguments read from names
    and literals (``source`` as IPython transformed it); None when there is none."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    calls = sorted(_top_level_calls(tree), key=lambda c: (c.end_lineno or 0,
                                                          c.end_col_offset or 0))
    for call in reversed(calls):
        found = _called(call, namespace, user_files)
        if found is not None:
            return found
    return None


def _top_level_calls(tree: ast.Module) -> list[ast.Call]:
    """Calls that run when the cell runs: not inside a def, a lambda or a class body."""
    found: list[ast.Call] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _called(call: ast.Call, namespace: Mapping[str, Any],
            user_files: Collection[str]) -> CalledWith | None:
    if not isinstance(call.func, ast.Name) or call.keywords:
        return None
    name = call.func.id
    obj = namespace.get(name)
    file = _user_file(obj, user_files)
    if obj is None or file is None:
        return None
    specs = [_argument(arg, namespace) for arg in call.args]
    if any(spec is None for spec in specs):
        return None
    return CalledWith(name, format_args([s for s in specs if s is not None]), call.lineno,
                      describe_function(name, obj, file))


def _argument(node: ast.expr, namespace: Mapping[str, Any]) -> Spec | None:
    """A name's value, a literal, or a tuple or list of those, as a spec; None otherwise."""
    if isinstance(node, ast.Name):
        return spec_of(namespace[node.id]) if node.id in namespace else None
    if isinstance(node, ast.Constant):
        return spec_of(node.value)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return _indexed(namespace.get(node.value.id), node.slice)
    if isinstance(node, ast.Tuple | ast.List) and len(node.elts) <= MAX_ITEMS:
        items = [_argument(item, namespace) for item in node.elts]
        if any(item is None for item in items):
            return None
        return SequenceSpec(tuple(i for i in items if i is not None),
                            "list" if isinstance(node, ast.List) else "tuple")
    return None


def _indexed(array: Any, index: ast.expr) -> Spec | None:
    """``x[0]``, ``x[:, 1:3]`` of an array ``x``: the spec of the part, its shape worked out
    on a view of no memory (nothing of the array's is read, no device work is done)."""
    whole = spec_of(array)
    if not isinstance(whole, ArraySpec):
        return None
    try:
        key = _literal_index(index)
        dims = tuple(d for d in whole.shape if isinstance(d, int))  # spec_of: all sizes
        shape = np.broadcast_to(np.empty((), np.int8), dims)[key].shape
    except (ValueError, IndexError, TypeError):
        return None
    return ArraySpec(whole.dtype, tuple(int(d) for d in shape))


def _literal_index(node: ast.expr) -> Any:
    """An index made of integers, slices of integers and ``None``; ValueError otherwise."""
    if isinstance(node, ast.Tuple):
        return tuple(_literal_index(item) for item in node.elts)
    if isinstance(node, ast.Slice):
        return slice(*(None if part is None else _literal_int(part)
                       for part in (node.lower, node.upper, node.step)))
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    return _literal_int(node)


def _literal_int(node: ast.expr) -> int:
    value = ast.literal_eval(node)
    if type(value) is not int:
        raise ValueError(f"not an integer: {value!r}")
    return value


def _user_file(obj: Any, user_files: Collection[str]) -> str | None:
    """The file of the lesson (or editor) that defined the function behind ``obj``."""
    if obj is None or not callable(obj) or inspect.isclass(obj):
        return None
    try:
        inner = inspect.unwrap(obj)
    except ValueError:
        return None
    code = getattr(inner, "__code__", None)
    return code.co_filename if code is not None and code.co_filename in user_files else None


def spec_of(value: Any) -> Spec | None:
    """The spec that makes an argument like ``value``: its dtype and shape for an array, a
    0-d array for a Python number (as ``make_jaxpr`` traces it), tuples and lists of
    those; None for anything else (a dict, a PRNG key, a string)."""
    for kind, short in _SCALARS:
        if type(value) is kind:
            return ArraySpec(short, ())
    if isinstance(value, tuple | list):
        if len(value) > MAX_ITEMS:
            return None
        items = [spec_of(item) for item in value]
        if any(item is None for item in items):
            return None
        return SequenceSpec(tuple(i for i in items if i is not None),
                            "list" if isinstance(value, list) else "tuple")
    dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
    found = _SHORT.get(str(dtype)) if dtype is not None else None
    if found is None or not isinstance(shape, tuple) or not hasattr(value, "ndim"):
        return None
    return ArraySpec(found, tuple(int(d) for d in shape))
