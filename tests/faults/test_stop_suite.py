"""Fault injection: Stop during five kinds of running code, then prove the engine idle.

The promise under test: after Stop the state is ``idle`` only when the engine
really is, that is, the next request (one that runs on the device) is answered
within 2 s. An interrupt that the code hears suffices (same process, names
kept); code deaf to it, or device work still queued behind an interrupted
Python loop (JAX dispatches asynchronously), costs a restart and a reload.
Either way the stopped request's answer says where the user's code was and how
long the request had run ("stopped at line 2 after 1.3 s").
"""

from __future__ import annotations

import re
import time

import pytest

from tests.kernel_util import Recorder, cpu_seconds, plain_console, wait_until, wait_working
from workbench.api import messages as p
from workbench.api.state import State
from workbench.client.stop import DEVICE_WAIT_S

pytestmark = pytest.mark.serial  # times what a kernel does: alone, never beside a worker

GOOD = "def f(x):\n    return x * 2\n"
STARTED = "print('started', flush=True)\n"
KERNEL_SOURCE = p.LoadSource(source=GOOD)  # for the ``engine`` fixture (tests/conftest.py)
# Runs a tiny computation on the device as it loads: it waits behind any queued work.
DEVICE_TOUCH = GOOD + "_answer = float(jnp.ones(3).sum())\n"

PYTHON_LOOP = STARTED + "while True:\n    pass\n"
DEAF_JIT_LOOP = (  # compiled before "started": the Stop lands inside XLA, not in Python
    "def g(x, n):\n"
    "    return lax.fori_loop(0, n, lambda i, v: v * 1.0000001 + 1e-9, x)\n"
    "h = jax.jit(g)\n"
    "h(jnp.ones(4), 1).block_until_ready()\n"
    + STARTED
    + "h(jnp.ones(4), 2**31 - 1).block_until_ready()\n"
)
ASYNC_MATMUL_LOOP = (  # Python only queues; about 30 products (seconds of work) stay queued
    "m = jax.jit(lambda a, b: a @ b)\n"
    "x = jnp.ones((2500, 2500)); y = jnp.ones((2500, 2500)) * 1e-3\n"
    "m(x, y).block_until_ready()\n"
    + STARTED
    + "while True:\n    x = m(x, y)\n"
)
BLOCKING_SLEEP = "import time\n" + STARTED + "time.sleep(100)\n"
RECURSING = (  # each level is slow, so the recursion is still going when Stop comes
    "def r(x, depth=0):\n"
    "    if depth == 0:\n"
    "        print('started', flush=True)\n"
    "    sum(range(200_000))  # a few ms of Python per level\n"
    "    return r(jnp.sin(x), depth + 1)\n"
)


def _start(engine: Recorder, request: p.Request, busy_cpu: bool) -> list[p.Reply]:
    """Send ``request``; return once its code printed "started" (and burns CPU, if asked)."""
    events: list[p.Event] = []
    box: list[p.Reply] = []
    engine.sent_at = time.monotonic()
    engine.client.request(request, box.append, events.append)
    wait_until(lambda: any(isinstance(e, p.Output) and "started" in e.text for e in events)
               or box, 60, "the request to start running")
    assert not box, f"the code ended before Stop: {box}"
    if busy_cpu:  # on a loaded machine the kernel may not be inside the work yet
        wait_working(engine.client.pid)
    return box


def _stop_and_check(engine: Recorder, box: list[p.Reply], idle_within: float) -> float:
    """Stop; idle within ``idle_within`` s; then a device request is answered within 2 s.

    The stopped request's ``Cancelled`` says how long it ran, which is at most the time
    from sending it to the Stop, and a ``stopped`` notice says the same."""
    seen = len(engine.notices)
    start = time.monotonic()
    engine.client.stop()
    wait_until(lambda: engine.client.state == State.IDLE, idle_within, "idle after Stop")
    to_idle = time.monotonic() - start
    wait_until(lambda: box, 1.0, "the stopped request's reply")
    assert isinstance(box[0], p.Cancelled), box[0]
    ran = re.search(r" after (\d+\.\d) s\b", box[0].reason)
    assert ran is not None, box[0].reason
    assert 0 < float(ran.group(1)) <= start - engine.sent_at + 0.05, box[0].reason
    assert any(n.kind == "stopped" and n.message == box[0].reason for n in engine.notices[seen:])
    engine.stopped = box[0]
    asked = time.monotonic()
    reply = engine.call(DEVICE_TOUCH_REQUEST(), timeout=30)
    answered = time.monotonic() - asked
    assert isinstance(reply, p.Result), p.reply_text(reply)
    assert answered < 2.0, f"idle after Stop, yet the next request took {answered:.1f} s"
    return to_idle


