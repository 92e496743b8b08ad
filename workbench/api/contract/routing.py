"""Requests in flight: pending replies by id, superseding by key, the outbox, and which shell
messages keep the kernel busy.

A key has at most one request in the kernel at a time. A newer request of a key
waits in the outbox until the one in the kernel answers, and a still newer one
replaces it there: a superseded request never reaches the kernel, so twenty quick
edits run the source's top level twice (the one already running, then the last),
not twenty times. The outbox keeps the order requests were made in, and also holds
everything made before the kernel is ready.

Everything but ``mark_sent`` and ``is_current`` belongs to the client's I/O thread.
Those two run on the caller's thread, so that a reply already handed to another
thread (the GUI's queue) can still be dropped when a newer request of its key
went out after it arrived.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbench.api import messages as p


@dataclass
class Pending:
    """A request waiting for its reply, and whom to tell."""

    request: p.Request
    on_reply: Callable[[p.Reply], None] | None
    on_event: Callable[[p.Event], None] | None
    key: str | None
    quiet: bool = False  # the silent reload after a restart
    internal: bool = False  # the client's own (Stop's device probe): no notices, no counts
    sent_at: float = 0.0  # time.monotonic() when it went to the kernel; 0: not yet


class Stats:
    """What happened to a client, counted for tests and benchmarks."""

    def __init__(self) -> None:
        self.dropped_replies = 0
        self.restarts = 0
        self.crashes = 0
        self.log_rotations = 0


class Router:
    """The pending requests of one client, who supersedes whom, and what keeps the kernel busy."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self.pending: dict[str, Pending] = {}
        self.outbox: list[tuple[str, dict[str, Any], list[Any]]] = []
        self.outstanding: set[str] = set()  # our shell messages not yet idle
        self.busy_parents: set[str] = set()  # anyone's, from iopub status
        self._latest: dict[str, str] = {}  # per key, the pending request sent last
        self._abandoned: set[str] = set()
        self._current: dict[str, str] = {}  # per key, the id of the request sent last (any thread)
        self._in_kernel: dict[str, str] = {}  # per key, the request in the kernel, unanswered
        self._key_of: dict[str, str] = {}  # the key of each request in ``_in_kernel``
        self._carrier: dict[str, str] = {}  # shell msg_id -> the request it carries
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ any thread

    def mark_sent(self, key: str, rid: str) -> None:
        """``rid`` is now the request of ``key`` whose reply counts (called as it is queued)."""
        with self._lock:
            self._current[key] = rid

    def is_current(self, key: str, rid: str) -> bool:
        """Whether no request of ``key`` went out after ``rid``: its reply is still wanted."""
        with self._lock:
            return self._current.get(key) == rid

    # ------------------------------------------------------------------ the I/O thread

    @property
    def busy(self) -> bool:
        """Something of ours, or anyone's, is still running in the kernel."""
        return bool(self.pending or self.outstanding or self.busy_parents)

    def add(self, pending: Pending) -> None:
        """Wait for ``pending``'s reply; an older request of its key is abandoned."""
        rid = pending.request.id
        if pending.key is not None:
            old = self._latest.get(pending.key)
            if old is not None and old in self.pending:
                del self.pending[old]
                self._abandoned.add(old)
            self._latest[pending.key] = rid
        self.pending[rid] = pending

    def take(self, rid: str) -> Pending | None:
        """The pending request ``rid`` answers, removed; None for an abandoned (counted) or
        unknown one."""
        pending = self.pending.pop(rid, None)
        if pending is None and rid in self._abandoned:
            self._abandoned.discard(rid)
            self.stats.dropped_replies += 1
        return pending

    def answered(self, pending: Pending) -> None:
        """``pending`` got its reply: its key has no request in flight any more."""
        key, rid = pending.key, pending.request.id
        if key is not None and self._latest.get(key) == rid:
            del self._latest[key]

    def abandon_all(self) -> dict[str, Pending]:
        """Forget every pending request (their late replies are dropped); return them."""
        pending, self.pending = self.pending, {}
        self._latest.clear()
        self._abandoned.update(pending)
        return pending

    def release(self, rid: str) -> None:
        """The reply to an abandoned ``rid`` was taken by whoever answers it now (a Stop holds
        the requests it interrupted): it is not dropped."""
        self._abandoned.discard(rid)

    def queue(self, rid: str, data: dict[str, Any], buffers: list[Any]) -> None:
        """``rid`` (already ``add``ed) goes to the kernel in its turn (``take_outbox``)."""
        self.outbox.append((rid, data, buffers))

    def take_outbox(self) -> list[tuple[str, dict[str, Any], list[Any]]]:
        """The queued requests that may go to the kernel now, in order, taken from the outbox
        (``carried`` should be told the shell message that takes each).

        Those superseded or stopped while they waited are dropped. The first one whose
        key still has a request in the kernel stops the taking: it and everything made
        after it wait for that answer (``settled``).
        """
        ready: list[tuple[str, dict[str, Any], list[Any]]] = []
        now = time.monotonic()
        while self.outbox:
            rid, data, buffers = self.outbox[0]
            pending = self.pending.get(rid)
            if pending is not None and pending.key is not None and pending.key in self._in_kernel:
                break
            self.outbox.pop(0)
            if pending is None:
                self._abandoned.discard(rid)  # never sent: no reply will come to drop
                continue
            pending.sent_at = now  # the caller sends them now
            if pending.key is not None:
                self._in_kernel[pending.key] = rid
                self._key_of[rid] = pending.key
            ready.append((rid, data, buffers))
        return ready

    def carried(self, msg_id: str, rid: str) -> None:
        """The shell message ``msg_id`` took ``rid`` to the kernel: when the kernel is idle
        after it, ``rid``'s key is free even if its reply was lost (an interrupt while the
        kernel sent it), and a reply lost with a server's socket is known (``lost``)."""
        self._carrier[msg_id] = rid

    def settled(self, rid: str) -> None:
        """The kernel answered ``rid`` (wanted or not): its key may send its next request."""
        key = self._key_of.pop(rid, None)
        if key is not None and self._in_kernel.get(key) == rid:
            del self._in_kernel[key]

    def status(self, parent: str, execution_state: str | None) -> None:
        """An iopub status message: ``parent`` runs, or is done."""
        if execution_state == "busy":
            self.busy_parents.add(parent)
        elif execution_state == "idle":
            self.busy_parents.discard(parent)
            self.outstanding.discard(parent)
            rid = self._carrier.pop(parent, None)
            if rid is not None:
                self.settled(rid)  # its reply came before this idle, or never will

    def lost(self, msg_id: str) -> Pending | None:
        """The shell message ``msg_id`` is done, and the request it carried still waits: its
        reply was lost (a dropped connection the server could not replay). Taken."""
        rid = self._carrier.get(msg_id)
        if rid is None:
            return None
        pending = self.pending.get(rid)
        if pending is None:
            return None
        del self.pending[rid]
        if pending.key is not None and self._latest.get(pending.key) == rid:
            del self._latest[pending.key]
        return pending

    def forget(self, msg_id: str) -> None:
        """``msg_id`` no longer keeps the kernel busy (Stop's probe, answered)."""
        self.outstanding.discard(msg_id)
        self.busy_parents.discard(msg_id)

    def clear_in_flight(self) -> None:
        """A new connection: no shell message of the old one is running."""
        self.outstanding.clear()
        self.busy_parents.clear()
        self._in_kernel.clear()
        self._key_of.clear()
        self._carrier.clear()
