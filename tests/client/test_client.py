"""The engine client against a real kernel: requests, ordering, stale replies, output, files."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from tests.kernel_util import Recorder, plain_console, wait_until
from workbench.api import messages as p
from workbench.api.contract.routing import Pending as _Pending
from workbench.api.state import State

SELU = (
    "def selu(x, alpha=1.67, lmbda=1.05):\n"
    "    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)\n"
)

KERNEL_SOURCE = p.LoadSource(source=SELU)  # what the ``engine`` fixture (tests/conftest.py) loads


def test_ping_answers_from_the_kernel_process(engine):
    pong = engine.call(p.Ping()).value
    assert pong.in_kernel and pong.pid == engine.client.pid != os.getpid()
    assert pong.protocol == p.PROTOCOL_VERSION


def test_trace_through_the_kernel_matches_in_process(engine):
    from workbench.engine.service import Service

    remote = engine.call(p.Trace(name="selu", args="f32[8]", transforms=("grad",)))
    local_service = Service()
    local_service.handle(p.LoadSource(source=SELU))
    local = local_service.handle(p.Trace(name="selu", args="f32[]", transforms=("grad",)))
    assert isinstance(remote, p.UserCodeFailure)  # grad of a non-scalar function
    assert isinstance(local, p.Result)
    remote = engine.call(p.Trace(name="selu", args="f32[]", transforms=("grad",)))
    assert remote.value.text == local.value.text
    assert "\x1b[" not in remote.value.text  # no terminal colours from inside the kernel


def test_devices_come_back_as_a_report(engine):
    report = engine.call(p.Devices()).value
    assert report.devices and report.devices[0].name.endswith(":0")


@pytest.fixture
def gate(tmp_path):
    """Source that holds the kernel busy until the test opens the gate (a FIFO): no timing."""
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)

    class Gate:
        source = f"open({str(fifo)!r}).read()\n" + SELU

        @staticmethod
        def open() -> None:
            with open(fifo, "w"):  # blocks until the kernel is waiting on the other end
                pass

    return Gate


@pytest.mark.serial  # times the caller (50 ms): never beside a worker's load
def test_request_never_blocks_the_caller(engine, gate):
    box = engine.send(p.LoadSource(source=gate.source))
    start = time.monotonic()
    engine.client.request(p.Ping(), lambda r: None)
    assert time.monotonic() - start < 0.05
    assert not box  # the kernel is still held at the gate
    gate.open()
    wait_until(lambda: box, 30, "reply")


def test_two_requests_in_flight_are_answered_in_order(engine, gate):
    order: list[str] = []
    first = p.LoadSource(source=gate.source)
    second = p.Ping()
    engine.client.request(first, lambda r: order.append(r.id))
    engine.client.request(second, lambda r: order.append(r.id))
    gate.open()
    wait_until(lambda: len(order) == 2, 30, "both replies")
    assert order == [first.id, second.id]


def test_a_superseded_reply_is_dropped(engine, gate):
    got: list[p.Reply] = []
    dropped = engine.client.stats.dropped_replies
    old = p.Trace(name="selu", args="f32[3]")
    new = p.Trace(name="selu", args="f32[4]")
    engine.client.request(p.LoadSource(source=gate.source), lambda r: None)
    engine.client.request(old, got.append, key="jaxpr")
    engine.client.request(new, got.append, key="jaxpr")
    gate.open()
    wait_until(lambda: engine.client.stats.dropped_replies == dropped + 1, 30, "drop")
    wait_until(lambda: got, 30, "the newer reply")
    assert [r.id for r in got] == [new.id]
    assert got[0].value.args == ("f32[4]",)


def test_superseded_requests_never_reach_the_kernel(engine, gate, tmp_path):
    """Twenty quick edits while one runs: the kernel runs the one running and the last, not
    twenty (before: every superseded edit's top level ran, only its reply was dropped)."""
    ran = tmp_path / "ran"
    got: list[p.Reply] = []
    engine.client.request(p.LoadSource(source=gate.source), got.append, key="load")
    edits = [p.LoadSource(source=f"open({str(ran)!r}, 'a').write('{i}\\n')\n" + SELU)
             for i in range(20)]
    for edit in edits:
        engine.client.request(edit, got.append, key="load")
    after = p.Ping()  # made after the edits: answered after the last of them
    engine.client.request(after, got.append)
    gate.open()
    wait_until(lambda: len(got) == 2, 30, "the last edit's reply and the ping's")
    assert [r.id for r in got] == [edits[-1].id, after.id]
    assert ran.read_text() == "19\n"


def test_stop_cancels_the_edit_waiting_behind_the_one_running(engine, gate, tmp_path):
    """The waiting edit is answered "stopped" and never runs (before: it was already queued in
    the kernel, ran after the interrupt, and its top level's side effects happened)."""
    ran = tmp_path / "ran"
    got: list[p.Reply] = []
    engine.client.request(p.LoadSource(source=gate.source), got.append, key="load")
    waiting = p.LoadSource(source=f"open({str(ran)!r}, 'a').write('ran')\n" + SELU)
    engine.client.request(waiting, got.append, key="load")
    wchan = Path(f"/proc/{engine.client.pid}/wchan")
    wait_until(lambda: wchan.read_text() == "wait_for_partner", 30, "the kernel at the gate")
    engine.client.stop()
    wait_until(lambda: len(got) == 1 and engine.client.state == State.IDLE, 30, "stopped")
    assert isinstance(got[0], p.Cancelled) and got[0].id == waiting.id
    assert isinstance(engine.call(p.Ping()), p.Result)
    assert not ran.exists()


def test_a_malformed_request_gets_a_usage_reply(engine):
    got: list[p.Reply] = []
    bad = {"protocol": p.PROTOCOL_VERSION,
           "body": {"$type": "os:system", "fields": {"id": "bad-1", "command": "true"}}}
    pending = _Pending(p.Ping(id="bad-1"), got.append, None, None)
    engine.client._call(lambda: engine.client._submit(pending, bad, []))
    wait_until(lambda: got, 30, "reply")
    assert isinstance(got[0], p.UsageFailure)
    assert got[0].id == "bad-1" and "not allowed" in got[0].message
    assert isinstance(engine.call(p.Ping()), p.Result)  # the kernel lives on


def test_syntax_error_and_unknown_function_are_replies(engine):
    reply = engine.call(p.LoadSource(source="def f(:\n"))
    assert isinstance(reply, p.UserCodeFailure) and reply.explanation.kind == "syntax"
    assert reply.explanation.line == 1
    reply = engine.call(p.Trace(name="nope", args="f32[3]"))
    assert isinstance(reply, p.UsageFailure) and "selu" in reply.message


def test_user_output_arrives_as_events(engine):
    events: list[p.Event] = []
    reply = engine.client.call(p.LoadSource(source="print('hello from the editor')\n" + SELU),
                               on_event=events.append)
    assert isinstance(reply, p.Result)
    text = "".join(e.text for e in events if isinstance(e, p.Output))
    assert text == "hello from the editor\n"


def test_a_print_while_tracing_reaches_the_console_and_the_trace(engine):
    events: list[p.Event] = []
    source = "@jax.jit\ndef shout(x):\n    print('tracing', x.shape)\n    return x\n"
    reply = engine.client.call(p.LoadSource(source="print('loading')\n" + source + SELU,
                                            trace=p.Trace(name="shout", args="f32[2]")),
                               on_event=events.append)
    assert isinstance(reply, p.Result)
    assert reply.value.printed.text == "loading\n"
    assert reply.value.trace.value.printed.text == "tracing (2,)\n"
    console = "".join(e.text for e in events if isinstance(e, p.Output))
    assert console == "loading\ntracing (2,)\n"  # the capture tees: the console sees it all


def test_a_million_prints_are_capped_and_marked(engine):
    events: list[p.Event] = []
    source = "for i in range(1_000_000):\n    print(i)\n" + SELU
    box: list[p.Reply] = []
    engine.client.request(p.LoadSource(source=source), box.append, events.append)
    # The client thread stays responsive while the kernel prints.
    latency = engine.call(p.Ping(), timeout=60)
    assert isinstance(latency, p.Result)
    wait_until(lambda: box, 60, "reply")
    assert isinstance(box[0], p.Result)
    outputs = [e for e in events if isinstance(e, p.Output)]
    kept = "".join(e.text for e in outputs if not e.truncated)
    assert len(kept) <= 100_000
    assert kept.startswith("0\n1\n2\n")
    assert outputs[-1].truncated and outputs[-1].dropped > 6_000_000
    assert "output truncated" in outputs[-1].text
    assert len(outputs) < 100


def test_huge_allocation_is_an_error_reply_and_the_kernel_lives(engine):
    pid = engine.call(p.Ping()).value.pid
    reply = engine.call(p.LoadSource(source="big = jnp.zeros((200000, 200000))\n"))
    assert isinstance(reply, p.UserCodeFailure)
    assert "RESOURCE_EXHAUSTED" in reply.explanation.message or "memory" in \
        reply.explanation.title.lower()
    assert reply.explanation.line == 1
    assert engine.call(p.Ping()).value.pid == pid
    assert engine.client.state in (State.IDLE, State.BUSY)


def test_memory_limit_is_on_for_a_cpu_kernel(engine):
    limit = engine.call(p.Ping()).value.memory_limit
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert limit == max(int(total * 0.75), 4 * 2**30)


def test_console_and_editor_share_the_namespace(engine):
    assert isinstance(engine.call(p.LoadSource(source=SELU + "shared_value = 41\n")), p.Result)
    console = plain_console(engine.client.connection_file)
    try:
        outputs: list[str] = []

        def on_msg(msg):
            if msg["msg_type"] == "execute_result":
                outputs.append(msg["content"]["data"]["text/plain"])

        console.execute_interactive("shared_value + 1, round(float(selu(1.0)), 3)", timeout=30,
                                    output_hook=on_msg)
        assert outputs == ["(42, 1.05)"]
        console.execute_interactive("def from_console(x):\n    return x\n", timeout=30)
    finally:
        console.stop_channels()
    # Names typed in the console are not editor functions.
    names = [f.name for f in engine.call(p.ListFunctions()).value.functions]
    assert names == ["selu"]


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def _tcp_inodes(pid: int) -> set[str]:
    inodes = set()
    for table in ("tcp", "tcp6"):
        path = Path(f"/proc/{pid}/net/{table}")
        if path.exists():
            for line in path.read_text().splitlines()[1:]:
                inodes.add(line.split()[9])
    return inodes


def test_the_kernel_process_owns_no_tcp_socket(engine):
    pid = engine.client.pid
    sockets = _socket_inodes(pid)
    assert sockets, "the kernel should hold its ipc sockets"
    assert not sockets & _tcp_inodes(pid)
    # The check itself works: a TCP listener of this test process is found.
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        assert _socket_inodes(os.getpid()) & _tcp_inodes(os.getpid())


def test_runtime_folder_and_connection_file_are_private(engine):
    folder = engine.client.runtime_dir
    assert stat.S_IMODE(folder.stat().st_mode) & 0o777 == 0o700
    assert stat.S_IMODE(engine.client.connection_file.stat().st_mode) == 0o600
    info = engine.client._info
    assert info["transport"] == "ipc" and info["key"]


def test_close_removes_the_runtime_folder_and_the_kernel():
    rec = Recorder()
    assert isinstance(rec.call(p.Ping()), p.Result)
    pid, folder = rec.client.pid, rec.client.runtime_dir
    rec.close()
    assert not folder.exists()
    wait_until(lambda: not Path(f"/proc/{pid}").exists(), 5, "kernel gone")
    assert rec.client.state == State.DEAD


def test_a_callback_set_after_construction_hears_the_restart():
    """``client.on_notice = ...`` reaches the part that reports (the benchmark sets it so)."""
    from workbench.api.state import NoticeKind

    rec = Recorder()
    try:
        assert isinstance(rec.call(p.Ping()), p.Result)
        heard: list[object] = []
        rec.client.on_notice = heard.append
        assert rec.client.on_notice == heard.append
        rec.client.restart()
        wait_until(lambda: any(n.kind == NoticeKind.RESTARTED for n in heard), 30, "restarted")
    finally:
        rec.close()


def test_callbacks_run_on_the_client_thread(engine):
    threads: list[str] = []
    engine.client.request(p.Ping(), lambda r: threads.append(threading.current_thread().name))
    wait_until(lambda: threads, 30, "reply")
    assert threads == ["workbench-engine-client"]


def test_lower_curves_and_timing_through_the_kernel(engine):
    import numpy as np

    from workbench.api.timing import TimingConfig

    lowered = engine.call(p.Lower(name="selu", args="f32[8]"))
    assert isinstance(lowered, p.Result), lowered
    curves = engine.call(p.SampleCurves(name="selu", order=1, points=64))
    assert isinstance(curves, p.Result), curves
    assert isinstance(curves.value.x, np.ndarray) and curves.value.x.shape == (64,)
    assert curves.value.values[0][-1] == pytest.approx(1.05 * 5.0)
    events: list[p.Event] = []
    config = TimingConfig(min_batch_s=0.001, repeats=2, max_measure_s=0.2, dispatch_samples=2)
    timed = engine.client.call(p.Time(name="selu", args="f32[100]", devices="cpu",
                                      config=config), on_event=events.append)
    assert isinstance(timed, p.Result), timed
    progress = [e for e in events if isinstance(e, p.Progress)]
    assert progress and progress[-1].done == progress[-1].total
    assert {r.mode for r in timed.value.results} >= {"eager", "jit"}


def test_a_second_client_attaches_to_a_running_kernel_by_connection_file(engine):
    from workbench.client.engine_client import EngineClient

    attached = EngineClient(connection_file=engine.client.connection_file)
    try:
        assert not attached.owned
        pong = attached.call(p.Ping(), timeout=30).value
        assert pong.pid == engine.client.pid
        # Heartbeats keep it alive past the heartbeat timeout.
        wait_until(lambda: attached._hb_last > time.monotonic() - 0.6
                   and time.monotonic() - attached._launched_at > 2.0, 10, "heartbeats")
        assert attached.state == State.IDLE
    finally:
        attached.close()
    assert isinstance(engine.call(p.Ping()), p.Result)  # closing it left the kernel alone