def DEVICE_TOUCH_REQUEST() -> p.LoadSource:  # noqa: N802 - reads as a constant at call sites
    return p.LoadSource(source=DEVICE_TOUCH)


def _restarted_since(engine: Recorder, seen: int) -> bool:
    return any(n.message == "engine restarted, definitions reloaded"
               for n in engine.notices[seen:])


@pytest.mark.parametrize(("source", "line"), [(PYTHON_LOOP, 2), (BLOCKING_SLEEP, 3)],
                         ids=["python-loop", "sleep"])
def test_interruptible_code_stops_in_place(engine, source, line):
    pid = engine.call(p.Ping()).value.pid
    box = _start(engine, p.LoadSource(source=source), busy_cpu=False)
    connection_file = engine.client.connection_file
    took = _stop_and_check(engine, box, idle_within=1.5)
    assert took < 1.5
    # Where it was: the loop's line (Python checks for the interrupt at its backward jump).
    assert engine.stopped.reason.startswith(f"stopped at line {line} after ")
    assert (engine.stopped.line, engine.stopped.file) == (line, "editor.py")
    assert "(" not in engine.stopped.reason  # heard in place: nothing else to say
    # An interrupt sufficed: same process, last good definitions intact.
    assert engine.call(p.Ping()).value.pid == pid
    names = [f.name for f in engine.call(p.ListFunctions()).value.functions]
    assert names == ["f"]
    # The successor Stop started meanwhile is gone, with its files and sockets.
    assert engine.client.connection_file == connection_file
    assert _standby_files(engine) == []


def _standby_files(engine: Recorder) -> list[str]:
    runtime = engine.client.runtime_dir
    current = engine.client.connection_file.stem
    return sorted(f.name for f in runtime.iterdir()
                  if f.name.startswith("kernel-") and not f.name.startswith(current)
                  and not f.name.endswith((".log", ".log.1")))


def test_recursing_trace_stops_in_place(engine):
    assert isinstance(engine.call(p.LoadSource(source=GOOD + RECURSING)), p.Result)
    pid = engine.call(p.Ping()).value.pid
    box = _start(engine, p.Trace(name="r", args="f32[3]"), busy_cpu=False)
    _stop_and_check(engine, box, idle_within=1.5)
    assert engine.call(p.Ping()).value.pid == pid
    # The innermost call of r: in its slow line, or in the jnp.sin its last line calls.
    assert re.match(r"stopped at line [67] after ", engine.stopped.reason), engine.stopped


def test_stop_in_a_lesson_step_names_the_step_that_holds_the_line(engine):
    """A step calls a function an earlier step defined: the line is that step's, named."""
    spin = "def spin():\n    n = 0\n    while True:\n        n += 1\n"
    first = p.LoadSource(source=spin, filename="loops.ipynb, step 1", cell=True)
    assert isinstance(engine.call(first), p.Result)
    call = p.LoadSource(source=STARTED + "spin()\n", filename="loops.ipynb, step 2", cell=True)
    box = _start(engine, call, busy_cpu=False)
    _stop_and_check(engine, box, idle_within=1.5)
    assert engine.stopped.reason.startswith("stopped at line 3 of loops.ipynb, step 1, after ")
    assert engine.stopped.file == "loops.ipynb, step 1"
    assert isinstance(engine.call(KERNEL_SOURCE), p.Result)  # the editor's source again


def test_deaf_jitted_loop_is_restarted_and_reloaded_within_3_s(engine):
    pid = engine.call(p.Ping()).value.pid
    seen = len(engine.notices)
    box = _start(engine, p.LoadSource(source=DEAF_JIT_LOOP), busy_cpu=True)
    before = engine.client.connection_file
    _stop_and_check(engine, box, idle_within=3.0)
    assert _restarted_since(engine, seen)
    # The kernel never heard the interrupt; its control thread saw the line it was stuck on.
    assert engine.stopped.reason.startswith("stopped at line 6 after ")
    assert engine.stopped.reason.endswith(
        "(inside a compiled computation, which cannot be interrupted)")
    assert engine.call(p.Ping()).value.pid != pid
    # The last good source is back; the interrupted one never counted as loaded.
    assert isinstance(engine.call(p.Trace(name="f", args="f32[3]")), p.Result)
    # The kernel Stop started beside the deaf one was adopted: a new connection file, which
    # a console (a plain Jupyter client) reaches; the old kernel's sockets are gone.
    assert engine.client.connection_file != before
    console = plain_console(engine.client.connection_file)
    try:
        reply = console.execute_interactive("f(21)", timeout=30)
        assert reply["content"]["status"] == "ok"
    finally:
        console.stop_channels()


