"""The SSH tunnels to a kernel, made in a process of their own (run as a script by
``attach.tunnel``, with ``python -P``: it imports nothing of the workbench).

jupyter_client drives ``ssh`` through pexpect, which forks on a pty. Forking a
process that runs threads (the window's, the client's I/O thread, JAX's pools
in a test) may deadlock the child, and JAX warns of it; this fresh process has
one thread. Protocol: one JSON line on stdin (``info``, ``server``); one JSON
line on stdout (``ports`` as ``tunnel_to_kernel`` returns them, or ``error``).
The process then waits for stdin to close (its parent closing or exiting)
before it exits, so that forwards added to an ssh ControlMaster, which
jupyter_client cancels at exit, live as long as the workbench.
"""

from __future__ import annotations

import json
import signal
import sys
from typing import Any


def main() -> None:
    """Tunnel as asked on stdin, answer on stdout, then wait for stdin's end."""
    # Each tunnel is ``ssh -f`` spawned on a pty (pexpect) whose session it leads: when it
    # forks to the background and exits, the hang-up of its pty reaches the child before
    # the child's setsid() often enough, on a busy machine, to kill two tunnels in five.
    # A blocked SIGHUP is inherited through fork and exec and never unblocked by ssh.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    asked = json.loads(sys.stdin.readline())
    answer: dict[str, Any]
    try:
        from jupyter_client.connect import tunnel_to_kernel

        ports = tunnel_to_kernel(asked["info"], asked["server"])
    except Exception as exc:  # noqa: BLE001 - RuntimeError, SSHException, ImportError: one line
        answer = {"error": {"runtime": isinstance(exc, RuntimeError), "text": str(exc),
                            "type": type(exc).__name__}}
    else:
        answer = {"ports": list(ports)}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    sys.stdin.read()  # until the workbench closes it


if __name__ == "__main__":
    main()
