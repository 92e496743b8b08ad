"""The closure that calls a user function with its literal (static) arguments filled in.

Below both ``transforms`` (which decides what is static) and the error catalog
(which finds this closure's frames on a traceback to say which literals it
passed), so neither has to import the other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def bind_literals(
    fn: Callable[..., Any], statics: dict[int, Any], total: int
) -> Callable[..., Any]:
    """``fn`` of ``total`` positional arguments as a function of the others, ``statics`` bound.

    The closure's frame keeps ``fn`` and ``statics`` as locals: the catalog reads them there.
    """

    def bound(*dyn: Any) -> Any:
        it = iter(dyn)
        full = [statics[i] if i in statics else next(it) for i in range(total)]
        return fn(*full)

    bound.__name__ = getattr(fn, "__name__", "f")
    bound.__wrapped__ = fn  # type: ignore[attr-defined]  # JAX names and locates the user function
    return bound


def is_binding_frame(code: Any) -> bool:
    """Whether ``code`` is the code of a closure ``bind_literals`` made."""
    return any(code is k for k in bind_literals.__code__.co_consts if isinstance(k, type(code)))
