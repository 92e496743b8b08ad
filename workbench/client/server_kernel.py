"""One engine kernel on a Jupyter Server, as the engine client sees it: started (or found)
through the REST API, reached over its WebSocket, interrupted and restarted by the server.

The client's I/O thread calls ``attach`` when it connects; the REST calls that
may take seconds (interrupt, restart) run on a short-lived thread of their own
and hand their outcome back to the I/O thread (``call``), so that the loop keeps
answering. A kernel we started is shut down when the client closes; one named
by ``--kernel-id`` is left running, as an attached kernel is.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable
from typing import Any

from workbench.client.server import (
    KERNEL_NAME,
    START_TIMEOUT_S,
    JupyterServer,
    KernelGone,
    ServerError,
    ServerTarget,
)
from workbench.client.ws_transport import Deliver, WsTransport

RECONNECT_WAITS_S = (0.25, 0.5, 1.0, 2.0, 4.0)  # after each failed reconnect; then it is lost
SERVER_SHUTDOWN_WAIT_S = 30.0  # for the server to shut down a kernel we started, at close
SERVER_HEARTBEAT_TIMEOUT_S = 10.0  # the server's own loop answers pings: a class can slow it


class ConsoleLink:
    """Another client of the same kernel (the console) on the engine's WebSocket: its
    requests go out there, the replies to its session and every broadcast come back to
    ``deliver`` (on the socket's reader thread). A second socket would cost the engine the
    server's replay: it buffers only for a kernel's last connection. Equal while the kernel
    and the client's attach of it are the same (a restart attaches again: a new console)."""

    def __init__(self, owner: ServerKernel, kernel_id: str, generation: int) -> None:
        self._owner = owner
        self.kernel_id = kernel_id
        self.generation = generation  # the client attached afresh (a restart): a new console

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConsoleLink) and other._owner is self._owner
                and (other.kernel_id, other.generation) == (self.kernel_id, self.generation))

    def __hash__(self) -> int:
        return hash((id(self._owner), self.kernel_id, self.generation))

    @property
    def current(self) -> bool:
        owner = self._owner
        return (owner.kernel_id, owner.attached) == (self.kernel_id, self.generation)

    def __repr__(self) -> str:
        return f"ConsoleLink({self._owner.describe()})"

    def open(self, session: str, deliver: Deliver) -> None:
        self._owner.sharers[session] = deliver

    def close(self, session: str) -> None:
        self._owner.sharers.pop(session, None)

    def send(self, channel: str, msg: dict[str, Any]) -> None:
        """Send on the engine's socket (its I/O thread; once it is open again, if it dropped)."""
        if not self.current:
            return  # the kernel restarted or was replaced: a new console takes over
        transport = self._owner.transport
        transport.call(lambda: transport.send_message(channel, msg))


class ServerKernel:
    """The kernel's id on the server, and the calls the client makes about it."""

    def __init__(self, target: ServerTarget, kernel_name: str | None = None,
                 kernel_id: str | None = None) -> None:
        self.server = JupyterServer(target)
        self.kernel_name = kernel_name or KERNEL_NAME
        self.kernel_id = kernel_id
        self.started_here = False  # we started it: shut down when we close
        self.session_id = uuid.uuid4().hex
        self.sharers: dict[str, Deliver] = {}  # the console's, on every transport we make
        self.transport = self.new_transport()
        self.reconnects = 0  # tries since the socket last worked (reset once it answers)
        self.reconnected = 0  # connections opened again, in all
        self.attached = 0  # attaches (the first, then one a restart): a console's generation

    def new_transport(self) -> WsTransport:
        """A transport for this kernel (the client's, again after its I/O thread failed)."""
        transport = WsTransport(self.transport.ws_url if hasattr(self, "transport") else "",
                                self.server.headers(), self.sharers)
        transport.session.session = self.session_id
        transport.info["ip"] = self.label
        self.transport = transport
        return transport

    @property
    def label(self) -> str:
        return self.server.target.label

    def describe(self) -> str:
        """`` kernel 1a2b3c4d on host:8888``, for messages."""
        kernel = f"kernel {self.kernel_id[:8]}" if self.kernel_id else "the kernel"
        return f"{kernel} on {self.label}"

    def attach(self, say: Callable[[str], None] = lambda text: None) -> None:
        """Make sure the kernel exists (start one when none is named) and point the
        transport at its WebSocket. Raises ``ServerError`` with the reason; ``say`` tells
        what is waited for (a kernel's start takes seconds, up to ``START_TIMEOUT_S``)."""
        self.server.check()
        if self.kernel_id is None:
            say(f"starting a {self.kernel_name!r} kernel on {self.label} (waiting up to "
                f"{START_TIMEOUT_S:g} s for the server)")
            self.kernel_id = self.server.start_kernel(self.kernel_name)
            self.started_here = True
        else:
            self.server.kernel(self.kernel_id)  # KernelGone, said as it is
        self.transport.ws_url = self.server.channels_url(self.kernel_id, self.session_id)
        self.reconnects = 0
        self.attached += 1

    def console_link(self) -> ConsoleLink | None:
        """The console's way to this kernel (None before it is known)."""
        return (None if self.kernel_id is None
                else ConsoleLink(self, self.kernel_id, self.attached))

    def forget(self) -> None:
        """The kernel is gone: the next ``attach`` starts a new one."""
        self.kernel_id = None
        self.started_here = False

    def still_there(self) -> bool:
        """Whether the server still has the kernel (False: culled or shut down)."""
        if self.kernel_id is None:
            return False
        try:
            self.server.kernel(self.kernel_id)
        except KernelGone:
            return False
        return True

    def in_background(self, work: Callable[[], None], then: Callable[[str], None]) -> None:
        """Run ``work`` (a REST call) on its own thread; ``then(error)`` on the I/O thread
        afterwards ("" when it went well)."""
        def run() -> None:
            try:
                work()
            except ServerError as exc:
                error = str(exc)
            except Exception as exc:  # noqa: BLE001 - said, never lost on a thread
                error = f"{type(exc).__name__}: {exc}"
            else:
                error = ""
            self.transport.call(lambda: then(error))

        threading.Thread(target=run, name="workbench-server-call", daemon=True).start()

    def interrupt(self) -> None:
        """Ask the server to interrupt the kernel (as Jupyter's own Stop does)."""
        kernel_id = self.kernel_id
        if kernel_id is not None:
            self.in_background(lambda: self.server.interrupt(kernel_id), lambda error: None)

    def shutdown(self) -> None:
        """Shut the kernel down if we started it (never one the user named)."""
        if self.started_here and self.kernel_id is not None:
            with contextlib.suppress(ServerError):  # the server is gone too: nothing to do
                self.server.shutdown(self.kernel_id)
            self.forget()
