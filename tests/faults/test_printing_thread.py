"""A thread the user's code starts, printing while requests come and go, never crashes the
engine: ``sys.stdout`` is routed, never swapped and freed under the thread's ``write``.

Before the fix this crashed the kernel (SIGSEGV) in 3 of 3 runs of this loop."""

from __future__ import annotations

import sys

import pytest

from tests.kernel_util import Recorder
from workbench.api import messages as p
from workbench.engine.printed import StreamRouter, routed, routers

SPAMMER = """\
import threading, time
def _spam():
    i = 0
    while True:
        print("tick", i)
        i += 1
        time.sleep(0.0005)
threading.Thread(target=_spam, daemon=True).start()
def f(x):
    return x * 2
"""


# A thread writing to file descriptor 1 as C code does, and XLA's callback thread printing
# through jax.debug.print, while the requests that run it come and go.
C_LEVEL_AND_CALLBACKS = """\
import os, threading, time
import jax
import jax.numpy as jnp
def _spam():
    while True:
        os.write(1, b"c-level tick\\n")
        time.sleep(0.0005)
threading.Thread(target=_spam, daemon=True).start()
@jax.jit
def g(x):
    jax.debug.print("debug {}", x.sum())
    return jnp.sin(x) * 2
"""


@pytest.fixture
def engine():
    rec = Recorder()
    yield rec
    rec.close()


def test_a_printing_thread_outlives_many_requests(engine):
    assert isinstance(engine.call(p.LoadSource(source=SPAMMER)), p.Result)
    pid = engine.call(p.Ping()).value.pid
    for _ in range(120):
        assert isinstance(engine.call(p.Trace(name="f", args="f32[3]")), p.Result)
        assert isinstance(engine.call(p.Ping()), p.Result)
    assert engine.call(p.Ping()).value.pid == pid
    assert "crashed" not in engine.kinds()
    # What it printed during a request reached the window, marked as a thread's.
    assert any(o.background and "tick" in o.text for o in engine.outputs)


def test_the_router_stays_and_routes_to_the_innermost_capture(capsys):
    out, err = routers()
    assert sys.stdout is out and isinstance(out, StreamRouter)
    got: list[str] = []

    class Sink:
        def write(self, text):
            got.append(text)

        def flush(self):
            pass

    with routed(Sink(), Sink()):  # type: ignore[arg-type]
        print("inside")
        assert sys.stdout is out  # routed, not swapped
    print("after")
    assert "".join(got) == "inside\n"
    assert capsys.readouterr().out == "after\n"  # back to the stream it replaced


def test_c_level_writes_and_debug_prints_outlive_many_requests(engine):
    assert isinstance(engine.call(p.LoadSource(source=C_LEVEL_AND_CALLBACKS)), p.Result)
    pid = engine.call(p.Ping()).value.pid
    for i in range(60):
        reply = engine.call(p.Values(name="g", args=f"f32[{i % 4 + 1}]"))
        assert isinstance(reply, p.Result), reply
        assert isinstance(engine.call(p.Ping()), p.Result)
    assert engine.call(p.Ping()).value.pid == pid
    assert "crashed" not in engine.kinds()
    assert any("debug" in o.text for o in engine.outputs)  # the callback's print arrived
