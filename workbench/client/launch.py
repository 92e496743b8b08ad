"""Our own kernel: its private runtime folder and connection file, the process started there, its
log (a pipe drained by ``kernel_log``, bounded on disk) and fault file, and the words for how
it died.

``python -m workbench.engine.kernel`` runs on ``transport="ipc"`` in a folder of
mode 0700 (connection file 0600): no TCP port is opened. The process gets the
engine's environment (``api.process_env``) and leads its own process group, so
that a signal reaches the kernel and whatever it started.

Stop may start the next incarnation early, a *standby* on its own connection
file: a restart after a failed Stop then adopts a kernel that started during
Stop's grace instead of starting one after it (about a second sooner). A Stop
that works discards it.

Each incarnation gets a connection file of its own (``kernel-N.json``), with a new
key: a message signed for an earlier one is refused by the next. The folder is
made again if a /tmp cleaner removed it. The kernel removes it when this process
dies without closing (``--runtime-dir``: SIGKILL leaves no chance to), and a
client starting removes those whose owner is gone (``remove_stale_runtime_dirs``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from jupyter_client.connect import write_connection_file
from jupyter_client.launcher import launch_kernel

from workbench.api.contract.routing import Stats
from workbench.api.process_env import engine_env
from workbench.api.writer import atomic_write_text
from workbench.client.kernel_log import KernelLog

RUNTIME_PREFIX = "workbench-"
# In each runtime folder: the pid of the client that made it. The kernel removes only a folder
# that holds it (engine/kernel.py names it too: the engine may not import the client).
OWNER_FILE = "workbench-owner"


def private_connection_file() -> tuple[Path, Path]:
    """A fresh runtime folder (0700) and an ipc connection file in it (0600) with a new key;
    the folders of clients that died without removing theirs go first."""
    remove_stale_runtime_dirs()
    runtime_dir = _new_private_dir()
    return runtime_dir, _write_connection_file(runtime_dir, "kernel-1")


def _new_private_dir() -> Path:
    runtime_dir = Path(tempfile.mkdtemp(prefix=RUNTIME_PREFIX))  # mode 0700
    os.chmod(runtime_dir, 0o700)
    atomic_write_text(runtime_dir / OWNER_FILE, _owner_text(), mode=0o600)
    return runtime_dir


def private_dir_again(runtime_dir: Path) -> Path:
    """``runtime_dir`` if it is still ours (0700, our uid), made again if it was removed (a
    /tmp cleaner); a new folder if someone else's now has its name."""
    try:
        os.mkdir(runtime_dir, 0o700)
    except FileExistsError:
        st = os.lstat(runtime_dir)
        if not (stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()
                and stat.S_IMODE(st.st_mode) & 0o077 == 0):
            return _new_private_dir()
    except OSError:
        return _new_private_dir()
    os.chmod(runtime_dir, 0o700)
    owner = runtime_dir / OWNER_FILE
    if not owner.exists():
        atomic_write_text(owner, _owner_text(), mode=0o600)
    return runtime_dir


def _owner_text() -> str:
    """Our pid and pid namespace: a pid means nothing to a process in another namespace (a
    container sharing /tmp), which must leave the folder alone."""
    return f"{os.getpid()} {_pid_namespace()}"


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""  # no /proc: one namespace as far as we can tell


