"""The client's I/O thread answers every request whatever happens on it: a kernel message of the
wrong shape is dropped, a kernel that cannot be started (now, or after a crash) is a dead engine
with its reason whose requests are answered at once and which Restart starts again, and should
the thread itself end, the caller is answered and Restart starts a new one."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from tests.kernel_util import Recorder, wait_until
from workbench.api import messages as p
from workbench.api.state import State

# User code holds the kernel's session, key included: it can send the client anything signed.
# Each message is one the old client's thread died on (a KeyError, TypeError or AttributeError
# in decoding or in a handler).
WRONG_SHAPES = """\
import IPython
_kernel = IPython.get_ipython().kernel
_s = _kernel.session
_status = _s.pack(_s.msg_header("status"))
for _frames in (
    [b"{}", b"{}", b"{}", b'{"execution_state": "idle"}'],  # a header without id or type
    [b"[]", b"{}", b"{}", b"{}"],  # a header that is a list
    [_status, b"[]", b"{}", b'{"execution_state": "idle"}'],  # a parent header that is a list
    [_status, _s.pack({"msg_id": []}), b"{}", b'{"execution_state": "busy"}'],  # its id a list
    [_s.pack(_s.msg_header("stream")), b"{}", b"{}", b"[1, 2]"],  # content that is a list
    [_status, b"{}", b"[]", b'{"execution_state": "idle"}'],  # metadata that is a list
):
    _s.send_raw(_kernel.iopub_socket, _frames)
print("sent", flush=True)
"""

# Data on our own comm that is no workbench message and whose "body" is no object.
WRONG_COMM_DATA = """\
import IPython
for _comm in list(IPython.get_ipython().kernel.comm_manager.comms.values()):
    _comm.send(data={"body": []})
print("sent", flush=True)
"""

BUSY = "print('started', flush=True)\nwhile True:\n    pass\n"


def _wrapper(path: Path) -> Path:
    """A python that is a script: there, or not (a venv being rebuilt), as a test wants."""
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    path.chmod(0o755)
    return path


def _said(rec: Recorder) -> list[str]:
    """The notices' kinds, but a heartbeat missed and found again (a loaded machine's, not what
    these tests cause)."""
    return [kind for kind in rec.kinds() if kind not in ("unresponsive", "responding")]


def _answered_at_once(rec: Recorder) -> p.Reply:
    box = rec.send(p.Ping())
    wait_until(lambda: box, 2, "the answer of a dead engine")
    return box[0]


def test_kernel_messages_of_the_wrong_shape_are_dropped():
    rec = Recorder()
    try:
        assert isinstance(rec.call(p.Ping(), 120), p.Result)
        # The bad messages go out on iopub before the reply, which follows them there.
        reply = rec.call(p.LoadSource(source=WRONG_SHAPES), 60)
        assert isinstance(reply, p.Result), reply
        assert reply.value.printed.text == "sent\n"
        assert isinstance(rec.call(p.Ping(), 30), p.Result)
        rec.wait_idle(10)
        assert _said(rec) == []
    finally:
        rec.close()


def test_a_comm_message_a_handler_chokes_on_leaves_nothing_unanswered():
    """A handler that raises on what the kernel sent (``_on_comm`` did on this data) costs at
    most a restart: the request in flight is answered, and so is everything after."""
    rec = Recorder()
    try:
        assert isinstance(rec.call(p.Ping(), 120), p.Result)
        reply = rec.call(p.LoadSource(source=WRONG_COMM_DATA), 60)
        if rec.client.state == State.DEAD:
            assert isinstance(reply, p.EngineFailure)
            assert reply.message.startswith("the engine client failed (")
            assert isinstance(_answered_at_once(rec), p.EngineFailure)
            rec.client.restart()
        else:  # dropped where it arrived
            assert isinstance(reply, p.Result)
        assert isinstance(rec.call(p.Ping(), 120), p.Result)
    finally:
        rec.close()


def test_a_kernel_that_cannot_start_is_answered_at_once_and_restart_starts_it(tmp_path):
    python = tmp_path / "python"  # not there yet
    rec = Recorder(python=str(python))
    try:
        wait_until(lambda: rec.client.state == State.DEAD, 30, "the failed start reported")
        assert _said(rec) == ["dead"]
        said = rec.notices[-1].message
        assert said.startswith("the engine client failed (FileNotFoundError: ")
        assert str(python) in said and said.endswith("restart the engine to go on")
        assert "Traceback" in rec.notices[-1].fault
        reply = _answered_at_once(rec)
        assert isinstance(reply, p.EngineFailure) and reply.message == said
        _wrapper(python)
        rec.client.restart()
        assert isinstance(rec.call(p.Ping(), 120), p.Result)
        rec.wait_idle(10)
    finally:
        rec.close()


def test_a_crashed_kernel_that_cannot_be_started_again_is_dead_until_restart(tmp_path):
    python = _wrapper(tmp_path / "python")
    rec = Recorder(python=str(python))
    try:
        assert isinstance(rec.call(p.Ping(), 120), p.Result)
        events: list[p.Event] = []
        box: list[p.Reply] = []
        rec.client.request(p.LoadSource(source=BUSY), box.append, events.append)
        wait_until(lambda: any(isinstance(e, p.Output) and "started" in e.text for e in events),
                   60, "the loop to run")
        python.unlink()
        os.kill(rec.client.pid, signal.SIGKILL)  # the restart after it cannot start a kernel
        wait_until(lambda: rec.client.state == State.DEAD, 30, "the failed restart reported")
        assert isinstance(box[0], p.EngineFailure) and box[0].crashed  # the crash answered it
        assert _said(rec) == ["crashed", "dead"]
        assert "FileNotFoundError" in rec.notices[-1].message
        assert isinstance(_answered_at_once(rec), p.EngineFailure)
        _wrapper(python)
        rec.client.restart()
        assert isinstance(rec.call(p.Ping(), 120), p.Result)
    finally:
        rec.close()


class _BrokenPoller:
    """A poller that fails: no input reaches the loop's own poll, so this is put in its place
    (the one internal object a test replaces here)."""

    def poll(self, timeout: int) -> list:
        raise RuntimeError("the poller broke")


def test_a_client_whose_thread_ended_answers_on_the_callers_thread_and_restarts():
    rec = Recorder()
    try:
        pid = rec.call(p.Ping(), 120).value.pid
        rec.client._core.transport._poller = _BrokenPoller()
        wait_until(lambda: not rec.client._thread.is_alive(), 10, "the I/O thread to end")
        assert rec.client.state == State.DEAD
        assert rec.notices[-1].message == ("the engine client failed (RuntimeError: the poller "
                                           "broke); restart the engine to go on")
        box = rec.send(p.Ping())
        assert isinstance(box[0], p.EngineFailure)  # before request() returned
        rec.client.restart()
        pong = rec.call(p.Ping(), 120)
        assert isinstance(pong, p.Result) and pong.value.pid != pid
        assert rec.client._thread.is_alive()
        rec.wait_idle(10)
    finally:
        rec.close()
