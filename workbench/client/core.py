"""What the parts of one engine client share on its I/O thread: the transport, the requests in
flight, the lifecycle state, the readiness of the current connection and the callbacks.

``EngineClient`` (``engine_client``) drives it; ``supervision`` and ``stop`` read
and change it. Callbacks run on the I/O thread, and a callback's bug is printed,
never allowed to kill that thread.
"""

from __future__ import annotations

import contextlib
import time
import traceback
from collections.abc import Callable
from typing import Any

from workbench.api import messages as p
from workbench.api.contract.routing import Pending, Router, Stats
from workbench.api.state import Notice, NoticeKind, State
from workbench.client.transport import ChannelRefused, Transport

# A notice about how an attached kernel is reached (a file others can read, every address).
SETUP_WARNING = NoticeKind.WARNING


class Core:
    """The shared state of one client's connection to its kernel."""

    def __init__(self, *, owned: bool, host: str | None,
                 on_state: Callable[[State], None] | None,
                 on_notice: Callable[[Notice], None] | None,
                 on_output: Callable[[p.Output], None] | None,
                 transport: Transport | None = None) -> None:
        self.owned = owned
        self.host = host
        self.on_state = on_state
        self.on_notice = on_notice
        self.on_output = on_output
        self.stats = Stats()
        self.router = Router(self.stats)
        self.transport = transport or Transport()
        self.state = State.STARTING
        self.comm_id = ""
        self.ready = False
        self.got_info = False
        self.iopub_seen = False
        self.info_sent_at = 0.0
        self.launched_at = 0.0
        self.heard = False  # a correctly signed message arrived: the key is right
        self.kernel_session = ""  # the kernel process's session id, from its messages
        self.stale_session: str | None = None  # a restarted kernel's old one: ignored
        self.restart_until: float | None = None  # an attached kernel restarting: back by then
        self.dead_reason = ""
        self.client_failed = False  # dead because something on the I/O thread raised
        self.unresponsive = False
        self.interrupt_deadline: float | None = None  # a Stop in progress: idle by then
        # The requests a Stop in progress interrupted: answered when it ends (``stop``).
        self.held: dict[str, Pending] = {}
        # The names the user's code ran under here (LoadSource's filename): a crash's
        # fault text shows their frames only.
        self.user_files: set[str] = set()
        self.loaded_file = ""  # the last source that loaded: the functions' file

    def emit(self, callback: Callable[..., None] | None, *args: Any) -> None:
        """Call ``callback``; its exception is printed, never raised into the I/O thread."""
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:  # noqa: BLE001 - a callback's bug must not kill the engine thread
            traceback.print_exc()

    def set_state(self, state: State) -> None:
        if state != self.state:
            self.state = state
            self.emit(self.on_state, state)

    def notice(self, kind: NoticeKind, message: str, fault: str = "") -> None:
        self.emit(self.on_notice, Notice(kind, message, fault))

    def refresh_state(self) -> None:
        """The state that follows from readiness, a Stop in progress and what is in flight."""
        if self.state == State.DEAD:
            return
        if not self.ready:
            return
        if self.unresponsive:
            self.set_state(State.UNRESPONSIVE)
        elif self.interrupt_deadline is not None:
            self.set_state(State.INTERRUPTING)
        elif self.router.busy:
            self.set_state(State.BUSY)
        else:
            self.set_state(State.IDLE)

    def fail_all(self, kind: type, message: str, fault: str = "", *,
                 crashed: bool = False) -> None:
        """Answer every pending request with ``kind`` (Cancelled or EngineFailure; ``crashed``:
        the engine died under it)."""
        held, self.held = self.held, {}
        for rid, item in {**held, **self.router.abandon_all()}.items():
            if item.quiet or item.internal:
                continue
            if kind is p.Cancelled:
                self.emit(item.on_reply, p.Cancelled(rid, message))
            else:
                self.emit(item.on_reply, p.EngineFailure(rid, message, fault, crashed=crashed))

    def die(self, reason: str, fault: str = "") -> None:
        """The engine is gone for good (an attached kernel is never restarted on its own)."""
        self.dead_reason = reason
        self.restart_until = None
        self.fail_all(p.EngineFailure, reason, fault)
        self.set_state(State.DEAD)
        self.notice(NoticeKind.DEAD, reason, fault)

    def send_comm(self, data: dict[str, Any], buffers: list[Any]) -> str:
        """Send an encoded request on our comm; the shell message's id (busy until idle)."""
        msg_id = self.transport.send("shell", "comm_msg",
                                     {"comm_id": self.comm_id, "data": data}, buffers)
        self.router.outstanding.add(msg_id)
        return msg_id

    def send_kernel_info(self) -> None:
        self.probe("shell", "kernel_info_request")
        self.info_sent_at = time.monotonic()

    def probe(self, channel: str, msg_type: str) -> None:
        """Send a request that only asks (kernel_info, connect). A channel that takes no
        messages (swapped ports) leaves it to the other channel's answer, or to the connect
        timeout, to say why."""
        with contextlib.suppress(ChannelRefused):
            self.transport.send(channel, msg_type, {})
