"""Capture what the user's code prints while the engine runs it, capped like the console's output.

``sys.stdout`` and ``sys.stderr`` are swapped for the duration of the user's
code, so ``print``, ``jax.debug.print`` and writes from other threads (a debug
callback, a thread the code started) all land in one capped buffer, in the
order written. In the kernel the previous streams are the request's console
output, and the capture tees to them; the CLI keeps the text off its stdout,
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
        saved = sys.stdout, sys.stderr
        sys.stdout = _sink(self, saved[0] if tee else None)
        sys.stderr = _sink(self, saved[1] if tee else None)
        try:
            yield self
            _wait_for_debug_callbacks()
        finally:
            sys.stdout, sys.stderr = saved


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


def _sink(capture: PrintedCapture, tee: TextIO | None) -> TextSink:
    """Writes into ``capture`` and, when given, on to ``tee`` too."""
    if tee is None:
        return TextSink(capture.write)

    def write(text: str) -> None:
        capture.write(text)
        tee.write(text)

    return TextSink(write, tee.flush)
