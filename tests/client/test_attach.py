"""The client attached to a kernel started apart (loopback TCP, and through SSH): it answers,
Stop interrupts it, a Stop that cannot stop it offers a restart that only the user starts, and
every way of pointing at nothing fails within seconds with one line that says why."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from tests.attach_util import (
    DEAF_JIT_LOOP,
    aged,
    dead_connection_file,
    free_ports,
    silent_port,
    ssh_client_dir,
    start_tcp_kernel,
    wrong_key_file,
)
from tests.kernel_util import wait_until, wait_working
from workbench.api import messages as p
from workbench.api.jaxpr import TraceResult
from workbench.api.state import Notice, State
from workbench.client import supervision
from workbench.client.attach import host_label
from workbench.client.engine_client import EngineClient
from workbench.engine.service import Service

# The tests that time what a kernel does (a Stop, a death noticed, a failure within seconds)
# are marked serial: they run one worker per core, never beside another's load.
SERIAL = pytest.mark.serial

GOOD = "def f(x):\n    return jnp.sin(x) * 2\n"
PYTHON_LOOP = "print('started', flush=True)\nwhile True:\n    pass\n"


class Attached:
    """An attached client and what its callbacks reported."""

    def __init__(self, connection_file, **kwargs):
        self.notices: list[Notice] = []
        self.client = EngineClient(connection_file, on_notice=self.notices.append, **kwargs)

    def kinds(self) -> list[str]:
        return [n.kind for n in self.notices]

    def __enter__(self) -> Attached:
        return self

    def __exit__(self, *exc) -> None:
        self.client.close()


def _start(client: EngineClient, source: str, pid: int) -> list[p.Reply]:
    """Send ``source``; return once its code printed "started" and kernel ``pid`` works on it
    (the reply still to come)."""
    events: list[p.Event] = []
    box: list[p.Reply] = []
    client.request(p.LoadSource(source=source), box.append, events.append)
    wait_until(lambda: any(isinstance(e, p.Output) and "started" in e.text for e in events)
               or box, 60, "the code to start")
    assert not box, f"the code ended before Stop: {box}"
    wait_working(pid)
    return box


def test_attached_over_loopback_tcp_answers_as_in_process(tcp_kernel):
    with Attached(tcp_kernel.connection_file) as a:
        pong = a.client.call(p.Ping(), 60).value
        assert pong.pid == tcp_kernel.proc.pid and pong.in_kernel
        assert not a.client.owned and a.client.host == "localhost"
        assert isinstance(a.client.call(p.LoadSource(source=GOOD), 60), p.Result)
        trace = p.Trace(name="f", args="f32[3]", transforms=("grad", "vmap"))
        remote = p.result_value(a.client.call(trace, 60), TraceResult)
    local = Service()
    local.handle(p.LoadSource(source=GOOD))
    assert remote is not None
    assert remote.text == p.result_value(local.handle(trace), TraceResult).text


def test_the_status_names_the_host():
    assert host_label("unused.json", "teacher@gpu-host") == "gpu-host"
    assert host_label("unused.json", "gpu-host:2222") == "gpu-host"


@SERIAL
def test_stop_interrupts_an_attached_kernel_and_keeps_its_names(tcp_kernel):
    with Attached(tcp_kernel.connection_file, stop_grace=3.0) as a:
        assert isinstance(a.client.call(p.LoadSource(source=GOOD), 60), p.Result)
        box = _start(a.client, PYTHON_LOOP, tcp_kernel.proc.pid)
        a.client.stop()  # a kernel on another host cannot be signalled: interrupt_request
        wait_until(lambda: box and a.client.state == State.IDLE, 10, "idle after Stop")
        assert isinstance(box[0], p.Cancelled)
        assert box[0].reason.startswith("stopped at line 2 after ")  # the loop's line
        assert "stop-failed" not in a.kinds()
        # The loop was in the source being loaded: the last good one is still there.
        assert isinstance(a.client.call(p.Trace(name="f", args="f32[3]"), 30), p.Result)


@SERIAL
def test_a_stop_that_cannot_stop_it_offers_a_restart_that_only_the_user_starts(tcp_kernel):
    with Attached(tcp_kernel.connection_file) as a:
        assert isinstance(a.client.call(p.LoadSource(source=GOOD), 60), p.Result)
        pid = a.client.call(p.Ping(), 30).value.pid
        box = _start(a.client, DEAF_JIT_LOOP, tcp_kernel.proc.pid)
        a.client.stop()
        wait_until(lambda: "stop-failed" in a.kinds(), 10, "the stop to fail")
        offer = next(n for n in a.notices if n.kind == "stop-failed")
        assert offer.offer_restart and "did not stop" in offer.message
        # Where it is stuck, read by the kernel's control thread before the interrupt.
        line = DEAF_JIT_LOOP.splitlines().index("h(jnp.ones(4), 2**31 - 1).block_until_ready()")
        assert f"(it was still busy at line {line + 1}, inside a compiled computation)" \
            in offer.message
        assert isinstance(box[0], p.Cancelled)
        assert box[0].reason.startswith(f"not stopped: still running at line {line + 1} after ")
        # Not restarted behind the user's back: still the same kernel, still busy.
        assert a.client.state == State.BUSY and tcp_kernel.alive()
        assert a.client.stats.restarts == 0
        a.client.restart()  # the user accepts the offer
        wait_until(lambda: "restarted" in a.kinds() and a.client.state == State.IDLE, 60,
                   "idle after the restart")
        assert any(n.kind == "restarted" and n.message.endswith("definitions reloaded")
                   for n in a.notices)
        # The same process started afresh (same pid, same ports), the source reloaded.
        pong = a.client.call(p.Ping(), 30).value
        assert pong.pid == pid == tcp_kernel.proc.pid
        assert isinstance(a.client.call(p.Trace(name="f", args="f32[3]"), 30), p.Result)


@SERIAL
def test_a_remote_kernel_that_dies_is_reported_and_never_restarted(tmp_path):
    kernel = start_tcp_kernel(tmp_path)
    try:
        with Attached(kernel.connection_file) as a:
            assert isinstance(a.client.call(p.Ping(), 60), p.Result)
            os.killpg(kernel.proc.pid, signal.SIGKILL)
            wait_until(lambda: a.client.state == State.DEAD, 10, "the death to be noticed")
            assert a.kinds() == ["dead"]
            assert "lost contact with the kernel on localhost" in a.notices[0].message
            reply = a.client.call(p.Ping(), 10)
            assert isinstance(reply, p.EngineFailure) and "lost contact" in reply.message
            assert a.client.stats.restarts == 0 and a.client.pid is None
    finally:
        kernel.kill()


def _fails_fast(connection_file, within: float, **kwargs) -> str:
    """The one-line reason the first request fails with; it comes within ``within`` s."""
    start = time.monotonic()
    with Attached(connection_file, **kwargs) as a:
        reply = a.client.call(p.Ping(), within + 30)
        took = time.monotonic() - start
        assert isinstance(reply, p.EngineFailure), reply
        assert took < within, f"took {took:.1f} s"
        assert a.client.state == State.DEAD
        assert a.notices and a.notices[-1].kind == "dead"
        assert a.notices[-1].message == reply.message
    assert "\n" not in reply.message
    return reply.message


def test_a_missing_connection_file(tmp_path):
    assert _fails_fast(tmp_path / "nope.json", 3) == \
        f"no such connection file: {tmp_path / 'nope.json'}"


def test_a_connection_file_that_is_not_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("shell_port = 5")
    assert "is not a connection file (not JSON" in _fails_fast(bad, 3)


def test_json_that_is_not_a_connection_file(tmp_path):
    bad = tmp_path / "other.json"
    bad.write_text('{"ip": "127.0.0.1"}')
    assert "is not a connection file (it has no shell_port" in _fails_fast(bad, 3)


@SERIAL
def test_a_connection_file_of_a_dead_kernel_fails_within_seconds(tmp_path):
    message = _fails_fast(dead_connection_file(tmp_path), 5)
    assert message.startswith("nothing answers at 127.0.0.1") and "is the kernel running?" \
        in message


def test_a_kernel_still_starting_is_waited_for_with_progress(tmp_path):
    """Its manager wrote the file, the kernel is not up yet (a busy machine takes seconds to
    import): waited for, saying so, where it once gave up after 1.5 s with "nothing answers
    ... is the kernel running?" (seen in the suite under load)."""
    folder = tmp_path / "starting"
    folder.mkdir()
    conn = dead_connection_file(folder).rename(folder / "conn.json")
    os.utime(conn)  # written now: its kernel may still be starting
    with Attached(conn) as a:
        wait_until(lambda: "waiting" in a.kinds(), 30, "the wait to be said")
        waiting = next(n for n in a.notices if n.kind == "waiting")
        assert waiting.message.startswith(f"waiting for the kernel in {conn} to start "
                                          "(nothing answers yet; giving up in ")
        assert a.client.state == State.STARTING
        kernel = start_tcp_kernel(folder)  # on the file's ports, as its manager starts it
        try:
            pong = a.client.call(p.Ping(), 90)
            assert isinstance(pong, p.Result) and pong.value.pid == kernel.proc.pid, pong
            assert "dead" not in a.kinds()
        finally:
            kernel.kill()


