"""Watch JAX compile: count real XLA compilations and capture cache-miss explanations.

The counter listens to JAX's monitoring event for backend compiles, the one
place every compilation (``jit`` call or AOT ``.compile()``) passes through;
a jitted function's ``_cache_size()`` is private and counts cache entries, not
compilations. ``jax.monitoring`` is public but the event's name is not, so
``jax_internals.compiled_function_name`` reads it. The explanations are the log records JAX writes
when ``jax_explain_cache_misses`` is on.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from workbench.engine.jax_internals import compiled_function_name


@dataclass
class CompileLog:
    """Compilations seen while the watch was on; ``names`` are JAX's ``jit(name)`` labels."""

    names: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, name: str | None = None) -> int:
        """Compilations in all, or of the function called ``name``."""
        with self._lock:
            if name is None:
                return len(self.names)
            return sum(1 for n in self.names if n == name or n == f"jit({name})")


@contextlib.contextmanager
def watch_compiles() -> Iterator[CompileLog]:
    """Record every backend compilation (all threads) until the block ends."""
    from jax import monitoring

    log = CompileLog()

    def listener(event: str, duration_secs: float, **kwargs: str | int) -> None:
        name = compiled_function_name(event, kwargs)
        if name is not None:
            with log._lock:
                log.names.append(name)
                log.seconds.append(float(duration_secs))

    monitoring.register_event_duration_secs_listener(listener)
    try:
        yield log
    finally:
        monitoring.unregister_event_duration_listener(listener)


class _Collect(logging.Handler):
    def __init__(self, sink: list[str], only: str | None):
        super().__init__(logging.DEBUG)
        self.sink = sink
        self.only = only

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "CACHE MISS" not in message:
            return
        if self.only is not None and f"for {self.only} " not in message:
            return
        self.sink.append(_drop_our_call_site(message))


def _drop_our_call_site(message: str) -> str:
    """``TRACING CACHE MISS at .../workbench/engine/timing.py:391 (...)``: the call site
    is the workbench's own loop, noise for the user; JAX's explanation follows it."""
    first, sep, rest = message.partition("\n")
    head, at, where = first.partition(" at ")
    if at and "workbench" in where.replace("\\", "/").split(":")[0]:
        first = head + ":"
    return first + sep + rest


@contextlib.contextmanager
def explain_cache_misses(function_name: str | None = None) -> Iterator[list[str]]:
    """Turn on ``jax_explain_cache_misses`` and collect its messages instead of printing them.

    With ``function_name`` only misses of that function are kept (eager mode
    misses every primitive's little jit when shapes change). The config flag
    and the logger are restored afterwards.
    """
    import jax

    messages: list[str] = []
    logger = logging.getLogger("jax")
    handler = _Collect(messages, function_name)
    # Config flags are properties JAX adds at run time; its stubs do not list them.
    previous = jax.config.jax_explain_cache_misses  # type: ignore[attr-defined]
    previous_propagate = logger.propagate
    logger.addHandler(handler)
    # The records are for the user, through us; keep them off the process's stderr.
    logger.propagate = False
    jax.config.update("jax_explain_cache_misses", True)
    try:
        yield messages
    finally:
        jax.config.update("jax_explain_cache_misses", previous)
        logger.removeHandler(handler)
        logger.propagate = previous_propagate
