"""The bridge between the engine client's I/O thread and the GUI thread."""

from __future__ import annotations

import pytest
import shiboken6

from workbench.ui.control.engine_bridge import EngineBridge


def test_a_late_reply_to_a_deleted_bridge_is_dropped_not_raised(qapp):
    # A window deleted before its client closed: the I/O thread may still hand
    # over a reply or a notice. Emitting on the deleted object raised
    # "Signal source has been deleted" in that thread.
    bridge = EngineBridge()
    calls: list[object] = []
    bridge._post(calls.append, "before")
    shiboken6.delete(bridge)
    with pytest.raises(RuntimeError):  # what the I/O thread met before
        bridge._sig_call.emit(calls.append, "raw")
    bridge._post(calls.append, "after")  # must not raise
    assert not shiboken6.isValid(bridge)


def test_a_reply_already_on_its_way_is_dropped_when_a_newer_request_of_its_key_goes_out(
        qtbot, bridge):
    # A presenter paging through lesson steps: the first step's load had answered (its reply
    # waiting for the GUI thread) when the next step's load went out. The first must not be
    # shown after, or instead of, the one asked for last.
    from workbench.api import messages as p

    qtbot.waitUntil(lambda: bridge.state == "idle", timeout=60000)
    got: list[str] = []
    bridge.request(p.LoadSource(source="a = 1\n", filename="first.py"),
                   lambda reply: got.append("first"), key="load")
    # Blocks this thread until the kernel answers a later request: the first reply has
    # then reached the GUI thread's queue, not yet its handler.
    assert isinstance(bridge.client.call(p.Ping(), timeout=60), p.Result)
    assert got == []
    with qtbot.waitSignal(bridge.sig_request_sent):
        bridge.request(p.LoadSource(source="a = 2\n", filename="second.py"),
                       lambda reply: got.append("second"), key="load")
    qtbot.waitUntil(lambda: got == ["second"], timeout=60000)
    unkeyed: list[str] = []
    bridge.request(p.Ping(), lambda reply: unkeyed.append("one"))
    bridge.request(p.Ping(), lambda reply: unkeyed.append("two"))
    qtbot.waitUntil(lambda: unkeyed == ["one", "two"], timeout=60000)
    assert got == ["second"]


def test_an_abandoned_request_answers_nobody_also_when_its_reply_is_on_its_way(
        qtbot, bridge):
    # A lesson step shown: the editor's earlier load is moot, though the step's own goes out
    # only a turn later. Other keys' requests are still answered.
    from workbench.api import messages as p

    qtbot.waitUntil(lambda: bridge.state == "idle", timeout=60000)
    got: list[str] = []
    bridge.request(p.LoadSource(source="a = 1\n", filename="edit.py"),
                   lambda reply: got.append("edit"), key="load")
    bridge.request(p.Ping(), lambda reply: got.append("ping"), key="other")
    assert isinstance(bridge.client.call(p.Ping(), timeout=60), p.Result)  # both answered
    bridge.abandon("load")
    bridge.abandon("never-sent")  # nothing in flight of that key: nothing happens
    qtbot.waitUntil(lambda: got == ["ping"], timeout=60000)
    bridge.request(p.LoadSource(source="a = 2\n", filename="step.py"),
                   lambda reply: got.append("step"), key="load")
    qtbot.waitUntil(lambda: got == ["ping", "step"], timeout=60000)


def test_a_request_after_close_starts_no_engine_and_is_answered_cancelled(qtbot):
    # A panel's timer firing as its window closes used to start a new engine on the closed
    # bridge, left running: its thread later emitted on the bridge while the window's
    # deletion destroyed it (a segfault of the test process).
    import threading

    from tests.ui.conftest import in_process_bridge
    from workbench.api import messages as p

    def engine_threads() -> int:
        return sum(t.name == "workbench-inprocess-engine" for t in threading.enumerate())

    before = engine_threads()
    bridge = in_process_bridge()
    bridge.start()
    qtbot.waitUntil(lambda: bridge.state == "idle", timeout=60000)
    bridge.close()
    assert engine_threads() == before
    got: list[p.Reply] = []
    rid = bridge.request(p.Ping(), got.append)
    qtbot.waitUntil(lambda: len(got) == 1, timeout=5000)
    assert isinstance(got[0], p.Cancelled) and got[0].id == rid
    assert got[0].reason == "engine closed"
    assert bridge.client is None and engine_threads() == before
    bridge.start()  # what the window's start timer would do: nothing, once closed
    assert bridge.client is None
    bridge.deleteLater()


def test_a_reply_to_a_deleted_owner_reaches_nobody(qtbot, bridge):
    # A bridge that outlives the window which asked (one shared by several windows): the
    # reply came after the window was deleted, and its controller's signal was emitted on a
    # deleted object ("Signal source has been deleted" in the Qt event loop).
    from PySide6.QtCore import QObject

    from workbench.api import messages as p
    from workbench.ui.control.requests import EngineRequests

    qtbot.waitUntil(lambda: bridge.state == "idle", timeout=60000)
    owner, kept = QObject(), QObject()
    gone: list[p.Reply] = []
    here: list[p.Reply] = []
    EngineRequests(bridge, owner=owner).devices(gone.append)
    shiboken6.delete(owner)
    EngineRequests(bridge, owner=kept).devices(here.append)
    qtbot.waitUntil(lambda: bool(here), timeout=60000)  # in order: the first is past
    assert gone == [] and isinstance(here[0], p.Result)
