"""Round trip through the engine kernel vs the same call in-process; cold start to first reply.

Run: .venv/bin/python benchmarks/engine_roundtrip.py [--n 300]
Targets: trivial request p50 < 5 ms through the kernel; cold start < 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from workbench.api import messages as p
from workbench.api.client import EngineClient
from workbench.engine.service import Service

SELU = (
    "def selu(x, alpha=1.67, lmbda=1.05):\n"
    "    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)\n"
)


def percentiles(samples: list[float]) -> tuple[float, float]:
    s = sorted(samples)
    return statistics.median(s), s[min(len(s) - 1, int(round(0.99 * (len(s) - 1))))]


def timed(fn, n: int) -> tuple[float, float]:
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        reply = fn()
        samples.append(time.perf_counter() - start)
        assert isinstance(reply, p.Result), reply
    return percentiles(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()

    start = time.perf_counter()
    client = EngineClient()
    first = client.call(p.Ping(), timeout=60)
    cold = time.perf_counter() - start
    assert isinstance(first, p.Result)

    local = Service()
    local.handle(p.LoadSource(source=SELU))
    client.call(p.LoadSource(source=SELU), timeout=60)
    trace = p.Trace(name="selu", args="f32[1000]")
    for _ in range(20):  # warm both sides
        client.call(trace)
        local.handle(trace)

    rows = [
        ("ping", timed(lambda: client.call(p.Ping()), args.n),
         timed(lambda: local.handle(p.Ping()), args.n)),
        ("trace selu f32[1000]", timed(lambda: client.call(trace), args.n),
         timed(lambda: local.handle(trace), args.n)),
    ]
    restart_start = time.perf_counter()
    done = threading.Event()
    client.on_notice = lambda n: done.set() if n.kind == "restarted" else None
    client.restart()
    done.wait(60)
    restart = time.perf_counter() - restart_start
    client.close()

    print("| request | kernel p50 | kernel p99 | in-process p50 | in-process p99 | ratio p50 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, (kp50, kp99), (lp50, lp99) in rows:
        print(f"| {name} | {kp50 * 1e3:.2f} ms | {kp99 * 1e3:.2f} ms | {lp50 * 1e3:.3f} ms "
              f"| {lp99 * 1e3:.3f} ms | {kp50 / lp50:.0f}x |")
    print(f"| cold start to first reply | {cold:.2f} s | | | | target < 2 s |")
    print(f"| restart + reload of the source | {restart:.2f} s | | | | |")
    ping_p50 = rows[0][1][0]
    print(f"\ntrivial request p50 {ping_p50 * 1e3:.2f} ms (target < 5 ms): "
          f"{'ok' if ping_p50 < 0.005 else 'MISSED'}; cold start {cold:.2f} s (target < 2 s): "
          f"{'ok' if cold < 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
