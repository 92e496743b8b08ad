"""Stop: interrupt what runs, then prove the engine idle before saying so.

A jitted computation ignores SIGINT until it ends, and an interrupted Python
loop may leave work queued on a device (JAX dispatches asynchronously). So Stop
interrupts (SIGINT to our kernel's process group, ``interrupt_request`` on an
attached kernel's control channel), waits for the kernel to go idle, and then
sends a ``WaitDevices`` probe. Idle is reported only once the probe answers
quiet; a kernel still busy, or devices still working, at ``stop_grace`` are
restarted (ours) or reported with an offer to restart (an attached one). Our
kernel's successor starts as the interrupt is sent (``KernelProcess.start_standby``),
so that a restart costs only the reload.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from workbench.api import codec
from workbench.api import messages as p
from workbench.api.devices import DevicesQuiet
from workbench.api.state import Notice, NoticeKind, State
from workbench.client.core import Core
from workbench.client.launch import KernelProcess
from workbench.client.routing import Pending


class Stopper:
    """Stop's escalation for one client; ``restart(reason)`` restarts our own kernel."""

    def __init__(self, core: Core, process: KernelProcess | None,
                 restart: Callable[[str], None], stop_grace: float) -> None:
        self.core = core
        self.process = process
        self.restart = restart
        self.stop_grace = stop_grace
        self.probe_id: str | None = None
        self.probe_msg: str | None = None

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
        core.fail_all(p.Cancelled, "stopped")
        core.interrupt_deadline = time.monotonic() + self.stop_grace
        self.reset()
        core.set_state(State.INTERRUPTING)
        if not busy:
            return  # nothing runs in Python; the probe still checks the devices
        if core.owned and self.process is not None and self.process.proc is not None:
            self.process.interrupt()
            self.process.start_standby()  # ready sooner, should the interrupt not be heard
        else:
            core.transport.send("control", "interrupt_request", {})

    def tick(self, now: float) -> None:
        """Past the grace, the Stop failed; once nothing else runs, the probe goes out."""
        core = self.core
        if core.interrupt_deadline is None:
            return
        others = (core.router.outstanding | core.router.busy_parents) - {self.probe_msg}
        if now > core.interrupt_deadline:
            core.interrupt_deadline = None
            self._stop_failed("it was still busy")
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
        core.interrupt_deadline = None
        devices = p.result_value(reply, DevicesQuiet)
        if devices is not None and devices.quiet:
            if self.process is not None:
                self.process.discard_standby()
            core.refresh_state()
        else:
            self._stop_failed("its devices were still working" if devices is not None
                              else "it did not answer after the interrupt")

    def _stop_failed(self, why: str) -> None:
        core = self.core
        if core.owned:
            self.restart(f"stopped; {why}")
        else:
            core.emit(core.on_notice, Notice(
                NoticeKind.STOP_FAILED, f"the kernel on {core.host} did not stop ({why}); "
                "restarting it stops it, and loses the names defined in it",
                offer_restart=True))
            core.refresh_state()
