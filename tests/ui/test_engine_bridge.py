"""The bridge between the engine client's I/O thread and the GUI thread."""

from __future__ import annotations

import pytest
import shiboken6

from workbench.ui.engine_bridge import EngineBridge


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
