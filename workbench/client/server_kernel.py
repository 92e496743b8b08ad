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
from dataclasses import dataclass, field

from workbench.client.server import (
    KERNEL_NAME,
    JupyterServer,
    KernelGone,
    ServerError,
    ServerTarget,
)
from workbench.client.ws_transport import WsTransport

RECONNECT_WAITS_S = (0.25, 0.5, 1.0, 2.0, 4.0)  # after each failed reconnect; then it is lost
SERVER_SHUTDOWN_WAIT_S = 30.0  # for the server to shut down a kernel we started, at close
SERVER_HEARTBEAT_TIMEOUT_S = 10.0  # the server's own loop answers pings: a class can slow it


@dataclass(frozen=True)
class ConsoleChannels:
    """Where a console opens its own WebSocket to the kernel (its own session: the server
    routes its replies to it alone). The headers carry the token: never shown."""

    url: str
    headers: dict[str, str] = field(repr=False, compare=False)


class ServerKernel:
    """The kernel's id on the server, and the calls the client makes about it."""

    def __init__(self, target: ServerTarget, kernel_name: str | None = None,
                 kernel_id: str | None = None) -> None:
        self.server = JupyterServer(target)
        self.kernel_name = kernel_name or KERNEL_NAME
        self.kernel_id = kernel_id
        self.started_here = False  # we started it: shut down when we close
        self.session_id = uuid.uuid4().hex
        self.console_session_id = uuid.uuid4().hex
        self.transport = self.new_transport()
        self.reconnects = 0  # tries since the socket last worked (reset once it answers)
        self.reconnected = 0  # connections opened again, in all

    def new_transport(self) -> WsTransport:
        """A transport for this kernel (the client's, again after its I/O thread failed)."""
        transport = WsTransport(self.transport.ws_url if hasattr(self, "transport") else "",
                                self.server.headers())
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

    def attach(self) -> None:
        """Make sure the kernel exists (start one when none is named) and point the
        transport at its WebSocket. Raises ``ServerError`` with the reason."""
        self.server.check()
        if self.kernel_id is None:
            self.kernel_id = self.server.start_kernel(self.kernel_name)
            self.started_here = True
        else:
            self.server.kernel(self.kernel_id)  # KernelGone, said as it is
        self.transport.ws_url = self.server.channels_url(self.kernel_id, self.session_id)
        self.reconnects = 0

    def console_channels(self) -> ConsoleChannels | None:
        """The console's way to this kernel (None before it is known): equal for as long as
        the kernel is the same one."""
        if self.kernel_id is None:
            return None
        return ConsoleChannels(self.server.channels_url(self.kernel_id, self.console_session_id),
                               self.server.headers())

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
