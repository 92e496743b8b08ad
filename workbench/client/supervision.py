"""Keeping the engine alive, or saying why it is not: the heartbeat, deaths and crash loops,
restarts of our own kernel, and the restart an attached kernel's user asks for.

A kernel that dies (exit, abort, segfault, SIGKILL) is reported with its fault
text and restarted; crashes during a reload or shortly after it count as a crash
loop, which stops the engine (dead) after ``max_restarts``. A kernel whose
heartbeat stops (SIGSTOP, a deadlock in C code) is unresponsive until it answers
again. An attached kernel is restarted only when the user asks
(``shutdown_request`` with ``restart: true``, answered by the workbench kernel
starting afresh on the same ports), and one that dies is reported, never
restarted.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from workbench.api import messages as p
from workbench.api.state import Notice, NoticeKind, State
from workbench.client import attach
from workbench.client.core import SETUP_WARNING, Core
from workbench.client.launch import KernelProcess
from workbench.client.server import ServerError
from workbench.client.server_kernel import ServerKernel

CRASH_WINDOW_S = 15.0  # a crash this soon after a reload, with no success since, is a loop
# An attached kernel that answers nothing signed by then: wrong key. One that answers with
# its own ports (``connect_reply``, on either channel that reaches it) is checked at once.
CONNECT_TIMEOUT_S = 5.0
RESTART_TIMEOUT_S = 60.0  # an attached kernel asked to restart must answer again within this
SERVER_RESTART_TIMEOUT_S = 150.0  # a server's restart call (up to 120 s) and then the above
SHUTDOWN_REPLY_WAIT_S = 2.0  # then reconnect even without the old process's shutdown_reply
INFO_RESEND_S = 0.5  # an attached kernel's kernel_info_request, again until one answers
# A connection file younger than this may belong to a kernel still starting (its manager
# writes the file, then starts it; a busy machine takes seconds to import): it is waited for
# until the file is this old, as nbclient waits ``startup_timeout`` for a kernel it started.
STARTUP_TIMEOUT_S = 60.0
STARTUP_PROGRESS_S = 5.0  # how often the wait for a starting kernel says how long so far
# A kernel that answered must be ready (kernel_info answered, iopub speaking) by then.
READY_TIMEOUT_S = 60.0

# A frame of faulthandler's text (``File "x", line 3 in f``) or of a Python traceback in the
# log (``File "x", line 3, in f``, its code lines indented below it); a C frame (``Binary
# file``); faulthandler's list of loaded extension modules.
_FRAME = re.compile(r'^(\s*)(?:File|Binary file) "([^"]*)"')
_EXTENSIONS = re.compile(r"^Extension modules: ")
# The console's cells, as ipykernel compiles them: your code too.
_CONSOLE_CELL = re.compile(r"[/\\]ipykernel_\d+[/\\]\d+\.py$")


def user_frames_only(fault: str, user_files: Collection[str]) -> str:
    """The engine's last words with only the frames of the user's code (the editor's file, a
    lesson step's, the console's cells), and how many others were left out.

    faulthandler lists every frame of the crashing thread: the kernel's event loop,
    the workbench's request handling, JAX. A teacher needs the user's line.
    """
    out: list[str] = []
    block: tuple[int, bool] | None = None  # in a list of frames: its indent, the frame kept?
    left_out = kept = 0

    def end_block() -> None:
        nonlocal block, left_out, kept
        if block is not None and left_out:
            frames = f"{left_out} frame{'s' * (left_out != 1)}"
            out.append(" " * block[0] + (f"({frames} outside your code left out)" if kept else
                                         f"({frames} left out: none of them is your code)"))
        block, left_out, kept = None, 0, 0

    for text in fault.splitlines():
        match = _FRAME.match(text)
        if match is not None:
            name = match.group(2)
            keep = name in user_files or _CONSOLE_CELL.search(name) is not None
            block = (len(match.group(1)), keep)
            kept += keep
            left_out += not keep
            if keep:
                out.append(text)
        elif block is not None and text.strip() and len(text) - len(text.lstrip()) > block[0]:
            if block[1]:
                out.append(text)  # the kept frame's code line (a Python traceback's)
        else:
            end_block()
            if not _EXTENSIONS.match(text):
                out.append(text)
    end_block()
    return "\n".join(out).strip()


def connection_file_age(path: Path) -> float | None:
    """Seconds since the file was written; None when it cannot be read (its error comes
    from reading it)."""
    try:
        return max(0.0, time.time() - path.stat().st_mtime)
    except OSError:
        return None


class Supervisor:
    """Watches one client's kernel; ``launch()`` starts (or reconnects to) it again."""

    def __init__(self, core: Core, process: KernelProcess | None, launch: Callable[[], None], *,
                 given_connection_file: Path | None, connect_timeout: float,
                 heartbeat_timeout: float, crash_window: float, max_restarts: int,
                 server: ServerKernel | None = None) -> None:
        self.core = core
        self.server = server  # a Jupyter Server's kernel: it restarts it (its REST call)
        self.process = process
        self.launch = launch
        self.given_connection_file = given_connection_file
        self.connect_timeout = connect_timeout
        self.heartbeat_timeout = heartbeat_timeout
        self.crash_window = crash_window
        self.max_restarts = max_restarts
        self.crashes_in_row = 0
        self.ready_since = 0.0
        self.reload_id: str | None = None  # the silent reload after a restart, in flight
        self.reload_done_at = 0.0
        self.reload_notice: Notice | None = None  # said once the reload answers
        self.answered_since_launch = False
        self.shutdown_id: str | None = None  # our shutdown_request, its reply not yet seen
        self.shutdown_sent_at = 0.0
        self.given_info: dict[str, Any] = {}  # an attached kernel's file, as given (no tunnel)
        self.ports_ok = False  # its connect_reply named the ports of the file
        self.warnings: list[str] = []  # about how it is reached: said once it answers
        self.said: list[str] = []  # those said (a notice each)
        self.restart_generation = 0  # a server restart's answer belongs to the latest only
        self.startup_until = 0.0  # an attached kernel that may be starting: waited for until
        self.waiting_said_at: float | None = None

    @property
    def incarnation(self) -> int:
        return self.process.incarnation if self.process is not None else 0

    # ------------------------------------------------------------------ what the client tells

    def launched(self) -> None:
        self.answered_since_launch = False
        self.ports_ok = False
        self.startup_until, self.waiting_said_at = 0.0, None
        if self.given_connection_file is not None and self.server is None:
            age = connection_file_age(self.given_connection_file)
            if age is not None and age < STARTUP_TIMEOUT_S:
                self.startup_until = time.monotonic() + STARTUP_TIMEOUT_S - age

    def became_ready(self) -> None:
        self.ready_since = time.monotonic()
        self._say_warnings()

    def on_connect_reply(self, content: dict[str, Any]) -> None:
        """An attached kernel's own ports: the file's, given to the wrong channels, leave it
        starting for ever (a socket of one kind cannot talk to another): say so now."""
        core = self.core
        if core.state == State.DEAD:
            return
        mismatch = attach.port_mismatch(self.given_info, content) if self.given_info else ""
        if mismatch:
            core.die(f"{self.given_connection_file}: {mismatch}")
            return
        self.ports_ok = True
        self._say_warnings()

    def _say_warnings(self) -> None:
        """What is unsafe about how an attached kernel is reached, once it answers on the
        right ports (a file that leads nowhere is its error alone)."""
        if not (self.core.ready and self.ports_ok and self.warnings):
            return
        warnings, self.warnings = self.warnings, []
        for text in warnings:
            self.said.append(text)
            self.core.notice(SETUP_WARNING, f"warning: {text}")

    def answered(self, rid: str, quiet: bool, ok: bool) -> None:
        """A reply of ours arrived (``quiet``: the reload's; ``ok``: a result)."""
        if rid == self.reload_id:
            self.reload_id = None
            self.reload_done_at = time.monotonic()
        if not quiet and ok:
            self.answered_since_launch = True

    # ------------------------------------------------------------------ every turn

    def heartbeat(self, now: float) -> None:
        """Ping; an attached kernel silent past the timeout is dead, ours unresponsive."""
        core = self.core
        transport = core.transport
        transport.ping(now)
        silent = now - transport.hb_last > self.heartbeat_timeout
        if not core.owned:
            if silent and core.restart_until is None:
                where = transport.info.get("ip", "?")
                if self.server is not None:
                    # Silent (a half-open connection, a network gone): drop the socket; the
                    # reconnect then finds the server, or says why not.
                    transport.hb_last, transport.hb_sent = now, None
                    self.server.transport.abort()
                elif not core.heard and now < self.startup_until:
                    # its heartbeat may stall while it starts
                    self._say_waiting(now, self._silence(), self.startup_until)
                elif transport.hb_ever or core.heard:
                    core.die(f"lost contact with the kernel on {core.host} (no heartbeat for "
                             f"{self.heartbeat_timeout:g} s): it died or the network is down; "
                             "start it again on its host and reconnect")
                else:
                    waited = (f" after waiting {STARTUP_TIMEOUT_S:g} s for it to start"
                              if self.startup_until else "")
                    core.die(f"nothing answers at {where} (the ports in "
                             f"{self.given_connection_file}){waited}: is the kernel running?")
            return
        # Ours is alive (we would have seen it exit) but may be frozen: say so, keep it.
        if silent and not core.unresponsive:
            core.unresponsive = True
            core.refresh_state()
            core.notice(NoticeKind.UNRESPONSIVE, "the engine is not responding (no heartbeat for "
                        f"{self.heartbeat_timeout:g} s: stopped, or stuck in native code); "
                        "Stop restarts it")
        elif not silent and core.unresponsive:
            core.unresponsive = False
            core.refresh_state()
            core.notice(NoticeKind.RESPONDING, "the engine is responding again")

    def check_attaching(self, now: float) -> bool:
        """An attached kernel not ready yet: resend, or give up with the reason; True if dead."""
        core = self.core
        if core.restart_until is not None:
            if now > core.restart_until:
                core.die(f"the kernel on {core.host} did not come back within "
                         f"{RESTART_TIMEOUT_S:g} s of its restart; start it again on its host")
                return True
            if self.shutdown_id is not None:
                if now - self.shutdown_sent_at > SHUTDOWN_REPLY_WAIT_S:
                    self.reconnect_after_restart()
                return False
        elif core.heard and now - core.launched_at > self.connect_timeout:
            # It answered, but not all of what makes it ready (kernel_info, then iopub): a
            # kernel stuck as it starts, or a port that is another program's, never would.
            until = max(core.launched_at + READY_TIMEOUT_S, self.startup_until)
            if now > until:
                core.die(self._not_ready_reason(until - core.launched_at))
                return True
            missing = ("kernel_info unanswered" if not core.got_info
                       else "nothing on its iopub channel yet")
            self._say_waiting(now, f"it answered; {missing}", until)
        elif not core.heard and now - core.launched_at > self.connect_timeout:
            if self.server is not None:
                core.die(f"no answer from {self.server.describe()}: not a workbench kernel?")
                return True
            if now >= self.startup_until:
                waited = (f" within {STARTUP_TIMEOUT_S:g} s of its start"
                          if self.startup_until else "")
                core.die(f"no answer from the kernel in {self.given_connection_file}{waited}: "
                         "wrong key, or not a workbench kernel?")
                return True
            self._say_waiting(now, self._silence(), self.startup_until)  # it may be starting
        if not core.got_info and now - core.info_sent_at > INFO_RESEND_S:
            core.send_kernel_info()  # the first may have gone to a process that is gone
        return False

    def _silence(self) -> str:
        return ("its heartbeat answers, its shell not yet" if self.core.transport.hb_ever
                else "nothing answers yet")

    def _who(self) -> str:
        return (self.server.describe() if self.server is not None
                else f"the kernel in {self.given_connection_file}")

    def _say_waiting(self, now: float, what: str, until: float) -> None:
        """Progress of the wait for a kernel that is starting, every few seconds."""
        if self.waiting_said_at is not None and now - self.waiting_said_at < STARTUP_PROGRESS_S:
            return
        self.waiting_said_at = now
        self.core.notice(NoticeKind.WAITING, f"waiting for {self._who()} to start ({what}; "
                                             f"giving up in {max(0.0, until - now):.0f} s)")

    def _not_ready_reason(self, waited: float) -> str:
        core = self.core
        if not core.got_info:
            return (f"{self._who()} answered, but not its kernel_info request within "
                    f"{waited:.0f} s: a kernel stuck as it started? (restart it)")
        port = ("its WebSocket's iopub channel" if self.server is not None
                else f"its iopub port ({self.given_info.get('iopub_port', '?')})")
        return (f"{self._who()} answers on its shell, but nothing came on {port} within "
                f"{waited:.0f} s: is that port another program's?")

    # ------------------------------------------------------------------ death and restart

    def on_death(self, reason: str) -> None:
        """Our kernel exited: report it with its fault text, restart it unless it loops."""
        core = self.core
        assert self.process is not None
        fault = user_frames_only(self.process.fault_text(), core.user_files)
        core.stats.crashes += 1
        now = time.monotonic()
        # Crashes the user causes minutes apart are separate; one that comes back while
        # the restarted kernel starts, reloads, or right after, is a loop.
        reloading = self.reload_id is not None and self.reload_id in core.router.pending
        settled_at = max(self.reload_done_at, self.ready_since)
        in_loop = self.incarnation > 1 and not self.answered_since_launch and (
            not core.ready or reloading or now - settled_at < self.crash_window)
        self.crashes_in_row = self.crashes_in_row + 1 if in_loop else 1
        message = f"the engine died: {reason}"
        core.fail_all(p.EngineFailure, message, fault, crashed=True)
        if self.crashes_in_row > self.max_restarts:
            core.set_state(State.DEAD)
            core.notice(NoticeKind.DEAD,
                        f"{message}; it crashed {self.crashes_in_row} times in a row, "
                        "so it was not restarted (use Restart engine)", fault)
            return
        core.notice(NoticeKind.CRASHED, message, fault)
        self.restart(reason, crash=True)

    def restart(self, reason: str, *, crash: bool, manual: bool = False) -> None:
        """Kill and start our kernel again (an attached one only when the user asks)."""
        core = self.core
        if not core.owned:
            if manual:
                self._restart_attached()
            return  # never on our own: the kernel is not ours
        assert self.process is not None
        if manual:
            self.crashes_in_row = 0
        core.set_state(State.RESTARTING)
        core.interrupt_deadline = None
        self.reload_id = None
        core.fail_all(p.EngineFailure if crash else p.Cancelled, f"engine restarted ({reason})",
                      crashed=crash)
        self.process.kill()
        core.stats.restarts += 1
        self.reload_notice = Notice(NoticeKind.RESTARTED, "engine restarted")
        self.launch()

    def _restart_attached(self) -> None:
        """Ask the attached kernel to restart itself; it comes back on the same ports."""
        core = self.core
        if self.server is not None:
            self._restart_on_server()
            return
        if core.state == State.DEAD and core.client_failed:
            # The fault was ours, not the kernel's: connect to it afresh.
            core.set_state(State.RESTARTING)
            core.stats.restarts += 1
            self.reload_notice = Notice(NoticeKind.RESTARTED,
                                        f"reconnected to the kernel on {core.host}")
            self.launch()
            return
        if core.state == State.DEAD:
            core.notice(NoticeKind.DEAD,
                        f"the kernel on {core.host} cannot be restarted from here: "
                        f"{core.dead_reason or 'it is gone'}")
            return
        if core.state == State.RESTARTING or not core.ready:
            return
        core.set_state(State.RESTARTING)
        core.interrupt_deadline = None
        self.reload_id = None
        core.fail_all(p.Cancelled, "engine restarted (restart requested)")
        self.shutdown_id = core.transport.send("control", "shutdown_request", {"restart": True})
        self.shutdown_sent_at = time.monotonic()
        core.stale_session = core.kernel_session
        core.restart_until = time.monotonic() + RESTART_TIMEOUT_S
        core.ready = core.got_info = core.iopub_seen = False
        core.stats.restarts += 1
        self.reload_notice = Notice(NoticeKind.RESTARTED, f"the kernel on {core.host} restarted")

    def server_restarted_it(self) -> None:
        """The server says its kernel is restarting without our asking: it died (a crash, the
        memory it ran out of) and the server's auto-restarter brings it back. What ran is
        lost; we connect to the new process and load the source again."""
        core, server = self.core, self.server
        assert server is not None
        message = f"the engine died: {server.describe()} restarted by the server"
        core.stats.crashes += 1
        core.fail_all(p.EngineFailure, message, crashed=True)
        core.notice(NoticeKind.CRASHED, message)
        self._begin_server_restart(f"{server.describe()} restarted")
        server.transport.close_sockets()
        self._after_server_restart(self.restart_generation, "")

    def server_restarted_elsewhere(self) -> None:
        """Someone else restarted the server's kernel (JupyterLab's Restart, another client:
        the server broadcasts the old process's ``shutdown_reply``). Not a crash: what ran
        is lost, and we connect to the new process and load the source again."""
        core, server = self.core, self.server
        assert server is not None
        said = (f"{server.describe()} was restarted from outside the workbench "
                "(JupyterLab's Restart, or another client of the server)")
        core.fail_all(p.Cancelled, f"engine restarted: {said}")
        self._begin_server_restart(said)
        server.transport.close_sockets()
        self._after_server_restart(self.restart_generation, "")

    def _begin_server_restart(self, said: str) -> None:
        core = self.core
        core.set_state(State.RESTARTING)
        core.interrupt_deadline = None
        self.reload_id = None
        core.stale_session = core.kernel_session
        core.ready = core.got_info = core.iopub_seen = False
        core.restart_until = time.monotonic() + SERVER_RESTART_TIMEOUT_S
        core.stats.restarts += 1
        self.restart_generation += 1
        self.reload_notice = Notice(NoticeKind.RESTARTED, said)

    def _restart_on_server(self) -> None:
        """The server restarts its kernel (one it no longer has: a new kernel is started
        there), then we connect to it afresh."""
        core, server = self.core, self.server
        assert server is not None
        if core.state == State.RESTARTING:
            return
        gone = server.kernel_id is None  # culled, shut down: never one that may still run
        core.set_state(State.RESTARTING)
        core.interrupt_deadline = None
        self.reload_id = None
        core.fail_all(p.Cancelled, "engine restarted (restart requested)")
        self._begin_server_restart(f"{server.describe()} restarted" if not gone
                                   else f"a new kernel started on {server.label}")
        generation = self.restart_generation
        kernel_id = server.kernel_id
        if kernel_id is None:
            self._after_server_restart(generation, "")
            return
        server.transport.close_sockets()
        gone_now: list[bool] = []

        def restart() -> None:
            try:
                server.server.restart(kernel_id)
            except ServerError:
                if server.still_there():
                    raise
                gone_now.append(True)  # the server restarted, or shut it down: a new one

        server.in_background(restart, lambda error: self._after_server_restart(
            generation, error, gone=bool(gone_now)))

    def _after_server_restart(self, generation: int, error: str, *, gone: bool = False) -> None:
        core = self.core
        if generation != self.restart_generation or core.state != State.RESTARTING:
            return  # an earlier restart's answer, or the client gave up meanwhile
        if error:
            core.die(error)
            return
        if gone and self.server is not None:
            old = self.server.describe()
            self.server.forget()  # the next attach starts one
            self.reload_notice = Notice(
                NoticeKind.RESTARTED, f"a new kernel started on {self.server.label}: the "
                f"server no longer had {old.split(' on ')[0]} (it restarted, or shut the "
                "kernel down)")
        core.restart_until = time.monotonic() + RESTART_TIMEOUT_S  # to be ready again
        self.launch()

    def reconnect_after_restart(self) -> None:
        """The old process answered the shutdown (or took too long): connect to the new one."""
        if self.shutdown_id is None:
            return
        self.shutdown_id = None
        self.launch()