def test_a_fresh_file_whose_kernel_never_starts_gives_up_after_the_startup_wait(
        tmp_path, monkeypatch):
    monkeypatch.setattr(supervision, "STARTUP_TIMEOUT_S", 3.0)
    conn = dead_connection_file(tmp_path)
    os.utime(conn)
    message = _fails_fast(conn, 15)
    assert message == (f"nothing answers at 127.0.0.1 (the ports in {conn}) after waiting 3 s "
                       "for it to start: is the kernel running?")


@pytest.mark.parametrize("channel", ["iopub", "shell"])
def test_a_channel_on_a_port_that_never_speaks_is_said_not_waited_for_for_ever(
        tcp_kernel, tmp_path, monkeypatch, channel):
    """The file's other ports are the kernel's (it answers), one is another program's that
    accepts TCP and never speaks. Before: "starting" for ever (no message at 300 s)."""
    monkeypatch.setattr(supervision, "READY_TIMEOUT_S", 4.0)
    with silent_port() as port:
        info = {**tcp_kernel.info, f"{channel}_port": port}
        conn = tmp_path / "one-port-wrong.json"
        conn.write_text(json.dumps(info))
        aged(conn)
        message = _fails_fast(conn, 20)
    if channel == "iopub":
        assert message == (f"the kernel in {conn} answers on its shell, but nothing came on "
                           f"its iopub port ({port}) within 4 s: is that port another "
                           "program's?")
    else:
        assert message == (f"the kernel in {conn} answered, but not its kernel_info request "
                           "within 4 s: a kernel stuck as it started? (restart it)")


