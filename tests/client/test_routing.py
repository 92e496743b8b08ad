"""The client's routing of requests, without a kernel: one request of a key in the kernel at a
time, the newest waiting, and a key freed by its request's idle even when the reply is lost."""

from __future__ import annotations

from workbench.api import messages as p
from workbench.api.contract.routing import Pending, Router, Stats


def _queue(router: Router, request: p.Request, key: str | None) -> str:
    router.add(Pending(request, None, None, key))
    router.queue(request.id, {"id": request.id}, [])
    return request.id


def _send(router: Router) -> list[str]:
    """Take what may go and 'send' it, each on a shell message named after the request."""
    sent = []
    for rid, _, _ in router.take_outbox():
        router.carried(f"shell-{rid}", rid)
        sent.append(rid)
    return sent


def test_a_key_waits_for_its_request_and_the_newest_replaces_the_waiting_one():
    router = Router(Stats())
    first = _queue(router, p.Ping(), "load")
    assert _send(router) == [first]
    _queue(router, p.Ping(), "load")
    newest = _queue(router, p.Ping(), "load")
    after = _queue(router, p.Ping(), None)  # made later: waits behind them, in order
    assert _send(router) == []
    router.settled(first)
    assert _send(router) == [newest, after]
    assert not router._abandoned - {first}  # the one never sent is not kept for a reply


def test_a_lost_reply_frees_its_key_when_the_kernel_is_idle_after_it():
    """An interrupt while the kernel sent a reply loses the reply (ipykernel logs the
    KeyboardInterrupt and goes idle): before, the key then held every later request back
    until a restart."""
    router = Router(Stats())
    lost = _queue(router, p.Ping(), "load")
    assert _send(router) == [lost]
    waiting = _queue(router, p.Ping(), "load")
    assert _send(router) == []
    router.status(f"shell-{lost}", "busy")
    router.status(f"shell-{lost}", "idle")  # and no reply ever came
    assert _send(router) == [waiting]
