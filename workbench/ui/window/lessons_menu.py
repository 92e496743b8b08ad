"""Help > Lessons: the bundled lessons by title, read when the menu is shown.

A lesson that cannot be read is listed, disabled, with why, instead of breaking
the menu; titles are kept until the file changes.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu

from workbench.lessons import bundled as bundled_lessons_module
from workbench.lessons import read_lesson


class LessonsMenu(QObject):
    """Fills ``menu`` with the bundled lessons; choosing one emits its path."""

    sig_open = Signal(object)
    """Open this bundled lesson (a ``Path``)."""

    def __init__(self, menu: QMenu, parent: QObject | None = None):
        super().__init__(parent)
        self.menu = menu
        menu.setObjectName("lessonsMenu")
        menu.aboutToShow.connect(self.fill)
        self._titles: dict[tuple[str, int, int], str] = {}

    def fill(self) -> None:
        self.menu.clear()
        paths = bundled_lessons_module.bundled_lessons(bundled_lessons_module.LESSONS_DIR)
        if not paths:
            action = self.menu.addAction("no lessons found")
            action.setObjectName("lessonsNone")
            action.setEnabled(False)
            return
        for path in paths:
            title, problem = self._title(path)
            action = self.menu.addAction(title if not problem else f"{path.name} (cannot be read)")
            action.setObjectName(f"lesson_{path.stem}")
            if problem:
                action.setEnabled(False)
                action.setToolTip(problem)
                action.setStatusTip(problem)
            else:
                action.setToolTip(str(path))
                action.triggered.connect(lambda _=False, p=path: self.sig_open.emit(p))
        self.menu.setToolTipsVisible(True)

    def _title(self, path: Path) -> tuple[str, str]:
        """(title, "") or ("", why it cannot be read)."""
        try:
            stat = path.stat()
        except OSError as exc:
            return "", f"cannot read {path.name}: {exc.strerror or exc}"
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key not in self._titles:
            try:
                self._titles[key] = read_lesson(path).title
            except Exception as exc:  # noqa: BLE001 - a half-written lesson must not break Help
                return "", f"{path.name}: {exc}"
        return self._titles[key], ""
