"""Death of the engine (abort, segfault, SIGKILL): noticed within 2 s, restarted, answering."""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from tests.kernel_util import Recorder, wait_until
from workbench.api import messages as p
from workbench.api.state import State

pytestmark = pytest.mark.serial  # times what a kernel does: alone, never beside a worker

GOOD = "def f(x):\n    return x + 1\n"
KERNEL_SOURCE = p.LoadSource(source=GOOD)  # for the ``engine`` fixture (tests/conftest.py)


def _crash_and_recover(engine: Recorder, crash, reason: str) -> p.Reply:
    old_pid = engine.call(p.Ping()).value.pid
    seen = len(engine.notices)
    start = time.monotonic()
    box = crash(old_pid)
    wait_until(lambda: "crashed" in engine.kinds()[seen:], 2.0, "crash noticed")
    notice = next(n for n in engine.notices[seen:] if n.kind == "crashed")
    assert reason in notice.message
    wait_until(lambda: any(n.message == "engine restarted, definitions reloaded"
                           for n in engine.notices[seen:]), 30, "restart")
    assert time.monotonic() - start < 30
    engine.wait_idle(10)
    pong = engine.call(p.Ping()).value
    assert pong.pid != old_pid
    names = [f.name for f in engine.call(p.ListFunctions()).value.functions]
    assert names == ["f"]
    if box is not None:
        wait_until(lambda: box, 2.0, "the crashed request's reply")
        assert isinstance(box[0], p.EngineFailure)
        assert reason in box[0].message
    return notice


def _frames(fault: str) -> list[str]:
    return [line.strip() for line in fault.splitlines() if line.strip().startswith("File ")]


def test_abort_is_detected_reported_and_restarted(engine):
    notice = _crash_and_recover(
        engine, lambda pid: engine.send(p.LoadSource(source="import os\nos.abort()\n")),
        "aborted (SIGABRT)")
    assert "Fatal Python error: Aborted" in notice.fault
    # faulthandler names the user's line, and only the user's frames are shown.
    assert _frames(notice.fault) == ['File "editor.py", line 2 in <module>']
    assert re.search(r"\(\d+ frames outside your code left out\)", notice.fault), notice.fault
    assert "workbench" not in notice.fault and "Extension modules" not in notice.fault


def test_segfault_is_detected_reported_and_restarted(engine):
    source = "import ctypes\nctypes.string_at(0)\n"
    notice = _crash_and_recover(engine, lambda pid: engine.send(p.LoadSource(source=source)),
                                "segmentation fault (SIGSEGV)")
    assert "Segmentation fault" in notice.fault
    assert _frames(notice.fault) == ['File "editor.py", line 2 in <module>']  # not ctypes'


def test_a_crash_in_a_lesson_step_shows_the_step_frames_innermost_first(engine):
    step = "import os\n\ndef crash():\n    os.abort()\n\ncrash()\n"
    request = p.LoadSource(source=step, filename="crash.ipynb, step 2", cell=True)
    notice = _crash_and_recover(engine, lambda pid: engine.send(request), "aborted (SIGABRT)")
    assert _frames(notice.fault) == ['File "crash.ipynb, step 2", line 4 in crash',
                                     'File "crash.ipynb, step 2", line 6 in <module>']
    assert "ipykernel" not in notice.fault and "workbench" not in notice.fault


def test_external_sigkill_is_detected_and_restarted(engine):
    def kill(pid):
        os.kill(pid, signal.SIGKILL)

    _crash_and_recover(engine, kill, "killed from outside (SIGKILL)")


def test_crash_loop_stops_after_the_restart_limit(tmp_path):
    flag = tmp_path / "crash-now"
    source = (f"import os\nif os.path.exists({str(flag)!r}):\n    os.abort()\n\n"
              "def f(x):\n    return x\n")
    rec = Recorder(max_restarts=1)
    try:
        assert isinstance(rec.call(p.LoadSource(source=source)), p.Result)
        flag.touch()
        # Crash now; the reload of the (now crashing) source crashes again: a loop.
        box = rec.send(p.LoadSource(source=source))
        wait_until(lambda: rec.client.state == State.DEAD, 60, "dead after repeated crashes")
        assert isinstance(box[0], p.EngineFailure)
        assert rec.kinds().count("crashed") == 1
        assert rec.kinds()[-1] == "dead"
        assert "2 times in a row" in rec.notices[-1].message
        # Dead means dead: a request is answered at once, not queued forever.
        assert isinstance(rec.call(p.Ping(), timeout=5), p.EngineFailure)
        # A manual restart resets the count (the flag is gone, so the source loads).
        flag.unlink()
        rec.client.restart()
        wait_until(lambda: any(n.message == "engine restarted, definitions reloaded"
                               for n in rec.notices), 60, "manual restart")
        assert isinstance(rec.call(p.Ping()), p.Result)
    finally:
        rec.close()
