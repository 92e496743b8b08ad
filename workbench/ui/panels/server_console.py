"""qtconsole's kernel client over a Jupyter Server's WebSocket: the console on a server's
kernel, with its own session (the server routes its replies to it alone), as JupyterLab's
console attaches to the same kernel as its notebook.

qtconsole talks to a kernel through a ``KernelClient`` whose channels emit
``message_received``; ``jupyter_client``'s own clients speak ZMQ to a connection file,
which a server's kernel does not give out. This client keeps their interface and carries
every channel over one WebSocket (the framing of ``client.ws_transport``). A reader thread
emits each message; Qt queues it to the widget on the GUI thread. A socket that drops is
opened again with the same session id, so the server replays what it held.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import websocket
from jupyter_client.client import KernelClient
from PySide6.QtCore import QCoreApplication, QObject, Signal
from qtconsole.kernel_mixins import QtKernelClientMixin
from qtconsole.util import SuperQObject

from workbench.client.server_kernel import ConsoleChannels
from workbench.client.ws_transport import V1, decode, encode, open_channels

RECONNECT_WAITS_S = (0.2, 0.5, 1.0, 2.0, 4.0)  # then the console says it lost the kernel


class _Channel(SuperQObject):
    """One channel of the kernel (shell, iopub, stdin or control) on the shared socket."""

    message_received = Signal(object)

    def __init__(self, name: str, client: ServerConsoleClient) -> None:
        super().__init__()
        self.name = name
        self._client = client

    def send(self, msg: dict[str, Any]) -> None:
        self._client.send_frame(self.name, msg)

    def start(self) -> None:
        """The socket is the client's: nothing of the channel's own to start."""

    def stop(self) -> None:
        """Closed with the client's socket."""

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
    """A ``QtKernelClient`` whose channels are one WebSocket to a server's kernel."""

    sig_lost = Signal(str)
    """The socket closed and could not be opened again (the reason)."""

    def __init__(self, channels: ConsoleChannels, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.channels = channels
        self._named = {name: _Channel(name, self) for name in ("shell", "iopub", "stdin",
                                                                 "control")}
        self._hb = _Heartbeat()
        self._ws: websocket.WebSocket | None = None
        self._v1 = False
        self._running = False
        self._stopped = threading.Event()  # wakes a reconnect's wait
        self._send_lock = threading.Lock()
        self._unsent: list[str | bytes] = []  # what a dropped socket did not take

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
        """Open the socket (raises ``ConnectionError`` with the reason), then as qtconsole's."""
        self._open()
        self._stopped.clear()
        self._running = True
        self.started_channels.emit()
        from qtconsole.comms import CommManager

        self.comm_manager = CommManager(parent=self, kernel_client=self)

    def stop_channels(self) -> None:
        self._running = False
        self._stopped.set()
        ws, self._ws = self._ws, None
        if ws is not None:
            with contextlib.suppress(Exception):
                ws.abort()  # wakes the reader, which then ends without a word
            with contextlib.suppress(Exception):
                ws.close(timeout=0)
        self.stopped_channels.emit()
        self.comm_manager = None

    def send_frame(self, channel: str, msg: dict[str, Any]) -> None:
        """Send now or, the socket dropped, once it is open again (a cell typed meanwhile
        runs then)."""
        if not self._running:
            return  # closed: as a ZMQ channel that is not running, it drops the message
        frame = encode(msg, channel, self._v1, self.session.pack)
        with self._send_lock:
            if not self._send(frame):
                self._unsent.append(frame)

    def _send(self, frame: str | bytes) -> bool:
        ws = self._ws
        if ws is None:
            return False
        try:
            if isinstance(frame, bytes):
                ws.send_binary(frame)
            else:
                ws.send(frame)
        except (websocket.WebSocketException, OSError):
            return False
        return True

    def _open(self) -> None:
        ws = open_channels(self.channels.url, self.channels.headers)
        self._v1 = ws.getsubprotocol() == V1
        self._ws = ws
        threading.Thread(target=self._read, args=(ws,), daemon=True,
                         name="workbench-console-socket").start()

    def _read(self, ws: websocket.WebSocket) -> None:
        """The reader thread: each message to its channel's signal; a drop, reconnected."""
        while True:
            with contextlib.suppress(Exception):
                while True:
                    opcode, frame = ws.recv_data_frame(control_frame=True)
                    if opcode == websocket.ABNF.OPCODE_CLOSE:
                        break
                    if opcode not in (websocket.ABNF.OPCODE_TEXT,
                                      websocket.ABNF.OPCODE_BINARY):
                        continue
                    msg = decode(frame.data, opcode == websocket.ABNF.OPCODE_BINARY, self._v1)
                    channel = self._named.get(str(msg.pop("channel", ""))) if msg else None
                    if msg is not None and channel is not None:
                        msg["msg_id"] = msg["header"].get("msg_id", "")
                        channel.message_received.emit(msg)
            if ws is not self._ws:
                return  # closed by us, or replaced
            replacement = self._reopen()
            if replacement is None:
                return
            ws = replacement

    def _reopen(self) -> websocket.WebSocket | None:
        """The socket dropped: open it again (same session), or say it is lost."""
        reason = "the connection to the server broke"
        for wait in RECONNECT_WAITS_S:
            if self._stopped.wait(wait):
                return None
            try:
                ws = open_channels(self.channels.url, self.channels.headers)
            except ConnectionError as exc:
                reason = str(exc)
                continue
            with self._send_lock:
                self._v1 = ws.getsubprotocol() == V1
                self._ws = ws
                unsent, self._unsent = self._unsent, []
                for frame in unsent:
                    self._send(frame)
            return ws
        self._running = False
        self._ws = None
        self.sig_lost.emit(reason)
        return None
