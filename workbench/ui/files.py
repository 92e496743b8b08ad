"""Reading and writing source files without ever losing one, and the Recent files list.

Writes are atomic: the text goes to a temporary file in the same folder, is flushed to
the disk (fsync), then renamed over the target with `os.replace`. A crash, a full disk
or a killed process leaves either the old file or the new one, never half of each.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import secrets
import stat
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal

MAX_BYTES = 10 * 1024 * 1024  # a teaching editor has no business opening bigger files
RECENT_LIMIT = 10


class FileReadError(Exception):
    """A file could not be opened as text; the message says why in one line."""


@dataclass(frozen=True)
class SourceText:
    """A file's text with '\\n' line ends, plus what is needed to write it back the same way."""

    text: str
    encoding: str = "utf-8"
    newline: str = "\n"


def read_source(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> SourceText:
    """Read a Python source file, honouring a BOM or a PEP 263 coding line.

    Raises FileReadError for a missing or unreadable file, a binary file, or bytes that
    are not valid in the file's encoding (with the line of the first bad byte).
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise FileReadError(
                f"{path.name} is {size / 1e6:.1f} MB; "
                f"the editor opens files up to {max_bytes / 1e6:.0f} MB"
            )
        data = path.read_bytes()
    except FileReadError:
        raise
    except OSError as exc:
        raise FileReadError(f"cannot read {path}: {exc.strerror or exc}") from exc
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
    return SourceText(text, encoding, newline)


def write_source(
    path: str | os.PathLike[str], text: str, encoding: str = "utf-8", newline: str = "\n"
) -> None:
    """Write editor text atomically, with the file's encoding and line ends."""
    if newline != "\n":
        text = text.replace("\n", newline)
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write text atomically (no newline translation)."""
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace `path` by `data` all at once: temp file in the same folder, fsync, os.replace.

    A symlink is followed (the link stays, its target changes); an existing file keeps
    its permission bits. On any failure the target is untouched and the temp file removed.
    """
    target = Path(os.path.realpath(path))
    folder = target.parent
    fd, tmp = _create_temp(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def _create_temp(target: Path) -> tuple[int, str]:
    """A new temp file beside the target, mode 0o666 less the umask like any new file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = str(target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target}")


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
