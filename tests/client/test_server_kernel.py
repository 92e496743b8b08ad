"""The engine client on a kernel of a real Jupyter Server: Stop interrupts through the server
and says where the code was; restart goes through the server and loads the source again (so
does a restart from JupyterLab, said as a restart, not a crash); a kernel the server ends is
reported (and a new one started on request); a WebSocket that drops is reconnected, waiting
longer between tries, without losing the reply in flight; a reply the server could not
replay fails its request at once."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import socket
import threading
import uuid
from pathlib import Path

import pytest

from tests.kernel_util import wait_until
from tests.server_util import running_jupyter_server
from workbench.api import messages as p
from workbench.api.state import NoticeKind, State
from workbench.client.engine_client import EngineClient
from workbench.client.server import server_target

FILENAME = "/lessons/on_server.py"
SOURCE = "import jax.numpy as jnp\n\ndef double(x):\n    return x * 2\n"


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory):
    with running_jupyter_server(tmp_path_factory.mktemp("server")) as server:
        yield server


@pytest.fixture
def client(jupyter):
    notices: queue.SimpleQueue = queue.SimpleQueue()
    engine = EngineClient(server=server_target(jupyter.url, jupyter.token),
                          on_notice=notices.put)
    engine.notices = notices
    wait_until(lambda: engine.state in (State.IDLE, State.DEAD), 60, "the kernel to answer")
    assert engine.state == State.IDLE, _said(notices)
    yield engine
    engine.close()


def _said(notices) -> list:
    said = []
    while not notices.empty():
        said.append(notices.get())
    return said


def _load(client, source=SOURCE) -> p.Reply:
    return client.call(p.LoadSource(source=source, filename=FILENAME), timeout=60)


def test_requests_run_on_the_servers_kernel_which_is_shut_down_on_close(jupyter):
    engine = EngineClient(server=server_target(jupyter.url, jupyter.token))
    wait_until(lambda: engine.state == State.IDLE, 60, "the kernel to answer")
    kernel_id = engine.server.kernel_id
    assert kernel_id in {k["id"] for k in jupyter.kernels()}
    reply = _load(engine)
    assert isinstance(reply, p.Result) and "double" in [f.name for f in reply.value.functions]
    traced = engine.call(p.Trace(name="double", args="f32[3]"), timeout=60)
    assert isinstance(traced, p.Result) and "mul" in traced.value.text
    assert engine.host == f"127.0.0.1:{jupyter.url.split(':')[2].rstrip('/')}"
    assert jupyter.token not in repr(engine.server.server.target)
    engine.close()
    assert kernel_id not in {k["id"] for k in jupyter.kernels()}


def test_stop_interrupts_through_the_server_and_says_where(client, tmp_path):
    assert isinstance(_load(client), p.Result)
    replies: queue.SimpleQueue = queue.SimpleQueue()
    started = tmp_path / "looping"  # the server runs on this machine: the loop marks it runs
    looping = ("n = 0\nwhile True:\n    n += 1\n"
               f"    if n == 10_000:\n        open({str(started)!r}, 'w').close()\n")
    client.request(p.LoadSource(source=looping, filename=FILENAME), replies.put)
    wait_until(started.exists, 30, "the loop to run")
    client.stop()
    reply = replies.get(timeout=30)
    assert isinstance(reply, p.Cancelled) and reply.line in (2, 3, 4, 5), reply
    assert reply.reason.startswith(f"stopped at line {reply.line} after "), reply
    wait_until(lambda: client.state == State.IDLE, 30, "idle after the Stop")
    assert client.state == State.IDLE
    again = client.call(p.Trace(name="double", args="f32[2]"), timeout=60)
    assert isinstance(again, p.Result)  # the same kernel, its names kept


def test_restart_goes_through_the_server_and_loads_the_source_again(client, jupyter):
    assert isinstance(_load(client), p.Result)
    kernel_id = client.server.kernel_id
    before = _kernel_pid(kernel_id)
    client.restart()
    wait_until(lambda: any(n.kind == NoticeKind.RESTARTED and n.reloaded
                           for n in _drain_into(client)), 90, "the restart's reload")
    assert client.server.kernel_id == kernel_id  # the server restarted that kernel ...
    assert _kernel_pid(kernel_id) not in (None, before)  # ... in a new process
    traced = client.call(p.Trace(name="double", args="f32[2]"), timeout=60)
    assert isinstance(traced, p.Result)


def test_a_restart_from_jupyterlab_is_a_restart_not_a_crash_and_the_source_comes_back(
        client, jupyter):
    assert isinstance(_load(client), p.Result)
    kernel_id = client.server.kernel_id
    before = _kernel_pid(kernel_id)
    jupyter.rest("POST", f"api/kernels/{kernel_id}/restart")  # JupyterLab's Restart
    wait_until(lambda: any(n.kind == NoticeKind.RESTARTED and n.reloaded
                           for n in _drain_into(client)), 90, "the reload after the restart")
    said = [n for n in client.seen if n.kind in (NoticeKind.RESTARTED, NoticeKind.CRASHED)]
    assert [n.kind for n in said] == [NoticeKind.RESTARTED], said
    assert "restarted from outside the workbench" in said[0].message
    assert client.stats.crashes == 0
    assert _kernel_pid(kernel_id) not in (None, before)
    assert isinstance(client.call(p.Trace(name="double", args="f32[2]"), timeout=60), p.Result)


def test_a_kernel_the_server_ends_is_reported_and_a_new_one_starts_on_request(client, jupyter):
    assert isinstance(_load(client), p.Result)
    gone = client.server.kernel_id
    jupyter.rest("DELETE", f"api/kernels/{gone}")  # as a culler does
    wait_until(lambda: client.state == State.DEAD, 30, "the engine to say it is gone")
    said = [n for n in _drain_into(client) if n.kind == NoticeKind.DEAD]
    assert said and "is gone (the server culled it" in said[-1].message
    client.restart()
    wait_until(lambda: client.state == State.IDLE, 90, "a new kernel")
    assert client.server.kernel_id not in (None, gone)
    assert isinstance(client.call(p.Trace(name="double", args="f32[2]"), timeout=60), p.Result)


def test_a_dropped_websocket_reconnects_without_losing_the_reply_in_flight(client):
    assert isinstance(_load(client), p.Result)
    replies: queue.SimpleQueue = queue.SimpleQueue()
    slow = SOURCE + "import threading\nthreading.Event().wait(1.5)\nafter = 1\n"
    client.request(p.LoadSource(source=slow, filename=FILENAME), replies.put)
    wait_until(lambda: client.state == State.BUSY, 30, "the request to run")
    # The connection breaks, not a goodbye (what a network or proxy that drops it does).
    client.server.transport._ws.sock.shutdown(socket.SHUT_RDWR)
    reply = replies.get(timeout=30)
    assert isinstance(reply, p.Result), reply
    assert client.server.reconnected == 1
    # Its idle status may have gone with the old socket: the kernel's answer to what the
    # client asked after reconnecting proves it done.
    wait_until(lambda: client.state == State.IDLE, 30, "idle after the reconnect")


def test_a_reply_lost_with_the_socket_fails_its_request_once_the_kernel_is_idle_again(
        client, jupyter, tmp_path):
    assert isinstance(_load(client), p.Result)
    go = tmp_path / "go"
    replies: queue.SimpleQueue = queue.SimpleQueue()
    slow = SOURCE + ("import os, threading\n"
                     f"while not os.path.exists({str(go)!r}):\n"
                     "    threading.Event().wait(0.01)\n")
    client.request(p.LoadSource(source=slow, filename=FILENAME), replies.put)

    def kernel_state() -> str:
        return next(k["execution_state"] for k in jupyter.kernels()
                    if k["id"] == client.server.kernel_id)

    # The server, too, knows the request runs (its state lags the client's).
    wait_until(lambda: client.state == State.BUSY and kernel_state() == "busy", 30,
               "the request to run")
    # The I/O thread held while the socket is down and the reply goes out: then the client
    # comes back as a new session, so the server has nothing to replay to it.
    held, holding = threading.Event(), threading.Event()
    transport = client.server.transport
    transport.call(lambda: (holding.set(), held.wait(60)))
    wait_until(holding.is_set, 30, "the I/O thread to be held")
    transport._ws.sock.shutdown(socket.SHUT_RDWR)
    # Linux still queues what arrives after a shutdown: the reader must be gone first.
    wait_until(lambda: not transport._reader.is_alive(), 30, "the reader to see the drop")
    go.touch()
    wait_until(lambda: kernel_state() == "idle", 30, "the kernel to answer, unheard")
    transport.ws_url = transport.ws_url.replace(client.server.session_id, uuid.uuid4().hex)
    held.set()
    reply = replies.get(timeout=30)
    assert isinstance(reply, p.EngineFailure), reply
    assert "reply was lost" in reply.message and "run it again" in reply.message
    wait_until(lambda: client.state == State.IDLE, 30, "idle after the reconnect")
    assert isinstance(client.call(p.Ping(), 30), p.Result)  # and the client goes on


def test_reconnecting_waits_longer_each_time_and_goes_on_once_the_server_answers(client):
    assert isinstance(_load(client), p.Result)
    transport = client.server.transport
    real_url = transport.ws_url
    with socket.socket() as closed:  # a port where nothing listens: refused at once
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    transport.ws_url = f"ws://127.0.0.1:{port}/api/kernels/x/channels"
    transport._ws.sock.shutdown(socket.SHUT_RDWR)
    wait_until(lambda: client.server.reconnects >= 2, 30, "two refused tries")
    # Refused at once, yet not all tries spent at once: it waits between them.
    assert client.state != State.DEAD
    transport.ws_url = real_url
    wait_until(lambda: client.server.reconnected == 1, 30, "the reconnect")
    assert isinstance(client.call(p.Ping(), 30), p.Result)
    wait_until(lambda: client.server.reconnects == 0, 30, "the tries counted from zero again")


def _kernel_pid(kernel_id: str) -> int | None:
    """The process the server started for ``kernel_id`` (its connection file names it)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(kernel_id.encode() in arg for arg in argv) and b"--managed" in argv:
                return int(entry.name)
    return None


