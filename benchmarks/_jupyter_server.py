"""A Jupyter Server on 127.0.0.1 for the benchmarks, the workbench kernelspec installed into a
prefix of its own: what a class's GPU host runs (``docs/remote-kernels.md``)."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def jupyter_server(folder: Path) -> Iterator[tuple[str, str, subprocess.Popen]]:
    """(url, token, process) of a fresh server; stopped afterwards."""
    prefix = folder / "prefix"
    subprocess.run([sys.executable, "-m", "workbench.cli", "kernelspec", "install", "--prefix",
                    str(prefix)], check=True, capture_output=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_PATH": str(prefix / "share" / "jupyter"),
           "JUPYTER_RUNTIME_DIR": str(folder / "runtime"), "JUPYTER_CONFIG_DIR": str(folder)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", f"--port={port}",
         "--ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}",
         "--ServerApp.port_retries=0", f"--BaseFileIdManager.db_path={folder / 'file_id.db'}",
         f"--SQLiteYStore.db_path={folder / 'ystore.db'}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                request = urllib.request.Request(url + "api/status",
                                                 headers={"Authorization": f"token {token}"})
                with urllib.request.urlopen(request, timeout=2) as reply:
                    json.loads(reply.read())
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the Jupyter Server did not start") from None
                time.sleep(0.1)
        yield url, token, proc
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
