"""The engine client seen from Qt: its callbacks re-emitted as signals on the GUI thread.

``EngineClient`` calls back from its own I/O thread; every callback here is
handed to the GUI thread through a queued signal, so widgets only ever see
engine replies in the Qt event loop and the GUI never blocks on the engine.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from workbench.api import messages as p

if TYPE_CHECKING:  # jupyter_client and zmq load in start(), after the window's first frame
    from workbench.api.contract.protocol import EngineClientProtocol
    from workbench.client.server import ServerTarget
    from workbench.client.server_kernel import ConsoleLink

ReplyHandler = Callable[[p.Reply], None]
EventHandler = Callable[[p.Event], None]


class EngineBridge(QObject):
    """Owns one engine client (an ``EngineClient``, or what the tests pass: any
    ``EngineClientProtocol``); requests take callbacks that run on the GUI thread."""

    sig_state_changed = Signal(str)
    """The lifecycle state changed: starting, idle, busy, interrupting, restarting, dead."""
    sig_notice = Signal(object)
    """Something the user should read (a crash, a restart): an ``api.state.Notice``."""
    sig_output = Signal(object)
    """User stdout/stderr from the engine: a ``messages.Output``."""
    sig_request_sent = Signal(object)
    """A request went to the engine (the ``messages.Request``)."""
    _sig_call = Signal(object, object)

    def __init__(self, parent: QObject | None = None, *,
                 client_factory: Callable[..., EngineClientProtocol] | None = None,
                 **client_options: Any):
        """``client_options`` go to ``EngineClient``; ``connection_file`` (and ``ssh``) attach
        to a kernel started elsewhere instead of starting one. ``client_factory`` builds
        another client in its place, with the same callbacks (tests: an in-process engine)."""
        super().__init__(parent)
        self._client_factory = client_factory
        self._client_options = client_options
        connection_file = client_options.get("connection_file")
        self.host: str | None = None  # the attached kernel's host; None for our own kernel
        if client_options.get("server") is not None:  # a Jupyter Server's kernel
            self.host = client_options["server"].label
        elif connection_file is not None:
            from workbench.client.attach import host_label

            self.host = host_label(connection_file, client_options.get("ssh"))
        self._client: EngineClientProtocol | None = None
        self._closed = False  # for good: a late request never starts another engine
        self._state = "starting"
        self._sig_call.connect(self._on_call, Qt.ConnectionType.QueuedConnection)
        # Each request's handlers, by id, held here on the GUI thread: the client's thread
        # holds only the id, so a handler (a panel's method) is never released there, which
        # would destroy the panel's Qt objects outside the GUI thread.
        self._handlers: dict[str, tuple[str | None, ReplyHandler | None,
                                        EventHandler | None]] = {}
        self._keyed: dict[str, str] = {}  # the latest request of each superseding key

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the kernel (returns at once; the state moves to idle when it answers)."""
        if self._client is not None or self._closed:
            return
        factory = self._client_factory
        if factory is None:
            from workbench.client.engine_client import EngineClient

            factory = EngineClient
        self._client = factory(
            on_state=lambda s: self._post(self._on_state, str(s)),
            on_notice=lambda n: self._post(self.sig_notice.emit, n),
            on_output=lambda o: self._post(self.sig_output.emit, o),
            **self._client_options,
        )

    @property
    def state(self) -> str:
        return self._state

    @property
    def client(self) -> EngineClientProtocol | None:
        return self._client

    @property
    def connection_file(self) -> str | None:
        path = self._client.connection_file if self._client is not None else None
        return str(path) if path is not None else None

    @property
    def console_target(self) -> str | ConsoleLink | None:
        """What the console attaches to: the connection file, or a server kernel's link."""
        server = getattr(self._client, "server", None)
        if server is not None:
            return server.console_link()
        return self.connection_file

    @property
    def server_target(self) -> ServerTarget | None:
        """The Jupyter Server the engine runs on (``--server``), if it does."""
        return self._client_options.get("server")

    @property
    def server_kernel(self) -> str | None:
        """``kernel 1a2b3c4d on host:8888`` for a Jupyter Server's kernel, else None."""
        server = getattr(self._client, "server", None)
        return server.describe() if server is not None else None

    def stop(self) -> None:
        if self._client is not None:
            self._client.stop()

    def restart(self, fresh: str | None = None) -> None:
        """Restart the engine; ``fresh``: for a new start (a lesson opened), nothing loaded
        again, the notice in these words."""
        if self._client is not None:
            self._client.restart(fresh)

    def close(self) -> None:
        self._closed = True
        if self._client is not None:
            client, self._client = self._client, None
            client.close()

    # ------------------------------------------------------------------ requests

    def request(
        self,
        request: p.Request,
        on_reply: ReplyHandler | None = None,
        on_event: EventHandler | None = None,
        *,
        key: str | None = None,
    ) -> str:
        """Send ``request``; ``on_reply``/``on_event`` run later on the GUI thread.

        A later request with the same ``key`` supersedes this one: its reply is dropped,
        also when it had already arrived and was waiting for the GUI thread.
        """
        if self._client is None:
            self.start()
        client = self._client
        rid = request.id
        if client is None:  # closed: a timer's late request as its window closes
            if on_reply is not None:
                self._handlers[rid] = (None, on_reply, on_event)
                self._post(self._deliver_reply, rid, p.Cancelled(rid, "engine closed"))
            return rid
        reply_cb = event_cb = None
        if key is not None:  # the one it supersedes is never answered: forget its handlers
            self._handlers.pop(self._keyed.pop(key, ""), None)
        if on_reply is not None or on_event is not None:
            self._handlers[rid] = (key, on_reply, on_event)
            if key is not None:
                self._keyed[key] = rid
            reply_cb = partial(self._post, self._deliver_reply, rid)
            event_cb = partial(self._post, self._deliver_event, rid) if on_event else None
        sent = client.request(request, reply_cb, event_cb, key=key)
        self.sig_request_sent.emit(request)
        return sent

    def abandon(self, key: str) -> None:
        """The request of ``key`` in flight is answered to nobody, as if superseded now: a
        newer one follows a moment later, and what the old one asked is moot already."""
        self._handlers.pop(self._keyed.pop(key, ""), None)

    def _deliver_reply(self, rid: str, reply: p.Reply) -> None:
        key, on_reply, _ = self._handlers.pop(rid, (None, None, None))
        if key is not None and self._keyed.get(key) == rid:
            del self._keyed[key]
        client = self._client
        # The client owns superseding: a newer request of this key may have gone out after
        # this reply came in, while it waited for the GUI thread.
        if on_reply is None or (key is not None and client is not None
                                and not client.is_current(key, rid)):
            return
        on_reply(reply)

    def _deliver_event(self, rid: str, event: p.Event) -> None:
        on_event = self._handlers.get(rid, (None, None, None))[2]
        if on_event is not None:
            on_event(event)

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        """Queue ``fn(*args)`` for the GUI thread, from the client's I/O thread.

        A bridge deleted with its window before its client was closed has no
        signal left to emit; the late reply or notice then has nobody to tell.
        """
        with contextlib.suppress(RuntimeError):  # "Signal source has been deleted"
            self._sig_call.emit(fn, args)

    # ------------------------------------------------------------------ slots

    @Slot(object, object)
    def _on_call(self, fn: Callable[..., None], args: tuple[Any, ...]) -> None:
        fn(*args)

    def _on_state(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self.sig_state_changed.emit(state)


__all__ = ["EngineBridge"]
