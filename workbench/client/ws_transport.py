"""The wire to a kernel of a Jupyter Server: its channels over one WebSocket.

The same interface as ``transport.Transport`` (the I/O thread's loop, ``send``,
``ping``), so the rest of the client does not know which it has. The server
signs and routes the messages; a reader thread blocks on the socket and hands
each message to the I/O thread. The heartbeat is the WebSocket's ping and pong.
A socket that closes is said to the loop as a message on the ``"closed"``
channel; reconnecting with the same session id, the server replays what it held.

Messages go in the server's ``v1.kernel.websocket.jupyter.org`` framing where it
offers it (jupyter_server 2): the kernel's own message parts, passed through without
being decoded and encoded again on the server. Otherwise in the legacy one: JSON text
frames, or, with buffers (our comm's arrays), its binary framing
(``serialize_binary_message`` in jupyter_server).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import socket
import struct
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import websocket
from jupyter_client.jsonutil import json_default

from workbench.client.transport import HEARTBEAT_PERIOD_S, POLL_S, Transport, _guarded, well_formed

Deliver = Callable[[str, dict[str, Any]], None]  # (channel, message), on the reader thread


def _ignore(exc: Exception) -> None:
    """A sharer's fault stays its own: the socket reads on."""


CLOSED = "closed"  # the pseudo-channel that says the socket closed (content: its reason)
V1 = "v1.kernel.websocket.jupyter.org"
CONNECT_TIMEOUT_S = 10.0


