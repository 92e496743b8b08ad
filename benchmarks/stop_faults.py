"""Stop under five kinds of running code, a frozen kernel, and a flood of flushes.

Run: .venv/bin/python benchmarks/stop_faults.py [--repeats 3]

Each Stop figure is the time from Stop to ``idle``, where idle now means the
next request (one that touches the device) is answered; that request's own
latency is printed beside it. The peer of a Stop that needs a restart is a
plain restart (``EngineClient.restart``) measured in the same run.
Targets: the asynchronous matmul loop idle within 3 s (restart included); an
interruptible loop within 1.5 s; a frozen kernel flagged within 2 s.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.faults.test_stop_suite import (  # noqa: E402 - the suite's own fault sources
    ASYNC_MATMUL_LOOP,
    BLOCKING_SLEEP,
    DEAF_JIT_LOOP,
    DEVICE_TOUCH,
    GOOD,
    PYTHON_LOOP,
    RECURSING,
)
from tests.kernel_util import Recorder, wait_until  # noqa: E402
from workbench.api import messages as p  # noqa: E402
from workbench.api.state import State  # noqa: E402


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop_once(rec: Recorder, request: p.Request, busy_cpu: bool) -> tuple[float, float, bool]:
    """(seconds Stop -> idle, seconds for the next device request, restarted?)."""
    events: list[p.Event] = []
    box: list[p.Reply] = []
    if isinstance(request, p.Trace):  # the function to trace; the last run replaced it
        assert isinstance(rec.call(p.LoadSource(source=GOOD + RECURSING), 60), p.Result)
    pid = rec.client.pid
    rec.client.request(request, box.append, events.append)
    wait_until(lambda: box or any(isinstance(e, p.Output) and "started" in e.text
                                  for e in events), 120, "started")
    assert not box, box
    if busy_cpu:
        spent = _cpu(pid)
        wait_until(lambda: _cpu(pid) > spent + 0.2, 60, "busy")
    start = time.perf_counter()
    rec.client.stop()
    wait_until(lambda: rec.client.state == State.IDLE, 30, "idle")
    to_idle = time.perf_counter() - start
    asked = time.perf_counter()
    assert isinstance(rec.call(p.LoadSource(source=DEVICE_TOUCH), 60), p.Result)
    return to_idle, time.perf_counter() - asked, rec.client.pid != pid


def restart_once(rec: Recorder) -> float:
    start = time.perf_counter()
    rec.client.restart()
    wait_until(lambda: rec.client.state == State.RESTARTING, 10, "restarting")
    wait_until(lambda: rec.client.state == State.IDLE, 30, "idle")
    return time.perf_counter() - start


def frozen_once(rec: Recorder) -> float:
    pid = rec.client.pid
    os.kill(pid, signal.SIGSTOP)
    start = time.perf_counter()
    try:
        wait_until(lambda: rec.client.state == State.UNRESPONSIVE, 10, "flagged")
        return time.perf_counter() - start
    finally:
        os.kill(pid, signal.SIGCONT)
        wait_until(lambda: rec.client.state == State.IDLE, 10, "responding")


def flood_once(rec: Recorder) -> tuple[int, float]:
    """Output messages for 10,000 flushed prints, and a ping's latency during them."""
    events: list[p.Event] = []
    box = rec.send(p.LoadSource(source="for i in range(10_000):\n    print(i, flush=True)\n"
                                + GOOD), on_event=events.append)
    start = time.perf_counter()
    rec.call(p.Ping(), 60)
    ping = time.perf_counter() - start
    wait_until(lambda: box, 60, "the flood's reply")
    return sum(isinstance(e, p.Output) for e in events), ping


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rec = Recorder()
    try:
        assert isinstance(rec.call(p.LoadSource(source=GOOD), 60), p.Result)
        cases = {
            "python loop": (p.LoadSource(source=PYTHON_LOOP), False, 1.5),
            "time.sleep(100)": (p.LoadSource(source=BLOCKING_SLEEP), False, 1.5),
            "recursing trace": (p.Trace(name="r", args="f32[3]"), False, 1.5),
            "deaf jitted loop": (p.LoadSource(source=DEAF_JIT_LOOP), True, 3.0),
            "async matmul loop": (p.LoadSource(source=ASYNC_MATMUL_LOOP), True, 3.0),
        }
        restart = statistics.median(restart_once(rec) for _ in range(args.repeats))
        print(f"plain restart (the peer of a restarting Stop): {restart:.2f} s median")
        print(f"{'Stop during':<20}{'to idle':>10}{'next req':>11}{'restart':>9}"
              f"{'target':>8}{'/target':>9}{'/restart':>10}")
        for name, (request, busy, target) in cases.items():
            runs = [stop_once(rec, request, busy) for _ in range(args.repeats)]
            idle = statistics.median(r[0] for r in runs)
            nxt = statistics.median(r[1] for r in runs)
            restarted = sum(r[2] for r in runs)
            print(f"{name:<20}{idle:>9.2f}s{nxt * 1000:>8.0f} ms{restarted:>6}/{len(runs)}"
                  f"{target:>7.1f}s{idle / target:>9.2f}{idle / restart:>10.2f}")
        flagged = statistics.median(frozen_once(rec) for _ in range(args.repeats))
        print(f"SIGSTOP flagged unresponsive: {flagged:.2f} s median (target 2 s: "
              f"{flagged / 2.0:.2f} of it)")
        floods = [flood_once(rec) for _ in range(args.repeats)]
        print(f"10,000 flushed prints: {statistics.median(f[0] for f in floods):.0f} messages "
              f"(one per flush before: 10,000), ping during them "
              f"{statistics.median(f[1] for f in floods) * 1000:.0f} ms median")
    finally:
        rec.close()


if __name__ == "__main__":
    main()
