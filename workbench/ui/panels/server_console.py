"""qtconsole's kernel client on a Jupyter Server's kernel: the console shares the engine's
WebSocket, with a session of its own, as JupyterLab's console shares a notebook's kernel.

qtconsole talks to a kernel through a ``KernelClient`` whose channels emit
``message_received``; ``jupyter_client``'s own clients speak ZMQ to a connection file,
which a server's kernel does not give out. This client keeps their interface and sends
every channel's messages through the engine's socket (``client.server_kernel.ConsoleLink``),
which hands back the replies to its session and the kernel's broadcasts. One socket, not
two: the server replays what a dropped socket missed only when it was the kernel's last
connection. The engine's client reconnects it, watches the kernel and reports its death.
"""

from __future__ import annotations

from typing import Any

from jupyter_client.client import KernelClient
from PySide6.QtCore import QCoreApplication, QObject, Signal
from qtconsole.kernel_mixins import QtKernelClientMixin
from qtconsole.util import SuperQObject

from workbench.client.server_kernel import ConsoleLink


class _Channel(SuperQObject):
    """One channel of the kernel (shell, iopub, stdin or control) on the shared socket."""

    message_received = Signal(object)

    def __init__(self, name: str, client: ServerConsoleClient) -> None:
        super().__init__()
        self.name = name
        self._client = client

    def send(self, msg: dict[str, Any]) -> None:
        if self._client.channels_running:  # as a ZMQ channel that is not running: dropped
            self._client.link.send(self.name, msg)

    def start(self) -> None:
        """The socket is the engine's: nothing of the channel's own to start."""

    def stop(self) -> None:
        """The socket is the engine's: nothing of the channel's own to stop."""

    def is_alive(self) -> bool:
        return self._client.channels_running

    def closed(self) -> bool:
        return not self._client.channels_running

    def flush(self, timeout: float = 1.0) -> None:
        """Messages come through Qt's queue: deliver what waits there."""
        app = QCoreApplication.instance()
        if app is not None:
            app.processEvents()


class _Heartbeat(QObject):
    """The engine's own client watches the kernel (and says when it died); the console's
    heartbeat never reports it twice."""

    kernel_died = Signal(object)
    time_to_dead = 3.0

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def pause(self) -> None:
        pass

    def unpause(self) -> None:
        pass

    def is_beating(self) -> bool:
        return True

    def is_alive(self) -> bool:
        return True


class ServerConsoleClient(QtKernelClientMixin, KernelClient):
    """A ``QtKernelClient`` whose channels go through the engine's socket to the kernel."""

    def __init__(self, link: ConsoleLink, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.link = link
        self._named = {name: _Channel(name, self) for name in ("shell", "iopub", "stdin",
                                                                 "control")}
        self._hb = _Heartbeat()
        self._running = False

    # The channels qtconsole (and KernelClient's request methods) use.
    shell_channel = property(lambda self: self._named["shell"])
    iopub_channel = property(lambda self: self._named["iopub"])
    stdin_channel = property(lambda self: self._named["stdin"])
    control_channel = property(lambda self: self._named["control"])
    hb_channel = property(lambda self: self._hb)

    @property
    def channels_running(self) -> bool:
        return self._running

    def start_channels(self, *args: Any, **kwargs: Any) -> None:
        self.link.open(self.session.session, self._deliver)
        self._running = True
        self.started_channels.emit()
        from qtconsole.comms import CommManager

        self.comm_manager = CommManager(parent=self, kernel_client=self)

    def stop_channels(self) -> None:
        self._running = False
        self.link.close(self.session.session)
        self.stopped_channels.emit()
        self.comm_manager = None

    def _deliver(self, channel: str, msg: dict[str, Any]) -> None:
        """On the socket's reader thread: Qt queues the signal to the widget's thread."""
        target = self._named.get(channel)
        if target is not None and self._running:
            msg["msg_id"] = msg["header"].get("msg_id", "")
            target.message_received.emit(msg)
