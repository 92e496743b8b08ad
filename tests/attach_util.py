"""A workbench kernel started apart, on loopback TCP, as a teacher starts one on a GPU host; an
sshd of the test's own to reach it through; connection files that lead nowhere.

The fixtures ``tcp_kernel`` and ``sshd`` (tests/conftest.py) are made here.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kernel_util import wait_until

ROOT = Path(__file__).resolve().parents[1]
SSHD = shutil.which("sshd") or next(
    (p for p in ("/usr/sbin/sshd", "/usr/local/sbin/sshd") if os.path.exists(p)), None)



# Editor source whose Stop lands inside XLA (as in tests/faults/test_stop_suite.py).
DEAF_JIT_LOOP = (
    "def g(x, n):\n"
    "    return lax.fori_loop(0, n, lambda i, v: v * 1.0000001 + 1e-9, x)\n"
    "h = jax.jit(g)\n"
    "h(jnp.ones(4), 1).block_until_ready()\n"
    "print('started', flush=True)\n"
    "h(jnp.ones(4), 2**31 - 1).block_until_ready()\n"
)

def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


@dataclass
class TcpKernel:
    """``python -m workbench.engine.kernel -f conn.json --ip 127.0.0.1``, started by a test."""

    connection_file: Path
    proc: subprocess.Popen
    log: Path

    @property
    def info(self) -> dict:
        return json.loads(self.connection_file.read_text())

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


def start_tcp_kernel(folder: Path) -> TcpKernel:
    """A kernel of its own session, listening on 127.0.0.1; returns once its file is written."""
    folder.mkdir(parents=True, exist_ok=True)
    conn = folder / "conn.json"
    log = folder / "kernel.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "workbench.engine.kernel", "-f", str(conn), "--ip",
             "127.0.0.1"], stdout=out, stderr=out, env=_env(), start_new_session=True)
    kernel = TcpKernel(conn, proc, log)

    def written() -> bool:  # ipykernel writes the file once its sockets are bound
        if not kernel.alive():
            raise AssertionError(f"the kernel exited: {log.read_text()[-2000:]}")
        try:
            return "hb_port" in json.loads(conn.read_text())
        except (OSError, ValueError):
            return False

    wait_until(written, 60, "the kernel's connection file")
    return kernel


@contextlib.contextmanager
def silent_port() -> Iterator[int]:
    """A loopback port that accepts TCP connections and never says a word: another program's
    port, given to a kernel's channel by mistake."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                held.append(server.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        for sock in held:
            sock.close()


def free_ports(count: int) -> list[int]:
    """Ports nothing listens on (bound, then released)."""
    socks = [socket.socket() for _ in range(count)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def dead_connection_file(folder: Path) -> Path:
    """A well-formed connection file whose ports nothing listens on: a kernel long gone."""
    names = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
    info = dict(zip(names, free_ports(5), strict=True))
    info.update(ip="127.0.0.1", key="0123456789abcdef", transport="tcp",
                signature_scheme="hmac-sha256", kernel_name="")
    path = folder / "dead.json"
    path.write_text(json.dumps(info))
    return aged(path)


def wrong_key_file(kernel: TcpKernel, folder: Path) -> Path:
    """The kernel's own connection file with another key: it ignores every message signed so."""
    info = kernel.info
    info["key"] = "f" * 32
    path = folder / "wrong-key.json"
    path.write_text(json.dumps(info))
    return aged(path)


def aged(path: Path, seconds: float = 3600) -> Path:
    """The file as a kernel started long ago left it: a fresh one may name a kernel still
    starting, which the client waits for (``client.supervision.STARTUP_TIMEOUT_S``)."""
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


# --------------------------------------------------------------------------- ssh


@dataclass
class Sshd:
    """An SSH server on 127.0.0.1 that accepts the test's throwaway key, and an ``ssh`` on
    ``bin_dir`` (put it first on PATH) configured to use that key and trust any host key."""

    port: int
    bin_dir: Path
    proc: subprocess.Popen

    @property
    def server(self) -> str:
        return f"{getpass.getuser()}@127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = _env()
        env["PATH"] = f"{self.bin_dir}{os.pathsep}{env.get('PATH', '')}"
        return env


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True,
                   capture_output=True)


def ssh_client_dir(folder: Path, key: Path | None = None) -> Path:
    """``folder/bin/ssh``: the real ssh with a config of the test's (ssh reads ~/.ssh from the
    password database, not from $HOME, so a config has to be given on its command line)."""
    config = folder / "ssh_config"
    lines = ["Host *", "  StrictHostKeyChecking no", "  UserKnownHostsFile /dev/null",
             "  LogLevel ERROR", "  BatchMode yes", "  ConnectTimeout 10"]
    if key is not None:
        lines += [f"  IdentityFile {key}", "  IdentitiesOnly yes"]
    config.write_text("\n".join(lines) + "\n")
    bin_dir = folder / "bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / "ssh"
    wrapper.write_text(f'#!/bin/sh\nexec {shutil.which("ssh")} -F {config} "$@"\n')
    wrapper.chmod(0o755)
    return bin_dir


@contextlib.contextmanager
def running_sshd(folder: Path) -> Iterator[Sshd]:
    """An sshd for the test (skips where none is installed), stopped on leaving."""
    if SSHD is None:
        pytest.skip("sshd is not installed (apt-get install openssh-server; .ci/run does)")
    if shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        pytest.skip("the ssh client is not installed (apt-get install openssh-client)")
    if os.geteuid() == 0 and not os.path.isdir("/run/sshd"):
        os.makedirs("/run/sshd", mode=0o755)  # sshd's privilege separation folder, as root
    _keygen(folder / "host_key")
    _keygen(folder / "client_key")
    shutil.copy(folder / "client_key.pub", folder / "authorized_keys")
    (port,) = free_ports(1)
    config = folder / "sshd_config"
    config.write_text("\n".join([
        f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {folder / 'host_key'}",
        f"PidFile {folder / 'sshd.pid'}", f"AuthorizedKeysFile {folder / 'authorized_keys'}",
        "StrictModes no", "UsePAM no", "PasswordAuthentication no",
        "KbdInteractiveAuthentication no", "PubkeyAuthentication yes",
        "AllowTcpForwarding yes", "PermitRootLogin prohibit-password", "LogLevel ERROR",
    ]) + "\n")
    log = open(folder / "sshd.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=log,
                            start_new_session=True)

    def listening() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"sshd exited: {(folder / 'sshd.log').read_text()[-2000:]}")
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    try:
        wait_until(listening, 30, "sshd to listen")
        yield Sshd(port, ssh_client_dir(folder, folder / "client_key"), proc)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)  # the listener and the sessions it forked
        proc.wait(10)
        log.close()
