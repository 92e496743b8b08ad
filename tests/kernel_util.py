"""Helpers for tests that drive a real engine kernel: wait on conditions, record callbacks."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from workbench.api import messages as p
from workbench.api.state import Notice, State
from workbench.client.engine_client import EngineClient


def wait_until(predicate: Callable[[], object], timeout: float, what: str = "condition") -> float:
    """Poll ``predicate`` until true; return the seconds it took; fail past ``timeout``."""
    start = time.monotonic()
    event = threading.Event()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"{what} not reached within {timeout} s")
        event.wait(0.005)
    return time.monotonic() - start


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_working(pid: int, timeout: float = 30) -> None:
    """Return once ``pid`` burned 0.2 s more CPU: past a "started" print, inside the work.

    On a loaded machine the kernel may print "started" and be descheduled before it enters
    XLA; a Stop sent then lands in Python and succeeds, which a deaf-loop test must not see.
    """
    spent = cpu_seconds(pid)
    wait_until(lambda: cpu_seconds(pid) > spent + 0.2, timeout, "the work to run")


class Recorder:
    """A client plus everything its callbacks reported."""

    def __init__(self, **kwargs):
        self.states: list[State] = []
        self.notices: list[Notice] = []
        self.outputs: list[p.Output] = []
        self.client = EngineClient(on_state=self.states.append, on_notice=self.notices.append,
                                   on_output=self.outputs.append, **kwargs)

    def call(self, request: p.Request, timeout: float = 60.0) -> p.Reply:
        return self.client.call(request, timeout)

    def send(self, request: p.Request, **kwargs) -> list[p.Reply]:
        """Send without waiting; the returned list fills with the reply."""
        box: list[p.Reply] = []
        self.client.request(request, box.append, **kwargs)
        return box

    def wait_idle(self, timeout: float = 60.0) -> float:
        return wait_until(lambda: self.client.state == State.IDLE, timeout, "idle")

    def kinds(self) -> list[str]:
        return [n.kind for n in self.notices]

    def close(self) -> None:
        self.client.close()


def send_raw(client: EngineClient, data: dict, buffers: list | tuple = (), rid: str = "raw",
             timeout: float = 10.0) -> p.Reply:
    """Send a hand-made wire message (a probe of the protocol); wait for the reply to ``rid``.

    Goes around ``EngineClient.request``, which only sends what the codec encodes.
    """
    from workbench.api.contract.routing import Pending as _Pending

    box: list[p.Reply] = []
    done = threading.Event()

    def on_reply(reply: p.Reply) -> None:
        box.append(reply)
        done.set()

    pending = _Pending(p.Ping(id=rid), on_reply, None, None)
    client._call(lambda: client._submit(pending, data, list(buffers)))  # queued until ready
    if not done.wait(timeout):
        raise AssertionError(f"no reply to the raw message {rid!r} within {timeout} s")
    return box[0]


def plain_console(connection_file: object, timeout: float = 60):
    """A plain Jupyter client on the kernel's file, ready (its kernel_info answered).

    Without its heartbeat channel: jupyter_client's heartbeat calls a kernel dead after one
    second without a beat, which a loaded machine gives, and ``wait_for_ready`` then raises
    "Kernel died before replying to kernel_info" about a kernel that is alive.
    """
    from jupyter_client import BlockingKernelClient

    client = BlockingKernelClient(connection_file=str(connection_file))
    client.load_connection_file()
    client.start_channels(hb=False)
    client.wait_for_ready(timeout)
    return client
