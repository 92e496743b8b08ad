"""The in-process engine client: in order, superseding, events, failures, Stop and restart."""

from __future__ import annotations

import threading

import pytest

from workbench.api import messages as p
from workbench.api.timing import TimingConfig
from workbench.engine.inprocess import InProcessClient

SOURCE = "def square(x):\n    return x * x\n"
TINY = TimingConfig(min_batch_s=0.001, repeats=2, max_measure_s=0.05, dispatch_samples=5)


class Recorder:
    """Everything the client calls back, in order, with the thread it came from."""

    def __init__(self) -> None:
        self.states: list[str] = []
        self.notices: list = []
        self.outputs: list[p.Output] = []
        self.replies: list[p.Reply] = []
        self.threads: set[str] = set()
        self.changed = threading.Condition()  # every callback notifies it

    def _record(self, bucket: list, item: object) -> None:
        with self.changed:
            bucket.append(item)
            self.changed.notify_all()

    def on_state(self, state: str) -> None:
        self._record(self.states, state)

    def on_notice(self, notice: object) -> None:
        self._record(self.notices, notice)

    def on_output(self, output: p.Output) -> None:
        self._record(self.outputs, output)

    def on_reply(self, reply: p.Reply) -> None:
        with self.changed:
            self.threads.add(threading.current_thread().name)
        self._record(self.replies, reply)

    def wait(self, predicate, timeout: float = 60.0) -> None:
        """Until ``predicate()`` holds, woken by each callback (no polling)."""
        with self.changed:
            assert self.changed.wait_for(predicate, timeout), "timed out"


@pytest.fixture
def rec():
    return Recorder()


@pytest.fixture
def client(rec):
    c = InProcessClient(on_state=rec.on_state, on_notice=rec.on_notice,
                        on_output=rec.on_output)
    assert isinstance(c.call(p.LoadSource(source=SOURCE)), p.Result)
    yield c
    c.close()


def gated(client: InProcessClient, on_reply=None, key=None) -> tuple[threading.Event, str]:
    """A request running on the worker until the returned event is set, and its id."""
    gate, entered = threading.Event(), threading.Event()
    # The service's namespace, shared by every load as a kernel's is.
    client._service.namespace.update(gate=gate, entered=entered)
    rid = client.request(p.LoadSource(source="entered.set()\ngate.wait(30)\n", keep_names=True),
                         on_reply, key=key)
    assert entered.wait(30)
    return gate, rid


def test_replies_come_in_the_order_sent_from_the_worker_thread(client, rec):
    requests = [p.Trace(name="square", args=f"f32[{n}]") for n in range(1, 6)]
    requests.insert(2, p.ListFunctions())
    for request in requests:
        client.request(request, rec.on_reply)
    rec.wait(lambda: len(rec.replies) == len(requests))
    assert [r.id for r in rec.replies] == [r.id for r in requests]
    assert all(isinstance(r, p.Result) for r in rec.replies)
    assert rec.threads == {"workbench-inprocess-engine"}
    assert client.connection_file is None


def test_states_go_idle_busy_idle(client, rec):
    assert rec.states[0] == "idle"
    rec.states.clear()
    client.call(p.Trace(name="square", args="f32[3]"))
    rec.wait(lambda: client.state == "idle")
    assert rec.states == ["busy", "idle"]


def test_a_newer_request_of_a_key_supersedes_the_older(client, rec):
    gate, _ = gated(client)
    first = client.request(p.Trace(name="square", args="f32[1]"), rec.on_reply, key="trace")
    second = client.request(p.Trace(name="square", args="f32[2]"), rec.on_reply, key="trace")
    other = client.request(p.ListFunctions(), rec.on_reply, key="list")
    gate.set()
    rec.wait(lambda: len(rec.replies) == 2)
    assert [r.id for r in rec.replies] == [second, other]
    assert first not in {r.id for r in rec.replies}
    # Superseded before it ran: never run, so no reply to drop (the kernel client's router
    # counts the same way: a request superseded in its outbox never reaches the kernel).
    assert client.stats.dropped_replies == 0
    assert client.is_current("trace", second) and not client.is_current("trace", first)


def test_the_reply_of_a_running_request_superseded_is_dropped(client, rec):
    gate, _ = gated(client, rec.on_reply, key="load")
    newer = client.request(p.ListFunctions(), rec.on_reply, key="load")
    gate.set()
    # Requests run in order: once a later one is answered, the superseded reply had its turn.
    barrier = client.request(p.Ping(), rec.on_reply)
    rec.wait(lambda: barrier in {r.id for r in rec.replies})
    assert [r.id for r in rec.replies] == [newer, barrier]


def test_progress_events_reach_the_request(client):
    events: list[p.Event] = []
    request = p.Time(name="square", args="f32[8]", devices="cpu", config=TINY)
    reply = client.call(request, timeout=120, on_event=events.append)
    assert isinstance(reply, p.Result)
    progress = [e for e in events if isinstance(e, p.Progress)]
    assert progress and all(e.id == request.id for e in progress)
    assert progress[-1].done == progress[-1].total


def test_a_failing_request_is_answered_and_the_next_one_too(client):
    assert isinstance(client.call(p.LoadSource(source="def f(:\n")), p.UserCodeFailure)
    assert isinstance(client.call(p.Trace(name="nope", args="f32[3]")), p.UsageFailure)
    assert isinstance(client.call(p.LoadSource(source="1 / 0\n")), p.UserCodeFailure)
    reply = client.call(p.ListFunctions())
    assert [f.name for f in reply.value.functions] == ["square"]  # the last good source


def test_printed_output_becomes_output_events(client, rec):
    client.call(p.LoadSource(source=SOURCE + "print('hello from the editor')\n"))
    rec.wait(lambda: any("hello from the editor" in o.text for o in rec.outputs))
    assert all(o.stream == "stdout" for o in rec.outputs)


def test_stop_cancels_what_waits_and_the_engine_answers_again(client, rec):
    gate, running = gated(client)
    queued = [client.request(p.ListFunctions(), rec.on_reply) for _ in range(3)]
    client.stop()
    assert [(r.id, type(r)) for r in rec.replies] == [(q, p.Cancelled) for q in queued]
    assert client.state == "interrupting"
    gate.set()
    rec.wait(lambda: client.state == "idle")
    assert running not in {r.id for r in rec.replies}
    assert isinstance(client.call(p.ListFunctions()), p.Result)


def test_stop_asks_the_running_request_to_stop(client, rec):
    seen = threading.Event()
    client._service.namespace["seen"] = seen
    source = ("import time\n"
              "while not workbench_should_stop():\n"
              "    seen.set()\n"
              "    time.sleep(0.01)\n")
    client._service.namespace["workbench_should_stop"] = client._stop.is_set
    client.request(p.LoadSource(source=source, keep_names=True))
    assert seen.wait(30)
    client.stop()
    rec.wait(lambda: client.state == "idle", 30)


def test_restart_gives_a_fresh_namespace_with_the_source_loaded_again(client, rec):
    client.call(p.LoadSource(source=SOURCE + "leftover = 1\n"))
    old = client._service
    client.restart()
    rec.wait(lambda: rec.notices)
    assert rec.notices[0].kind == "restarted"
    assert "definitions reloaded" in rec.notices[0].message
    assert client._service is not old
    assert [f.name for f in client.call(p.ListFunctions()).value.functions] == ["square"]
    assert "restarting" in rec.states and client.stats.restarts == 1


def test_a_closed_client_answers_at_once():
    client = InProcessClient()
    client.close()
    reply = client.call(p.Ping(), timeout=1)
    assert isinstance(reply, p.EngineFailure)