def remove_stale_runtime_dirs(base: Path | None = None) -> list[Path]:
    """Remove the runtime folders (in ``base``, the temp folder by default) that a client of
    this user made and that outlived it: it was killed, and its kernel too. Those removed."""
    removed = []
    for folder in Path(base or tempfile.gettempdir()).glob(f"{RUNTIME_PREFIX}*"):
        try:
            st = os.lstat(folder)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            pid_text, _, namespace = (folder / OWNER_FILE).read_text().strip().partition(" ")
            owner = int(pid_text)
        except (OSError, ValueError):
            continue  # not one of ours, or being made right now
        if namespace != _pid_namespace():
            continue  # a client in another pid namespace: its pid cannot be checked from here
        if owner != os.getpid() and not _alive(owner):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process has that pid now
    return True


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
    log: KernelLog
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
        self.log: KernelLog | None = None
        self.fault_path: Path | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def log_file(self) -> IO[bytes] | None:
        """The file the kernel's fd 1 and 2 are drained into (``name`` is its path)."""
        return self.log.file if self.log is not None else None

    def launch(self) -> None:
        """Start the next incarnation (or adopt its standby), logging to a fresh file (the old
        one is removed)."""
        self.incarnation += 1
        if self.log is not None:
            self.log.close()
            old = self.log.path  # its fault text is read: bounded disk use
            for path in (old, Path(f"{old}.1")):
                with contextlib.suppress(OSError):
                    path.unlink()
        standby, self.standby = self.standby, None
        if standby is not None and standby.proc.poll() is None:
            started = standby
        else:
            if standby is not None:
                _discard(standby)
            self.runtime_dir = private_dir_again(self.runtime_dir)
            connection_file = self.connection_file
            if self.incarnation > 1 or not connection_file.exists():
                # A new key: a message signed for the kernel before is refused by this one.
                connection_file = _write_connection_file(self.runtime_dir,
                                                         f"kernel-{self.incarnation}")
            try:
                started = self._start(self.incarnation, connection_file, ())
            except BaseException:
                if connection_file != self.connection_file:
                    _remove_connection(connection_file)
                raise
        if started.connection_file != self.connection_file:
            _remove_connection(self.connection_file)  # the old kernel's key and sockets
        self.proc, self.log = started.proc, started.log
        self.fault_path, self.connection_file = started.fault_path, started.connection_file

    def start_standby(self) -> None:
        """Start the next incarnation now, beside the running one, on its own connection file.

        It touches no accelerator until it is adopted (``--standby``): the running kernel may
        still hold the device's memory.
        """
        if self.standby is not None or self.proc is None:
            return
        number = self.incarnation + 1
        self.runtime_dir = private_dir_again(self.runtime_dir)
        connection_file = _write_connection_file(self.runtime_dir, f"kernel-{number}")
        self.standby = self._start(number, connection_file, ("--standby",))

    def discard_standby(self) -> None:
        """The Stop worked: the standby is not needed."""
        standby, self.standby = self.standby, None
        if standby is not None:
            _discard(standby)

    def _start(self, number: int, connection_file: Path, extra: Sequence[str]) -> _Started:
        fault_path = self.runtime_dir / f"fault-{number}.txt"
        log = KernelLog(self.runtime_dir / f"kernel-{number}.log", self._count_rotation)
        cmd = [self.python, "-m", "workbench.engine.kernel", "-f", str(connection_file),
               "--fault-file", str(fault_path), "--memory-limit", self.memory_limit,
               "--runtime-dir", str(self.runtime_dir)]
        if self.output_limit is not None:
            cmd += ["--output-limit", str(self.output_limit)]
        cmd += [*extra, *self.kernel_args]
        try:
            proc = launch_kernel(cmd, stdout=log.write_fd, stderr=log.write_fd,
                                 env=engine_env(self.env))
        except BaseException:
            log.close()
            raise
        log.start()
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
        if self.log is not None:
            self.log.close()

    def _count_rotation(self) -> None:
        self.stats.log_rotations += 1

    def fault_text(self) -> str:
        """The engine's last words: its fault file, else the tail of its log."""
        text = ""
        if self.fault_path is not None:
            with contextlib.suppress(OSError):
                text = self.fault_path.read_text(errors="replace").strip()
        if not text and self.log is not None:  # its end holds the last words
            log = self.log.tail().decode(errors="replace").strip()
            return "\n".join(log.splitlines()[-30:])[-8000:]
        return text[:8000]  # the head holds the error and the crashing line


def _kill(proc: Any) -> None:
    """SIGKILL to the process group ``proc`` leads, and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            proc.wait(5)


def _remove_connection(connection_file: Path) -> None:
    """A connection file and the ipc sockets named after it (``kernel-2-<port>``)."""
    sockets = connection_file.parent.glob(f"{connection_file.stem}-*")
    for path in (connection_file, *sockets):
        with contextlib.suppress(OSError):
            path.unlink()


def _discard(started: _Started) -> None:
    """Kill a standby and remove what it left: log, fault file, connection file, sockets."""
    _kill(started.proc)
    started.log.close()
    sockets = started.connection_file.parent.glob(f"{started.connection_file.stem}-*")
    for path in (started.log.path, started.fault_path, started.connection_file,
                 *sockets):
        with contextlib.suppress(OSError):
            path.unlink()
