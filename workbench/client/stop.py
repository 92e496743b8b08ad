"""Stop: interrupt what runs, then prove the engine idle before saying so, and say where it was.

A jitted computation ignores SIGINT until it ends, and an interrupted Python
loop may leave work queued on a device (JAX dispatches asynchronously). So Stop
interrupts (SIGINT to our kernel's process group, ``interrupt_request`` on an
attached kernel's control channel), waits for the kernel to go idle, and then
sends a ``WaitDevices`` probe. Idle is reported only once the probe answers
quiet; a kernel still busy, or devices still working, at ``stop_grace`` are
restarted (ours) or reported with an offer to restart (an attached one). Our
kernel's successor starts as the interrupt is sent (``KernelProcess.start_standby``),
so that a restart costs only the reload.

The requests Stop interrupts are held until it ends, then answered ``Cancelled``
with where the user's code was and how long the request had run ("stopped at
line 3 after 2.1 s"), also said as a ``STOPPED`` notice. The line comes from the
engine's own answer (the ``KeyboardInterrupt``'s traceback) when the code heard
the interrupt; when it did not (a compiled computation), from the kernel's control
thread, which Stop asks beside the interrupt (``messages.WHERE_REQUEST``).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

from workbench.api import codec
from workbench.api import messages as p
from workbench.api.contract.routing import Pending
from workbench.api.devices import DevicesQuiet
from workbench.api.state import Notice, NoticeKind, State
from workbench.client.core import Core
from workbench.client.launch import KernelProcess

# Why a Stop could not end in place: the restart reason, and words for the stop's message.
STILL_BUSY = "it was still busy"
DEVICES_BUSY = "its devices were still working"
NO_ANSWER = "it did not answer after the interrupt"
_CAUSES = {
    DEVICES_BUSY: "work it had queued on the device was still running",
    NO_ANSWER: "the engine did not answer after the interrupt",
}
DEVICE_WAIT_S = 30.0  # the most a Stop waits for device work already queued, names kept
IN_COMPILED = "inside a compiled computation, which cannot be interrupted"
NOT_HEARD = "it did not respond to the interrupt"
BUSY_AFTER = "the engine was still busy after the interrupt"  # with what was queued behind it


def duration_text(seconds: float) -> str:
    """``8.1 s``, ``2 min 5 s``: how long a request ran, as a teacher reads it out."""
    seconds = max(0.0, seconds)
    if seconds < 59.95:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def where_text(line: int, file: str, own_file: str) -> str:
    """`` at line 3``, or `` at line 3 of lesson.ipynb, step 1,`` for another file than the
    request's own (a function an earlier lesson step defined); "" with no line."""
    if line <= 0:
        return ""
    if not file or file == own_file:
        return f" at line {line}"
    name = os.path.basename(file)
    return f" at line {line} of {name}" + ("," if ", " in name else "")


