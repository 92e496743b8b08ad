"""The kernel's own output (its fd 1 and 2): a pipe this client drains, bounded on disk.

What C extensions, XLA's logging and ``os.write(1, ...)`` write bypasses Python's
``sys.stdout`` and the request's output capture. The kernel used to write it straight to a
file that the client's 50 ms tick cut back past 4 MB; a C-level flood wrote hundreds of MB
between two ticks. Now the kernel writes into a pipe, and one thread of this process is
the only writer of the file: it rotates the log *before* a write would pass
``LOG_LIMIT`` (keeping the last ``LOG_KEEP`` bytes in ``kernel-N.log.1``), so the disk
never holds more than the two, however fast the kernel writes. A kernel that writes
faster than the thread drains waits in ``write()`` until it has: a flood is slowed,
and Stop (SIGINT) still interrupts it there.

The last ``LOG_KEEP`` bytes are also kept in memory: a dead kernel's last words, read by
``tail()`` after taking what is still in the pipe.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

LOG_LIMIT = 4 * 2**20  # bytes of kernel log on disk before it is rotated
LOG_KEEP = 256 * 2**10  # bytes of the old log kept in kernel-N.log.1 (and in memory)
_CHUNK = 2**16  # one read from the pipe
_READS_PER_TURN = 16  # reads before the lock is let go: tail() never waits behind a flood


class KernelLog:
    """A pipe for a kernel's stdout and stderr, drained into ``path`` and a tail in memory.

    Give ``write_fd`` to the process as its stdout and stderr, then call ``start``.
    """

    def __init__(self, path: Path, on_rotate: Callable[[], None] | None = None, *,
                 limit: int = LOG_LIMIT, keep: int = LOG_KEEP) -> None:
        self.path = path
        self.limit = limit
        self.keep = keep
        self._on_rotate = on_rotate
        self._read_fd, self.write_fd = os.pipe()  # neither end is inherited by other children
        os.set_blocking(self._read_fd, False)
        self._wake_read, self._wake_write = os.pipe()
        self.file: IO[bytes] = open(path, "wb", buffering=0)  # noqa: SIM115 - closed by close()
        self._size = 0
        self._disk = True  # False once the disk refused a write: the tail is still kept
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._closed = False
        self._eof = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """The process has its copy of the write end: drop ours and start draining."""
        with contextlib.suppress(OSError):
            os.close(self.write_fd)
        self._thread = threading.Thread(target=self._drain, daemon=True,
                                        name=f"workbench-{self.path.stem}-log")
        self._thread.start()

    def tail(self) -> bytes:
        """The last ``keep`` bytes written, what is still in the pipe included."""
        with self._lock:
            if not self._closed:
                self._read_some()
            return bytes(self._tail)

    def close(self) -> None:
        """Stop draining and close the pipe and the file (the files stay on disk)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")
        if self._thread is not None:
            self._thread.join(2)
        for fd in (self._read_fd, self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self._thread is None:  # never started: the write end is still ours
            with contextlib.suppress(OSError):
                os.close(self.write_fd)
        self.file.close()

    def _drain(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self._read_fd, self._wake_read], [], [])
            except (OSError, ValueError):
                return
            with self._lock:
                if self._closed or self._wake_read in ready:
                    return
                self._read_some()
                if self._eof:  # the process and everything it started have exited
                    return

    def _read_some(self) -> None:
        """Take what the pipe holds, up to a bound (the caller holds the lock)."""
        for _ in range(_READS_PER_TURN):
            try:
                data = os.read(self._read_fd, _CHUNK)
            except BlockingIOError:
                return
            except OSError:
                self._eof = True
                return
            if not data:
                self._eof = True
                return
            self._take(data)

    def _take(self, data: bytes) -> None:
        if self._disk:
            try:
                if self._size + len(data) > self.limit:
                    self._rotate()
                view = memoryview(data)[-self.limit:]
                while view:
                    written = self.file.write(view)
                    if not written:
                        raise OSError("the log file took nothing")
                    self._size += written
                    view = view[written:]
            except OSError:
                self._disk = False  # a full disk is no reason to stop the engine
        self._tail += data
        if len(self._tail) > self.keep:
            del self._tail[:-self.keep]

    def _rotate(self) -> None:
        """Keep the last ``keep`` bytes in ``NAME.1``, then start the log afresh."""
        Path(f"{self.path}.1").write_bytes(self._tail)
        self.file.truncate(0)
        self.file.seek(0)
        self._size = 0
        if self._on_rotate is not None:
            self._on_rotate()
