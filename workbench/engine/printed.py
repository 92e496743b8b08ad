"""Capture what the user's code prints while the engine runs it, capped like the console's output.

``sys.stdout`` and ``sys.stderr`` are routed (``StreamRouter``, never swapped)
to a capture for the duration of the user's code, so ``print``,
``jax.debug.print`` and writes from other threads (a debug callback, a thread
the code started) all land in one capped buffer, in the order written. In the
kernel the previous target is the request's console output, and the capture tees
to it; the CLI keeps the text off its stdout,
so its JSON stays valid and its text is exactly the jaxpr.
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from workbench.api.limits import MAX_OUTPUT_CHARS
from workbench.api.printed import Printed


class PrintedCapture:
    """A thread-safe, capped buffer of printed text; capture into it once or several times.

    Past ``limit`` characters text is only counted, so a program that prints
    megabytes while tracing costs a counter, not memory.
    """

    def __init__(self, limit: int = MAX_OUTPUT_CHARS):
        self.limit = limit
        self._parts: list[str] = []
        self._kept = 0
        self._dropped = 0
        self._lock = threading.Lock()

    def write(self, text: str) -> None:
        with self._lock:
            room = self.limit - self._kept
            if len(text) > room:
                self._dropped += len(text) - max(room, 0)
                text = text[:max(room, 0)]
            if text:
                self._parts.append(text)
                self._kept += len(text)

    def position(self) -> int:
        """Characters kept so far: where an output shown now falls in the text."""
        with self._lock:
            return self._kept

    def result(self) -> Printed:
        with self._lock:
            return Printed("".join(self._parts), self._dropped)

    @contextmanager
    def capturing(self, tee: bool = False) -> Iterator[PrintedCapture]:
        """Swap ``sys.stdout``/``sys.stderr`` for this buffer (and, with ``tee``, the old ones too).

        On a normal exit it first waits for JAX's pending debug callbacks, so a
        ``jax.debug.print`` of the code that just ran is not written after the swap back.
        """
        out, err = routers()
        with routed(_sink(self, out.current() if tee else None),
                    _sink(self, err.current() if tee else None)):
            yield self
            _wait_for_debug_callbacks()


@contextmanager
def capture_printed(limit: int = MAX_OUTPUT_CHARS, tee: bool = False) -> Iterator[PrintedCapture]:
    """One capture: ``with capture_printed() as printed: ...`` then ``printed.result()``."""
    with PrintedCapture(limit).capturing(tee) as capture:
        yield capture


def _wait_for_debug_callbacks() -> None:
    jax = sys.modules.get("jax")
    if jax is None:
        return
    with contextlib.suppress(Exception):  # a failed computation reports itself where it is used
        jax.effects_barrier()


class TextSink(io.TextIOBase):
    """A ``sys.stdout``/``sys.stderr`` stand-in that hands every write to ``write``."""

    def __init__(self, write: Callable[[str], None], flush: Callable[[], None] = lambda: None):
        self._write = write
        self._flush = flush

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        self._write(text)
        return len(text)

    def flush(self) -> None:
        self._flush()


Stream = TextIO | io.TextIOBase
"""Anything a write can go to: the console's stream, a ``TextSink``."""


class StreamRouter(io.TextIOBase):
    """The process's ``sys.stdout`` (or ``sys.stderr``) for good: writes go to the innermost
    capture routed to it (``routed``), else to the stream it replaced.

    Swapping ``sys.stdout`` per request freed the old stream while another thread was still
    inside its ``write`` (``print`` holds only a borrowed reference): a thread the user's code
    started, printing as a request ended, crashed the kernel. The router is never freed (and
    a write holds its target while it runs), so nothing is freed under a writer's feet.
    """

    def __init__(self, fallback: Stream):
        self.fallback = fallback
        self._targets: list[Stream] = []
        self._lock = threading.Lock()

    def current(self) -> Stream:
        """Where a write goes now."""
        targets = self._targets
        return targets[-1] if targets else self.fallback

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.fallback, "encoding", None) or "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        target = self.current()  # held while it writes, whatever is routed meanwhile
        target.write(text)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(Exception):  # a closed console stream: nothing to flush
            self.current().flush()

    def push(self, target: Stream) -> None:
        with self._lock:
            self._targets = [*self._targets, target]  # a new list: readers need no lock

    def remove(self, target: Stream) -> None:
        with self._lock:
            targets = list(self._targets)
            for i in range(len(targets) - 1, -1, -1):
                if targets[i] is target:
                    del targets[i]
                    break
            self._targets = targets

    def __getattr__(self, name: str) -> object:
        # ipykernel's set_parent, fileno, isatty...: the stream it replaced answers.
        return getattr(self.fallback, name)


_ROUTERS: list[StreamRouter] = []  # every router ever installed: none is ever freed


def routers() -> tuple[StreamRouter, StreamRouter]:
    """``sys.stdout`` and ``sys.stderr`` as routers, installing them where something else
    (the kernel's start, a test harness) put a stream of its own."""
    pair = []
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, StreamRouter):
            stream = StreamRouter(stream)
            _ROUTERS.append(stream)
            setattr(sys, name, stream)
        pair.append(stream)
    return pair[0], pair[1]


@contextmanager
def routed(out: Stream, err: Stream) -> Iterator[None]:
    """Writes to ``sys.stdout``/``sys.stderr`` from any thread go to ``out``/``err`` while
    the block runs; the streams themselves are never swapped."""
    out_router, err_router = routers()
    out_router.push(out)
    err_router.push(err)
    try:
        yield
    finally:
        out_router.remove(out)
        err_router.remove(err)


def _sink(capture: PrintedCapture, tee: Stream | None) -> TextSink:
    """Writes into ``capture`` and, when given, on to ``tee`` too."""
    if tee is None:
        return TextSink(capture.write)

    def write(text: str) -> None:
        capture.write(text)
        tee.write(text)

    return TextSink(write, tee.flush)
