"""Round trip through the engine kernel vs the same call in-process; cold start to first reply.

Run: .venv/bin/python benchmarks/engine_roundtrip.py [--n 300]
Targets: trivial request p50 < 5 ms through the kernel; cold start < 2 s.

With ``--existing`` it also attaches to a kernel started apart, as ``workbench
--existing FILE`` does, and prints its ping and trace-of-selu p50 beside the
owned (ipc) kernel's, as ratios to their targets (< 3 ms and < 5 ms): without
FILE it starts ``python -m workbench.engine.kernel -f FILE --ip 127.0.0.1``
(loopback TCP); with FILE (and ``--ssh HOST``) it uses that kernel.

With ``--server`` it does the same for a kernel of a Jupyter Server (``workbench --server
URL``): without URL it starts one here on 127.0.0.1 with the workbench kernelspec; with
URL (the token in JUPYTER_TOKEN) it uses that server. Targets: ping p50 < 5 ms, trace of
selu p50 < 8 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from workbench.api import messages as p
from workbench.client.engine_client import EngineClient
from workbench.engine.service import Service

SELU = (
    "def selu(x, alpha=1.67, lmbda=1.05):\n"
    "    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)\n"
)


def percentiles(samples: list[float]) -> tuple[float, float]:
    s = sorted(samples)
    return statistics.median(s), s[min(len(s) - 1, int(round(0.99 * (len(s) - 1))))]


def timed(fn, n: int, check=lambda reply: isinstance(reply, p.Result)) -> tuple[float, float]:
    """p50 and p99 of ``n`` calls of ``fn``, each answer passing ``check``."""
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        reply = fn()
        samples.append(time.perf_counter() - start)
        assert check(reply), reply
    return percentiles(samples)


ATTACHED_TARGETS = {"ping": 0.003, "trace selu f32[1000]": 0.005}
SERVER_TARGETS = {"ping": 0.005, "trace selu f32[1000]": 0.008}


def start_tcp_kernel(folder: Path) -> tuple[subprocess.Popen, Path]:
    """A kernel started apart on loopback TCP; returns once its connection file is written."""
    conn = folder / "kernel.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench.engine.kernel", "-f", str(conn), "--ip", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if "hb_port" in json.loads(conn.read_text()):
                return proc, conn
        except (OSError, ValueError):
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise SystemExit("the kernel did not start")


def attached_rows(connection_file: str | None, ssh: str | None, n: int,
                  **server: object) -> list[tuple[str, tuple]]:
    client = EngineClient(connection_file, ssh=ssh, **server)  # type: ignore[arg-type]
    try:
        first = client.call(p.Ping(), timeout=60)
        assert isinstance(first, p.Result), first
        client.call(p.LoadSource(source=SELU), timeout=60)
        trace = p.Trace(name="selu", args="f32[1000]")
        for _ in range(20):
            client.call(trace)
        return [("ping", timed(lambda: client.call(p.Ping()), n)),
                ("trace selu f32[1000]", timed(lambda: client.call(trace), n))]
    finally:
        client.close()


def print_attached(rows: list[tuple[str, tuple]], owned: dict[str, float], where: str,
                   targets: dict[str, float] = ATTACHED_TARGETS) -> None:
    print(f"\n| request | attached ({where}) p50 | p99 | owned ipc p50 | target | "
          "p50 / target |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, (p50, p99) in rows:
        target = targets[name]
        print(f"| {name} | {p50 * 1e3:.2f} ms | {p99 * 1e3:.2f} ms | {owned[name] * 1e3:.2f} ms "
              f"| < {target * 1e3:.0f} ms | {p50 / target:.2f} "
              f"{'ok' if p50 < target else 'MISSED'} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--existing", nargs="?", const="", metavar="FILE",
                        help="also time a kernel attached by connection file (none given: one "
                        "started here on loopback TCP)")
    parser.add_argument("--ssh", metavar="HOST", help="with --existing FILE: through ssh HOST")
    parser.add_argument("--server", nargs="?", const="", metavar="URL",
                        help="also time a kernel of a Jupyter Server (none given: one started "
                        "here on 127.0.0.1; with URL, the token from JUPYTER_TOKEN)")
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
    owned = {name: kernel[0] for name, kernel, _ in rows}
    if args.server is not None:
        server_rows(args.server, args.n, owned)
    if args.existing is None:
        return
    if args.existing:
        where = f"ssh {args.ssh}" if args.ssh else args.existing
        print_attached(attached_rows(args.existing, args.ssh, args.n), owned, where)
        return
    with tempfile.TemporaryDirectory() as folder:
        proc, conn = start_tcp_kernel(Path(folder))
        try:
            print_attached(attached_rows(str(conn), None, args.n), owned, "loopback TCP")
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def server_rows(url: str, n: int, owned: dict[str, float]) -> None:
    """A Jupyter Server's kernel beside the owned one (a server started here without URL)."""
    from workbench.client.server import server_target

    if url:
        target = server_target(url)
        print_attached(attached_rows(None, None, n, server=target), owned,
                       "Jupyter Server", SERVER_TARGETS)
        print_floor(target, n)
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _jupyter_server import jupyter_server

    with tempfile.TemporaryDirectory() as folder, jupyter_server(Path(folder)) as (where, token,
                                                                                   _):
        target = server_target(where, token)
        print_attached(attached_rows(None, None, n, server=target), owned,
                       "Jupyter Server on 127.0.0.1", SERVER_TARGETS)
        print_floor(target, n)


def print_floor(target, n: int) -> None:
    """The peer under ping: a bare WebSocket round trip to the same server, with no workbench
    client (``kernel_info_request`` until its reply and the kernel's idle)."""
    import uuid

    import websocket
    from jupyter_client.session import Session

    from workbench.client.server import JupyterServer
    from workbench.client.ws_transport import V1, _ack_at_once, decode, encode, open_channels

    server = JupyterServer(target)
    kernel_id = server.start_kernel("python3")
    try:
        session_id = uuid.uuid4().hex
        ws = open_channels(server.channels_url(kernel_id, session_id), server.headers())
        v1 = ws.getsubprotocol() == V1
        session = Session(session=session_id)

        def round_trip() -> None:
            msg = session.msg("kernel_info_request", {})
            frame = encode(msg, "shell", v1, session.pack)
            ws.send_binary(frame) if isinstance(frame, bytes) else ws.send(frame)
            replied = idle = False
            while not (replied and idle):
                _ack_at_once(ws)
                opcode, data = ws.recv_data_frame(True)
                got = decode(data.data, opcode == websocket.ABNF.OPCODE_BINARY, v1)
                if got is None or got["parent_header"].get("msg_id") != msg["header"]["msg_id"]:
                    continue
                replied = replied or got["msg_type"] == "kernel_info_reply"
                idle = idle or (got["msg_type"] == "status"
                                and got["content"].get("execution_state") == "idle")

        for _ in range(20):
            round_trip()
        p50, p99 = timed(round_trip, n, check=lambda _: True)
        ws.close()
    finally:
        server.shutdown(kernel_id)
    print(f"\nthe floor: a bare WebSocket round trip to the same server, no workbench client "
          f"(kernel_info_request to its reply and idle): p50 {p50 * 1e3:.2f} ms, "
          f"p99 {p99 * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
