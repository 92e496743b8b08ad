"""Autosave and crash recovery: no keystroke is lost, untitled buffers included.

Layout of the autosave folder (one sub-folder per running window process):

    <root>/session-<pid>-<random>/lock.json       {"pid", "started", "proc_start", "host"}
    <root>/session-<pid>-<random>/buffer-<hash>.json   {"buffer_id", "path", "text", "saved_at"}

Each change is written (atomically) 500 ms after typing pauses and at most 1.5 s after
the first unsaved change, so continuous typing still reaches the disk within 2 s. A
normal close calls `mark_clean_exit()`, which deletes the session folder. A folder whose
lock names a process that is no longer alive was left by a crash or a SIGKILL: its
buffers are what `pending_recovery()` offers back on the next start; they stay on disk
until restored or discarded by the user.

Unsaved text is private: folders are 0700 and files 0600. When the folder cannot be made
(a read-only data folder, a full disk) the window still starts, with autosave off and
`off_reason` saying why. Temp files of writes killed half-way are removed at start.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal
from PySide6.QtGui import QTextDocument

from workbench.ui.storage.files import (
    FileReadError,
    atomic_write_bytes,
    pid_alive,
    read_source,
    remove_stale_temps,
)

FORMAT = 1
DEBOUNCE_MS = 500
MAX_WAIT_MS = 1500
LOCK_NAME = "lock.json"
FOLDER_MODE = 0o700
FILE_MODE = 0o600

__all__ = ["Autosave", "RecoveredBuffer", "default_folder", "pid_alive"]


def default_folder() -> Path:
    """`<user data>/workbench/autosave`, whatever name the QApplication was given."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return Path(base or Path.home() / ".local" / "share") / "workbench" / "autosave"


@dataclass(frozen=True)
class RecoveredBuffer:
    """A buffer left behind by a session that did not exit cleanly."""

    buffer_id: str
    path: str | None  # None: the buffer was untitled
    text: str
    saved_at: float  # seconds since the epoch
    source: str  # the autosave file holding it


@dataclass
class _Buffer:
    path: str | None
    text: str | None = None
    document: QTextDocument | None = None
    dirty: bool = False
    written: tuple[str | None, str] | None = None  # (path, text) last on disk
    slot: Callable[[], None] | None = None  # connected to document.contentsChanged


