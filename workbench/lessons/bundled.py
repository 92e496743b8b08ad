"""The lessons that ship with the workbench (``assets/lessons``), in the order Help > Lessons
lists them: file names start with their number."""

from __future__ import annotations

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


def is_bundled(path: str | Path) -> bool:
    """True for a lesson shipped with the workbench: it runs without asking first."""
    try:
        return Path(path).resolve().parent == LESSONS_DIR.resolve()
    except OSError:
        return False
