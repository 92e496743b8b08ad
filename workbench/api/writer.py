"""The one writer of every file the workbench writes: editor buffers, lessons, autosaves,
lesson edits, timing exports, the CLI's figures and kernel specs.

A write never leaves half a file and never writes where nobody meant it to:

* the bytes go to a new temp file beside the target, created with ``O_EXCL`` (a file or
  a link planted under that name is never opened) under a name no one can guess
  (``.<name>.wb-<host>-<pid>-<random>.tmp``, so ``remove_stale_temps`` can tell a killed
  write's leftover), with the final permission bits from the start (a 0600 file's copy
  is never readable by others, not even for a moment);
* it is flushed to the disk (fsync), renamed over the target with ``os.replace`` and the
  folder synced: a crash, a full disk or a killed process leaves the old file or the
  new one, never a mix; on any failure the temp file is removed and the target is
  untouched;
* a symlink at the target is followed only to the file the user opened through it
  (``follow``): a link planted there since, or re-pointed elsewhere, is replaced by the
  new file and its target is never written.

This is the writing half of ``api.limits`` (the one reader); no Qt, no jax.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import socket
import stat
import sys
import time
from pathlib import Path

STALE_TEMP_AGE_S = 24 * 3600  # a temp file this old is a killed write, whoever wrote it
NEW_FILE_MODE = 0o666  # less the umask, as open() gives a new file
_HOST = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:6]
_TEMP_NAME = re.compile(r"\..+\.wb-(?P<host>[0-9a-f]{6})-(?P<pid>\d+)-[0-9a-f]{8}\.tmp")


def real_path(path: str | os.PathLike[str]) -> Path:
    """The file ``path`` leads to now, links resolved: what a caller passes as ``follow``
    for a file the user opened (or picked in a dialog) through that path."""
    return Path(os.path.realpath(path))


def write_destination(path: str | os.PathLike[str],
                      follow: str | os.PathLike[str] | None) -> Path:
    """Where a write to ``path`` lands: the link's target when ``path`` is a link that still
    leads to ``follow`` (the file the user opened), else ``path`` itself (a link there is
    replaced, never written through)."""
    given = Path(os.path.abspath(path))
    if follow is None:
        return Path(os.path.realpath(given.parent)) / given.name
    now = Path(os.path.realpath(given))
    # ``follow`` was resolved when the file was opened: compared as it is, not resolved
    # again (a link planted at it since would resolve to wherever it points).
    return now if now == Path(os.path.abspath(follow)) else \
        Path(os.path.realpath(given.parent)) / given.name


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, mode: int | None = None,
                       *, follow: str | os.PathLike[str] | None = None) -> Path:
    """Replace the file at ``path`` by ``data`` all at once; the path written.

    ``follow``: the real file the user opened through ``path`` (``real_path`` at open):
    a link at ``path`` that still leads there is followed (the link stays, its target
    gets the bytes); any other link is replaced. ``mode``: the file's permission bits
    (0o600: private); without it an existing file keeps its bits and a new one gets
    0o666 less the umask.
    """
    target = write_destination(path, follow)
    folder = target.parent
    final = mode if mode is not None else _kept_mode(target)
    try:
        fd, tmp = _create_temp(target, NEW_FILE_MODE if final is None else final)
    except OSError as exc:  # named after the file asked for, never the temp file
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            if final is not None and hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), final)  # exactly these bits, whatever the umask
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)
    return target


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8",
                      mode: int | None = None, *,
                      follow: str | os.PathLike[str] | None = None) -> Path:
    """``atomic_write_bytes`` of ``text`` (no newline translation)."""
    return atomic_write_bytes(path, text.encode(encoding), mode, follow=follow)


def _kept_mode(target: Path) -> int | None:
    """The permission bits of the regular file at ``target`` (never a link's target:
    ``target`` is already resolved); None when there is none (a new file's bits)."""
    try:
        info = os.lstat(target)
    except OSError:
        return None
    return stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else None


def _create_temp(target: Path, mode: int) -> tuple[int, str]:
    """A new temp file beside the target, created with ``mode`` (less the umask) and
    ``O_EXCL``, named after its writer."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
             | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    for _ in range(100):
        name = f".{target.name}.wb-{_HOST}-{os.getpid()}-{secrets.token_hex(4)}.tmp"
        try:
            return os.open(target.parent / name, flags, mode), str(target.parent / name)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target}")


def remove_stale_temps(folder: str | os.PathLike[str]) -> int:
    """Delete the temp files that killed writes left in ``folder``; returns how many.

    Only names `_create_temp` makes are touched, and only when their writer is gone: a
    process of this host that is no longer running, or a file older than a day (a
    writer on another host, or a process id used again since).
    """
    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        match = _TEMP_NAME.fullmatch(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                continue
            dead = match["host"] == _HOST and not pid_alive(int(match["pid"]))
            if dead or now - info.st_mtime > STALE_TEMP_AGE_S:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed


def pid_alive(pid: int) -> bool:
    """Is a process with this id running (zombies count as dead)?"""
    if pid <= 0:
        return False
    if sys.platform == "win32":  # os.kill(pid, 0) would terminate the process there
        import ctypes

        kernel32 = ctypes.windll.kernel32
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return kernel32.GetLastError() == 5  # access denied: it exists
        code = ctypes.c_ulong()
        kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        kernel32.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        line = Path(f"/proc/{pid}/stat").read_text()
        return line[line.rfind(")") + 2] not in "ZX"
    except (OSError, IndexError):
        return True


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); Windows has no directory handles to sync."""
    if sys.platform == "win32":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
