"""Reading and writing source files without ever losing one, and the Recent files list.

Writes are atomic: the text goes to a temporary file in the same folder, is flushed to
the disk (fsync), then renamed over the target with `os.replace`. A crash, a full disk
or a killed process leaves either the old file or the new one, never half of each. The
temporary file of a killed write stays behind; its name says who wrote it
(`.<name>.wb-<host>-<pid>-<random>.tmp`), so `remove_stale_temps` can remove it later.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import secrets
import socket
import stat
import sys
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal

from workbench.api.limits import (
    MAX_SOURCE_BYTES,
    FileRefused,
    read_regular_file,
    source_too_big,
)

RECENT_LIMIT = 10
STALE_TEMP_AGE_S = 24 * 3600  # a temp file this old is a killed write, whoever wrote it
_HOST = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:6]
_TEMP_NAME = re.compile(r"\..+\.wb-(?P<host>[0-9a-f]{6})-(?P<pid>\d+)-[0-9a-f]{8}\.tmp")


class FileReadError(Exception):
    """A file could not be opened as text; the message says why in one line."""


@dataclass(frozen=True)
class DiskStamp:
    """The bytes of a file as this window read or wrote them (their size and SHA-256): to
    tell, before writing it again, whether someone else wrote it since."""

    size: int
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> DiskStamp:
        return cls(len(data), hashlib.sha256(data).hexdigest())


@dataclass(frozen=True)
class SourceText:
    """A file's text with '\\n' line ends, plus what is needed to write it back the same way."""

    text: str
    encoding: str = "utf-8"
    newline: str = "\n"
    stamp: DiskStamp | None = None
    """The bytes the text was read from."""


def read_source(path: str | os.PathLike[str]) -> SourceText:
    """Read a Python source file, honouring a BOM or a PEP 263 coding line.

    Raises FileReadError for a missing or unreadable file, anything but a regular file (a
    FIFO would block forever, /dev/zero never ends), a file over `MAX_SOURCE_BYTES`, a
    binary file, or bytes that are not valid in the file's encoding (with the line of the
    first bad byte).
    """
    path = Path(path)
    data = _read_regular_file(path, MAX_SOURCE_BYTES)
    if b"\0" in data[:8192]:
        raise FileReadError(f"{path.name} looks like a binary file, not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise FileReadError(f"{path.name}: {exc.msg}") from exc
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FileReadError(
            f"{path.name} is not valid {encoding} text "
            f"(byte 0x{data[exc.start]:02x} on line {line}); save it as UTF-8 and open it again"
        ) from exc
    except LookupError as exc:
        raise FileReadError(f"{path.name} declares an unknown encoding {encoding!r}") from exc
    if encoding == "utf-8-sig":
        text = text.removeprefix("\ufeff")
    newline = "\r\n" if "\r\n" in text else ("\r" if "\r" in text else "\n")
    if newline != "\n":
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return SourceText(text, encoding, newline, DiskStamp.of(data))


def changed_on_disk(path: str | os.PathLike[str], known: DiskStamp | None) -> bool:
    """Does ``path`` hold other bytes than ``known`` (None: there was no file)? A file that is
    gone has nothing to lose: False. Its bytes are compared, not its time: a file touched,
    or saved with the same text, has not changed."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return False
    except OSError:
        return True  # there, but not ours to read: do not write over it unasked
    if known is None or size != known.size:
        return True
    try:
        return DiskStamp.of(_read_regular_file(Path(path), MAX_SOURCE_BYTES)) != known
    except FileReadError:
        return True


def _read_regular_file(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file (symlinks followed), else FileReadError."""
    try:
        return read_regular_file(path, limit, lambda size: source_too_big(size, path.name),
                                 name=path.name)
    except FileRefused as exc:
        if exc.reason in ("folder", "special"):
            raise FileReadError(f"{exc}: the editor opens files only") from None
        if exc.reason == "missing":
            raise FileReadError(f"cannot read {path}: there is no such file") from None
        raise FileReadError(str(exc)) from None


def write_source(
    path: str | os.PathLike[str], text: str, encoding: str = "utf-8", newline: str = "\n"
) -> DiskStamp:
    """Write editor text atomically, with the file's encoding and line ends; the bytes'
    stamp."""
    if newline != "\n":
        text = text.replace("\n", newline)
    data = text.encode(encoding)
    atomic_write_bytes(path, data)
    return DiskStamp.of(data)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write text atomically (no newline translation)."""
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> None:
    """Replace `path` by `data` all at once: temp file in the same folder, fsync, os.replace.

    A symlink is followed (the link stays, its target changes). `mode` sets the file's
    permission bits from its first byte on (0o600: private); without it an existing file
    keeps its bits and a new one gets 0o666 less the umask. On any failure the target is
    untouched and the temp file removed.
    """
    target = Path(os.path.realpath(path))
    folder = target.parent
    fd, tmp = _create_temp(target, 0o666 if mode is None else mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), mode)  # exactly `mode`, whatever the umask
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            with contextlib.suppress(FileNotFoundError):
                os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def _create_temp(target: Path, mode: int = 0o666) -> tuple[int, str]:
    """A new temp file beside the target (``mode`` less the umask), named after its writer."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
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


class RecentFiles(QObject):
    """Most recently opened files, newest first, at most 10, kept in QSettings.

    Stored as one JSON string: QSettings' own lists come back as a bare string when they
    hold a single item in an ini file.
    """

    sig_changed = Signal()
    """The list changed (a menu should rebuild)."""

    def __init__(
        self,
        settings: QSettings,
        key: str = "files/recent",
        limit: int = RECENT_LIMIT,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._settings = settings
        self._key = key
        self._limit = limit

    def paths(self) -> list[str]:
        """The list, dropping files that no longer exist."""
        stored = self._load()
        present = [p for p in stored if Path(p).is_file()]
        if present != stored:
            self._store(present)
        return present

    def add(self, path: str | os.PathLike[str]) -> None:
        """Put a file first (moving it up when already listed)."""
        entry = str(Path(path).resolve())
        items = [entry] + [p for p in self._load() if p != entry]
        self._store(items[: self._limit])
        self.sig_changed.emit()

    def remove(self, path: str | os.PathLike[str]) -> None:
        entry = str(Path(path).resolve())
        items = self._load()
        if entry in items:
            self._store([p for p in items if p != entry])
            self.sig_changed.emit()

    def clear(self) -> None:
        self._store([])
        self.sig_changed.emit()

    def _load(self) -> list[str]:
        raw = self._settings.value(self._key, "")
        try:
            items = json.loads(raw) if isinstance(raw, str) and raw else []
        except json.JSONDecodeError:
            return []
        return [p for p in items if isinstance(p, str)] if isinstance(items, list) else []

    def _store(self, items: list[str]) -> None:
        self._settings.setValue(self._key, json.dumps(items))
