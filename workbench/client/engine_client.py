"""The GUI's side of the engine: a kernel process, its lifecycle, and requests that never block.

``EngineClient()`` starts ``python -m workbench.engine.kernel`` on ``transport="ipc"``
in a private runtime folder (``launch``): no TCP port is opened.
``EngineClient(connection_file=..., ssh=...)`` attaches to a kernel started
elsewhere (a GPU host; see the README), through an SSH tunnel if asked
(``attach``). An attached kernel is interrupted through its control channel
(``interrupt_request``: it may be on another machine); it is restarted only when
the user asks (``restart()``), and one that dies is reported, never restarted
(``supervision``).

All socket work happens on the client's own thread (``transport``); ``request``
only queues. Callbacks (``on_reply``, ``on_event``, ``on_state``, ``on_notice``,
``on_output``) run on that thread: keep them short and hand over to your own
thread (the GUI re-emits them as Qt signals).

Lifecycle: starting -> idle <-> busy; ``stop()`` -> interrupting -> idle, or,
if the kernel is still busy after ``stop_grace`` or its devices still have
queued work, restarting -> idle with the last good editor source loaded again
(``stop``). A kernel that dies is noticed within a poll interval, reported with
its fault text and restarted; a crash loop stops the engine (dead) after
``max_restarts``. A kernel whose heartbeat stops is unresponsive until it
answers again; Stop restarts it.

Whatever raises on the I/O thread (a bug, a kernel that cannot be started) ends
every pending request with ``EngineFailure`` and leaves the engine dead with the
reason; ``restart()`` starts it again. Should the thread itself end, a request is
answered at once on the caller's thread and ``restart()`` starts a new one.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback
import uuid
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import zmq

from workbench.api import codec
from workbench.api import messages as p
from workbench.api.contract.protocol import CELLS_NOT_RELOADED, reloads
from workbench.api.contract.routing import Pending, Stats
from workbench.api.state import Notice, NoticeKind, State
from workbench.client import attach
from workbench.client.core import Core
from workbench.client.launch import KernelProcess, death_reason, private_connection_file
from workbench.client.server import ServerError, ServerTarget
from workbench.client.server_kernel import (
    RECONNECT_WAITS_S,
    SERVER_HEARTBEAT_TIMEOUT_S,
    SERVER_SHUTDOWN_WAIT_S,
    ServerKernel,
)
from workbench.client.stop import Stopper
from workbench.client.supervision import CONNECT_TIMEOUT_S, CRASH_WINDOW_S, Supervisor
from workbench.client.transport import Transport
from workbench.client.ws_transport import CLOSED


class EngineClient:
    """A kernel running the workbench engine, driven without ever blocking the caller."""

    def __init__(
        self,
        connection_file: str | os.PathLike[str] | None = None,
        *,
        ssh: str | None = None,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        on_state: Callable[[State], None] | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        on_output: Callable[[p.Output], None] | None = None,
        memory_limit: str = "auto",
        output_limit: int | None = None,
        max_restarts: int = 3,
        stop_grace: float = 1.0,
        heartbeat_timeout: float = 1.5,
        crash_window: float = CRASH_WINDOW_S,
        python: str = sys.executable,
        kernel_args: Sequence[str] = (),
        env: dict[str, str] | None = None,
        server: ServerTarget | None = None,
        kernel_name: str | None = None,
        kernel_id: str | None = None,
    ):
        # A kernel of a Jupyter Server is attached too: the server owns its process.
        self.server = None if server is None else ServerKernel(server, kernel_name, kernel_id)
        self.owned = connection_file is None and server is None
        self.ssh = ssh
        # How the window names the host of an attached kernel; None for our own.
        self.host = (self.server.label if self.server is not None
                     else None if connection_file is None
                     else attach.host_label(connection_file, ssh))
        self._core = core = Core(owned=self.owned, host=self.host, on_state=on_state,
                                 on_notice=on_notice, on_output=on_output,
                                 transport=self.server.transport if self.server else None)
        if self.server is not None:
            self.server.transport.info["ip"] = self.server.label
        self.stats: Stats = core.stats
        self._closing = False
        self._last_source: p.LoadSource | None = None
        self._fresh: str | None = None  # what a restart without a reload is for (its notice)

        self.runtime_dir: Path | None
        self.given_connection_file: Path | None = None
        self._process: KernelProcess | None = None
        if self.server is not None:
            self.runtime_dir = None
            self.connection_file = None
        elif connection_file is None:
            self.runtime_dir, self.connection_file = private_connection_file()
            self._process = KernelProcess(
                self.runtime_dir, self.connection_file, core.stats, python=python,
                memory_limit=memory_limit, output_limit=output_limit, kernel_args=kernel_args,
                env=env)
            core.transport.use_info(attach.read_connection_file(self.connection_file))
        else:
            # Read (and tunnelled) on the I/O thread: a bad file or host becomes a dead engine
            # with its reason, an ssh prompt never blocks the caller.
            self.runtime_dir = None
            self.given_connection_file = Path(connection_file)
            self.connection_file = self.given_connection_file
        if self.server is not None:  # a busy server answers pings late, not never
            heartbeat_timeout = max(heartbeat_timeout, SERVER_HEARTBEAT_TIMEOUT_S)
        self._supervisor = Supervisor(
            core, self._process, self._launch, given_connection_file=self.given_connection_file,
            connect_timeout=connect_timeout, heartbeat_timeout=heartbeat_timeout,
            crash_window=crash_window, max_restarts=max_restarts, server=self.server)
        self._stopper = Stopper(core, self._process,
                                lambda reason: self._supervisor.restart(reason, crash=False),
                                stop_grace,
                                interrupt=self.server.interrupt if self.server else None)

        self._sync: tuple[str, set[str]] | None = None  # after a server reconnect (its id)
        self._reconnect_at: tuple[float, str] | None = None  # the next try, and why
        self._io_lock = threading.RLock()  # a callback run under it may make a request
        self._io_gone = False  # the I/O thread ended: requests are answered on the caller's
        self._thread = self._io_thread(self._launch)
        _LIVE.add(self)
        self._thread.start()

    # ------------------------------------------------------------------ public API (any thread)

    # The callbacks live with the parts that call them; setting one here reaches them.
    @property
    def on_state(self) -> Callable[[State], None] | None:
        return self._core.on_state

    @on_state.setter
    def on_state(self, callback: Callable[[State], None] | None) -> None:
        self._core.on_state = callback

    @property
    def on_notice(self) -> Callable[[Notice], None] | None:
        return self._core.on_notice

    @on_notice.setter
    def on_notice(self, callback: Callable[[Notice], None] | None) -> None:
        self._core.on_notice = callback

    @property
    def on_output(self) -> Callable[[p.Output], None] | None:
        return self._core.on_output

    @on_output.setter
    def on_output(self, callback: Callable[[p.Output], None] | None) -> None:
        self._core.on_output = callback

    @property
    def state(self) -> State:
        return self._core.state

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def attach_warnings(self) -> list[str]:
        """What is unsafe about how the attached kernel is reached (a connection file others
        can read, a kernel on every address), as said so far in notices: once it answered."""
        return list(self._supervisor.said)

    def request(
        self,
        request: p.Request,
        on_reply: Callable[[p.Reply], None] | None = None,
        on_event: Callable[[p.Event], None] | None = None,
        *,
        key: str | None = None,
    ) -> str:
        """Queue ``request``; ``on_reply`` gets exactly one reply unless a later request with
        the same ``key`` supersedes it first (then its reply is dropped). Returns its id."""
        if not isinstance(request, p.Request):
            raise TypeError(f"not a request: {request!r}")
        data, buffers = codec.encode(request)
        pending = Pending(request, on_reply, on_event, key)
        if key is not None:
            self._core.router.mark_sent(key, request.id)
        self._call(lambda: self._submit(pending, data, buffers))
        return request.id

    def is_current(self, key: str, rid: str) -> bool:
        """Whether ``rid`` is still the latest request sent with ``key``: a reply to an older
        one, already on its way to another thread, is to be dropped there."""
        return self._core.router.is_current(key, rid)

    def call(self, request: p.Request, timeout: float = 30.0,
             on_event: Callable[[p.Event], None] | None = None) -> p.Reply:
        """Blocking convenience for scripts, tests and benchmarks (never from a GUI thread)."""
        return p.blocking_call(self.request, request, timeout, on_event)

    def stop(self) -> None:
        """Interrupt what runs; restart the kernel if it is not idle within ``stop_grace``."""
        self._call(self._stopper.stop)

    def restart(self, fresh: str | None = None) -> None:
        """Restart the kernel now and load the editor source again (resets the crash count).

        ``fresh``: start anew for this (a lesson opened, as Jupyter gives a notebook its own
        kernel): nothing is loaded again, and the notice says so with these words.
        An attached kernel is asked through its control channel (``shutdown_request``
        with ``restart: true``); call this only when the user chose it.
        """
        def restart() -> None:
            if fresh is not None:
                self._last_source = None
                self._fresh = fresh
            self._supervisor.restart("restart requested", crash=False, manual=True)

        if not self._revive(restart):
            self._call(restart)

    def close(self, timeout: float = 5.0) -> None:
        """Shut the kernel down (if this client started it) and remove the runtime folder."""
        if self._closing:
            return
        self._closing = True
        self._core.transport.wake()
        if self.server is not None and self.server.started_here:
            timeout = max(timeout, SERVER_SHUTDOWN_WAIT_S)  # its DELETE, or the kernel leaks
        self._thread.join(timeout)
        _LIVE.discard(self)

    def __enter__(self) -> EngineClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ for tests

    @property
    def _info(self) -> dict[str, Any]:
        return self._core.transport.info

    @property
    def _log_file(self) -> IO[bytes] | None:
        return self._process.log_file if self._process is not None else None

    @property
    def _hb_last(self) -> float:
        return self._core.transport.hb_last

    @property
    def _launched_at(self) -> float:
        return self._core.launched_at

    def _call(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the I/O thread (tests send hand-made messages with ``_submit``); once
        that thread has ended, here and now (the engine is dead: a request is answered)."""
        with self._io_lock:
            if not self._io_gone:
                self._core.transport.call(fn)
                return
        _run_reporting(fn)

    def _io_thread(self, first: Callable[[], None]) -> threading.Thread:
        return threading.Thread(target=self._run, args=(first,), name="workbench-engine-client",
                                daemon=True)

    def _revive(self, first: Callable[[], None]) -> bool:
        """If the I/O thread ended on a fault (not a close), start another on new sockets that
        runs ``first``; whether it did."""
        with self._io_lock:
            if not self._io_gone or self._closing:
                return False
            self._io_gone = False
            self._core.transport = (self.server.new_transport() if self.server is not None
                                    else Transport())
            self._thread = self._io_thread(first)
        self._thread.start()
        return True

    # ------------------------------------------------------------------ the I/O thread

    def _run(self, first: Callable[[], None]) -> None:
        core = self._core
        try:
            try:
                first()
            except Exception as exc:  # noqa: BLE001 - a kernel that cannot start: said, not fatal
                self._on_fault(exc)
            core.transport.serve(lambda: self._closing, self._on_message, self._tick,
                                 self._on_fault)
        except Exception as exc:  # noqa: BLE001 - the loop itself failed: report, never hang
            self._on_fault(exc)
        finally:
            _run_reporting(self._shutdown)
            with self._io_lock:  # no revival until what was queued as it ended is answered
                self._io_gone = True
                for command in core.transport.take_commands():
                    _run_reporting(command)

    def _on_fault(self, exc: Exception) -> None:
        """Something on the I/O thread raised: every pending request fails, and the engine is
        dead with the reason until ``restart()`` (ours is started again, an attached one
        reconnected)."""
        core = self._core
        fault = "".join(traceback.format_exception(exc))
        if core.state == State.DEAD:
            print(fault, file=sys.stderr)  # already said why it is dead
            return
        core.client_failed = True
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        core.die(f"the engine client failed ({type(exc).__name__}{': ' * bool(first)}{first}); "
                 "restart the engine to go on", fault)

    def _launch(self) -> None:
        """Start (or attach to) the kernel and connect; readiness arrives as messages."""
        core = self._core
        if self._io_gone or self._closing:
            core.set_state(State.DEAD)  # a restart queued as the client ended: nothing to start
            return
        core.client_failed = False
        core.ready = core.got_info = core.iopub_seen = False
        core.comm_id = uuid.uuid4().hex
        core.router.clear_in_flight()
        core.unresponsive = False
        self._stopper.reset()
        self._supervisor.launched()
        core.transport.hb_ever = False
        if self.server is not None:
            self.server.transport.discard_unsent()  # for a kernel that is gone or restarted
            self._reconnect_at = None  # this launch connects
            self._sync = None
            try:
                self.server.attach(lambda text: core.notice(NoticeKind.WAITING, text))
            except ServerError as exc:
                core.die(str(exc))
                return
        elif not self.owned:
            try:
                self._attach()
            except attach.AttachError as exc:
                core.die(str(exc))
                return
        if self._process is not None:
            self._process.launch()
            self.runtime_dir = self._process.runtime_dir  # made again if it was removed
            if self._process.connection_file != self.connection_file:  # a new key each time
                self.connection_file = self._process.connection_file
                core.transport.use_info(attach.read_connection_file(self.connection_file))
        try:
            core.transport.connect()
        except (OSError, ConnectionError, ValueError) as exc:
            if self.server is None:
                raise
            core.die(f"cannot open {self.server.describe()}'s channels ({exc})")
            return
        core.launched_at = time.monotonic()
        core.send_kernel_info()
        if not self.owned:  # answered even while the shell is busy: proves the key
            core.probe("control", "kernel_info_request")
            # The kernel's own ports, from whichever of the two reaches it: swapped ones are
            # named at once instead of leaving it starting for ever.
            for channel in ("control", "shell"):
                core.probe(channel, "connect_request")

    def _attach(self) -> None:
        """Read the connection file and, with ``ssh``, tunnel to its ports (again after a
        restart: jupyter_client's tunnels close with their last connection)."""
        assert self.given_connection_file is not None
        info = attach.read_connection_file(self.given_connection_file)
        if not self._supervisor.given_info:  # the first attach: said once it answers
            self._supervisor.warnings = attach.attach_warnings(self.given_connection_file,
                                                               info, self.ssh)
        self._supervisor.given_info = info
        if self.ssh:
            info = attach.tunnel(info, self.ssh)
            if self.runtime_dir is None:
                self.runtime_dir = Path(tempfile.mkdtemp(prefix="workbench-ssh-"))
            self.connection_file = attach.write_tunnel_file(info, self.runtime_dir)
        self._core.transport.use_info(info)

    def _on_message(self, channel: str, msg: dict[str, Any]) -> bool:
        """A signed message from the kernel; True when the sockets were replaced."""
        core = self._core
        if channel == CLOSED:
            self._on_server_socket_closed(str(msg.get("reason", "")))
            return True
        session = msg["header"].get("session", "")
        if (self.server is not None and channel != "iopub" and msg["parent_header"].get(
                "session", core.transport.session.session) != core.transport.session.session):
            return False  # a reply to a console that has let go of the socket
        if session == core.transport.session.session and self.server is None:
            # Our own message, echoed: a port in the file is the heartbeat's. (A server
            # echoes nothing, and signs its own status messages with our session id.)
            return False
        if not core.heard:
            core.heard = True
            # Contact: a kernel that has just started may answer before its heartbeat does.
            core.transport.hb_last = time.monotonic()
        if msg["header"]["msg_type"] == "connect_reply" and not self.owned:
            self._supervisor.on_connect_reply(msg["content"])
            return False
        shutdown_id = self._supervisor.shutdown_id
        if channel == "control" and msg["parent_header"].get("msg_id") == shutdown_id:
            self._supervisor.reconnect_after_restart()
            return True
        if core.stale_session is not None and session == core.stale_session:
            return False  # the restarted kernel's old process, still answering
        if channel == "control" and msg["header"].get("msg_type") == p.WHERE_REPLY:
            self._stopper.on_where(msg)
        elif channel == "iopub":
            self._on_iopub(msg)
        elif channel == "shell":
            self._on_shell(msg)
        return False

    def _on_server_socket_closed(self, reason: str) -> None:
        """The server's WebSocket closed: reconnect (the server replays what it held for our
        session, the reply in flight included), unless the kernel itself is gone."""
        core, server = self._core, self.server
        if server is None or self._closing or core.state == State.DEAD:
            return
        if core.state == State.RESTARTING and core.restart_until is not None:
            return  # the server restarts it: the restart reconnects
        try:
            there = server.still_there()
        except ServerError as exc:  # the server itself is unreachable: the kernel may live
            core.die(f"lost the connection to {server.describe()}: {exc}; your text is kept, "
                     "Restart engine tries again")
            return
        if not there:
            what = server.describe()
            server.forget()
            core.die(f"{what} is gone (the server culled it, or it was shut down): "
                     "your text is kept; Restart engine starts a new kernel there")
            return
        self._reconnect(reason)

    def _reconnect(self, reason: str) -> None:
        """One try to open the server's WebSocket again; the next one later (``_tick``),
        waiting longer each time: a server that restarts or a proxy that sheds load is
        not hammered."""
        core, server = self._core, self.server
        assert server is not None
        self._reconnect_at = None
        server.reconnects += 1
        try:
            core.transport.connect()
        except (OSError, ConnectionError, ValueError) as exc:
            reason = f"{reason.split('; opening it again: ')[0]}; opening it again: {exc}"
            if server.reconnects > len(RECONNECT_WAITS_S):
                core.die(f"lost the connection to {server.describe()} ({reason})")
                return
            self._reconnect_at = (time.monotonic() + RECONNECT_WAITS_S[server.reconnects - 1],
                                  reason)
            return
        server.reconnected += 1
        # What ran before the drop may have gone idle unheard: once the kernel is idle
        # after this, everything sent before it is done.
        self._sync = (core.transport.send("shell", "kernel_info_request", {}),
                      set(core.router.outstanding | core.router.busy_parents))

    def _server_kernel_ended(self, kind: str, content: dict[str, Any]) -> bool:
        """The server shut the kernel down (a culler, the user in JupyterLab: it broadcasts
        the kernel's ``shutdown_reply``) or could not restart it (status ``dead``): said,
        and Restart starts a new kernel there. The WebSocket stays open meanwhile. A
        restart someone else asked for, or the server's after a crash: followed."""
        core, server = self._core, self.server
        assert server is not None
        state = content.get("execution_state") if kind == "status" else None
        ended = (kind == "shutdown_reply" and content.get("restart") is False) or state == "dead"
        if core.state in (State.DEAD, State.RESTARTING) or self._closing:
            return False
        if state == "restarting":  # the kernel died and the server's auto-restarter revives it
            self._supervisor.server_restarted_it()
            return True
        if kind == "shutdown_reply" and content.get("restart") is True:
            self._supervisor.server_restarted_elsewhere()  # ours would be RESTARTING already
            return True
        if not ended:
            return False
        what = server.describe()
        server.forget()
        core.die(f"{what} is gone (the server culled it, or it was shut down): your text is "
                 "kept; Restart engine starts a new kernel there")
        return True

    def _synced(self) -> None:
        """The kernel went idle after the request sent as the socket came back: what was
        sent before it is done. A request still unanswered lost its reply with the old
        socket (the server had none to replay): it fails now, not at its timeout."""
        core = self._core
        assert self._sync is not None
        for msg_id in self._sync[1]:
            lost = core.router.lost(msg_id)
            if lost is not None and not (lost.quiet or lost.internal):
                what = self.server.describe() if self.server is not None else "the kernel"
                core.emit(lost.on_reply, p.EngineFailure(
                    lost.request.id, f"its reply was lost when the connection to {what} "
                    "dropped: run it again"))
            core.router.status(msg_id, "idle")  # frees a keyed request's key too
        self._sync = None
        if self.server is not None:
            self.server.reconnects = 0
        core.refresh_state()

    def _on_shell(self, msg: dict[str, Any]) -> None:
        core = self._core
        if msg["header"]["msg_type"] == "kernel_info_reply" and not core.ready:
            core.kernel_session = msg["header"].get("session", "")
            core.got_info = True
            self._maybe_ready()

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        core = self._core
        core.iopub_seen = True
        kind = msg["header"]["msg_type"]
        content = msg.get("content", {})
        parent = msg.get("parent_header", {}).get("msg_id", "")
        if self.server is not None and self._server_kernel_ended(kind, content):
            return
        if (self._sync is not None and parent == self._sync[0] and kind == "status"
                and content.get("execution_state") == "idle"):
            self._synced()  # iopub: after every reply published before it
        if kind == "status":
            core.router.status(parent, content.get("execution_state"))
            self._send_queued()  # a key its request's idle freed (its reply may be lost)
            self._maybe_ready()
            core.refresh_state()
        elif kind == "comm_msg" and content.get("comm_id") == core.comm_id:
            self._on_comm(content.get("data"), msg.get("buffers") or [])
        elif kind == "comm_close" and content.get("comm_id") == core.comm_id:
            core.die("this kernel does not run the workbench engine "
                     "(start it with python -m workbench.engine.kernel)")
        else:
            self._maybe_ready()

    def _maybe_ready(self) -> None:
        core = self._core
        if core.ready or not core.got_info:
            return
        if not core.iopub_seen:
            return
        core.ready = True
        self._supervisor.became_ready()
        core.restart_until = None
        core.stale_session = None
        core.transport.send("shell", "comm_open",
                            {"comm_id": core.comm_id, "target_name": p.COMM_TARGET, "data": {}})
        if self._supervisor.incarnation > 1 or not self.owned:
            self._reload()
        self._send_queued()
        core.refresh_state()

    def _send_queued(self) -> None:
        """Send what may go now (superseded or stopped requests are gone from the outbox)."""
        core = self._core
        if not core.ready:
            return
        for rid, data, buffers in core.router.take_outbox():
            core.router.carried(core.send_comm(data, buffers), rid)

    def _reload(self) -> None:
        """Load the last good editor source again, silently (after a restart or attach)."""
        core, supervisor = self._core, self._supervisor
        if not reloads(self._last_source):
            notice, supervisor.reload_notice = supervisor.reload_notice, None
            fresh, self._fresh = self._fresh, None
            if fresh is None and self._last_source is not None:
                fresh = CELLS_NOT_RELOADED  # a lesson step: nothing runs on its own
            if notice is not None:
                core.emit(core.on_notice, notice if fresh is None
                          else Notice(notice.kind, fresh, notice.fault))
            return
        assert self._last_source is not None
        request = p.LoadSource(source=self._last_source.source,
                               filename=self._last_source.filename)
        data, buffers = codec.encode(request)
        core.router.add(Pending(request, None, None, None, quiet=True))
        supervisor.reload_id = request.id
        core.send_comm(data, buffers)

    def _submit(self, pending: Pending, data: dict[str, Any], buffers: list[Any]) -> None:
        core = self._core
        rid = pending.request.id
        if core.state == State.DEAD:
            core.emit(pending.on_reply, p.EngineFailure(
                rid, core.dead_reason or "the engine is not running"))
            return
        if isinstance(pending.request, p.LoadSource):
            core.user_files.add(pending.request.filename)
        core.router.add(pending)
        core.router.queue(rid, data, buffers)
        self._send_queued()
        core.refresh_state()

    def _on_comm(self, data: Any, buffers: list[Any]) -> None:
        core = self._core
        try:
            value = codec.decode(data, buffers)
        except codec.ProtocolError as exc:
            body = data.get("body") if isinstance(data, dict) else None
            fields = body.get("fields") if isinstance(body, dict) else None
            bad_id = fields.get("id") if isinstance(fields, dict) else None
            if isinstance(bad_id, str):
                core.router.settled(bad_id)
                self._send_queued()
            if isinstance(bad_id, str) and bad_id in core.router.pending:
                self._finish(core.router.pending.pop(bad_id),
                             p.EngineFailure(bad_id, f"bad reply: {exc}"))
            return
        rid = getattr(value, "id", "")
        if isinstance(value, p.Output) and value.background:
            core.emit(core.on_output, value)  # a thread's, not the request's: the console's
            return
        if isinstance(value, p.Event):
            waiting = core.router.pending.get(rid)
            if waiting is None:
                return
            if waiting.on_event is not None:
                core.emit(waiting.on_event, value)
            elif isinstance(value, p.Output) and not waiting.quiet:
                core.emit(core.on_output, value)
            return
        if isinstance(value, p.Reply):
            core.router.settled(rid)
            self._send_queued()  # the next request of its key, waiting behind it
        if isinstance(value, p.Reply) and self._stopper.take_reply(value):
            return  # a request Stop interrupted: answered when the Stop ends
        pending = core.router.take(rid)
        if pending is None:
            return
        self._finish(pending, value)
        core.refresh_state()

    def _finish(self, pending: Pending, reply: p.Reply) -> None:
        core, supervisor = self._core, self._supervisor
        request = pending.request
        if pending.internal:
            core.emit(pending.on_reply, reply)
            return
        ok = isinstance(reply, p.Result)
        supervisor.answered(request.id, pending.quiet, ok)
        core.router.answered(pending)
        if isinstance(request, p.LoadSource) and ok:
            self._last_source = request
            core.loaded_file = request.filename
        if pending.quiet:
            notice = supervisor.reload_notice or Notice(NoticeKind.RESTARTED, "engine restarted")
            supervisor.reload_notice = None
            if ok:
                core.emit(core.on_notice, Notice(notice.kind,
                                                 notice.message + ", definitions reloaded",
                                                 notice.fault, reloaded=True))
            else:
                core.emit(core.on_notice, notice)
                core.notice(NoticeKind.RELOAD_FAILED,
                            "the editor source could not be loaded again: "
                            + p.reply_text(reply))
            return
        core.emit(pending.on_reply, reply)

    def _tick(self) -> None:
        core = self._core
        now = time.monotonic()
        if core.state == State.DEAD:
            return
        if (self._reconnect_at is not None and now >= self._reconnect_at[0]
                and core.state != State.RESTARTING):  # a restart connects on its own
            self._reconnect(self._reconnect_at[1])
        if self._process is not None and self._process.exited():
            self._supervisor.on_death(death_reason(self._process.returncode))
            return
        if core.ready or not self.owned:
            self._supervisor.heartbeat(now)
            if core.state == State.DEAD:
                return
        if not self.owned and not core.ready and self._supervisor.check_attaching(now):
            return
        if not core.ready and core.got_info and now - core.info_sent_at > 0.2:
            core.send_kernel_info()  # iopub not subscribed yet: status messages prove it
        self._stopper.tick(now)

    def _shutdown(self) -> None:
        core = self._core
        transport = core.transport
        if not self.owned and core.ready and core.state != State.DEAD:
            # The kernel lives on: close our comm there, or its endpoint stays behind.
            with contextlib.suppress(zmq.ZMQError, OSError, ConnectionError):
                transport.send("shell", "comm_close", {"comm_id": core.comm_id, "data": {}})
                shell = transport.sockets.get("shell")
                if shell is not None:
                    shell.close(linger=500)
        transport.close_sockets()
        if self.server is not None:
            self.server.shutdown()
        if self._process is not None:
            self._process.terminate()
        if self.runtime_dir is not None:
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
        core.fail_all(p.Cancelled, "engine closed")
        core.state = State.DEAD
        transport.close()


_LIVE: weakref.WeakSet[EngineClient] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for client in list(_LIVE):
        with contextlib.suppress(Exception):
            client.close(2.0)


def _run_reporting(fn: Callable[[], None]) -> None:
    """Run ``fn`` here; its exception is printed (a caller never gets the I/O thread's)."""
    try:
        fn()
    except Exception:  # noqa: BLE001
        traceback.print_exc()


if TYPE_CHECKING:  # mypy: it is an engine client as the window's bridge uses one
    from workbench.api.contract.protocol import EngineClientProtocol

    _CHECK: type[EngineClientProtocol] = EngineClient
