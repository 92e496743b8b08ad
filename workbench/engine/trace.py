"""Trace a user function to its jaxpr: the text JAX prints, the tree, the stats.

Tracing uses abstract values only (``ShapeDtypeStruct``), so no data is made and
nothing runs on a device; a literal argument stays a concrete Python value.

Warm calls are as cheap as a warm ``make_jaxpr``: the transformed function is
kept per (user function object, spec, transforms), so JAX's own trace cache
answers, and the text and tree are kept per ClosedJaxpr object (weakly, so they
go when JAX drops the jaxpr). Re-running the editor makes new function objects,
hence fresh traces.
"""

from __future__ import annotations

import functools
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, NamedTuple

from workbench.api.jaxpr import TraceResult
from workbench.engine.argspec import Spec, abstract_values, format_args, parse_args
from workbench.engine.errors import UserCodeError, explain
from workbench.engine.jax_internals import rule_frames
from workbench.engine.jaxpr_tree import (
    JaxprDescription,
    describe,
    format_node,
    node_to_json,
)
from workbench.engine.printed import capture_printed
from workbench.engine.source import LoadedSource
from workbench.engine.transforms import PreparedCall, prepare

PREPARED_CACHE_SIZE = 64


class _Entry(NamedTuple):
    fn: Any  # the user function, held so its id cannot be reused while cached
    prepared: PreparedCall
    values: tuple[Any, ...]
    args_text: tuple[str, ...]


_prepared: OrderedDict[tuple[int, str, tuple[str, ...]], _Entry] = OrderedDict()
_described: weakref.WeakKeyDictionary[Any, dict[str, JaxprDescription]] = (
    weakref.WeakKeyDictionary()
)


def trace_function(
    loaded: LoadedSource,
    name: str,
    args: str | Sequence[Spec],
    transforms: Sequence[str] = (),
) -> TraceResult:
    """Trace ``name`` with ``transforms`` applied (first given, first applied).

    Bad input (unknown function, spec, transform) raises UsageError; anything
    the user's code raises while tracing comes back as UserCodeError. What it
    prints while tracing is kept on the result (and still reaches the streams
    that were current, e.g. the console).
    """
    entry = _prepare_entry(loaded, name, args, transforms)
    with capture_printed(tee=True) as printed:
        closed = _make_jaxpr(loaded, entry)
    described = describe_cached(closed, loaded.filename)
    return TraceResult(
        function=name,
        args=entry.args_text,
        transforms=entry.prepared.transforms,
        text=described.text,
        stats=described.stats,
        jaxpr=described.tree,
        printed=printed.result(),
    )


def closed_jaxpr(
    loaded: LoadedSource,
    name: str,
    args: str | Sequence[Spec],
    transforms: Sequence[str] = (),
) -> tuple[Any, PreparedCall]:
    """The ClosedJaxpr ``trace_function`` describes, and the call it was traced from.

    JAX's trace cache hands back the same object while the function is the same,
    so a jaxpr evaluated here lines up, equation for equation, with the tree the
    window shows. Raises as ``trace_function`` does.
    """
    entry = _prepare_entry(loaded, name, args, transforms)
    return _make_jaxpr(loaded, entry), entry.prepared


def _make_jaxpr(loaded: LoadedSource, entry: _Entry) -> Any:
    import jax

    try:
        with rule_frames(loaded.filename):
            return jax.make_jaxpr(entry.prepared.fn)(*entry.values)
    except Exception as exc:
        raise UserCodeError(explain(exc, loaded.filename, function=entry.prepared.fn)) from exc


def prepare_cached(
    loaded: LoadedSource,
    name: str,
    args: str | Sequence[Spec],
    transforms: Sequence[str] = (),
) -> tuple[PreparedCall, tuple[Any, ...]]:
    """``prepare`` plus abstract argument values, reused while the user function is the same."""
    entry = _prepare_entry(loaded, name, args, transforms)
    return entry.prepared, entry.values


def _prepare_entry(
    loaded: LoadedSource,
    name: str,
    args: str | Sequence[Spec],
    transforms: Sequence[str],
) -> _Entry:
    fn = loaded.function(name)
    # format_args tells 1, 1.0 and True apart, which Spec equality does not.
    key = (id(fn), args if isinstance(args, str) else format_args(args), tuple(transforms))
    hit = _prepared.get(key)
    if hit is not None and hit.fn is fn:
        _prepared.move_to_end(key)
        return hit
    specs = _parse(args) if isinstance(args, str) else tuple(args)
    prepared = prepare(loaded, name, specs, transforms)
    values = abstract_values(prepared.dynamic_specs)
    entry = _prepared[key] = _Entry(fn, prepared, values, tuple(prepared.args_text))
    if len(_prepared) > PREPARED_CACHE_SIZE:
        _prepared.popitem(last=False)
    return entry


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> tuple[Spec, ...]:
    return parse_args(text)


def describe_cached(closed: Any, filename: str) -> JaxprDescription:
    """``describe`` once per ClosedJaxpr object and editor file name."""
    per_file = _described.get(closed)
    if per_file is None:
        per_file = _described[closed] = {}
    found = per_file.get(filename)
    if found is None:
        found = per_file[filename] = describe(closed, filename)
    return found


def trace_to_json(result: TraceResult) -> dict[str, Any]:
    """The JSON shape of ``workbench trace --format json`` (issue 2)."""
    return {
        "function": result.function,
        "args": list(result.args),
        "transforms": list(result.transforms),
        "text": result.text,
        "stats": {"eqns": result.stats.eqns, "by_primitive": dict(result.stats.by_primitive)},
        "jaxpr": node_to_json(result.jaxpr),
    }


def format_tree(result: TraceResult) -> str:
    """``--format tree``: a header, then the jaxpr with each equation's editor line."""
    applied = "".join(f"{t}(" for t in reversed(result.transforms))
    closing = ")" * len(result.transforms)
    top = ", ".join(f"{k} {v}" for k, v in list(result.stats.by_primitive.items())[:5])
    header = (f"{applied}{result.function}{closing}({', '.join(result.args)})"
              f"  -- {result.stats.eqns} eqns" + (f" ({top})" if top else ""))
    return "\n".join([header, *format_node(result.jaxpr)])
