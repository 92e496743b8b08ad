"""The kernel hands freed memory back: RSS after ``del`` of 4 x 300 MB comes back within 300 MB.

glibc keeps freed heap blocks for reuse (its mmap threshold grows as big blocks come and
go), which once left RSS at its peak after the arrays were gone (with the kernel's old
malloc tuning, all 1.2 GB). Measured on the real kernel's ``/proc/PID/status``, after a
console cell and after an editor request.
"""

from __future__ import annotations

import pytest

from tests.kernel_util import plain_console
from workbench.api import messages as p

MB = 2**20
ARRAYS = "[np.ones(300 * 2**20 // 8) for _ in range(4)]"  # 4 x 300 MB, every page touched


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        line = next(row for row in fh if row.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


@pytest.fixture
def console(engine):
    client = plain_console(engine.client.connection_file)
    yield client
    client.stop_channels()


def _run(console, code: str) -> None:
    reply = console.execute_interactive(code, timeout=120)
    assert reply["content"]["status"] == "ok", reply["content"]


def test_del_in_the_console_gives_the_memory_back(engine, console):
    pid = engine.call(p.Ping()).value.pid
    _run(console, "import numpy as np")
    before = _rss(pid)
    _run(console, f"big = {ARRAYS}")
    assert _rss(pid) - before > 1100 * MB  # resident, so the check below means something
    _run(console, "del big")
    assert _rss(pid) - before < 300 * MB


def test_a_request_that_frees_gives_the_memory_back(engine):
    pid = engine.call(p.Ping()).value.pid
    before = _rss(pid)
    assert isinstance(engine.call(p.LoadSource(source=f"big = {ARRAYS}\n"), 120), p.Result)
    assert _rss(pid) - before > 1100 * MB
    assert isinstance(engine.call(p.LoadSource(source="big = None\n")), p.Result)
    engine.call(p.Ping())  # the kernel trims after sending a reply: this one comes after it
    assert _rss(pid) - before < 300 * MB