def _drain_into(client) -> list:
    client.__dict__.setdefault("seen", []).extend(_said(client.notices))
    return client.seen


def test_a_kernel_that_dies_on_the_server_is_said_and_the_source_loaded_again(client):
    # The server's auto-restarter brings a dead kernel back (its own "restarting" status,
    # signed with our session id): what ran is lost, said as a crash; the new process gets
    # the comm and the source again.
    import os
    import signal

    assert isinstance(_load(client), p.Result)
    kernel_id = client.server.kernel_id
    os.kill(_kernel_pid(kernel_id), signal.SIGKILL)
    wait_until(lambda: any(n.kind == NoticeKind.RESTARTED and n.reloaded
                           for n in _drain_into(client)), 90, "the reload after the crash")
    assert any(n.kind == NoticeKind.CRASHED for n in client.seen)
    assert client.server.kernel_id == kernel_id
    assert isinstance(client.call(p.Trace(name="double", args="f32[2]"), timeout=60), p.Result)


def test_restart_engine_after_the_server_restarted_starts_a_new_kernel(tmp_path):
    """The server went away with its kernels and came back on the same port: Restart engine
    starts a new kernel there. Before, it asked the new server to restart the old kernel id
    (an error) and the engine stayed dead for good."""
    with running_jupyter_server(tmp_path / "first") as first:
        url, token = first.url, first.token
        notices: queue.SimpleQueue = queue.SimpleQueue()
        engine = EngineClient(server=server_target(url, token), on_notice=notices.put)
        try:
            wait_until(lambda: engine.state == State.IDLE, 60, "the kernel to answer")
            assert isinstance(_load(engine), p.Result)
            old = engine.server.kernel_id
            orphan = engine.call(p.Ping(), 30).value.pid
            first.proc.kill()  # a crash, or a machine's restart: no word to the clients
            first.proc.wait(10)
        except BaseException:
            engine.close()
            raise
    try:
        # Down long enough for the client to give up on it (its reconnects end).
        wait_until(lambda: engine.state == State.DEAD, 60, "the engine to say it is lost")
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        with running_jupyter_server(tmp_path / "second", port=port, token=token) as second:
            engine.restart()
            wait_until(lambda: engine.state in (State.IDLE, State.DEAD)
                       and engine.server.kernel_id not in (None, old), 90, "a new kernel")
            assert engine.state == State.IDLE, _said(notices)
            assert engine.server.kernel_id in [k["id"] for k in second.kernels()]
            said = [n.message for n in _said(notices) if n.kind == NoticeKind.RESTARTED]
            assert said and said[-1].startswith(f"a new kernel started on 127.0.0.1:{port}: "
                                                f"the server no longer had kernel {old[:8]}")
            # The source came back with it.
            assert isinstance(engine.call(p.Trace(name="double", args="f32[2]"), timeout=60),
                              p.Result)
    finally:
        engine.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(orphan, signal.SIGKILL)  # the first server's kernel, left behind
