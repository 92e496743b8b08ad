"""The wire to one kernel: its zmq sockets, message signing, the heartbeat socket, and the I/O
thread's loop that runs queued commands and drains the sockets.

Only ``call`` may be used from another thread; everything else runs on the
client's I/O thread, which is the only one that touches a socket. A message that
is not one (a bad signature, a header without an id, a parent header that is not
an object) is dropped here; an exception in a command, a message's handler or a
tick goes to the loop's ``on_fault`` and the loop goes on, so that the thread
that answers every request cannot end unseen.
"""

from __future__ import annotations

import contextlib
import os
import queue
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

import zmq
from jupyter_client.session import Session

POLL_S = 0.05
HEARTBEAT_PERIOD_S = 0.5
CHANNELS = ("shell", "control", "iopub", "hb")


class ChannelRefused(ConnectionError):
    """A socket had nothing to queue a message for: its port is another kind of socket's (a
    connection file with swapped ports), which zmq drops after the handshake."""


class Transport:
    """Sockets to a kernel's channels, signed with the key of its connection info."""

    def __init__(self) -> None:
        self._commands: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._ctx = zmq.Context()
        self.sockets: dict[str, zmq.Socket] = {}
        self._poller = zmq.Poller()
        self._poller.register(self._wake_r, zmq.POLLIN)  # commands, even with no sockets yet
        self.info: dict[str, Any] = {}
        self.session = Session(key=secrets.token_hex(16).encode())  # replaced by use_info
        self.hb_sent: float | None = None
        self.hb_last = 0.0
        self.hb_ever = False  # the heartbeat answered at least once since the last connect

    # ------------------------------------------------------------------ any thread

    def call(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the I/O thread, soon."""
        self._commands.put(fn)
        self.wake()

    def wake(self) -> None:
        """Make the I/O thread's poll return now."""
        fd = self._wake_w
        if fd < 0:
            return  # closed: its number may be another file's by now
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(fd, b"x")

    # ------------------------------------------------------------------ the I/O thread

    def use_info(self, info: dict[str, Any]) -> None:
        """Sign with the key of ``info`` and connect to its ports on the next ``connect``."""
        self.info = info
        self.session = Session(key=info["key"].encode(),
                               signature_scheme=info.get("signature_scheme", "hmac-sha256"))

    def url(self, channel: str) -> str:
        info = self.info
        port = info[f"{channel}_port"]
        if info.get("transport", "tcp") == "ipc":
            return f"ipc://{info['ip']}-{port}"
        return f"tcp://{info['ip']}:{port}"

    def connect(self) -> None:
        """(Re)open one socket per channel; the heartbeat starts afresh."""
        for sock in self.sockets.values():
            sock.close(linger=0)
        kinds = {"shell": zmq.DEALER, "control": zmq.DEALER, "iopub": zmq.SUB, "hb": zmq.REQ}
        identity = uuid.uuid4().hex.encode()
        self.sockets = {}
        for name, kind in kinds.items():
            sock = self._ctx.socket(kind)
            sock.linger = 0
            if kind == zmq.DEALER:
                sock.identity = identity
                # With no peer (its port's socket refused the handshake) a send would wait
                # for ever, on the thread that reads every reply: refuse at once instead.
                sock.sndtimeo = 0
            if kind == zmq.SUB:
                sock.setsockopt(zmq.SUBSCRIBE, b"")
            sock.connect(self.url(name))
            self.sockets[name] = sock
        self._poller = zmq.Poller()
        self._poller.register(self._wake_r, zmq.POLLIN)
        for sock in self.sockets.values():
            self._poller.register(sock, zmq.POLLIN)
        self.hb_sent = None
        self.hb_ever = False
        self.hb_last = time.monotonic()

    def send(self, channel: str, msg_type: str, content: dict[str, Any],
             buffers: list[Any] | None = None) -> str:
        """Sign and send one message; its id (``ChannelRefused`` when the socket has no peer)."""
        try:
            msg = self.session.send(self.sockets[channel], msg_type, content, buffers=buffers)
        except zmq.Again:
            raise ChannelRefused(f"the {channel} port ({self.url(channel)}) takes no messages: "
                                 "no kernel's channel of that kind is there") from None
        assert msg is not None  # Session.send returns None only in a forked child
        msg_id: str = msg["header"]["msg_id"]
        return msg_id

    def ping(self, now: float) -> None:
        """Send a heartbeat if the last one came back and a period has passed."""
        if self.hb_sent is None and now - self.hb_last >= HEARTBEAT_PERIOD_S:
            with contextlib.suppress(zmq.ZMQError):
                self.sockets["hb"].send(b"ping", zmq.NOBLOCK)
                self.hb_sent = now

    def serve(self, closing: Callable[[], bool], on_message: Callable[[str, dict[str, Any]], bool],
              tick: Callable[[], None], on_fault: Callable[[Exception], None]) -> None:
        """Until ``closing()``: run queued commands, hand each signed message to ``on_message``
        (True: stop draining, the sockets changed) and ``tick`` once per turn. What any of
        them raises goes to ``on_fault``; the loop goes on."""
        while not closing():
            events = dict(self._poller.poll(int(POLL_S * 1000)))
            if self._wake_r in events:
                os.read(self._wake_r, 4096)
                for command in self.take_commands():
                    _guarded(command, on_fault)
            for name in CHANNELS:
                sock = self.sockets.get(name)
                if sock is not None and sock in events:
                    self._drain(name, sock, on_message, on_fault)
            _guarded(tick, on_fault)

    def take_commands(self) -> list[Callable[[], None]]:
        """The commands queued so far, taken off the queue (in order)."""
        commands = []
        while True:
            try:
                commands.append(self._commands.get_nowait())
            except queue.Empty:
                return commands

    def _drain(self, name: str, sock: zmq.Socket,
               on_message: Callable[[str, dict[str, Any]], bool],
               on_fault: Callable[[Exception], None]) -> None:
        if name == "hb":
            with contextlib.suppress(zmq.ZMQError):  # REQ: one echo per ping, then EFSM
                sock.recv(zmq.NOBLOCK)
                self.hb_sent = None
                self.hb_last = time.monotonic()
                self.hb_ever = True
            return
        for _ in range(1000):  # bounded, so commands and death checks keep their turn
            try:
                _, msg = self.session.recv(sock, mode=zmq.NOBLOCK, copy=True)
            except Exception:  # noqa: BLE001 - a bad signature, a torn or malformed message
                continue
            if msg is None:
                return
            if not well_formed(msg):
                continue
            try:
                if on_message(name, msg):
                    return
            except Exception as exc:  # noqa: BLE001 - reported; the next message still counts
                on_fault(exc)

    def close_sockets(self) -> None:
        for sock in self.sockets.values():
            sock.close(linger=0)
        self.sockets = {}

    def close(self) -> None:
        """Close every socket, the context and the wake pipe."""
        self.close_sockets()
        self._ctx.term()
        fds = (self._wake_r, self._wake_w)
        self._wake_w = -1  # first: a wake() from another thread writes nowhere
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def well_formed(msg: dict[str, Any]) -> bool:
    """Whether a signed message has the shape every handler relies on: a header with a text
    type, a parent header that is an object (its id, if any, text), content and metadata
    objects. A kernel's user code holds the key and may send anything."""
    header, parent = msg.get("header"), msg.get("parent_header")
    return (isinstance(header, dict) and isinstance(header.get("msg_type"), str)
            and isinstance(header.get("session", ""), str)
            and isinstance(parent, dict) and isinstance(parent.get("msg_id", ""), str)
            and isinstance(msg.get("content"), dict) and isinstance(msg.get("metadata"), dict))


def _guarded(fn: Callable[[], None], on_fault: Callable[[Exception], None]) -> None:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - reported; the loop must go on
        on_fault(exc)
