"""Which crashes make a crash loop, and a frozen kernel flagged by its heartbeat."""

from __future__ import annotations

import os
import signal

import pytest

from tests.kernel_util import Recorder, wait_until
from workbench.api import messages as p
from workbench.api.state import State

pytestmark = pytest.mark.serial  # times what a kernel does: alone, never beside a worker

GOOD = "def f(x):\n    return x + 1\n"
ABORT = "import os\nos.abort()\n"


def _restarted(rec: Recorder, count: int) -> bool:
    return sum(n.message == "engine restarted, definitions reloaded"
               for n in rec.notices) >= count


def test_separate_crashes_the_user_causes_never_stop_the_engine():
    """Each crash comes well after the reload before it: none is a loop, however many."""
    rec = Recorder(max_restarts=1, crash_window=0.0)
    try:
        assert isinstance(rec.call(p.LoadSource(source=GOOD)), p.Result)
        for crash in range(1, 4):
            box = rec.send(p.LoadSource(source=ABORT + GOOD))
            wait_until(lambda c=crash: _restarted(rec, c), 60, f"restart after crash {crash}")
            assert isinstance(box[0], p.EngineFailure)
            rec.wait_idle(30)
        assert rec.client.state == State.IDLE
        assert "dead" not in rec.kinds()
        assert isinstance(rec.call(p.Trace(name="f", args="f32[2]")), p.Result)
    finally:
        rec.close()


def test_a_crash_during_the_reload_counts_toward_the_loop_however_slow(tmp_path):
    """The reload of the last good source itself crashes (after a while): that is a loop."""
    flag = tmp_path / "crash-now"
    source = (f"import os, threading\nif os.path.exists({str(flag)!r}):\n"
              "    threading.Event().wait(0.5)\n    os.abort()\n" + GOOD)
    rec = Recorder(max_restarts=1, crash_window=0.0)
    try:
        assert isinstance(rec.call(p.LoadSource(source=source)), p.Result)
        flag.touch()
        rec.send(p.LoadSource(source=source))
        wait_until(lambda: rec.client.state == State.DEAD, 60, "dead after the reload crashed")
        assert rec.kinds().count("crashed") == 1 and rec.kinds()[-1] == "dead"
    finally:
        rec.close()


def test_a_stopped_kernel_is_flagged_within_2_s_and_stop_restarts_it():
    rec = Recorder()
    try:
        assert isinstance(rec.call(p.LoadSource(source=GOOD)), p.Result)
        rec.wait_idle(30)
        pid = rec.client.pid
        os.kill(pid, signal.SIGSTOP)
        try:
            wait_until(lambda: rec.client.state == State.UNRESPONSIVE, 2.0, "flagged")
            assert rec.kinds()[-1] == "unresponsive"
        finally:
            os.kill(pid, signal.SIGCONT)
        wait_until(lambda: rec.client.state == State.IDLE, 5, "responding again")
        assert rec.kinds()[-1] == "responding"
        assert rec.client.pid == pid  # only flagged, not killed
        # Frozen again: Stop cannot interrupt it, so it restarts it.
        os.kill(pid, signal.SIGSTOP)
        wait_until(lambda: rec.client.state == State.UNRESPONSIVE, 2.0, "flagged again")
        rec.client.stop()
        wait_until(lambda: rec.client.state == State.IDLE, 10, "idle after the restart")
        assert rec.client.pid != pid
        assert isinstance(rec.call(p.Trace(name="f", args="f32[2]")), p.Result)
    finally:
        rec.close()
