"""One shared lesson on a Jupyter Server's real-time collaboration layer
(``jupyter-server-ydoc``, what ``jupyter-collaboration`` installs): the same Y document
JupyterLab opens for the notebook, and its awareness, where each window says where it is.

The room is reached as JupyterLab reaches it: ``PUT api/collaboration/session/PATH``
(behind the server's own authentication: its token, or JupyterHub's login) gives the
file's id and a session, then a websocket to ``api/collaboration/room/json:notebook:ID``
speaks the Yjs sync and awareness protocols (``pycrdt``). A reader thread applies what
peers send; anything it cannot decode is dropped with a log line, never applied. Peers'
awareness states are handed over raw: what they mean, and whether to trust them, is
decided by ``workbench.lessons.live_class``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger(__name__)

FIELD = "workbench"  # our part of a peer's awareness state (JupyterLab keeps "user" there)
MAX_MESSAGE_BYTES = 8 << 20
# As Yjs's awareness protocol: a state not renewed for 30 s is gone (the server only relays,
# so a peer whose connection dropped leaves its last state behind); each window renews its
# own every RENEW_S (``renew``), and a connection silent for SILENT_S is taken as dropped.
OUTDATED_S = 30.0
RENEW_S = 15.0
SILENT_S = 45.0


class LiveRoomError(Exception):
    """The room could not be opened: refused, not found, or no collaboration layer."""


class LiveRoom:
    """A window's connection to the shared lesson: say where this window is, hear the
    peers. ``on_peers`` is called on the reader thread with every peer's raw state
    (``FIELD`` of its awareness, None once it left) whenever one changes."""

    def __init__(self, server: str, token: str, path: str,
                 on_peers: Callable[[dict[int, object]], None] | None = None,
                 timeout: float = 30.0) -> None:
        self.server = server.rstrip("/") + "/"
        self.token = token
        self.path = path
        self.on_peers = on_peers
        self.timeout = timeout
        self._lock = threading.Lock()  # the document and the awareness
        self._send_lock = threading.Lock()  # the socket: a stuck send never holds the above
        self._synced = threading.Event()
        self._closed = threading.Event()
        self._left = False
        self._ws: Any = None
        self._doc: Any = None
        self._awareness: Any = None
        self._reader: threading.Thread | None = None
        self._seen: set[int] = set()

    # -------------------------------------------------------------------- open / close

    def open(self) -> LiveRoom:
        """Join the room and wait until the shared document is synced."""
        import websocket
        from pycrdt import Awareness, Doc, create_sync_message

        session = self._session()
        room = f"json:notebook:{session['fileId']}"
        query = urllib.parse.urlencode({"sessionId": session["sessionId"]})
        url = (self.server.replace("http", "ws", 1)
               + f"api/collaboration/room/{urllib.parse.quote(room, safe=':')}?{query}")
        self._doc = Doc()
        self._awareness = Awareness(self._doc)
        try:
            self._ws = websocket.create_connection(
                url, header=[f"Authorization: token {self.token}"], timeout=self.timeout)
        except (OSError, websocket.WebSocketException) as exc:
            raise LiveRoomError(f"could not join the shared lesson {self.path}: {exc}") from exc
        try:
            self._ws.settimeout(SILENT_S)  # a half-open connection ends the reader
            self._send(create_sync_message(self._doc))
            self._reader = threading.Thread(target=self._read, name="workbench-live-room",
                                            daemon=True)
            self._reader.start()
            deadline = time.monotonic() + self.timeout
            while not self._synced.wait(0.05):
                if self._closed.is_set() or time.monotonic() > deadline:
                    raise LiveRoomError(f"the shared lesson {self.path} did not sync in "
                                        f"{self.timeout:g} s")
            # The server keeps no awareness for newcomers: say hello, and the peers, seeing
            # a new face, say where they are (``_handle``). That is also how a window that
            # lost its connection catches up on the teacher's step.
            self.say({})
        except (OSError, websocket.WebSocketException, LiveRoomError) as exc:
            self.close()
            if isinstance(exc, LiveRoomError):
                raise
            raise LiveRoomError(f"could not join the shared lesson {self.path}: {exc}") from exc
        return self

    def close(self) -> None:
        """Leave: peers see this window's state go (an empty awareness), then the socket
        closes."""
        if self._left:
            return
        self._left = True
        dropped = self._closed.is_set()  # the reader saw the connection go
        self._closed.set()
        if self._ws is not None:
            if not dropped:
                with contextlib.suppress(Exception):  # the connection may be gone already
                    self.say(None)
            with contextlib.suppress(Exception):
                self._ws.close()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(5)

    @property
    def client_id(self) -> int:
        return int(self._doc.client_id)

    @property
    def connected(self) -> bool:
        return self._synced.is_set() and not self._closed.is_set()

    # -------------------------------------------------------------------- talk

    def say(self, state: Mapping[str, object] | None) -> None:
        """This window's state for every peer (None: none, as when leaving)."""
        with self._lock:
            self._awareness.set_local_state(None if state is None else {FIELD: dict(state)})
        self._resend()

    def _resend(self) -> None:
        """This window's current state, sent again (to a newcomer, or after a change)."""
        from pycrdt import create_awareness_message

        with self._lock:
            update = self._awareness.encode_awareness_update([self.client_id])
        self._send(create_awareness_message(update))

    def renew(self) -> None:
        """Say our state again (peers drop one not renewed for ``OUTDATED_S``) and ping the
        server (a connection that answers nothing for ``SILENT_S`` is taken as dropped)."""
        with self._lock:
            state = self._awareness.get_local_state()
            if state is not None:  # the same state under a new clock: peers take it as new
                self._awareness.set_local_state(state)
        if state is not None:
            self._resend()
        with self._send_lock:
            self._ws.ping()

    def peers(self) -> dict[int, object]:
        """Every other peer's raw state (our field of its awareness; None if it has none),
        oldest first by when it was last said; a state not renewed for ``OUTDATED_S`` is
        not among them."""
        with self._lock:
            states = dict(self._awareness.states)
            said = {cid: meta.get("lastUpdated", 0) for cid, meta in self._awareness.meta.items()}
        now = time.time() * 1000
        fresh = [cid for cid in states
                 if cid != self.client_id and now - said.get(cid, 0) <= OUTDATED_S * 1000]
        return {cid: (states[cid].get(FIELD) if isinstance(states[cid], dict) else None)
                for cid in sorted(fresh, key=lambda cid: said.get(cid, 0))}

    def cell_sources(self) -> list[str]:
        """The shared notebook's cells' sources, as JupyterLab's document holds them."""
        from pycrdt import Array

        with self._lock:
            cells = self._doc.get("cells", type=Array)
            return [str(cell["source"]) for cell in cells]

    # -------------------------------------------------------------------- internals

    def _session(self) -> dict[str, str]:
        body = json.dumps({"format": "json", "type": "notebook"}).encode()
        url = self.server + "api/collaboration/session/" + urllib.parse.quote(self.path)
        request = urllib.request.Request(url, data=body, method="PUT", headers={
            "Authorization": f"token {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                session = json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            why = {403: "the server refused the token", 404: "the server has no such lesson, "
                   "or no collaboration layer (pip install jupyter-collaboration)"}
            raise LiveRoomError(f"could not share {self.path} on {self.server}: "
                                f"{why.get(exc.code, f'HTTP {exc.code}')}") from exc
        except (OSError, ValueError) as exc:
            raise LiveRoomError(f"could not reach {self.server}: {exc}") from exc
        if not isinstance(session, dict) or not all(
                isinstance(session.get(k), str) for k in ("fileId", "sessionId")):
            raise LiveRoomError(f"{self.server} answered an unexpected session: {session!r}")
        return session

    def _send(self, data: bytes) -> None:
        with self._send_lock:
            self._ws.send_binary(data)

    def _read(self) -> None:
        import websocket

        while not self._closed.is_set():
            try:
                message = self._ws.recv()
            except (OSError, websocket.WebSocketException):
                break
            if not isinstance(message, bytes) or not message:
                continue
            try:
                self._handle(message)
            except Exception as exc:  # noqa: BLE001 (a peer's bytes must not end the room)
                log.warning("live room %s: dropped a message that could not be applied: %s",
                            self.path, exc)
        self._closed.set()
        self._notify()

    def _handle(self, message: bytes) -> None:
        from pycrdt import YMessageType, YSyncMessageType, handle_sync_message, read_message

        if len(message) > MAX_MESSAGE_BYTES:
            raise ValueError(f"{len(message)} bytes, over {MAX_MESSAGE_BYTES}")
        if message[0] == YMessageType.SYNC:
            with self._lock:
                reply = handle_sync_message(message[1:], self._doc)
            if reply is not None:
                self._send(reply)
            if len(message) > 1 and message[1] == YSyncMessageType.SYNC_STEP2:
                self._synced.set()
        elif message[0] == YMessageType.AWARENESS:
            with self._lock:
                self._awareness.apply_awareness_update(read_message(message[1:]), "remote")
                new = set(self._awareness.states) - self._seen - {self.client_id}
                self._seen.update(new)
                mine = self._awareness.get_local_state()
            if new and mine is not None:
                self._resend()
            self._notify()

    def _notify(self) -> None:
        if self.on_peers is not None:
            self.on_peers(self.peers())