class WsTransport(Transport):
    """One WebSocket to ``url`` carrying every channel; ``headers`` prove who we are."""

    def __init__(self, url: str, headers: dict[str, str],
                 sharers: dict[str, Deliver] | None = None) -> None:
        super().__init__()
        self.ws_url = url
        self._headers = headers
        # Other clients on this socket (the console), by their session id: the server
        # replays what it held only to a kernel's last connection, so they share ours.
        self.sharers: dict[str, Deliver] = {} if sharers is None else sharers
        self._ws: websocket.WebSocket | None = None
        self._inbox: queue.SimpleQueue[tuple[str, dict[str, Any]]] = queue.SimpleQueue()
        self._reader: threading.Thread | None = None
        self._unsent: list[str | bytes] = []  # what a broken socket did not take: sent again
        self.v1 = False  # the server speaks the v1 framing on this connection
        self.info = {"ip": ""}  # where it is, for messages: the server's label

    def use_info(self, info: dict[str, Any]) -> None:
        """A connection file means nothing here: the server holds the kernel's key."""

    def connect(self) -> None:
        """(Re)open the WebSocket (same session: the server replays what it buffered)."""
        self.close_sockets()
        ws = open_channels(self.ws_url, self._headers)
        self.v1 = ws.getsubprotocol() == V1
        self._ws = ws
        self.sockets = {}
        self.hb_sent = None
        self.hb_ever = False
        self.hb_last = time.monotonic()
        self._reader = threading.Thread(target=self._read, args=(ws,), daemon=True,
                                        name="workbench-server-socket")
        self._reader.start()
        unsent, self._unsent = self._unsent, []
        for frame in unsent:
            self._send_frame(frame)

    def send(self, channel: str, msg_type: str, content: dict[str, Any],
             buffers: list[Any] | None = None) -> str:
        msg = self.session.msg(msg_type, content)
        msg["buffers"] = list(buffers or [])
        self._send_frame(encode(msg, channel, self.v1, self.session.pack))
        return str(msg["header"]["msg_id"])

    def send_message(self, channel: str, msg: dict[str, Any]) -> None:
        """Send a message a sharer made with its own session (I/O thread: ``call`` it)."""
        self._send_frame(encode(msg, channel, self.v1, self.session.pack))

    def discard_unsent(self) -> None:
        """What waited for a socket of an earlier kernel (or connection) is not for this one."""
        self._unsent = []

    def _send_frame(self, frame: str | bytes) -> None:
        """Send now or, the socket broken or not open yet, once it is open again."""
        ws = self._ws
        if ws is None:
            self._unsent.append(frame)
            return
        try:
            if isinstance(frame, bytes):
                ws.send_binary(frame)
            else:
                ws.send(frame)
        except (websocket.WebSocketException, OSError):
            self._unsent.append(frame)  # the reader says the socket closed: sent after

    def ping(self, now: float) -> None:
        if self._ws is not None and self.hb_sent is None \
                and now - self.hb_last >= HEARTBEAT_PERIOD_S:
            self.hb_sent = now  # first: the pong may come before ping() returns
            with contextlib.suppress(websocket.WebSocketException, OSError):
                self._ws.ping()

    def serve(self, closing: Callable[[], bool], on_message: Callable[[str, dict[str, Any]], bool],
              tick: Callable[[], None], on_fault: Callable[[Exception], None]) -> None:
        while not closing():
            ready, _, _ = select.select([self._wake_r], [], [], POLL_S)
            if ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self._wake_r, 4096)
                for command in self.take_commands():
                    _guarded(command, on_fault)
            for _ in range(1000):
                try:
                    channel, msg = self._inbox.get_nowait()
                except queue.Empty:
                    break
                try:
                    if on_message(channel, msg):
                        break
                except Exception as exc:  # noqa: BLE001 - reported; the next still counts
                    on_fault(exc)
            _guarded(tick, on_fault)

    def _read(self, ws: websocket.WebSocket) -> None:
        """The reader thread: every message of ``ws`` into the inbox, then its end."""
        reason = "the server closed the connection"
        try:
            while True:
                _ack_at_once(ws)
                opcode, frame = ws.recv_data_frame(control_frame=True)
                if opcode == websocket.ABNF.OPCODE_PONG:
                    self.hb_sent = None
                    self.hb_last = time.monotonic()
                    self.hb_ever = True
                    continue
                if opcode == websocket.ABNF.OPCODE_CLOSE:
                    break
                if opcode not in (websocket.ABNF.OPCODE_TEXT, websocket.ABNF.OPCODE_BINARY):
                    continue
                self.hb_last = time.monotonic()  # anything heard proves the link
                msg = decode(frame.data, opcode == websocket.ABNF.OPCODE_BINARY, self.v1)
                if msg is None:
                    continue
                channel = str(msg.pop("channel", ""))
                if self.sharers and self._shared(channel, msg):
                    continue
                self._inbox.put((channel, msg))
                self.wake()
        except Exception as exc:  # noqa: BLE001 - any end of the reader is the socket's end
            reason = f"the connection to the server broke ({type(exc).__name__})"
        if ws is self._ws:
            self._inbox.put((CLOSED, {"reason": reason}))
            self.wake()

    def _shared(self, channel: str, msg: dict[str, Any]) -> bool:
        """Give a sharer what is for it: a reply to its session's request is its alone (True),
        the kernel's broadcasts (iopub) go to every sharer and to us."""
        if channel != "iopub":
            session = msg["parent_header"].get("session", "")
            sharer = self.sharers.get(session) if isinstance(session, str) else None
            if sharer is None:
                return False
            _guarded(partial(sharer, channel, msg), _ignore)
            return True
        for sharer in list(self.sharers.values()):
            copy = {**msg, "header": dict(msg["header"]),
                    "parent_header": dict(msg["parent_header"])}
            _guarded(partial(sharer, channel, copy), _ignore)
        return False

    def abort(self) -> None:
        """End the socket as a dropped network does: the reader wakes and says it closed
        (the client then reconnects). A close() alone leaves a blocked read asleep."""
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                ws.abort()

    def close_sockets(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            with contextlib.suppress(Exception):
                ws.abort()  # wakes the reader, which then ends without a word (not ours)
            with contextlib.suppress(Exception):
                ws.close(timeout=0)
        self.sockets = {}


def open_channels(url: str, headers: dict[str, str]) -> websocket.WebSocket:
    """A kernel's channels WebSocket, in the v1 framing where the server offers it; raises
    ``ConnectionError`` with the reason. Reads on it block (closing it ends them)."""
    header = [f"{name}: {value}" for name, value in headers.items()]
    try:
        try:
            ws = websocket.create_connection(url, timeout=CONNECT_TIMEOUT_S,
                                             enable_multithread=True, subprotocols=[V1],
                                             header=header)
        except websocket.WebSocketBadStatusException:
            raise
        except websocket.WebSocketException:  # a server of the legacy framing only
            ws = websocket.create_connection(url, timeout=CONNECT_TIMEOUT_S,
                                             enable_multithread=True, header=header)
    except websocket.WebSocketBadStatusException as exc:
        raise ConnectionError(f"the server answered {exc.status_code} to the kernel's "
                              "WebSocket") from None
    except websocket.WebSocketException as exc:
        raise ConnectionError(f"the kernel's WebSocket: {type(exc).__name__}") from None
    ws.settimeout(None)
    return ws


def encode(msg: dict[str, Any], channel: str, v1: bool,
           pack: Callable[[Any], bytes]) -> str | bytes:
    """One frame for a message made by a ``jupyter_client`` session (unsigned: the server
    signs it), its buffers under ``"buffers"``."""
    buffers = [bytes(b) for b in msg.get("buffers") or []]
    if v1:
        parts = [pack(msg[part]) for part in ("header", "parent_header", "metadata", "content")]
        return serialize_v1([*parts, *buffers], channel)
    plain = {k: v for k, v in msg.items() if k != "buffers"}
    plain["channel"] = channel
    if buffers:
        return serialize_binary_message({**plain, "buffers": buffers})
    return json.dumps(plain, default=json_default)


def decode(data: bytes | str, binary: bool, v1: bool) -> dict[str, Any] | None:
    """A message from one frame, its channel under ``"channel"``; None for anything else."""
    return _decode_v1(data) if binary and v1 else _decode(data, binary)


def _ack_at_once(ws: websocket.WebSocket) -> None:
    """Acknowledge what arrives at once (Linux's TCP_QUICKACK, which lasts until the next
    read). Jupyter Server's WebSocket leaves Nagle's algorithm on: a reply sent right
    after the kernel's "busy" waited for our delayed acknowledgement, 40 ms a request."""
    quickack = getattr(socket, "TCP_QUICKACK", None)
    if quickack is not None and ws.sock is not None:
        with contextlib.suppress(OSError):
            ws.sock.setsockopt(socket.IPPROTO_TCP, quickack, 1)


def _decode(data: bytes | str, binary: bool) -> dict[str, Any] | None:
    """A Jupyter message from one frame; None for anything else."""
    try:
        msg = (deserialize_binary_message(data if isinstance(data, bytes) else data.encode())
               if binary else json.loads(data))
    except (ValueError, struct.error, UnicodeDecodeError):
        return None
    if not isinstance(msg, dict) or not well_formed(msg):
        return None
    msg.setdefault("buffers", [])
    msg["msg_type"] = msg["header"]["msg_type"]
    return msg


def serialize_v1(parts: list[bytes], channel: str) -> bytes:
    """The v1 framing: the count of offsets, the offsets (8 bytes each, little-endian), the
    channel's name, the parts."""
    name = channel.encode()
    offsets = [8 * (1 + 1 + len(parts) + 1)]
    offsets.append(offsets[-1] + len(name))
    for part in parts:
        offsets.append(offsets[-1] + len(part))
    head = len(offsets).to_bytes(8, "little") + b"".join(o.to_bytes(8, "little")
                                                         for o in offsets)
    return head + name + b"".join(parts)


def _decode_v1(data: bytes | str) -> dict[str, Any] | None:
    """A message from a v1 frame (its channel under ``"channel"``); None for anything else."""
    if not isinstance(data, bytes) or len(data) < 16:
        return None
    count = int.from_bytes(data[:8], "little")
    if not 3 <= count < 10_000 or len(data) < 8 * (count + 1):
        return None
    offsets = [int.from_bytes(data[8 * (i + 1):8 * (i + 2)], "little") for i in range(count)]
    if offsets != sorted(offsets) or offsets[-1] > len(data):
        return None
    parts = [data[offsets[i]:offsets[i + 1]] for i in range(count - 1)]
    try:
        channel = parts[0].decode()
        header, parent, metadata, content = (json.loads(part) for part in parts[1:5])
    except (ValueError, UnicodeDecodeError):
        return None
    msg = {"header": header, "parent_header": parent, "metadata": metadata, "content": content}
    if not well_formed(msg):
        return None
    msg.update(buffers=parts[5:], channel=channel, msg_type=header["msg_type"])
    return msg


def serialize_binary_message(msg: dict[str, Any]) -> bytes:
    """jupyter_server's framing of a message with buffers: their count and offsets, the
    JSON, the buffers."""
    rest = dict(msg)
    buffers: list[bytes] = [json.dumps({k: v for k, v in rest.items() if k != "buffers"},
                                       default=json_default).encode(), *rest["buffers"]]
    offsets = [4 * (len(buffers) + 1)]
    for buffer in buffers[:-1]:
        offsets.append(offsets[-1] + len(buffer))
    return struct.pack("!" + "I" * (len(buffers) + 1), len(buffers), *offsets) + b"".join(buffers)


def deserialize_binary_message(data: bytes) -> dict[str, Any]:
    count = struct.unpack("!i", data[:4])[0]
    if not 0 < count < 10_000:
        raise ValueError("not a framed message")
    offsets = [*struct.unpack("!" + "I" * count, data[4:4 * (count + 1)]), len(data)]
    parts = [data[start:stop] for start, stop in zip(offsets[:-1], offsets[1:], strict=True)]
    msg = json.loads(parts[0].decode())
    if not isinstance(msg, dict):
        raise ValueError("not a message")
    msg["buffers"] = parts[1:]
    return msg