def _proc_start(pid: int) -> int | None:
    """Linux: the process start time (clock ticks since boot), to notice a reused PID."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat[stat.rfind(")") + 2 :].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _owner_alive(lock: dict) -> bool:
    pid = lock.get("pid")
    if not isinstance(pid, int) or not pid_alive(pid):
        return False
    started = lock.get("proc_start")
    return started is None or _proc_start(pid) in (None, started)


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class Autosave(QObject):
    """Saves every buffer of this window process and finds those a crashed one left."""

    sig_saved = Signal(str)
    """A buffer's latest text reached the disk (its buffer id)."""

    sig_error = Signal(str)
    """An autosave write failed (a one-line message); the buffer is retried on the next change."""

    def __init__(
        self,
        folder: str | os.PathLike[str] | None = None,
        parent: QObject | None = None,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        max_wait_ms: int = MAX_WAIT_MS,
    ) -> None:
        super().__init__(parent)
        self._root = Path(folder) if folder is not None else default_folder()
        name = f"session-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._session = self._root / name
        self._buffers: dict[str, _Buffer] = {}
        self._closed = False
        self.off_reason: str | None = None
        """Why autosave is off (the folder could not be made or written), else None."""
        self._remove_stale_temps()
        try:
            self._create_session(name)
        except OSError as exc:
            self.off_reason = (f"autosave is off: cannot write to {self._root} "
                               f"({exc.strerror or exc}); save with Ctrl+S to keep your work")
            self._closed = True
        self._debounce = QTimer(self, singleShot=True, interval=debounce_ms)
        self._max_wait = QTimer(self, singleShot=True, interval=max_wait_ms)
        self._debounce.timeout.connect(self._on_timer)
        self._max_wait.timeout.connect(self._on_timer)

    def _create_session(self, name: str) -> None:
        self._root.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
        with contextlib.suppress(OSError):  # made by an older version, or not ours to change
            if self._root.stat().st_mode & 0o077:
                os.chmod(self._root, FOLDER_MODE)
        # Built under another name and renamed, so no one ever sees a session without its lock.
        staging = self._root / f".new-{name}"
        staging.mkdir(mode=FOLDER_MODE)
        try:
            lock = {
                "format": FORMAT,
                "pid": os.getpid(),
                "proc_start": _proc_start(os.getpid()),
                "started": time.time(),
                "host": socket.gethostname(),
            }
            atomic_write_bytes(staging / LOCK_NAME, json.dumps(lock).encode(), mode=FILE_MODE)
            os.replace(staging, self._session)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def _remove_stale_temps(self) -> None:
        """Temp files of writes killed half-way, in the root and in every session folder."""
        remove_stale_temps(self._root)
        with contextlib.suppress(OSError):
            for folder in self._root.glob("session-*"):
                remove_stale_temps(folder)

    @property
    def folder(self) -> Path:
        """This session's own folder."""
        return self._session

    @property
    def root(self) -> Path:
        """The folder every session's folder is in."""
        return self._root

    @property
    def enabled(self) -> bool:
        """False when autosave is off (see ``off_reason``) or this session has ended."""
        return not self._closed

    # ------------------------------------------------------------ this session
    def update(self, buffer_id: str, text: str, path: str | os.PathLike[str] | None = None) -> None:
        """Record a buffer's new text (and file path, None when untitled); saved soon."""
        buffer = self._buffers.setdefault(buffer_id, _Buffer(path=None))
        buffer.text, buffer.document = text, None
        buffer.path = os.fspath(path) if path else None
        self._mark_dirty(buffer)

    def track(
        self, buffer_id: str, document: QTextDocument, path: str | os.PathLike[str] | None = None
    ) -> None:
        """Follow a document: every change is saved soon, reading its text only when saving."""
        self.forget(buffer_id, keep_file=True)
        buffer = _Buffer(path=os.fspath(path) if path else None, document=document)
        self._buffers[buffer_id] = buffer
        buffer.slot = lambda: self._mark_dirty(buffer)
        document.contentsChanged.connect(buffer.slot)
        self._mark_dirty(buffer)

    def set_path(self, buffer_id: str, path: str | os.PathLike[str] | None) -> None:
        """The buffer was saved under a (new) name."""
        buffer = self._buffers.get(buffer_id)
        if buffer is not None:
            buffer.path = os.fspath(path) if path else None
            self._mark_dirty(buffer)

    def forget(self, buffer_id: str, *, keep_file: bool = False) -> None:
        """The buffer was closed: stop following it and delete its autosave copy."""
        buffer = self._buffers.pop(buffer_id, None)
        if buffer is not None and buffer.document is not None and buffer.slot is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                buffer.document.contentsChanged.disconnect(buffer.slot)
        if not keep_file:
            with contextlib.suppress(OSError):
                (self._session / self._file_name(buffer_id)).unlink()

    def flush(self) -> None:
        """Write every changed buffer now."""
        self._debounce.stop()
        self._max_wait.stop()
        for buffer_id, buffer in list(self._buffers.items()):
            if buffer.dirty:
                self._write(buffer_id, buffer)

    def saved_text(self, buffer_id: str) -> str | None:
        """The text of this buffer as last written to the autosave folder."""
        data = _read_json(self._session / self._file_name(buffer_id))
        return data.get("text") if data else None

    def mark_clean_exit(self) -> None:
        """Normal close: every buffer was saved or deliberately discarded; nothing to recover."""
        self._debounce.stop()
        self._max_wait.stop()
        for buffer_id in list(self._buffers):
            self.forget(buffer_id, keep_file=True)
        if self.off_reason is None:
            shutil.rmtree(self._session, ignore_errors=True)
        self._closed = True

    # ------------------------------------------------------- earlier sessions
    def pending_recovery(self) -> list[RecoveredBuffer]:
        """Buffers left by sessions whose process died, newest first.

        Buffers whose text equals their file on disk hold nothing to recover and are
        deleted on the way; so are empty folders of dead sessions. Every other buffer
        stays on disk until `adopt` or `discard`.
        """
        try:
            return self._pending_recovery()
        except OSError:  # the folder cannot be read: nothing to offer
            return []

    def _pending_recovery(self) -> list[RecoveredBuffer]:
        found: list[RecoveredBuffer] = []
        for staging in self._root.glob(".new-session-*"):  # a crash while starting up
            pid = staging.name.split("-")[2]
            if pid.isdigit() and not pid_alive(int(pid)):
                shutil.rmtree(staging, ignore_errors=True)
        for folder in sorted(self._root.glob("session-*")):
            if folder == self._session or not folder.is_dir():
                continue
            lock = _read_json(folder / LOCK_NAME)
            if lock is not None and _owner_alive(lock):
                continue
            for file in sorted(folder.glob("buffer-*.json")):
                item = self._load(file)
                if item is None:
                    continue
                if item.path is not None and _same_as_disk(item.path, item.text):
                    self.discard(item)
                    continue
                found.append(item)
            self._remove_if_empty(folder)
        found.sort(key=lambda item: item.saved_at, reverse=True)
        return found

    def discard(self, item: RecoveredBuffer) -> None:
        """Forget a recovered buffer for good (the user declined it, or it was restored)."""
        source = Path(item.source)
        with contextlib.suppress(OSError):
            source.unlink()
        self._remove_if_empty(source.parent)

    def adopt(self, item: RecoveredBuffer, buffer_id: str) -> str:
        """Restore a recovered buffer as `buffer_id` of this session, on disk before the old
        copy is deleted; returns its text for the editor."""
        self.update(buffer_id, item.text, item.path)
        self.flush()
        if self.saved_text(buffer_id) == item.text:
            self.discard(item)
        return item.text

    # ---------------------------------------------------------------- helpers
    def _mark_dirty(self, buffer: _Buffer) -> None:
        if self._closed:
            return
        buffer.dirty = True
        self._debounce.start()
        if not self._max_wait.isActive():
            self._max_wait.start()

    def _on_timer(self) -> None:
        self.flush()

    def _write(self, buffer_id: str, buffer: _Buffer) -> None:
        text = buffer.document.toPlainText() if buffer.document is not None else buffer.text
        text = text or ""
        if buffer.written == (buffer.path, text):
            buffer.dirty = False
            return
        record = {
            "format": FORMAT,
            "buffer_id": buffer_id,
            "path": buffer.path,
            "text": text,
            "saved_at": time.time(),
        }
        try:
            self._session.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
            data = json.dumps(record, ensure_ascii=False).encode("utf-8")
            atomic_write_bytes(self._session / self._file_name(buffer_id), data, mode=FILE_MODE)
        except OSError as exc:
            self.sig_error.emit(f"autosave of {buffer.path or buffer_id} failed: {exc}")
            return
        buffer.written = (buffer.path, text)
        buffer.dirty = False
        self.sig_saved.emit(buffer_id)

    @staticmethod
    def _file_name(buffer_id: str) -> str:
        return f"buffer-{hashlib.sha1(buffer_id.encode()).hexdigest()[:16]}.json"

    @staticmethod
    def _load(file: Path) -> RecoveredBuffer | None:
        data = _read_json(file)
        if not data or data.get("format") != FORMAT or not isinstance(data.get("text"), str):
            return None
        path = data.get("path")
        return RecoveredBuffer(
            buffer_id=str(data.get("buffer_id", file.stem)),
            path=path if isinstance(path, str) and path else None,
            text=data["text"],
            saved_at=float(data.get("saved_at", file.stat().st_mtime)),
            source=str(file),
        )

    @staticmethod
    def _remove_if_empty(folder: Path) -> None:
        if not any(folder.glob("buffer-*.json")):
            shutil.rmtree(folder, ignore_errors=True)


def _same_as_disk(path: str, text: str) -> bool:
    try:
        return read_source(path).text == text
    except FileReadError:  # unreadable or gone: the autosave copy is what is left
        return False