class Stopper:
    """Stop's escalation for one client; ``restart(reason)`` restarts our own kernel."""

    def __init__(self, core: Core, process: KernelProcess | None,
                 restart: Callable[[str], None], stop_grace: float,
                 interrupt: Callable[[], None] | None = None) -> None:
        self.core = core
        self.interrupt = interrupt  # a server's (its REST call), else the control channel's
        self.process = process
        self.restart = restart
        self.stop_grace = stop_grace
        self.probe_id: str | None = None
        self.probe_msg: str | None = None
        self.stopped_at = 0.0
        self.where_msg: str | None = None  # our WHERE_REQUEST, its reply not yet seen
        self.where: tuple[str, int, bool] | None = None  # (file, line, in_jax) at the Stop
        self.threads = ""  # the user's threads still running there, in words (where's)
        self.heard: tuple[p.Cancelled, Pending] | None = None  # the engine's own answer
        self.waiting_devices = False  # the kernel answered; its devices finish queued work

    def reset(self) -> None:
        """A new connection: no probe is out."""
        self.probe_id = self.probe_msg = None

    def stop(self) -> None:
        """Interrupt, then prove the engine idle: the kernel answers and its devices are quiet."""
        core = self.core
        if core.state in (State.DEAD, State.RESTARTING, State.STARTING):
            return
        if core.unresponsive and core.owned:
            self.restart("stopped; the engine was not responding")
            return
        if not core.ready or core.interrupt_deadline is not None:
            return
        busy = core.router.busy
        self._hold()
        core.interrupt_deadline = time.monotonic() + self.stop_grace
        self.reset()
        self.waiting_devices = False
        core.set_state(State.INTERRUPTING)
        if not busy:
            return  # nothing runs in Python; the probe still checks the devices
        # First, so that an attached kernel's control thread reads the stack before the
        # interrupt unwinds it (ours may hear SIGINT first: its reply then has the line).
        self.where_msg = core.transport.send("control", p.WHERE_REQUEST, {})
        if core.owned and self.process is not None and self.process.proc is not None:
            self.process.interrupt()
            self.process.start_standby()  # ready sooner, should the interrupt not be heard
        elif self.interrupt is not None:
            self.interrupt()
        else:
            core.transport.send("control", "interrupt_request", {})

    def _hold(self) -> None:
        """Take every pending request out of routing: the end of this Stop answers them."""
        core = self.core
        self.stopped_at = time.monotonic()
        self.where_msg = self.where = self.heard = None
        self.threads = ""
        for rid, item in core.router.abandon_all().items():
            if not (item.quiet or item.internal):  # the silent reload, the probe: dropped
                core.held[rid] = item

    def take_reply(self, reply: p.Reply) -> bool:
        """The engine's reply to a request this Stop holds (True): if it heard the interrupt,
        its ``Cancelled`` says where the user's code was."""
        core = self.core
        item = core.held.get(reply.id)
        if item is None:
            return False
        core.router.release(reply.id)
        cancelled = reply if isinstance(reply, p.Cancelled) else None
        loaded = p.result_value(reply, p.Functions)
        if loaded is not None and isinstance(loaded.trace, p.Cancelled):
            cancelled = loaded.trace  # stopped in the trace a LoadSource carried
        if cancelled is not None and self.heard is None:
            self.heard = (cancelled, item)
        return True

    def on_where(self, msg: dict[str, Any]) -> None:
        """The control thread's answer to our ``WHERE_REQUEST``: where the main thread was."""
        if msg.get("parent_header", {}).get("msg_id") != self.where_msg:
            return  # an earlier Stop's
        self.where_msg = None
        content = msg.get("content", {})
        file, line, in_jax = content.get("file"), content.get("line"), content.get("in_jax")
        if (isinstance(file, str) and isinstance(line, int) and not isinstance(line, bool)
                and isinstance(in_jax, bool)):
            self.where = (file, line, in_jax)
        threads = content.get("threads")
        self.threads = threads[:1000] if isinstance(threads, str) else ""

    def tick(self, now: float) -> None:
        """Past the grace, the Stop failed; once nothing else runs, the probe goes out."""
        core = self.core
        if core.interrupt_deadline is None:
            return
        others = (core.router.outstanding | core.router.busy_parents) - {self.probe_msg}
        if now > core.interrupt_deadline:
            if self.heard is not None and self._wait_for_devices(now):
                return  # the code heard the interrupt: what still runs is its device work
            core.interrupt_deadline = None
            self._stop_failed(STILL_BUSY)
        elif not others and self.probe_id is None:
            self._send_probe(now)

    def _send_probe(self, now: float) -> None:
        assert self.core.interrupt_deadline is not None
        # Leave the reply time to arrive before the deadline.
        request = p.WaitDevices(timeout=max(0.0, self.core.interrupt_deadline - now - 0.15))
        data, buffers = codec.encode(request)
        self.core.router.add(Pending(request, self._on_probe, None, None, internal=True))
        self.probe_id = request.id
        self.probe_msg = self.core.send_comm(data, buffers)

    def _on_probe(self, reply: p.Reply) -> None:
        core = self.core
        if reply.id != self.probe_id or core.interrupt_deadline is None:
            return  # a probe of an earlier Stop
        core.router.forget(self.probe_msg or "")
        self.reset()
        deadline, core.interrupt_deadline = core.interrupt_deadline, None
        devices = p.result_value(reply, DevicesQuiet)
        now = time.monotonic()
        if devices is not None and devices.quiet:
            if self.process is not None:
                self.process.discard_standby()
            self._answer_held("")
            core.refresh_state()
        elif devices is not None and (self._wait_for_devices(now) or now < deadline - 0.3):
            # Waiting for the devices: ask again until the wait's deadline.
            core.interrupt_deadline = core.interrupt_deadline or deadline
            self._send_probe(now)
        else:
            self._stop_failed(DEVICES_BUSY if devices is not None else NO_ANSWER)

    def _wait_for_devices(self, now: float) -> bool:
        """Python heard the interrupt (or answered the probe): what is left is device work
        already queued (an interrupted loop's last dispatches). It ends on its own: wait for
        it, once and at most ``DEVICE_WAIT_S``, keeping every name as Jupyter does, rather
        than restart and lose them. False when already waited."""
        if self.waiting_devices:
            return False
        self.waiting_devices = True
        self.core.interrupt_deadline = now + DEVICE_WAIT_S
        self.core.emit(self.core.on_notice, Notice(
            NoticeKind.WARNING, "stopping: the engine's devices finish the computation "
            f"already queued (up to {DEVICE_WAIT_S:.0f} s); every name is kept. Restart "
            "engine drops it now, and the names with it"))
        return True

    def _stop_failed(self, why: str) -> None:
        core = self.core
        deaf = why == STILL_BUSY
        in_jax = deaf and self.heard is None and self.where is not None and self.where[2]
        if not deaf:
            cause = _CAUSES.get(why, why)
        else:
            cause = BUSY_AFTER if self.heard is not None else IN_COMPILED if in_jax else NOT_HEARD
        if core.owned:
            self._answer_held(cause)
            self.restart(f"stopped; {why}")
            return
        # An attached kernel we may not restart: a deaf one still runs the request.
        at = self._answer_held(cause, still_running=deaf)
        if deaf:
            why += at + (", inside a compiled computation" if in_jax else "")
        core.emit(core.on_notice, Notice(
            NoticeKind.STOP_FAILED, f"the kernel on {core.host} did not stop ({why}); "
            "restarting it stops it, and loses the names defined in it",
            offer_restart=True))
        core.refresh_state()

    def _answer_held(self, cause: str, *, still_running: bool = False) -> str:
        """Answer the held requests ``Cancelled``, saying where the code was and after how long,
        and notify (``STOPPED``) unless it is ``still_running``; returns the where (" at line
        3"), "" when unknown or nothing was held."""
        core = self.core
        held, core.held = core.held, {}
        if not held:
            return ""
        if self.heard is not None:
            cancelled, running = self.heard
            file, line, threads = cancelled.file, cancelled.line, cancelled.threads
        else:  # no answer to the interrupt: the oldest request runs, the others wait behind it
            running = min(held.values(), key=lambda item: item.sent_at or math.inf)
            file, line, _ = self.where or ("", 0, False)
            threads = self.threads
        request = running.request
        own = request.filename if isinstance(request, p.LoadSource) else core.loaded_file
        at = where_text(line, file, own)
        after = f" after {duration_text(self.stopped_at - running.sent_at)}" \
            if running.sent_at else ""
        head = "not stopped: still running" if still_running else "stopped"
        text = head + at + after + (f" ({cause})" if cause else "") + (
            f"; {threads}" if threads else "")
        for rid, item in held.items():
            core.emit(item.on_reply, p.Cancelled(rid, text, line, file))
        if not still_running:
            core.emit(core.on_notice, Notice(NoticeKind.STOPPED, text))
        return at.rstrip(",")
