"""The interface of an engine client: what the window's bridge and the commands call.

``client.engine_client.EngineClient`` (a kernel, ours or attached or a server's) and
``engine.inprocess.InProcessClient`` (the engine on a thread, for tests) both satisfy it,
as qtconsole's in-process and Qt kernel clients share one interface; mypy checks each
against it (``_CHECK`` at the end of either module).
"""

from __future__ import annotations

from collections.abc import Callable
from os import PathLike
from typing import Protocol

from workbench.api import messages as p
from workbench.api.contract.routing import Stats
from workbench.api.state import Notice, State

CELLS_NOT_RELOADED = ("engine restarted: the lesson's names are gone, as after Jupyter's "
                      "Restart (Run steps above runs its steps again)")
"""Said after a restart when the last source was a lesson step (a notebook cell): it is not
loaded again on its own, as Jupyter runs nothing after a restart (alone, the step's code
would fail on the names the steps above it define)."""


def reloads(last: p.LoadSource | None) -> bool:
    """Whether a restart loads ``last`` again: the editor's source, never a lesson step."""
    return last is not None and not last.cell


class EngineClientProtocol(Protocol):
    """Requests in, replies and events out through callbacks; never blocking the caller."""

    on_state: Callable[[State], None] | None
    on_notice: Callable[[Notice], None] | None
    on_output: Callable[[p.Output], None] | None
    owned: bool
    """The engine is ours (we start, restart and end it); False for an attached kernel."""
    host: str | None
    """How the window names an attached kernel's host; None for our own."""
    stats: Stats

    @property
    def state(self) -> State: ...

    @property
    def connection_file(self) -> str | PathLike[str] | None:
        """The kernel's connection file, for a console; None where there is no kernel."""

    def request(self, request: p.Request, on_reply: Callable[[p.Reply], None] | None = None,
                on_event: Callable[[p.Event], None] | None = None, *,
                key: str | None = None) -> str:
        """Queue ``request``; ``on_reply`` gets exactly one reply unless a later request with
        the same ``key`` supersedes it first. Returns the request's id."""

    def is_current(self, key: str, rid: str) -> bool:
        """Whether ``rid`` is still the latest request sent with ``key`` (its reply wanted)."""

    def call(self, request: p.Request, timeout: float = 30.0,
             on_event: Callable[[p.Event], None] | None = None) -> p.Reply:
        """Blocking: for scripts and tests, never from a callback's thread."""

    def stop(self) -> None:
        """Stop what runs; every pending request is answered ``Cancelled``."""

    def restart(self, fresh: str | None = None) -> None:
        """A fresh engine; the last good editor source is loaded again unless ``fresh``
        (then the notice says these words)."""

    def close(self, timeout: float = 5.0) -> None:
        """End the client (and an engine of our own)."""
