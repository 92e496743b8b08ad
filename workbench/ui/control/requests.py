"""Every request the window sends, as a typed method with the key that supersedes it.

One place names the requests and their keys: a newer request of a key supersedes
the one in flight (the client drops its late reply), so a key says what "newer"
means: the source and its trace, one plotted function's curves, the crosshair's
values of one function, the Hessian, a timing run, a k-means run, the values of a
trace and one variable's array. Replies come back on the GUI thread.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject
from shiboken6 import isValid

from workbench.api import messages as p
from workbench.ui.control.engine_bridge import EngineBridge, EventHandler, ReplyHandler


class Key(enum.StrEnum):
    """The superseding keys: one request of each in flight at a time."""

    LOAD = "load"
    TRACE = "trace"
    LOWER = "lower"
    HESSIAN = "plot:hessian"
    TIMING = "timing"
    KMEANS = "kmeans"
    VALUES = "values"
    VAR_ARRAY = "vararray"


_Arg = TypeVar("_Arg")


class EngineRequests:
    """The window's requests to the engine, one typed method per kind.

    With an ``owner`` (the window), a reply or event that comes after the owner was deleted
    reaches nobody: a bridge that outlives its window (one shared by several) would
    otherwise call into the deleted window's controllers.
    """

    def __init__(self, engine: EngineBridge, owner: QObject | None = None):
        self.engine = engine
        self._owner = owner

    def _send(self, request: p.Request, on_reply: ReplyHandler,
              on_event: EventHandler | None = None, key: str | None = None) -> str:
        return self.engine.request(request, self._guard(on_reply),
                                   self._guard(on_event) if on_event else None, key=key)

    def _guard(self, handler: Callable[[_Arg], Any]) -> Callable[[_Arg], None]:
        owner = self._owner
        if owner is None:
            return handler

        def guarded(value: _Arg) -> None:
            if isValid(owner):
                handler(value)

        return guarded

    def load(self, request: p.LoadSource, on_reply: ReplyHandler) -> str:
        """Run a source (and trace its call, when the request carries one)."""
        return self._send(request, on_reply, key=Key.LOAD)

    def trace(self, request: p.Trace, on_reply: ReplyHandler) -> str:
        return self._send(request, on_reply, key=Key.TRACE)

    def lower(self, request: p.Lower, on_reply: ReplyHandler) -> str:
        return self._send(request, on_reply, key=Key.LOWER)

    def devices(self, on_reply: ReplyHandler) -> str:
        return self._send(p.Devices(), on_reply)

    def curves(self, request: p.SampleCurves, on_reply: ReplyHandler) -> str:
        """Samples of one plotted function: a newer range or order for it supersedes."""
        return self._send(request, on_reply, key=f"curves:{request.name}")

    def curves_at(self, request: p.CurvesAt, on_reply: ReplyHandler) -> str:
        """The values of one function at the crosshair."""
        return self._send(request, on_reply, key=f"point:{request.name}")

    def hessian(self, request: p.Hessian, on_reply: ReplyHandler) -> str:
        return self._send(request, on_reply, key=Key.HESSIAN)

    def time(self, request: p.Time, on_reply: ReplyHandler,
             on_event: EventHandler | None = None) -> str:
        return self._send(request, on_reply, on_event, key=Key.TIMING)

    def kmeans(self, request: p.KMeans, on_reply: ReplyHandler) -> str:
        return self._send(request, on_reply, key=Key.KMEANS)

    def values(self, request: p.Values, on_reply: ReplyHandler) -> str:
        return self._send(request, on_reply, key=Key.VALUES)

    def var_array(self, request: p.VarArray, on_reply: ReplyHandler) -> str:
        return self._send(request, on_reply, key=Key.VAR_ARRAY)

    def abandon(self, *keys: Key) -> None:
        """Whatever of these keys is in flight answers nobody (see ``EngineBridge.abandon``)."""
        for key in keys:
            self.engine.abandon(key)

    def stop(self) -> None:
        """Stop what the engine runs (interrupt, then restart if it does not stop)."""
        self.engine.stop()