def test_async_device_work_left_by_an_interrupted_loop_is_waited_for_names_kept(engine):
    """The Python loop stops at once, but ~30 queued products keep the device busy for
    seconds: Stop does not say idle until that work is gone, and waits for it (saying so)
    rather than restart: every name is kept, as Jupyter keeps them. Before, the kernel was
    restarted and the lesson's names were lost."""
    assert isinstance(engine.call(p.LoadSource(source="kept = 41\n", keep_names=True)),
                      p.Result)
    pid = engine.call(p.Ping()).value.pid
    box = _start(engine, p.LoadSource(source=ASYNC_MATMUL_LOOP, keep_names=True),
                 busy_cpu=True)
    seen = len(engine.notices)
    _stop_and_check(engine, box, idle_within=DEVICE_WAIT_S + 5)
    assert not _restarted_since(engine, seen), [(n.kind, n.message) for n in engine.notices[seen:]]
    assert engine.call(p.Ping()).value.pid == pid
    assert any(n.kind == "warning" and "every name is kept" in n.message
               for n in engine.notices[seen:])
    # The Python loop heard it (its line).
    assert re.match(r"stopped at line [56] after \d+\.\d s", engine.stopped.reason), \
        engine.stopped
    reply = engine.call(p.LoadSource(source="print(kept + 1)\n", keep_names=True, cell=True))
    assert isinstance(reply, p.Result), reply
    # Nothing keeps computing after Stop.
    pid = engine.client.pid
    spent = cpu_seconds(pid)
    engine.call(p.Ping())
    assert cpu_seconds(pid) - spent < 0.5


def test_stop_with_nothing_running_checks_the_devices_and_stays_in_place(engine):
    pid = engine.call(p.Ping()).value.pid
    seen = len(engine.notices)
    engine.client.stop()
    try:
        wait_until(lambda: engine.client.state == State.IDLE, 1.5, "idle after an idle Stop")
    except AssertionError as exc:  # what the client went through, for the one who reads it
        raise AssertionError(f"{exc}; state {engine.client.state}, notices since "
                             f"{[(n.kind, n.message) for n in engine.notices[seen:]]}, "
                             f"restarts {engine.client.stats.restarts}") from None
    assert engine.call(p.Ping()).value.pid == pid
    assert "stopped" not in engine.kinds()[seen:]  # nothing was stopped: nothing to say


PRINTING_THREAD = (
    "import threading, time\n"
    "halt = threading.Event()\n"
    "def chatter():\n"
    "    while not halt.is_set():\n"
    "        print('tick')\n"
    "        time.sleep(0.01)\n"
    "talker = threading.Thread(target=chatter, daemon=True)\n"
    "talker.start()\n"
    + STARTED + "while True:\n    pass\n"
)


def test_stop_names_a_thread_the_code_started_that_still_runs(engine):
    """Stop ends the loop, not the thread printing beside it (Python cannot stop a thread):
    the notice says what still runs in the engine, and from which line. Before, it said
    only where the loop stopped, and the printing went on unexplained."""
    box = _start(engine, p.LoadSource(source=PRINTING_THREAD), busy_cpu=False)
    _stop_and_check(engine, box, idle_within=3.0)
    reason = engine.stopped.reason
    assert re.fullmatch(r"stopped at line 10 after \d+\.\d s; a thread started at line 8 "
                        r"still runs, at line [56] \(Stop cannot stop a thread: Restart "
                        r"engine ends it\)", reason), reason
    # The thread ended, the next Stop has no thread to name.
    done = engine.call(p.LoadSource(source="halt.set()\ntalker.join(5)\nassert not "
                                           "talker.is_alive()\n" + GOOD))
    assert isinstance(done, p.Result), done
    box = _start(engine, p.LoadSource(source=PYTHON_LOOP), busy_cpu=False)
    _stop_and_check(engine, box, idle_within=3.0)
    assert "thread" not in engine.stopped.reason
    assert isinstance(engine.call(KERNEL_SOURCE), p.Result)
