"""The GUI's side of the engine: a kernel process, its lifecycle, and requests that never block.

``EngineClient()`` starts ``python -m workbench.engine.kernel`` on ``transport="ipc"``
in a private runtime folder (0700; connection file 0600): no TCP port is
opened. ``EngineClient(connection_file=..., ssh=...)`` attaches to a kernel
started elsewhere (a GPU host; see the README), through an SSH tunnel if asked
(``api.attach``). An attached kernel is interrupted through its control channel
(``interrupt_request``: it may be on another machine); it is restarted only when
the user asks (``restart()``: ``shutdown_request`` with ``restart: true``, which
the workbench kernel answers by starting afresh on the same ports), and one
that dies is reported, never restarted.

All socket work happens on the client's own thread; ``request`` only queues.
Callbacks (``on_reply``, ``on_event``, ``on_state``, ``on_notice``,
``on_output``) run on that thread: keep them short and hand over to your own
thread (the GUI re-emits them as Qt signals).

Lifecycle: starting -> idle <-> busy; ``stop()`` -> interrupting -> idle, or,
if the kernel is still busy after ``stop_grace`` (a jitted computation
ignores SIGINT) or its devices still have queued work (JAX dispatches
asynchronously: an interrupted Python loop leaves it running), restarting ->
idle with the last good editor source loaded again. A kernel that dies (exit,
abort, segfault, SIGKILL) is noticed within a poll interval, reported with
its fault text and restarted; crashes during a reload or shortly after it
count as a crash loop, which stops the engine (dead) after ``max_restarts``.
A kernel whose heartbeat stops (SIGSTOP, a deadlock in C code) is
unresponsive until it answers again; Stop restarts it.
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import os
import queue
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
import uuid
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.connect import write_connection_file
from jupyter_client.launcher import launch_kernel
from jupyter_client.session import Session

from workbench.api import attach, codec
from workbench.api import messages as p
from workbench.api.devices import DevicesQuiet
from workbench.api.process_env import engine_env

POLL_S = 0.05
HEARTBEAT_PERIOD_S = 0.5
CRASH_WINDOW_S = 15.0  # a crash this soon after a reload, with no success since, is a loop
LOG_LIMIT = 4 * 2**20  # bytes of kernel log on disk before it is rotated
LOG_KEEP = 256 * 2**10  # bytes of the old log kept in kernel-N.log.1
CONNECT_TIMEOUT_S = 5.0  # an attached kernel that answers nothing signed by then: wrong key
RESTART_TIMEOUT_S = 60.0  # an attached kernel asked to restart must answer again within this
SHUTDOWN_REPLY_WAIT_S = 2.0  # then reconnect even without the old process's shutdown_reply
INFO_RESEND_S = 0.5  # an attached kernel's kernel_info_request, again until one answers


class State(enum.StrEnum):
    STARTING = "starting"
    IDLE = "idle"
    BUSY = "busy"
    INTERRUPTING = "interrupting"
    RESTARTING = "restarting"
    UNRESPONSIVE = "unresponsive"
    DEAD = "dead"


@dataclass(frozen=True)
class Notice:
    """Something the user should read: ``kind`` is crashed, restarted, stopped, stop-failed,
    reload-failed, unresponsive, responding or dead; ``fault`` holds the engine's last words
    (faulthandler output). ``offer_restart``: Stop could not stop an attached kernel, and
    ``restart()`` would (the user must choose it: its names are lost)."""

    kind: str
    message: str
    fault: str = ""
    offer_restart: bool = False


@dataclass
class _Pending:
    request: p.Request
    on_reply: Callable[[p.Reply], None] | None
    on_event: Callable[[p.Event], None] | None
    key: str | None
    quiet: bool = False  # the silent reload after a restart
    internal: bool = False  # the client's own (Stop's device probe): no notices, no counts


class _Stats:
    def __init__(self) -> None:
        self.dropped_replies = 0
        self.restarts = 0
        self.crashes = 0
        self.log_rotations = 0


def _death_reason(returncode: int | None) -> str:
    if returncode is None:
        return "the engine stopped answering"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        words = {"SIGSEGV": "segmentation fault", "SIGABRT": "aborted",
                 "SIGKILL": "killed from outside", "SIGBUS": "bus error",
                 "SIGTERM": "terminated"}
        return f"{words.get(name, 'killed')} ({name})"
    return f"exited with status {returncode}"


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
    ):
        self.on_state = on_state
        self.on_notice = on_notice
        self.on_output = on_output
        self.owned = connection_file is None
        self.ssh = ssh
        self.connect_timeout = connect_timeout
        # How the window names the host of an attached kernel; None for our own.
        self.host = None if self.owned else attach.host_label(connection_file, ssh)
        self.memory_limit = memory_limit
        self.output_limit = output_limit
        self.max_restarts = max_restarts
        self.stop_grace = stop_grace
        self.heartbeat_timeout = heartbeat_timeout
        self.crash_window = crash_window
        self.python = python
        self.kernel_args = tuple(kernel_args)
        self.env = env
        self.stats = _Stats()

        self._state = State.STARTING
        self._closing = False
        self._commands: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._ctx = zmq.Context()
        self._sockets: dict[str, zmq.Socket] = {}
        self._poller = zmq.Poller()
        self._poller.register(self._wake_r, zmq.POLLIN)  # commands, even with no sockets yet
        self._proc: Any = None
        self._incarnation = 0
        self._log_file: Any = None

        self.runtime_dir: Path | None
        if self.owned:
            self.runtime_dir = Path(tempfile.mkdtemp(prefix="workbench-"))  # mode 0700
            os.chmod(self.runtime_dir, 0o700)
            self.connection_file = self.runtime_dir / "kernel.json"
            write_connection_file(str(self.connection_file), transport="ipc",
                                  ip=str(self.runtime_dir / "ipc"),
                                  key=secrets.token_hex(32).encode())
            os.chmod(self.connection_file, 0o600)
        else:
            # Read (and tunnelled) on the I/O thread: a bad file or host becomes a dead engine
            # with its reason, an ssh prompt never blocks the caller.
            self.runtime_dir = None
            self.given_connection_file = Path(connection_file)  # type: ignore[arg-type]
            self.connection_file = self.given_connection_file
        self._info: dict[str, Any] = {}
        self._session = Session(key=secrets.token_hex(16).encode())  # replaced by _use_info
        if self.owned:
            self._use_info(attach.read_connection_file(self.connection_file))

        # Everything below belongs to the I/O thread.
        self._pending: dict[str, _Pending] = {}
        self._latest: dict[str, str] = {}
        self._abandoned: set[str] = set()
        self._outbox: list[tuple[str, dict[str, Any], list[Any]]] = []
        self._outstanding: set[str] = set()  # our shell messages not yet idle
        self._busy_parents: set[str] = set()  # anyone's, from iopub status
        self._comm_id = ""
        self._ready = False
        self._got_info = False
        self._iopub_seen = False
        self._info_sent_at = 0.0
        self._launched_at = 0.0
        self._interrupt_deadline: float | None = None
        self._crashes_in_row = 0
        self._ready_since = 0.0
        self._reload_id: str | None = None
        self._reload_done_at = 0.0
        self._probe_id: str | None = None
        self._probe_msg: str | None = None
        self._unresponsive = False
        self._answered_since_launch = False
        self._last_source: p.LoadSource | None = None
        self._reload_notice: Notice | None = None
        self._hb_sent: float | None = None
        self._hb_last = 0.0
        self._hb_ever = False  # the heartbeat answered at least once since the last launch
        self._heard = False  # a correctly signed message arrived: the key is right
        self._dead_reason = ""
        self._kernel_session = ""  # the kernel process's session id, from its messages
        self._stale_session: str | None = None  # a restarted kernel's old one: ignored
        self._restart_until: float | None = None  # an attached kernel restarting: back by then
        self._shutdown_id: str | None = None  # our shutdown_request, its reply not yet seen
        self._shutdown_sent_at = 0.0
        self._started = threading.Event()

        self._thread = threading.Thread(target=self._run, name="workbench-engine-client",
                                        daemon=True)
        _LIVE.add(self)
        self._thread.start()

    # ------------------------------------------------------------------ public API (any thread)

    @property
    def state(self) -> State:
        return self._state

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

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
        pending = _Pending(request, on_reply, on_event, key)
        self._call(lambda: self._submit(pending, data, buffers))
        return request.id

    def call(self, request: p.Request, timeout: float = 30.0,
             on_event: Callable[[p.Event], None] | None = None) -> p.Reply:
        """Blocking convenience for scripts, tests and benchmarks (never from a GUI thread)."""
        done = threading.Event()
        box: list[p.Reply] = []

        def on_reply(reply: p.Reply) -> None:
            box.append(reply)
            done.set()

        self.request(request, on_reply, on_event)
        if not done.wait(timeout):
            raise TimeoutError(f"no reply to {type(request).__name__} within {timeout} s")
        return box[0]

    def stop(self) -> None:
        """Interrupt what runs; restart the kernel if it is not idle within ``stop_grace``."""
        self._call(self._do_stop)

    def restart(self) -> None:
        """Restart the kernel now and load the editor source again (resets the crash count).

        An attached kernel is asked through its control channel (``shutdown_request``
        with ``restart: true``); call this only when the user chose it.
        """
        self._call(lambda: self._do_restart("restart requested", crash=False, manual=True))

    def close(self, timeout: float = 5.0) -> None:
        """Shut the kernel down (if this client started it) and remove the runtime folder."""
        if self._closing:
            return
        self._closing = True
        self._wake()
        self._thread.join(timeout)
        _LIVE.discard(self)

    def __enter__(self) -> EngineClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ plumbing

    def _call(self, fn: Callable[[], None]) -> None:
        self._commands.put(fn)
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"x")

    def _emit(self, callback: Callable[..., None] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:  # noqa: BLE001 - a callback's bug must not kill the engine thread
            traceback.print_exc()

    def _set_state(self, state: State) -> None:
        if state != self._state:
            self._state = state
            self._emit(self.on_state, state)

    def _notice(self, kind: str, message: str, fault: str = "") -> None:
        self._emit(self.on_notice, Notice(kind, message, fault))

    def _refresh_state(self) -> None:
        if self._state == State.DEAD:
            return
        if not self._ready:
            return
        if self._unresponsive:
            self._set_state(State.UNRESPONSIVE)
        elif self._interrupt_deadline is not None:
            self._set_state(State.INTERRUPTING)
        elif self._pending or self._outstanding or self._busy_parents:
            self._set_state(State.BUSY)
        else:
            self._set_state(State.IDLE)

    # ------------------------------------------------------------------ the I/O thread

    def _run(self) -> None:
        try:
            self._launch()
            while not self._closing:
                events = dict(self._poller.poll(int(POLL_S * 1000)))
                if self._wake_r in events:
                    os.read(self._wake_r, 4096)
                    while True:
                        try:
                            command = self._commands.get_nowait()
                        except queue.Empty:
                            break
                        command()
                for name in ("shell", "control", "iopub", "hb"):
                    sock = self._sockets.get(name)
                    if sock is not None and sock in events:
                        self._drain(name, sock)
                self._tick()
        except Exception:  # noqa: BLE001 - report, never hang the GUI
            self._fail_all(p.EngineFailure, "engine client failed")
            self._set_state(State.DEAD)
            self._notice("dead", "the engine client failed", traceback.format_exc())
        finally:
            self._shutdown()

    def _launch(self) -> None:
        """Start (or attach to) the kernel and connect; readiness arrives as messages."""
        self._ready = False
        self._got_info = False
        self._iopub_seen = False
        self._comm_id = uuid.uuid4().hex
        self._outstanding.clear()
        self._busy_parents.clear()
        self._unresponsive = False
        self._probe_id = self._probe_msg = None
        self._answered_since_launch = False
        self._hb_ever = False
        if not self.owned:
            try:
                self._attach()
            except attach.AttachError as exc:
                self._die(str(exc))
                return
        if self.owned:
            assert self.runtime_dir is not None
            self._incarnation += 1
            self._fault_path = self.runtime_dir / f"fault-{self._incarnation}.txt"
            log_path = self.runtime_dir / f"kernel-{self._incarnation}.log"
            if self._log_file is not None:
                self._log_file.close()
                old = Path(self._log_file.name)  # its fault text is read: bounded disk use
                for path in (old, Path(f"{old}.1")):
                    with contextlib.suppress(OSError):
                        path.unlink()
            # Appending, so that truncating it (rotation) also moves the kernel's writes back.
            self._log_file = open(log_path, "ab")  # noqa: SIM115 - closed on the next launch
            cmd = [self.python, "-m", "workbench.engine.kernel", "-f", str(self.connection_file),
                   "--fault-file", str(self._fault_path), "--memory-limit", self.memory_limit]
            if self.output_limit is not None:
                cmd += ["--output-limit", str(self.output_limit)]
            cmd += list(self.kernel_args)
            env = engine_env(self.env)
            self._proc = launch_kernel(cmd, stdout=self._log_file, stderr=self._log_file,
                                       env=env)
        self._connect()
        self._launched_at = time.monotonic()
        self._hb_last = time.monotonic()
        self._send_kernel_info()
        if not self.owned:  # answered even while the shell is busy: proves the key
            self._session.send(self._sockets["control"], "kernel_info_request", {})

    def _use_info(self, info: dict[str, Any]) -> None:
        self._info = info
        self._session = Session(key=info["key"].encode(),
                                signature_scheme=info.get("signature_scheme", "hmac-sha256"))

    def _attach(self) -> None:
        """Read the connection file and, with ``ssh``, tunnel to its ports (again after a
        restart: jupyter_client's tunnels close with their last connection)."""
        info = attach.read_connection_file(self.given_connection_file)
        if self.ssh:
            info = attach.tunnel(info, self.ssh)
            if self.runtime_dir is None:
                self.runtime_dir = Path(tempfile.mkdtemp(prefix="workbench-ssh-"))
            self.connection_file = attach.write_tunnel_file(info, self.runtime_dir)
        self._use_info(info)

    def _die(self, reason: str, fault: str = "") -> None:
        """The engine is gone for good (an attached kernel is never restarted on its own)."""
        self._dead_reason = reason
        self._restart_until = None
        self._fail_all(p.EngineFailure, reason, fault)
        self._set_state(State.DEAD)
        self._notice("dead", reason, fault)

    def _url(self, channel: str) -> str:
        info = self._info
        port = info[f"{channel}_port"]
        if info.get("transport", "tcp") == "ipc":
            return f"ipc://{info['ip']}-{port}"
        return f"tcp://{info['ip']}:{port}"

    def _connect(self) -> None:
        for sock in self._sockets.values():
            sock.close(linger=0)
        kinds = {"shell": zmq.DEALER, "control": zmq.DEALER, "iopub": zmq.SUB, "hb": zmq.REQ}
        identity = uuid.uuid4().hex.encode()
        self._sockets = {}
        for name, kind in kinds.items():
            sock = self._ctx.socket(kind)
            sock.linger = 0
            if kind == zmq.DEALER:
                sock.identity = identity
            if kind == zmq.SUB:
                sock.setsockopt(zmq.SUBSCRIBE, b"")
            sock.connect(self._url(name))
            self._sockets[name] = sock
        self._poller = zmq.Poller()
        self._poller.register(self._wake_r, zmq.POLLIN)
        for sock in self._sockets.values():
            self._poller.register(sock, zmq.POLLIN)
        self._hb_sent = None

    def _send_kernel_info(self) -> None:
        self._session.send(self._sockets["shell"], "kernel_info_request", {})
        self._info_sent_at = time.monotonic()

    def _drain(self, name: str, sock: zmq.Socket) -> None:
        if name == "hb":
            with contextlib.suppress(zmq.ZMQError):  # REQ: one echo per ping, then EFSM
                sock.recv(zmq.NOBLOCK)
                self._hb_sent = None
                self._hb_last = time.monotonic()
                self._hb_ever = True
            return
        for _ in range(1000):  # bounded, so commands and death checks keep their turn
            try:
                _, msg = self._session.recv(sock, mode=zmq.NOBLOCK, copy=True)
            except (ValueError, zmq.ZMQError):  # a bad signature or a torn message
                continue
            if msg is None:
                return
            self._heard = True
            if name == "control" and msg["parent_header"].get("msg_id") == self._shutdown_id:
                self._reconnect_after_restart()
                return
            session = msg["header"].get("session", "")
            if self._stale_session is not None and session == self._stale_session:
                continue  # the restarted kernel's old process, still answering
            if name == "iopub":
                self._on_iopub(msg)
            elif name == "shell":
                self._on_shell(msg)

    def _on_shell(self, msg: dict[str, Any]) -> None:
        if msg["header"]["msg_type"] == "kernel_info_reply" and not self._ready:
            self._kernel_session = msg["header"].get("session", "")
            self._got_info = True
            self._maybe_ready()

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        self._iopub_seen = True
        kind = msg["header"]["msg_type"]
        content = msg.get("content", {})
        parent = msg.get("parent_header", {}).get("msg_id", "")
        if kind == "status":
            state = content.get("execution_state")
            if state == "busy":
                self._busy_parents.add(parent)
            elif state == "idle":
                self._busy_parents.discard(parent)
                self._outstanding.discard(parent)
            self._maybe_ready()
            self._refresh_state()
        elif kind == "comm_msg" and content.get("comm_id") == self._comm_id:
            self._on_comm(content.get("data"), msg.get("buffers") or [])
        elif kind == "comm_close" and content.get("comm_id") == self._comm_id:
            self._die("this kernel does not run the workbench engine "
                      "(start it with python -m workbench.engine.kernel)")
        else:
            self._maybe_ready()

    def _maybe_ready(self) -> None:
        if self._ready or not self._got_info:
            return
        if not self._iopub_seen:
            return
        self._ready = True
        self._ready_since = time.monotonic()
        self._restart_until = None
        self._stale_session = None
        self._session.send(self._sockets["shell"], "comm_open",
                           {"comm_id": self._comm_id, "target_name": p.COMM_TARGET, "data": {}})
        if self._incarnation > 1 or not self.owned:
            self._reload()
        for rid, data, buffers in self._outbox:
            if rid not in self._pending:
                continue  # superseded (same key) or stopped while the kernel started
            self._send_comm(data, buffers)
        self._outbox.clear()
        self._refresh_state()

    def _reload(self) -> None:
        if self._last_source is None:
            if self._reload_notice is not None:
                self._emit(self.on_notice, self._reload_notice)
                self._reload_notice = None
            return
        request = p.LoadSource(source=self._last_source.source,
                               filename=self._last_source.filename)
        data, buffers = codec.encode(request)
        self._pending[request.id] = _Pending(request, None, None, None, quiet=True)
        self._reload_id = request.id
        self._send_comm(data, buffers)

    def _send_comm(self, data: dict[str, Any], buffers: list[Any]) -> str:
        msg = self._session.send(self._sockets["shell"], "comm_msg",
                                 {"comm_id": self._comm_id, "data": data}, buffers=buffers)
        assert msg is not None  # Session.send returns None only in a forked child
        msg_id: str = msg["header"]["msg_id"]
        self._outstanding.add(msg_id)
        return msg_id

    def _submit(self, pending: _Pending, data: dict[str, Any], buffers: list[Any]) -> None:
        rid = pending.request.id
        if self._state == State.DEAD:
            self._emit(pending.on_reply, p.EngineFailure(
                rid, self._dead_reason or "the engine is not running"))
            return
        if pending.key is not None:
            old = self._latest.get(pending.key)
            if old is not None and old in self._pending:
                del self._pending[old]
                self._abandoned.add(old)
            self._latest[pending.key] = rid
        self._pending[rid] = pending
        if self._ready:
            self._send_comm(data, buffers)
        else:
            self._outbox.append((rid, data, buffers))
        self._refresh_state()

    def _on_comm(self, data: Any, buffers: list[Any]) -> None:
        try:
            value = codec.decode(data, buffers)
        except codec.ProtocolError as exc:
            bad_id = data.get("body", {}).get("fields", {}).get("id") if isinstance(data, dict) \
                else None
            if isinstance(bad_id, str) and bad_id in self._pending:
                self._finish(self._pending.pop(bad_id),
                             p.EngineFailure(bad_id, f"bad reply: {exc}"))
            return
        rid = getattr(value, "id", "")
        if isinstance(value, p.Output) and value.background:
            self._emit(self.on_output, value)  # a thread's, not the request's: the console's
            return
        if isinstance(value, p.Event):
            pending = self._pending.get(rid)
            if pending is None:
                return
            if pending.on_event is not None:
                self._emit(pending.on_event, value)
            elif isinstance(value, p.Output) and not pending.quiet:
                self._emit(self.on_output, value)
            return
        pending = self._pending.pop(rid, None)
        if pending is None:
            if rid in self._abandoned:
                self._abandoned.discard(rid)
                self.stats.dropped_replies += 1
            return
        self._finish(pending, value)
        self._refresh_state()

    def _finish(self, pending: _Pending, reply: p.Reply) -> None:
        request = pending.request
        if pending.internal:
            self._emit(pending.on_reply, reply)
            return
        if request.id == self._reload_id:
            self._reload_id = None
            self._reload_done_at = time.monotonic()
        if pending.key is not None and self._latest.get(pending.key) == request.id:
            del self._latest[pending.key]
        if isinstance(request, p.LoadSource) and isinstance(reply, p.Result):
            self._last_source = request
        if not pending.quiet and isinstance(reply, p.Result):
            self._answered_since_launch = True
        if pending.quiet:
            notice = self._reload_notice or Notice("restarted", "engine restarted")
            self._reload_notice = None
            if isinstance(reply, p.Result):
                self._emit(self.on_notice, Notice(notice.kind,
                                                  notice.message + ", definitions reloaded",
                                                  notice.fault))
            else:
                self._emit(self.on_notice, notice)
                self._notice("reload-failed", "the editor source could not be loaded again: "
                             + p.reply_text(reply))
            return
        self._emit(pending.on_reply, reply)

    def _fail_all(self, kind: type, message: str, fault: str = "") -> None:
        pending, self._pending = self._pending, {}
        self._latest.clear()
        for rid, item in pending.items():
            self._abandoned.add(rid)
            if item.quiet or item.internal:
                continue
            if kind is p.Cancelled:
                self._emit(item.on_reply, p.Cancelled(rid, message))
            else:
                self._emit(item.on_reply, p.EngineFailure(rid, message, fault))

    # ------------------------------------------------------------------ stop, death, restart

    def _do_stop(self) -> None:
        """Interrupt, then prove the engine idle: the kernel answers and its devices are quiet.

        Idle is reported only once a device probe (``WaitDevices``) answers quiet;
        a kernel still busy, or devices still working, at ``stop_grace`` are
        restarted (owned) or reported (remote).
        """
        if self._state in (State.DEAD, State.RESTARTING, State.STARTING):
            return
        if self._unresponsive and self.owned:
            self._do_restart("stopped; the engine was not responding", crash=False)
            return
        if not self._ready or self._interrupt_deadline is not None:
            return
        busy = self._pending or self._outstanding or self._busy_parents
        self._fail_all(p.Cancelled, "stopped")
        self._interrupt_deadline = time.monotonic() + self.stop_grace
        self._probe_id = self._probe_msg = None
        self._set_state(State.INTERRUPTING)
        if not busy:
            return  # nothing runs in Python; the probe still checks the devices
        if self.owned and self._proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._proc.pid, signal.SIGINT)
        else:
            self._session.send(self._sockets["control"], "interrupt_request", {})

    def _send_probe(self, now: float) -> None:
        assert self._interrupt_deadline is not None
        # Leave the reply time to arrive before the deadline.
        request = p.WaitDevices(timeout=max(0.0, self._interrupt_deadline - now - 0.15))
        data, buffers = codec.encode(request)
        self._pending[request.id] = _Pending(request, self._on_probe, None, None, internal=True)
        self._probe_id = request.id
        self._probe_msg = self._send_comm(data, buffers)

    def _on_probe(self, reply: p.Reply) -> None:
        if reply.id != self._probe_id or self._interrupt_deadline is None:
            return  # a probe of an earlier Stop
        self._outstanding.discard(self._probe_msg or "")
        self._busy_parents.discard(self._probe_msg or "")
        self._probe_id = self._probe_msg = None
        self._interrupt_deadline = None
        devices = p.result_value(reply, DevicesQuiet)
        if devices is not None and devices.quiet:
            self._refresh_state()
        else:
            self._stop_failed("its devices were still working" if devices is not None
                              else "it did not answer after the interrupt")

    def _stop_failed(self, why: str) -> None:
        if self.owned:
            self._do_restart(f"stopped; {why}", crash=False)
        else:
            self._emit(self.on_notice, Notice(
                "stop-failed", f"the kernel on {self.host} did not stop ({why}); "
                "restarting it stops it, and loses the names defined in it",
                offer_restart=True))
            self._refresh_state()

    def _tick(self) -> None:
        now = time.monotonic()
        if self._state == State.DEAD:
            return
        if self.owned and self._proc is not None and self._proc.poll() is not None:
            self._on_death(_death_reason(self._proc.returncode))
            return
        if self._ready or not self.owned:
            self._heartbeat(now)
            if self._state == State.DEAD:
                return
        if not self.owned and not self._ready and self._check_attaching(now):
            return
        if not self._ready and self._got_info and now - self._info_sent_at > 0.2:
            self._send_kernel_info()  # iopub not subscribed yet: status messages prove it
        if self._interrupt_deadline is not None:
            others = (self._outstanding | self._busy_parents) - {self._probe_msg}
            if now > self._interrupt_deadline:
                self._interrupt_deadline = None
                self._stop_failed("it was still busy")
            elif not others and self._probe_id is None:
                self._send_probe(now)
        if self.owned and self._log_file is not None:
            self._cap_log()

    def _check_attaching(self, now: float) -> bool:
        """An attached kernel not ready yet: resend, or give up with the reason; True if dead."""
        if self._restart_until is not None:
            if now > self._restart_until:
                self._die(f"the kernel on {self.host} did not come back within "
                          f"{RESTART_TIMEOUT_S:g} s of its restart; start it again on its host")
                return True
            if self._shutdown_id is not None:
                if now - self._shutdown_sent_at > SHUTDOWN_REPLY_WAIT_S:
                    self._reconnect_after_restart()
                return False
        elif not self._heard and now - self._launched_at > self.connect_timeout:
            self._die(f"no answer from the kernel in {self.given_connection_file}: wrong key, "
                      "or not a workbench kernel?")
            return True
        if not self._got_info and now - self._info_sent_at > INFO_RESEND_S:
            self._send_kernel_info()  # the first may have gone to a process that is gone
        return False

    def _heartbeat(self, now: float) -> None:
        if self._hb_sent is None and now - self._hb_last >= HEARTBEAT_PERIOD_S:
            with contextlib.suppress(zmq.ZMQError):
                self._sockets["hb"].send(b"ping", zmq.NOBLOCK)
                self._hb_sent = now
        silent = now - self._hb_last > self.heartbeat_timeout
        if not self.owned:
            if silent and self._restart_until is None:
                where = self._info.get("ip", "?")
                if self._hb_ever or self._heard:
                    self._die(f"lost contact with the kernel on {self.host} (no heartbeat for "
                              f"{self.heartbeat_timeout:g} s): it died or the network is down; "
                              "start it again on its host and reconnect")
                else:
                    self._die(f"nothing answers at {where} (the ports in "
                              f"{self.given_connection_file}): is the kernel running?")
            return
        # Ours is alive (we would have seen it exit) but may be frozen: say so, keep it.
        if silent and not self._unresponsive:
            self._unresponsive = True
            self._refresh_state()
            self._notice("unresponsive", "the engine is not responding (no heartbeat for "
                         f"{self.heartbeat_timeout:g} s: stopped, or stuck in native code); "
                         "Stop restarts it")
        elif not silent and self._unresponsive:
            self._unresponsive = False
            self._refresh_state()
            self._notice("responding", "the engine is responding again")

    def _cap_log(self) -> None:
        """Keep the kernel's log (its fd 1 and 2: C extensions and os.write) bounded on disk."""
        try:
            fd = self._log_file.fileno()
            if os.fstat(fd).st_size <= LOG_LIMIT:
                return
            path = Path(self._log_file.name)
            with open(path, "rb") as log:
                log.seek(-LOG_KEEP, os.SEEK_END)
                tail = log.read(LOG_KEEP)
            Path(f"{path}.1").write_bytes(tail)
            os.ftruncate(fd, 0)
            self.stats.log_rotations += 1
        except (OSError, ValueError):
            pass  # a log we cannot rotate is not worth stopping the engine for

    def _fault_text(self) -> str:
        text = ""
        with contextlib.suppress(OSError, AttributeError):
            text = self._fault_path.read_text(errors="replace").strip()
        if not text and self._log_file is not None:
            with contextlib.suppress(OSError):
                log = Path(self._log_file.name).read_text(errors="replace").strip()
                text = "\n".join(log.splitlines()[-30:])
        return text[:8000]  # the head holds the error and the crashing line

    def _on_death(self, reason: str) -> None:
        fault = self._fault_text()
        self.stats.crashes += 1
        now = time.monotonic()
        # Crashes the user causes minutes apart are separate; one that comes back while
        # the restarted kernel starts, reloads, or right after, is a loop.
        reloading = self._reload_id is not None and self._reload_id in self._pending
        settled_at = max(self._reload_done_at, self._ready_since)
        in_loop = self._incarnation > 1 and not self._answered_since_launch and (
            not self._ready or reloading or now - settled_at < self.crash_window)
        self._crashes_in_row = self._crashes_in_row + 1 if in_loop else 1
        message = f"the engine died: {reason}"
        self._fail_all(p.EngineFailure, message, fault)
        if self._crashes_in_row > self.max_restarts:
            self._set_state(State.DEAD)
            self._notice("dead", f"{message}; it crashed {self._crashes_in_row} times in a row, "
                         "so it was not restarted (use Restart engine)", fault)
            return
        self._notice("crashed", message, fault)
        self._do_restart(reason, crash=True)

    def _do_restart(self, reason: str, *, crash: bool, manual: bool = False) -> None:
        if not self.owned:
            if manual:
                self._restart_attached()
            return  # never on our own: the kernel is not ours
        if manual:
            self._crashes_in_row = 0
        self._set_state(State.RESTARTING)
        self._interrupt_deadline = None
        self._reload_id = None
        self._fail_all(p.EngineFailure if crash else p.Cancelled,
                       f"engine restarted ({reason})")
        self._kill()
        self.stats.restarts += 1
        self._reload_notice = Notice("restarted", "engine restarted")
        self._launch()

    def _restart_attached(self) -> None:
        """Ask the attached kernel to restart itself; it comes back on the same ports."""
        if self._state == State.DEAD:
            self._notice("dead", f"the kernel on {self.host} cannot be restarted from here: "
                         f"{self._dead_reason or 'it is gone'}")
            return
        if self._state == State.RESTARTING or not self._ready:
            return
        self._set_state(State.RESTARTING)
        self._interrupt_deadline = None
        self._reload_id = None
        self._fail_all(p.Cancelled, "engine restarted (restart requested)")
        msg = self._session.send(self._sockets["control"], "shutdown_request", {"restart": True})
        assert msg is not None
        self._shutdown_id = msg["header"]["msg_id"]
        self._shutdown_sent_at = time.monotonic()
        self._stale_session = self._kernel_session
        self._restart_until = time.monotonic() + RESTART_TIMEOUT_S
        self._ready = self._got_info = self._iopub_seen = False
        self.stats.restarts += 1
        self._reload_notice = Notice("restarted", f"the kernel on {self.host} restarted")

    def _reconnect_after_restart(self) -> None:
        """The old process answered the shutdown (or took too long): connect to the new one."""
        if self._shutdown_id is None:
            return
        self._shutdown_id = None
        self._launch()

    def _kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                proc.wait(5)

    def _shutdown(self) -> None:
        if not self.owned and self._ready and self._state != State.DEAD:
            # The kernel lives on: close our comm there, or its endpoint stays behind.
            with contextlib.suppress(zmq.ZMQError):
                self._session.send(self._sockets["shell"], "comm_close",
                                   {"comm_id": self._comm_id, "data": {}})
                self._sockets["shell"].close(linger=500)
        for sock in self._sockets.values():
            sock.close(linger=0)
        self._sockets = {}
        if self.owned:
            proc = self._proc
            if proc is not None and proc.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(2)
                except Exception:  # noqa: BLE001
                    self._kill()
            if self._log_file is not None:
                self._log_file.close()
        if self.runtime_dir is not None:
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
        self._fail_all(p.Cancelled, "engine closed")
        self._state = State.DEAD
        self._ctx.term()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)


_LIVE: weakref.WeakSet[EngineClient] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for client in list(_LIVE):
        with contextlib.suppress(Exception):
            client.close(2.0)
