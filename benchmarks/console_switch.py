"""How long the GUI thread waits when the console lets go of a kernel (a kernel change, an
engine restart, the window closing): ``stop_channels()`` of the console's client.

Peer: qtconsole's own ``QtKernelClient``, whose jupyter_client loop thread looks at its
exit flag once a second. Both are started and stopped ``--rounds`` times on the same
connection info (no kernel is needed to start or stop the channels); the medians and their
ratio are printed. Target: under 50 ms, where the peer's is up to a second.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/console_switch.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def stop_times(client_class: type, rounds: int, where: str) -> list[float]:
    times = []
    for i in range(rounds):
        client = client_class()
        client.load_connection_info({"transport": "ipc", "ip": f"{where}/k{i}",
                                     "shell_port": 1, "iopub_port": 2, "stdin_port": 3,
                                     "control_port": 4, "hb_port": 5})
        client.start_channels(hb=False)
        time.sleep(0.1 + 0.09 * i)  # stop at different points of the peer's one-second sleep
        start = time.perf_counter()
        client.stop_channels()
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    opts = parser.parse_args()
    from PySide6.QtCore import QCoreApplication
    from qtconsole.client import QtKernelClient

    from workbench.ui.panels.console_client import ConsoleKernelClient

    QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as where:
        ours = statistics.median(stop_times(ConsoleKernelClient, opts.rounds, where))
        peer = statistics.median(stop_times(QtKernelClient, opts.rounds, where))
    print(f"console stop_channels, median of {opts.rounds}: workbench {ours * 1000:.1f} ms, "
          f"qtconsole's QtKernelClient {peer * 1000:.1f} ms, ratio {ours / peer:.3f}")
    print(f"target under 50 ms: {'met' if ours < 0.05 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
