"""The teacher's unsaved edits of a lesson's steps, kept on disk until Save lesson or Discard.

The editor's autosave keeps the one buffer in the editor; a lesson holds the edits
of many steps in memory. This keeps all of them beside the autosave sessions, one
small JSON file per lesson (named by a hash of its resolved path), written a moment
after each change and removed when no edit is left. A lesson opened after a crash
finds its edits there and takes them back.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from workbench.ui.storage.files import atomic_write_text

SAVE_DELAY_MS = 800
FOLDER = "lesson-edits"


def _key(path: Path) -> str:
    try:
        resolved = str(path.resolve())
    except OSError:
        resolved = str(path)
    return hashlib.sha256(resolved.encode("utf-8")).hexdigest()[:24]


class LessonEdits(QObject):
    """Edits per step of one lesson at a time, mirrored in ``root/lesson-edits``."""

    def __init__(self, root: Path | None, parent: QObject | None = None):
        super().__init__(parent)
        self.folder = root / FOLDER if root is not None else None
        self.error: str | None = None
        """Why the last write failed (None when it did not); the edits stay in memory."""
        self._lesson: Path | None = None
        self._codes: dict[int, str] = {}
        self._timer = QTimer(self, singleShot=True, interval=SAVE_DELAY_MS)
        self._timer.timeout.connect(self.flush)

    def file_for(self, lesson: Path) -> Path | None:
        return self.folder / f"{_key(lesson)}.json" if self.folder is not None else None

    def load(self, lesson: Path) -> dict[int, str]:
        """The edits a previous session left for ``lesson`` (none when unreadable)."""
        self.flush()
        self._lesson, self._codes = lesson, {}
        file = self.file_for(lesson)
        if file is None:
            return {}
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            codes = {int(n): str(code) for n, code in data["codes"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}
        self._codes = codes
        return dict(codes)

    def update(self, codes: dict[int, str]) -> None:
        """The lesson's edits now; written after a short pause."""
        if codes != self._codes:
            self._codes = dict(codes)
            self._timer.start()

    def flush(self) -> None:
        """Write (or, with no edit left, remove) the file now."""
        self._timer.stop()
        file = self.file_for(self._lesson) if self._lesson is not None else None
        if file is None or self._lesson is None:
            return
        try:
            if not self._codes:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(file)
                return
            file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write_text(file, json.dumps({"lesson": str(self._lesson),
                                                "codes": self._codes}))
            self.error = None
        except OSError as exc:
            self.error = f"unsaved lesson edits could not be kept on disk: {exc.strerror or exc}"

    def forget(self) -> None:
        """The edits were saved or discarded: nothing to keep for this lesson."""
        self._codes = {}
        self.flush()
        self._lesson = None
