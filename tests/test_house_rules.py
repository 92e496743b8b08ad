"""The shape the architecture asks of the code: small modules, small folders, a window that
only assembles (docs/architecture.md). Import cycles are tests/test_no_import_cycles.py's."""

from __future__ import annotations

from pathlib import Path

import workbench

PACKAGE = Path(workbench.__file__).parent
MAX_MODULE_LINES = 800
MAX_FOLDER_MODULES = 20
MAX_WINDOW_LINES = 400


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_800_lines():
    big = {str(p.relative_to(PACKAGE)): _lines(p) for p in PACKAGE.rglob("*.py")
           if _lines(p) > MAX_MODULE_LINES}
    assert big == {}


def test_no_package_folder_holds_more_than_20_modules():
    crowded = {}
    for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]:
        modules = list(folder.glob("*.py"))
        if len(modules) > MAX_FOLDER_MODULES:
            crowded[str(folder.relative_to(PACKAGE.parent))] = len(modules)
    assert crowded == {}


def test_the_main_window_only_assembles():
    assert _lines(PACKAGE / "ui" / "window" / "main_window.py") <= MAX_WINDOW_LINES


def test_the_rules_see_the_package():
    assert _lines(PACKAGE / "ui" / "window" / "main_window.py") > 100  # not an empty file
    assert len(list(PACKAGE.rglob("*.py"))) > 100
