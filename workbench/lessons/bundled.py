"""The lessons that ship with the workbench (``assets/lessons``), in the order Help > Lessons
lists them: file names start with their number."""

from __future__ import annotations

import os
from pathlib import Path

from workbench.examples import ASSETS_DIR

LESSONS_DIR = ASSETS_DIR / "lessons"
SUFFIXES = (".ipynb", ".py")


def bundled_lessons(folder: Path = LESSONS_DIR) -> tuple[Path, ...]:
    """The bundled lesson files, sorted by name (``01_...`` first)."""
    if not folder.is_dir():
        return ()
    return tuple(sorted(p for p in folder.iterdir()
                        if p.suffix in SUFFIXES and not p.name.startswith(".")))


def is_bundled_file(identity: tuple[int, int]) -> bool:
    """Whether the file with this (device, inode) identity, as it was read, is one of the
    bundled lessons: decided on the file read, so a link re-pointed at a bundled lesson
    after another file was read gains nothing."""
    for path in bundled_lessons(LESSONS_DIR):
        try:
            info = os.stat(path)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == identity:
            return True
    return False


def is_bundled(path: str | Path) -> bool:
    """True for a path in the bundled lessons' folder (where a save must not write); what
    runs unasked is decided by ``Lesson.bundled``, on the file that was read."""
    try:
        return Path(path).resolve().parent == LESSONS_DIR.resolve()
    except OSError:
        return False
