"""Our own kernel: its private runtime folder and connection file, the process started there, its
log (rotated on disk) and fault file, and the words for how it died.

``python -m workbench.engine.kernel`` runs on ``transport="ipc"`` in a folder of
mode 0700 (connection file 0600): no TCP port is opened. The process gets the
engine's environment (``api.process_env``) and leads its own process group, so
that a signal reaches the kernel and whatever it started.

Stop may start the next incarnation early, a *standby* on its own connection
file: a restart after a failed Stop then adopts a kernel that started during
Stop's grace instead of starting one after it (about a second sooner). A Stop
that works discards it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from jupyter_client.connect import write_connection_file
from jupyter_client.launcher import launch_kernel

from workbench.api.process_env import engine_env
from workbench.client.routing import Stats

LOG_LIMIT = 4 * 2**20  # bytes of kernel log on disk before it is rotated
LOG_KEEP = 256 * 2**10  # bytes of the old log kept in kernel-N.log.1


def private_connection_file() -> tuple[Path, Path]:
    """A fresh runtime folder (0700) and an ipc connection file in it (0600) with a new key."""
    runtime_dir = Path(tempfile.mkdtemp(prefix="workbench-"))  # mode 0700
    os.chmod(runtime_dir, 0o700)
    return runtime_dir, _write_connection_file(runtime_dir, "kernel")


def _write_connection_file(runtime_dir: Path, name: str) -> Path:
    connection_file = runtime_dir / f"{name}.json"
    write_connection_file(str(connection_file), transport="ipc", ip=str(runtime_dir / name),
                          key=secrets.token_hex(32).encode())
    os.chmod(connection_file, 0o600)
    return connection_file


def death_reason(returncode: int | None) -> str:
    """How a kernel that exited with ``returncode`` died, in words."""
    if returncode is None:
        return "the engine stopped answering"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        words = {"SIGSEGV": "segmentation fault", "SIGABRT": "aborted",
                 "SIGKILL": "killed from outside", "SIGBUS": "bus error",
                 "SIGTERM": "terminated"}
        return f"{words.get(name, 'killed')} ({name})"
    return f"exited with status {returncode}"


@dataclass
class _Started:
    """One kernel process as started: what a launch adopts."""

    proc: Any
    log_file: IO[bytes]
    fault_path: Path
    connection_file: Path


class KernelProcess:
    """The kernel process this client starts, again after each restart (an incarnation)."""

    def __init__(self, runtime_dir: Path, connection_file: Path, stats: Stats, *,
                 python: str, memory_limit: str, output_limit: int | None,
                 kernel_args: Sequence[str], env: dict[str, str] | None) -> None:
        self.runtime_dir = runtime_dir
        self.connection_file = connection_file
        self.stats = stats
        self.python = python
        self.memory_limit = memory_limit
        self.output_limit = output_limit
        self.kernel_args = tuple(kernel_args)
        self.env = env
        self.proc: Any = None
        self.standby: _Started | None = None  # the next incarnation, started early by Stop
        self.incarnation = 0
        self.log_file: IO[bytes] | None = None
        self.fault_path: Path | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def launch(self) -> None:
        """Start the next incarnation (or adopt its standby), logging to a fresh file (the old
        one is removed)."""
        self.incarnation += 1
        if self.log_file is not None:
            self.log_file.close()
            old = Path(self.log_file.name)  # its fault text is read: bounded disk use
            for path in (old, Path(f"{old}.1")):
                with contextlib.suppress(OSError):
                    path.unlink()
        standby, self.standby = self.standby, None
        if standby is not None and standby.proc.poll() is None:
            started = standby
        else:
            if standby is not None:
                _discard(standby)
            started = self._start(self.incarnation, self.connection_file, ())
        self.proc, self.log_file = started.proc, started.log_file
        self.fault_path, self.connection_file = started.fault_path, started.connection_file

    def start_standby(self) -> None:
        """Start the next incarnation now, beside the running one, on its own connection file.

        It touches no accelerator until it is adopted (``--standby``): the running kernel may
        still hold the device's memory.
        """
        if self.standby is not None or self.proc is None:
            return
        number = self.incarnation + 1
        connection_file = _write_connection_file(self.runtime_dir, f"kernel-{number}")
        self.standby = self._start(number, connection_file, ("--standby",))

    def discard_standby(self) -> None:
        """The Stop worked: the standby is not needed."""
        standby, self.standby = self.standby, None
        if standby is not None:
            _discard(standby)

    def _start(self, number: int, connection_file: Path, extra: Sequence[str]) -> _Started:
        fault_path = self.runtime_dir / f"fault-{number}.txt"
        log_path = self.runtime_dir / f"kernel-{number}.log"
        # Appending, so that truncating it (rotation) also moves the kernel's writes back.
        log: Any = open(log_path, "ab")  # noqa: SIM115 - closed on the next launch
        cmd = [self.python, "-m", "workbench.engine.kernel", "-f", str(connection_file),
               "--fault-file", str(fault_path), "--memory-limit", self.memory_limit]
        if self.output_limit is not None:
            cmd += ["--output-limit", str(self.output_limit)]
        cmd += [*extra, *self.kernel_args]
        proc = launch_kernel(cmd, stdout=log, stderr=log, env=engine_env(self.env))
        return _Started(proc, log, fault_path, connection_file)

    def exited(self) -> bool:
        """It was started and has ended (``returncode`` says how)."""
        return self.proc is not None and self.proc.poll() is not None

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode if self.proc is not None else None

    def interrupt(self) -> None:
        """SIGINT to its process group (what Stop sends first)."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGINT)

    def kill(self) -> None:
        """SIGKILL to its process group, and reap it."""
        if self.proc is not None:
            _kill(self.proc)

    def terminate(self) -> None:
        """SIGTERM, then SIGKILL after 2 s; close the log (and discard a standby)."""
        self.discard_standby()
        proc = self.proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(2)
            except Exception:  # noqa: BLE001
                self.kill()
        if self.log_file is not None:
            self.log_file.close()

    def cap_log(self) -> None:
        """Keep the kernel's log (its fd 1 and 2: C extensions and os.write) bounded on disk."""
        if self.log_file is None:
            return
        try:
            fd = self.log_file.fileno()
            if os.fstat(fd).st_size <= LOG_LIMIT:
                return
            path = Path(self.log_file.name)
            with open(path, "rb") as log:
                log.seek(-LOG_KEEP, os.SEEK_END)
                tail = log.read(LOG_KEEP)
            Path(f"{path}.1").write_bytes(tail)
            os.ftruncate(fd, 0)
            self.stats.log_rotations += 1
        except (OSError, ValueError):
            pass  # a log we cannot rotate is not worth stopping the engine for

    def fault_text(self) -> str:
        """The engine's last words: its fault file, else the tail of its log."""
        text = ""
        if self.fault_path is not None:
            with contextlib.suppress(OSError):
                text = self.fault_path.read_text(errors="replace").strip()
        if not text and self.log_file is not None:
            with contextlib.suppress(OSError):
                log = Path(self.log_file.name).read_text(errors="replace").strip()
                text = "\n".join(log.splitlines()[-30:])
        return text[:8000]  # the head holds the error and the crashing line


def _kill(proc: Any) -> None:
    """SIGKILL to the process group ``proc`` leads, and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            proc.wait(5)


def _discard(started: _Started) -> None:
    """Kill a standby and remove what it left: log, fault file, connection file, sockets."""
    _kill(started.proc)
    started.log_file.close()
    sockets = started.connection_file.parent.glob(f"{started.connection_file.stem}-*")
    for path in (Path(started.log_file.name), started.fault_path, started.connection_file,
                 *sockets):
        with contextlib.suppress(OSError):
            path.unlink()
