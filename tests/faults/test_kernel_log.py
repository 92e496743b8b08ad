"""The kernel's own output (fd 1 and 2): bounded on disk however fast it comes, and a dead
kernel's last words still readable."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

from tests.kernel_util import wait_until
from workbench.api import messages as p
from workbench.client.kernel_log import LOG_KEEP, LOG_LIMIT, KernelLog

GOOD = "def f(x):\n    return x * 2\n"
KERNEL_SOURCE = p.LoadSource(source=GOOD)  # for the ``engine`` fixture (tests/conftest.py)
FLOOD_MB = 300  # written with os.write(1, ...) as fast as the kernel can
# A write to a pipe can be cut short (a signal: a tracer such as py-spy attached): what is not
# written is written again, so every byte the test counts on goes out.
WRITE_ALL = ("def write_all(fd, data):\n    view = memoryview(data)\n"
             "    while view:\n        view = view[os.write(fd, view):]\n")


def _disk_used(folder: Path) -> int:
    total = 0
    for log in folder.glob("kernel-*.log*"):
        with contextlib.suppress(OSError):  # rotated meanwhile
            total += log.stat().st_size
    return total


def test_a_flood_on_file_descriptor_1_never_fills_the_disk(engine):
    log = Path(engine.client._log_file.name)
    peak = [0]
    done = threading.Event()

    def sample() -> None:  # the disk the log takes, as often as this thread gets to look
        while not done.is_set():
            peak[0] = max(peak[0], _disk_used(log.parent))
            done.wait(0.001)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    source = (f"import os\n{WRITE_ALL}chunk = b'x' * 10**6\n"
              f"for i in range({FLOOD_MB}):\n    write_all(1, chunk)\n")
    try:
        reply = engine.call(p.LoadSource(source=source + GOOD), timeout=120)
    finally:
        done.set()
        sampler.join(5)
    assert isinstance(reply, p.Result), p.reply_text(reply)
    peak[0] = max(peak[0], _disk_used(log.parent))
    assert peak[0] <= LOG_LIMIT + LOG_KEEP, f"{peak[0] / 1e6:.1f} MB of log on disk"
    assert engine.client.stats.log_rotations >= FLOOD_MB * 10**6 // LOG_LIMIT
    # The kernel still answers, and what it writes after the flood still reaches the log.
    reply = engine.call(p.LoadSource(source="import os\nos.write(2, b'after the flood\\n')\n"
                                            + GOOD))
    assert isinstance(reply, p.Result), p.reply_text(reply)
    wait_until(lambda: b"after the flood" in log.read_bytes(), 5, "a write after the flood")


def test_last_words_on_stderr_are_the_fault_text_of_a_death(engine):
    # A death faulthandler does not see (no signal): its words are only on fd 2, the last
    # of them written just before it, after more than the pipe holds.
    seen = len(engine.notices)
    source = (f"import os\n{WRITE_ALL}write_all(2, b'y' * 200_000 + b'\\nthe last words\\n')\n"
              "os._exit(3)\n")
    engine.send(p.LoadSource(source=source))
    wait_until(lambda: "crashed" in engine.kinds()[seen:], 5, "the death noticed")
    notice = next(n for n in engine.notices[seen:] if n.kind == "crashed")
    assert "exited with status 3" in notice.message
    assert notice.fault.endswith("the last words"), notice.fault[-200:]
    wait_until(lambda: any(n.message == "engine restarted, definitions reloaded"
                           for n in engine.notices[seen:]), 30, "the restart")
    assert isinstance(engine.call(p.Ping()), p.Result)


def test_the_log_rotates_before_a_write_would_pass_its_limit(tmp_path):
    rotations: list[int] = []
    log = KernelLog(tmp_path / "kernel-1.log", lambda: rotations.append(1),
                    limit=100_000, keep=10_000)
    writer = os.fdopen(os.dup(log.write_fd), "wb")
    log.start()
    data = bytes(range(256)) * 4000  # 1 MB the log cannot hold
    with writer:
        writer.write(data)
    wait_until(lambda: log.tail() == data[-10_000:], 5, "the pipe drained")
    log.close()
    on_disk = log.path.read_bytes()
    assert 0 < len(on_disk) <= 100_000 and data.endswith(on_disk)
    kept = Path(f"{log.path}.1").read_bytes()
    assert len(kept) == 10_000 and data[: -len(on_disk)].endswith(kept)
    assert len(rotations) >= 9
