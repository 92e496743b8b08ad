"""Typed access to the few things the window remembers between runs (QSettings underneath).

Values read back from an ini file are strings ("true", "1.25"), so every getter converts
and falls back to its default on garbage rather than trusting the stored type.
"""

from __future__ import annotations

import hashlib
import os
import stat

from PySide6.QtCore import QByteArray, QSettings

from workbench.ui.style.theme import PREFERENCES, SYSTEM

ORGANIZATION = "workbench"
APPLICATION = "workbench"


class Settings:
    """Window geometry, dock layout, live mode, theme, last file, zoom.

    `Settings()` uses the user's settings; `Settings(path)` an ini file (tests, portable use).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        if path is None:
            self.qsettings = QSettings(ORGANIZATION, APPLICATION)
        else:
            self.qsettings = QSettings(str(path), QSettings.Format.IniFormat)

    # geometry and dock layout are opaque blobs from saveGeometry()/saveState()
    @property
    def geometry(self) -> QByteArray | None:
        return self._bytes("window/geometry")

    @geometry.setter
    def geometry(self, value: QByteArray | bytes) -> None:
        self.qsettings.setValue("window/geometry", QByteArray(value))

    @property
    def dock_state(self) -> QByteArray | None:
        return self._bytes("window/dockState")

    @dock_state.setter
    def dock_state(self, value: QByteArray | bytes) -> None:
        self.qsettings.setValue("window/dockState", QByteArray(value))

    @property
    def live_mode(self) -> bool:
        """Re-trace as the user types (on unless turned off)."""
        value = self.qsettings.value("engine/liveMode", True)
        if isinstance(value, str):
            return value.strip().lower() not in ("false", "0", "no", "off")
        return bool(value)

    @live_mode.setter
    def live_mode(self, value: bool) -> None:
        self.qsettings.setValue("engine/liveMode", bool(value))

    @property
    def theme(self) -> str:
        """ "system", "light" or "dark"."""
        value = self.qsettings.value("appearance/theme", SYSTEM)
        return value if value in PREFERENCES else SYSTEM

    @theme.setter
    def theme(self, value: str) -> None:
        if value not in PREFERENCES:
            raise ValueError(f"theme must be one of {', '.join(PREFERENCES)}, not {value!r}")
        self.qsettings.setValue("appearance/theme", value)

    @property
    def last_file(self) -> str | None:
        value = self.qsettings.value("files/lastFile", "")
        return value if isinstance(value, str) and value else None

    @last_file.setter
    def last_file(self, value: str | os.PathLike[str] | None) -> None:
        self.qsettings.setValue("files/lastFile", os.fspath(value) if value else "")

    @property
    def zoom(self) -> float:
        """Presentation zoom factor (1.0 is normal)."""
        raw = self.qsettings.value("appearance/zoom", 1.0)
        if not isinstance(raw, str | int | float):
            return 1.0
        try:
            value = float(raw)
        except ValueError:
            return 1.0
        return value if 0.1 <= value <= 10 else 1.0

    @zoom.setter
    def zoom(self, value: float) -> None:
        self.qsettings.setValue("appearance/zoom", float(value))

    @property
    def trusted_lessons(self) -> tuple[str, ...]:
        """Content keys (``sha256:...``) of lessons from outside the bundled ones whose code
        may run: the window asked once and the user said yes to exactly that content."""
        value = self.qsettings.value("lessons/trusted", [])
        if isinstance(value, str):
            value = [value] if value else []
        if not isinstance(value, list):
            return ()
        return tuple(str(v) for v in value if isinstance(v, str) and v)

    def trust_lesson(self, path: str | os.PathLike[str]) -> None:
        """Remember that the lesson now at ``path`` may run its code without asking (the
        file's bytes as they are now: for a lesson being shown, ``trust_content`` of the
        bytes that were read)."""
        key = content_key(path)
        if key is not None:
            self.trust_content(key)

    def trust_content(self, key: str) -> None:
        """Remember that a lesson with exactly these bytes (``sha256:HEX``, see
        ``lessons.formats.content_key``) may run its code without asking.

        Trust belongs to the content, as Jupyter's notebook trust does (it signs it): other
        text saved under a trusted name asks again."""
        trusted = self.trusted_lessons
        if key.startswith("sha256:") and key not in trusted:
            self.qsettings.setValue("lessons/trusted", [*trusted, key])

    def is_trusted_lesson(self, path: str | os.PathLike[str]) -> bool:
        """Whether the lesson now at ``path`` is one the user said yes to, byte for byte."""
        key = content_key(path)
        return key is not None and self.is_trusted_content(key)

    def is_trusted_content(self, key: str) -> bool:
        """Whether the user said yes to a lesson with exactly these bytes."""
        return bool(key) and key in self.trusted_lessons

    def sync(self) -> None:
        """Write pending changes now (Qt also writes them on exit)."""
        self.qsettings.sync()

    def _bytes(self, key: str) -> QByteArray | None:
        value = self.qsettings.value(key)
        if isinstance(value, QByteArray) and not value.isEmpty():
            return value
        if isinstance(value, bytes | bytearray) and value:
            return QByteArray(bytes(value))
        return None


MAX_TRUSTED_BYTES = 20_000_000  # a lesson's own limit: larger ones are never read


def content_key(path: str | os.PathLike[str]) -> str | None:
    """``sha256:HEX`` of a regular file's bytes; None for anything else (a FIFO, a device,
    a folder, a file too large or gone), which is then never trusted."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_TRUSTED_BYTES:
            return None
        with open(path, "rb") as fh:
            data = fh.read(MAX_TRUSTED_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_TRUSTED_BYTES:
        return None
    return "sha256:" + hashlib.sha256(data).hexdigest()
