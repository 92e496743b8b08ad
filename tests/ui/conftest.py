"""A real main window on a real engine kernel, with private settings and autosave folders."""

from __future__ import annotations

import pytest


@pytest.fixture
def make_window(qtbot, tmp_path):
    from workbench.ui.main_window import MainWindow
    from workbench.ui.settings import Settings

    windows = []

    def make(path=None, *, console=False, autosave_dir=None, **kwargs):
        window = MainWindow(
            path,
            settings=Settings(tmp_path / "settings.ini"),
            autosave_dir=autosave_dir or tmp_path / "autosave",
            ask=False,
            console=console,
            **kwargs,
        )
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
