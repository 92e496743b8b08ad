"""The kernel's client and the in-process engine the window's tests use are one contract
(``api.contract.protocol``) over one router (``api.contract.routing``): the same requests
give the same replies, superseded and stopped the same way. Before, the in-process engine
re-implemented superseding, and the window's tests ran code the application does not.
"""

from __future__ import annotations

import threading

import pytest

from tests.kernel_util import wait_until
from workbench.api import messages as p
from workbench.api.contract.routing import Router
from workbench.api.state import State
from workbench.client.engine_client import EngineClient
from workbench.engine.inprocess import InProcessClient


@pytest.fixture(params=["in-process", "kernel"])
def client(request):
    made = InProcessClient() if request.param == "in-process" else EngineClient()
    wait_until(lambda: made.state == State.IDLE, 90, "the engine to start")
    yield made
    made.close()


def _step(name: str, pause: float = 0.0) -> p.LoadSource:
    sleep = f"import time\nprint('started', flush=True)\ntime.sleep({pause})\n" if pause else ""
    return p.LoadSource(source=f"{sleep}ran = globals().get('ran', []) + [{name!r}]\n",
                        keep_names=True)


def test_both_route_with_the_one_router(client):
    router = client._router if isinstance(client, InProcessClient) else client._core.router
    assert type(router) is Router


def test_a_key_runs_the_request_in_flight_and_the_last_one_only(client):
    replies: list[p.Reply] = []
    got = threading.Event()

    def on_reply(reply: p.Reply) -> None:
        replies.append(reply)
        got.set()

    events: list[p.Event] = []
    first = client.request(_step("A", pause=1.0), on_reply, events.append, key="load")
    wait_until(lambda: any(isinstance(e, p.Output) and "started" in e.text for e in events),
               30, "the first to run")
    client.request(_step("B"), on_reply, key="load")
    client.request(_step("C"), on_reply, key="load")
    last = client.request(_step("D"), on_reply, key="load")
    wait_until(got.is_set, 60, "the last one's reply")
    assert [r.id for r in replies] == [last]
    assert isinstance(replies[0], p.Result)
    assert client.is_current("load", last) and not client.is_current("load", first)
    ran = client.call(p.LoadSource(source="print(ran)\n", keep_names=True), 60)
    assert ran.value.printed.text == "['A', 'D']\n"  # B and C never ran
    assert client.stats.dropped_replies == 1  # A's: it ran, its reply was not wanted


def test_stop_answers_every_pending_request_cancelled(client):
    replies: list[p.Reply] = []
    events: list[p.Event] = []
    client.request(_step("slow", pause=2.0), replies.append, events.append, key="load")
    wait_until(lambda: any(isinstance(e, p.Output) and "started" in e.text for e in events),
               30, "it to run")
    client.request(p.ListFunctions(), replies.append, key="list")
    client.stop()
    wait_until(lambda: len(replies) == 2 and client.state == State.IDLE, 30, "both answered")
    assert all(isinstance(r, p.Cancelled) for r in replies), replies
    assert isinstance(client.call(p.Ping(), 30), p.Result)


def test_a_restart_after_a_lesson_step_reloads_nothing_and_says_so():
    """As Jupyter runs nothing after its Restart: the step's code alone would fail on the names
    the steps above define, and once said so as "the editor source could not be loaded
    again: line 3: a name is used that is not defined", a banner that stayed on every step."""
    from workbench.api.contract.protocol import CELLS_NOT_RELOADED
    from workbench.api.state import NoticeKind

    for make in (InProcessClient, EngineClient):
        notices: list = []
        client = make(on_notice=notices.append)
        try:
            wait_until(lambda c=client: c.state == State.IDLE, 90, "the engine to start")
            first = p.LoadSource(source="base = 40\n", filename="nb.ipynb, step 1", cell=True,
                                 keep_names=True)
            second = p.LoadSource(source="total = base + 2\n", filename="nb.ipynb, step 2",
                                  cell=True, keep_names=True)
            assert isinstance(client.call(first, 60), p.Result)
            assert isinstance(client.call(second, 60), p.Result)
            client.restart()
            wait_until(lambda n=notices: any(x.kind == NoticeKind.RESTARTED for x in n), 90,
                       "the restart said")
            wait_until(lambda c=client: c.state == State.IDLE, 90, "idle again")
            kinds = [(x.kind, x.message) for x in notices]
            assert (NoticeKind.RESTARTED, CELLS_NOT_RELOADED) in kinds, kinds
            assert all(kind != NoticeKind.RELOAD_FAILED for kind, _ in kinds), kinds
        finally:
            client.close()
