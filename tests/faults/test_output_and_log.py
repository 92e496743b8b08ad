"""User output: flushes coalesced, a thread's text marked, the kernel's own log bounded."""

from __future__ import annotations

import os
from pathlib import Path

from tests.kernel_util import wait_until
from workbench.api import messages as p
from workbench.client.kernel_log import LOG_KEEP, LOG_LIMIT

GOOD = "def f(x):\n    return x * 2\n"
KERNEL_SOURCE = p.LoadSource(source=GOOD)  # for the ``engine`` fixture (tests/conftest.py)


def test_print_with_flush_in_a_loop_is_coalesced(engine):
    events: list[p.Event] = []
    box = engine.send(p.LoadSource(source="for i in range(10_000):\n"
                                          "    print(i, flush=True)\n" + GOOD),
                      on_event=events.append)
    assert isinstance(engine.call(p.Ping(), timeout=2), p.Result)  # answered while it prints
    wait_until(lambda: box, 60, "the reply")
    outputs = [e for e in events if isinstance(e, p.Output)]
    text = "".join(e.text for e in outputs if not e.truncated)
    assert text.startswith("0\n1\n2\n") and text.endswith("9999\n")
    assert len(outputs) < 100, f"{len(outputs)} messages for 10,000 flushes"


def test_the_last_line_before_a_long_call_shows_while_it_runs(engine):
    events: list[p.Event] = []
    source = "import threading\nprint('working...', flush=True)\nthreading.Event().wait(2)\n"
    box = engine.send(p.LoadSource(source=source + GOOD), on_event=events.append)
    wait_until(lambda: any(isinstance(e, p.Output) and "working" in e.text for e in events),
               1.5, "the flushed line")
    assert not box, "the line arrived only with the reply"
    wait_until(lambda: box, 10, "the reply")


def test_a_background_threads_output_is_marked_not_given_to_the_next_request(engine):
    start = (
        "import threading\n"
        "go = threading.Event()\n"
        "def chatter():\n"
        "    go.wait()\n"
        "    print('from the thread', flush=True)\n"
        "chatterbox = threading.Thread(target=chatter, daemon=True)\n"
        "chatterbox.start()\n"
    )
    assert isinstance(engine.call(p.LoadSource(source=start + GOOD)), p.Result)
    seen = len(engine.outputs)
    events: list[p.Event] = []
    # The next request releases the thread and waits for it to have printed.
    reply = engine.client.call(p.LoadSource(source="go.set()\nchatterbox.join(10)\n"
                                            "print('from the request')\n" + GOOD),
                               on_event=events.append)
    assert isinstance(reply, p.Result)
    own = "".join(e.text for e in events if isinstance(e, p.Output))
    assert own == "from the request\n"
    wait_until(lambda: any("from the thread" in o.text for o in engine.outputs[seen:]), 5,
               "the thread's output")
    marked = [o for o in engine.outputs[seen:] if "from the thread" in o.text]
    assert all(o.background for o in marked)


def test_writes_to_file_descriptor_1_do_not_grow_the_log_without_bound(engine):
    source = ("import os\nchunk = b'x' * 2**20 + b'\\n'\n"
              "for i in range(24):\n    os.write(1, chunk)\n")
    reply = engine.call(p.LoadSource(source=source + GOOD), timeout=60)
    assert isinstance(reply, p.Result), p.reply_text(reply)
    log = Path(engine.client._log_file.name)
    # The client's log thread rotates as it drains the pipe, then counts: wait for both.
    wait_until(lambda: engine.client.stats.log_rotations >= 1
               and log.stat().st_size <= LOG_LIMIT, 5, "the log rotated")
    kept = Path(f"{log}.1")
    assert kept.stat().st_size <= LOG_KEEP
    sizes = {f.name: f.stat().st_size for f in log.parent.glob("kernel-*.log*")}
    assert sum(sizes.values()) <= LOG_LIMIT + LOG_KEEP, sizes
    # The kernel's later writes still reach the log, written from its start again.
    reply = engine.call(p.LoadSource(source="import os\nos.write(2, b'after\\n')\n" + GOOD))
    assert isinstance(reply, p.Result), p.reply_text(reply)
    wait_until(lambda: b"after" in log.read_bytes(), 5, "a write after the rotation")
    assert os.path.getsize(log) < LOG_LIMIT
