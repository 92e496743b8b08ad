"""At most one request in flight per key; what is wanted meanwhile collapses into one follow-up.

Qt-free on purpose: the rule is plain bookkeeping, unit-tested without a display.
"""

from __future__ import annotations

from collections.abc import Hashable


class Coalescer:
    """Per key, at most one request in flight; wants meanwhile become one follow-up.

    Why: a slider drag makes steps faster than the engine answers. Sending each would queue a
    backlog; waiting for the mouse to stop would freeze the plot. So the first goes out, later
    ones only mark the key pending, and when the reply lands one follow-up goes out, built by
    the caller from the newest state. The caller sends whenever ``want`` (a new state is
    wanted) or ``done`` (its reply landed) returns True; the coalescer never sends itself.
    """

    def __init__(self) -> None:
        self._in_flight: set[Hashable] = set()
        self._pending: set[Hashable] = set()

    def want(self, key: Hashable) -> bool:
        """Newer state for ``key`` is wanted: True means send it now (it is now in flight);
        False means one is in flight already and the newest state goes out after it."""
        if key in self._in_flight:
            self._pending.add(key)
            return False
        self._in_flight.add(key)
        self._pending.discard(key)
        return True

    def done(self, key: Hashable) -> bool:
        """The reply for ``key`` landed: True means send the follow-up now (it is already
        counted as in flight), False means ``key`` is idle."""
        if key in self._pending:
            self._pending.discard(key)
            self._in_flight.add(key)
            return True
        self._in_flight.discard(key)
        return False

    def busy(self, key: Hashable | None = None) -> bool:
        """True while a request for ``key`` (default: for any key) is in flight."""
        return key in self._in_flight if key is not None else bool(self._in_flight)

    def pending(self, key: Hashable) -> bool:
        """True when a follow-up for ``key`` waits for the reply in flight."""
        return key in self._pending

    def forget(self, key: Hashable) -> None:
        """Drop ``key`` (its owner went away): the next ``want`` sends at once."""
        self._in_flight.discard(key)
        self._pending.discard(key)

    def reset(self) -> None:
        """Forget every key."""
        self._in_flight.clear()
        self._pending.clear()


__all__ = ["Coalescer"]
