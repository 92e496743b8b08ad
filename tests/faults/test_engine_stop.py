"""Stop: an endless Python loop is interrupted; a jitted loop (deaf to SIGINT) costs a restart."""

from __future__ import annotations

import os
import time

from tests.kernel_util import Recorder, wait_until
from workbench.api import messages as p
from workbench.api.client import State

GOOD = "def f(x):\n    return x * 2\n"
STARTED = "import sys\nprint('started', flush=True)\n"
KERNEL_SOURCE = p.LoadSource(source=GOOD)  # for the ``engine`` fixture (tests/conftest.py)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start_running(engine: Recorder, source: str) -> list[p.Reply]:
    events: list[p.Event] = []
    box: list[p.Reply] = []
    engine.client.request(p.LoadSource(source=source), box.append, events.append)
    wait_until(lambda: any(isinstance(e, p.Output) and "started" in e.text for e in events),
               60, "the request to start running")
    return box


def test_endless_python_loop_is_idle_within_1_5_s_of_stop(engine):
    pid = engine.call(p.Ping()).value.pid
    box = _start_running(engine, STARTED + "while True:\n    pass\n")
    start = time.monotonic()
    engine.client.stop()
    wait_until(lambda: engine.client.state == State.IDLE, 1.5, "idle after stop")
    assert time.monotonic() - start < 1.5
    assert isinstance(box[0], p.Cancelled)
    # An interrupt sufficed: same process, definitions intact.
    assert engine.call(p.Ping()).value.pid == pid
    names = [f.name for f in engine.call(p.ListFunctions()).value.functions]
    assert names == ["f"]


def test_long_jitted_loop_restarts_within_3_s_and_reloads_definitions(engine):
    pid = engine.call(p.Ping()).value.pid
    # Compiled before "started" is printed, so the Stop lands inside XLA, not in Python.
    source = (
        "def g(x, n):\n"
        "    return lax.fori_loop(0, n, lambda i, v: v * 1.0000001 + 1e-9, x)\n"
        "h = jax.jit(g)\n"
        "h(jnp.ones(4), 1).block_until_ready()\n"
        + STARTED
        + "h(jnp.ones(4), 2**31 - 1).block_until_ready()\n"
    )
    box = _start_running(engine, source)
    # "started" is printed just before the call into XLA; on a loaded machine the kernel
    # may not be inside it yet. CPU time piling up means the loop itself is running.
    kernel_pid = engine.client.pid
    spent = _cpu_seconds(kernel_pid)
    wait_until(lambda: _cpu_seconds(kernel_pid) > spent + 0.2, 30, "the jitted loop to run")
    notices_before = len(engine.notices)
    start = time.monotonic()
    engine.client.stop()
    wait_until(lambda: engine.client.state == State.RESTARTING, 2.0, "escalation to restart")
    wait_until(lambda: engine.client.state == State.IDLE, 3.0 - (time.monotonic() - start),
               "idle after restart")
    assert isinstance(box[0], p.Cancelled)
    assert any(n.message == "engine restarted, definitions reloaded"
               for n in engine.notices[notices_before:])
    assert engine.call(p.Ping()).value.pid != pid
    # The last good source is back; the interrupted one never counted as loaded.
    names = [f.name for f in engine.call(p.ListFunctions()).value.functions]
    assert names == ["f"]
    assert isinstance(engine.call(p.Trace(name="f", args="f32[3]")), p.Result)
