"""The kernel's output capture: a request's printed text never arrives after its reply, even
when a timer thread is still sending the batch before it."""

from __future__ import annotations

import threading

from workbench.api import messages as p
from workbench.engine.kernel import OutputCapture


def test_close_waits_for_a_batch_that_a_timer_thread_is_still_sending():
    sent: list[str] = []
    timer_sending = threading.Event()
    release = threading.Event()
    def send(event: p.Output) -> None:
        if isinstance(threading.current_thread(), threading.Timer):  # hold it mid-send
            timer_sending.set()
            release.wait(10)
        sent.append(event.text)

    # A second's interval: flush_soon comes within it of the capture's start even on a loaded
    # machine (with 10 ms it once did not, and sent "a" itself), so a timer sends "a".
    capture = OutputCapture("r", send, interval=1.0)
    capture.write("stdout", "a")
    capture.flush_soon()
    assert timer_sending.wait(10)
    capture.write("stdout", "b")

    def close_then_reply() -> None:
        capture.close()
        sent.append("reply")

    closer = threading.Thread(target=close_then_reply)
    closer.start()
    closer.join(0.5)  # unfixed, the close sends "b" and the reply before "a" gets out
    release.set()
    closer.join(10)
    assert sent == ["a", "b", "reply"]
