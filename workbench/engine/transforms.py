"""Compose JAX transforms around a user function, innermost first, with static literals bound."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.api.choices import TRANSFORM_NAMED, TRANSFORMS
from workbench.api.choices import Transform as TransformName
from workbench.engine.argspec import (
    LiteralSpec,
    Spec,
    check_arity,
    format_args,
    parse_args,
)
from workbench.engine.errors import UsageError
from workbench.engine.source import LoadedSource
from workbench.engine.static_binding import bind_literals

Transform = Callable[[Callable[..., Any]], Callable[..., Any]]


def _transform(name: str) -> Transform:
    import jax

    table: dict[str, Transform] = {
        "jit": jax.jit,
        "grad": jax.grad,
        "value_and_grad": jax.value_and_grad,
        "vmap": jax.vmap,
        "jacfwd": jax.jacfwd,
        "jacrev": jax.jacrev,
        "hessian": jax.hessian,
    }
    try:
        return table[name]
    except KeyError:
        raise UsageError(
            f"unknown transform {name!r} (known: {', '.join(TRANSFORMS)})"
        ) from None


def compose(fn: Callable[..., Any], names: Sequence[str]) -> Callable[..., Any]:
    """``compose(f, ["grad", "vmap"])`` is ``vmap(grad(f))``: the first name is applied first."""
    out = fn
    for name in names:
        out = _transform(name)(out)
    return out


@dataclass
class PreparedCall:
    """A user function ready to trace: statics bound, transforms applied, example args made."""

    name: str
    specs: tuple[Spec, ...]
    transforms: tuple[TransformName, ...]
    fn: Callable[..., Any]  # takes only the dynamic (array and pytree) arguments
    dynamic_specs: tuple[Spec, ...]
    static_values: dict[int, Any]

    @property
    def args_text(self) -> list[str]:
        return [format_args([s]) for s in self.specs]


def bind_static(
    fn: Callable[..., Any], specs: Sequence[Spec]
) -> tuple[Callable[..., Any], tuple[Spec, ...], dict[int, Any]]:
    """Close over literal arguments so transforms see only the traced ones.

    A literal such as ``3`` is a concrete Python value inside the function, as it
    would be with ``static_argnums``: ``range(n)`` and shape arguments work.
    """
    statics = {i: s.value for i, s in enumerate(specs) if isinstance(s, LiteralSpec)}
    dynamic = tuple(s for s in specs if not isinstance(s, LiteralSpec))
    if not statics:
        return fn, dynamic, statics
    return bind_literals(fn, statics, len(specs)), dynamic, statics


def check_call_arity(fn: Callable[..., Any], specs: Sequence[Spec], name: str) -> None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    params = [
        p for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    required = sum(1 for p in params if p.default is p.empty)
    varargs = any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values())
    check_arity(specs, params, name, required, varargs)


def prepare(
    loaded: LoadedSource,
    name: str,
    args: str | Sequence[Spec],
    transforms: Sequence[str] = (),
) -> PreparedCall:
    """Look up ``name``, check the spec against its signature, bind statics, apply transforms."""
    fn = loaded.function(name)
    specs = parse_args(args) if isinstance(args, str) else tuple(args)
    check_call_arity(fn, specs, name)
    for t in transforms:
        _transform(t)
    bound, dynamic, statics = bind_static(fn, specs)
    composed = compose(bound, transforms)
    checked = tuple(TRANSFORM_NAMED[t] for t in transforms)  # each one known: see above
    return PreparedCall(name, specs, checked, composed, dynamic, statics)
