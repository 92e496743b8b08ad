"""The request coalescer, as plain bookkeeping: no Qt, no engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from workbench.ui.control.coalescer import Coalescer

ROOT = Path(__file__).resolve().parents[2]


def test_one_request_in_flight_per_key():
    c = Coalescer()
    assert not c.busy() and not c.busy("f")
    assert c.want("f") is True  # idle: send now
    assert c.busy("f") and c.busy()
    assert c.want("f") is False  # in flight: wait
    assert c.busy("f")
    assert c.done("f") is True  # the follow-up goes out, still one in flight
    assert c.busy("f") and not c.pending("f")
    assert c.done("f") is False
    assert not c.busy("f") and not c.busy()


def test_a_burst_while_in_flight_gives_exactly_one_follow_up():
    c = Coalescer()
    sent = 0
    if c.want("f"):
        sent += 1
    for _ in range(50):  # a slider drag faster than the engine
        if c.want("f"):
            sent += 1
    assert sent == 1 and c.pending("f")
    assert c.done("f") is True
    sent += 1
    assert c.done("f") is False  # nothing newer was wanted meanwhile
    assert sent == 2 and not c.busy()


def test_want_when_idle_sends_again():
    c = Coalescer()
    assert c.want("f") and not c.done("f")
    assert c.want("f") is True


def test_keys_are_independent():
    c = Coalescer()
    assert c.want("f") and c.want("g")
    assert c.want("f") is False
    assert c.pending("f") and not c.pending("g")
    assert c.done("g") is False
    assert not c.busy("g") and c.busy("f") and c.busy()
    assert c.done("f") is True and c.done("f") is False
    assert not c.busy()


def test_forget_and_reset():
    c = Coalescer()
    c.want("f")
    c.want("f")
    c.forget("f")
    assert not c.busy("f") and not c.pending("f")
    assert c.want("f") is True  # a fresh owner sends at once
    assert c.done("f") is False
    c.forget("never seen")  # harmless
    assert c.done("never seen") is False  # a late reply for a forgotten key: nothing to send
    c.want("a")
    c.want("a")
    c.want("b")
    c.reset()
    assert not c.busy() and not c.pending("a")
    assert c.want("a") is True and c.want("b") is True


def test_coalescer_imports_no_qt():
    code = ("import sys, workbench.ui.control.coalescer\n"
            "qt = {'PySide6', 'shiboken6', 'pyqtgraph'}\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in qt))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
