"""A class on one server: N students' workbench clients, each on its own kernel of one Jupyter
Server, doing what a lesson does, against the same requests on one local kernel.

Run: .venv/bin/python benchmarks/class_on_server.py [--students 10] [--rounds 20]
Target: with 10 students on this 2-core machine, p95 of a trace request < 10x the single
client's p95. Also printed: p50/p95 per request kind (class vs one local kernel) and the
memory of each kernel, with what a class of 30 would need on a GPU host.

Each student loads the lesson's code, then, every round, traces selu, asks for its values,
samples its curves (the plot) and runs a small k-means, as a student stepping through a
lesson does. The students start together (their kernels start at once, as a class does
when the teacher says "open the lesson").
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _jupyter_server import jupyter_server  # noqa: E402

from workbench.api import messages as p  # noqa: E402
from workbench.api.state import State  # noqa: E402
from workbench.client.engine_client import EngineClient  # noqa: E402
from workbench.client.server import server_target  # noqa: E402

LESSON = (
    "import jax\nimport jax.numpy as jnp\n\n"
    "def selu(x, alpha=1.67, lmbda=1.05):\n"
    "    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)\n"
)
REQUESTS = {
    "trace": p.Trace(name="selu", args="f32[1000]"),
    "values": p.Values(name="selu", args="f32[1000]"),
    "plot": p.SampleCurves(name="selu", order=2, points=1000),
    "kmeans": p.KMeans(n=1000, k=4, max_iter=20),
}


def student(client: EngineClient, rounds: int, times: dict[str, list[float]],
            lock: threading.Lock) -> None:
    """One student's lesson: load, then ``rounds`` of each request, each timed."""
    reply = client.call(p.LoadSource(source=LESSON, filename="/lesson.py"), timeout=300)
    assert isinstance(reply, p.Result), reply
    for request in REQUESTS.values():  # warm: the first of each compiles
        reply = client.call(type(request)(**_fields(request)), timeout=300)
        assert isinstance(reply, p.Result), reply
    for _ in range(rounds):
        for kind, request in REQUESTS.items():
            start = time.perf_counter()
            reply = client.call(type(request)(**_fields(request)), timeout=300)
            took = time.perf_counter() - start
            assert isinstance(reply, p.Result), reply
            with lock:
                times[kind].append(took)


def _fields(request: p.Request) -> dict:
    """The request's fields but its id: a new request each time."""
    return {k: v for k, v in vars(request).items() if k != "id"}


def run_class(clients: list[EngineClient], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = defaultdict(list)
    lock = threading.Lock()
    threads = [threading.Thread(target=student, args=(c, rounds, times, lock)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times


def ready(clients: list[EngineClient], timeout: float = 300) -> float:
    start = time.monotonic()
    while any(c.state != State.IDLE for c in clients):
        dead = [c for c in clients if c.state == State.DEAD]
        if dead or time.monotonic() - start > timeout:
            raise SystemExit(f"{len(dead)} kernels did not start")
        time.sleep(0.05)
    return time.monotonic() - start


def kernel_rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmRSS:"))


def server_kernel_pids(kernel_ids: list[str]) -> list[int]:
    """The processes the server started for these kernels (their connection files name them)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if any(k.encode() in argv for k in kernel_ids) and b"workbench.engine.kernel" in argv:
            pids.append(int(entry.name))
    return pids


def gpu_memory(pids: list[int]) -> list[float]:
    """MiB of GPU memory each of ``pids`` holds (nvidia-smi), where there is a GPU."""
    import shutil
    import subprocess

    if shutil.which("nvidia-smi") is None:
        return []
    out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
                          "--format=csv,noheader,nounits"], capture_output=True, text=True)
    held = {}
    for line in out.stdout.splitlines():
        pid, _, used = line.partition(",")
        if pid.strip().isdigit() and used.strip().replace(".", "").isdigit():
            held[int(pid)] = float(used)
    return [held[pid] for pid in pids if pid in held]


def quantiles(samples: list[float]) -> tuple[float, float]:
    s = sorted(samples)
    return statistics.median(s), s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()

    local = EngineClient()
    ready([local])
    alone = run_class([local], args.rounds)
    local_rss = kernel_rss(local.pid) if local.pid else 0
    local.close()

    with tempfile.TemporaryDirectory() as folder, jupyter_server(Path(folder)) as (url, token,
                                                                                   _):
        target = server_target(url, token)
        single = EngineClient(server=target)
        ready([single])
        one_remote = run_class([single], args.rounds)
        single.close()

        clients = [EngineClient(server=target) for _ in range(args.students)]
        started = ready(clients)
        times = run_class(clients, args.rounds)
        ids = [c.server.kernel_id for c in clients if c.server and c.server.kernel_id]
        pids = server_kernel_pids(ids)
        rss = [kernel_rss(pid) for pid in pids]
        gpu = gpu_memory(pids)
        for client in clients:
            client.close()

    print(f"{args.students} students on one Jupyter Server (127.0.0.1, {os.cpu_count()} cores), "
          f"{args.rounds} rounds each; their kernels all ready after {started:.1f} s\n")
    print("| request | local kernel p50 | p95 | one student on the server p50 | p95 | "
          f"class of {args.students} p50 | p95 | class p95 / one p95 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kind in REQUESTS:
        lp50, lp95 = quantiles(alone[kind])
        op50, op95 = quantiles(one_remote[kind])
        cp50, cp95 = quantiles(times[kind])
        print(f"| {kind} | {lp50 * 1e3:.1f} ms | {lp95 * 1e3:.1f} ms | {op50 * 1e3:.1f} ms | "
              f"{op95 * 1e3:.1f} ms | {cp50 * 1e3:.1f} ms | {cp95 * 1e3:.1f} ms | "
              f"{cp95 / op95:.1f}x |")
    trace_ratio = quantiles(times["trace"])[1] / quantiles(one_remote["trace"])[1]
    print(f"\ntrace p95, class of {args.students} / one student: {trace_ratio:.1f}x "
          f"(target < 10x): {'ok' if trace_ratio < 10 else 'MISSED'}")
    if rss:
        per = statistics.median(rss)
        print(f"memory per kernel (RSS after the lesson): median {per / 2**20:.0f} MB, "
              f"max {max(rss) / 2**20:.0f} MB over {len(rss)} kernels "
              f"(a local kernel: {local_rss / 2**20:.0f} MB); "
              f"a class of 30: about {30 * per / 2**30:.1f} GB of host memory for the kernels")
    if gpu:
        per_gpu = statistics.median(gpu)
        print(f"GPU memory per kernel: median {per_gpu:.0f} MiB, max {max(gpu):.0f} MiB over "
              f"{len(gpu)} kernels (XLA_PYTHON_CLIENT_PREALLOCATE="
              f"{os.environ.get('XLA_PYTHON_CLIENT_PREALLOCATE', 'true')}); a class of 30: "
              f"about {30 * per_gpu / 1024:.1f} GiB of GPU memory")


if __name__ == "__main__":
    main()