@SERIAL
def test_a_wrong_key_is_no_answer_not_a_hang(tcp_kernel, tmp_path):
    message = _fails_fast(wrong_key_file(tcp_kernel, tmp_path), 5, connect_timeout=2.0)
    assert "no answer" in message and "wrong key, or not a workbench kernel?" in message


def test_through_ssh(sshd, tcp_kernel, monkeypatch):
    monkeypatch.setenv("PATH", sshd.env()["PATH"])
    with Attached(tcp_kernel.connection_file, ssh=sshd.server) as a:
        pong = a.client.call(p.Ping(), 60)
        assert isinstance(pong, p.Result), pong
        assert pong.value.pid == tcp_kernel.proc.pid
        assert a.client.host == "127.0.0.1"
        # As qtconsole does: the tunnelled ports in a connection file of their own.
        tunnelled = a.client.connection_file
        assert tunnelled != tcp_kernel.connection_file and tunnelled.exists()
        ports = json.loads(tunnelled.read_text())
        assert ports["shell_port"] != tcp_kernel.info["shell_port"]
        assert isinstance(a.client.call(p.LoadSource(source=GOOD), 60), p.Result)
        assert isinstance(a.client.call(p.Trace(name="f", args="f32[3]"), 60), p.Result)
        # A restart drops every connection, and with them jupyter_client's tunnels (they
        # outlive their last connection only for their first 60 s): it tunnels afresh.
        a.client.restart()
        wait_until(lambda: "restarted" in a.kinds() and a.client.state == State.IDLE, 60,
                   "idle after the restart")
        assert json.loads(a.client.connection_file.read_text())["shell_port"] \
            != ports["shell_port"]
        assert isinstance(a.client.call(p.Trace(name="f", args="f32[3]"), 60), p.Result)
    assert not tunnelled.exists()  # the private folder goes with the client


@SERIAL
def test_an_ssh_host_that_refuses(tcp_kernel, tmp_path, monkeypatch):
    if not ssh_available():
        pytest.skip("the ssh client is not installed (apt-get install openssh-client)")
    monkeypatch.setenv("PATH", f"{ssh_client_dir(tmp_path)}{os.pathsep}{os.environ['PATH']}")
    (port,) = free_ports(1)
    message = _fails_fast(tcp_kernel.connection_file, 15, ssh=f"127.0.0.1:{port}")
    assert message.startswith(f"cannot reach the kernel through ssh 127.0.0.1:{port}: ")
    assert "Connection refused" in message


def ssh_available() -> bool:
    import shutil

    return shutil.which("ssh") is not None


def test_a_client_that_leaves_closes_its_comm_in_the_kernel(tcp_kernel):
    """A kernel that outlives its clients (a teacher's, all term) keeps no endpoint per client."""
    count = p.LoadSource(source="import IPython\n"
                                "print(len(IPython.get_ipython().kernel.comm_manager.comms))\n")
    with Attached(tcp_kernel.connection_file) as a:
        before = a.client.call(count, 60).value.printed.text
        with Attached(tcp_kernel.connection_file) as other:
            assert isinstance(other.client.call(p.Ping(), 60), p.Result)
            assert a.client.call(count, 60).value.printed.text == f"{int(before) + 1}\n"
        wait_until(lambda: a.client.call(count, 60).value.printed.text == before, 10,
                   "the comm of the client that left to close")
