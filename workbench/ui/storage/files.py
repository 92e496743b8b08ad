"""Reading and writing source files without ever losing one, and the Recent files list.

Writes go through the app's one writer (``workbench.api.writer``): atomic, through a
temp file no one can plant, with the file's own permission bits, a link followed only
to the file the user opened through it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tokenize
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal

from workbench.api.limits import (
    MAX_SOURCE_BYTES,
    FileRefused,
    OpenedFile,
    read_opened_file,
    source_too_big,
)
from workbench.api.writer import (
    atomic_write_bytes,
    atomic_write_text,
    pid_alive,
    remove_stale_temps,
)

__all__ = [
    "DiskStamp", "FileReadError", "RecentFiles", "SourceText", "atomic_write_bytes",
    "atomic_write_text", "changed_on_disk", "pid_alive", "read_source", "remove_stale_temps",
    "write_source",
]

RECENT_LIMIT = 10


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
    real_path: Path | None = None
    """The file those bytes came from (links resolved when it was read)."""


def read_source(path: str | os.PathLike[str]) -> SourceText:
    """Read a Python source file, honouring a BOM or a PEP 263 coding line.

    Raises FileReadError for a missing or unreadable file, anything but a regular file (a
    FIFO would block forever, /dev/zero never ends), a file over `MAX_SOURCE_BYTES`, a
    binary file, or bytes that are not valid in the file's encoding (with the line of the
    first bad byte).
    """
    path = Path(path)
    opened = _read_regular_file(path, MAX_SOURCE_BYTES)
    data = opened.data
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
    return SourceText(text, encoding, newline, DiskStamp.of(data), Path(opened.real_path))


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
        return DiskStamp.of(_read_regular_file(Path(path), MAX_SOURCE_BYTES).data) != known
    except FileReadError:
        return True


def _read_regular_file(path: Path, limit: int) -> OpenedFile:
    """At most ``limit`` bytes of a regular file (symlinks followed), else FileReadError."""
    try:
        return read_opened_file(path, limit, lambda size: source_too_big(size, path.name),
                                name=path.name)
    except FileRefused as exc:
        if exc.reason in ("folder", "special"):
            raise FileReadError(f"{exc}: the editor opens files only") from None
        if exc.reason == "missing":
            raise FileReadError(f"cannot read {path}: there is no such file") from None
        raise FileReadError(str(exc)) from None


def write_source(
    path: str | os.PathLike[str], text: str, encoding: str = "utf-8", newline: str = "\n",
    *, follow: str | os.PathLike[str] | None = None,
) -> DiskStamp:
    """Write editor text atomically (``api.writer``), with the file's encoding and line
    ends; the bytes' stamp. ``follow``: the real file opened through ``path``."""
    if newline != "\n":
        text = text.replace("\n", newline)
    data = text.encode(encoding)
    atomic_write_bytes(path, data, follow=follow)
    return DiskStamp.of(data)


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
