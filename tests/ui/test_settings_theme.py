"""Settings persistence, theme resolution and the presentation zoom model."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QByteArray
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from workbench.ui.storage.settings import Settings
from workbench.ui.style.theme import (
    DARK,
    LIGHT,
    PresentationZoom,
    ThemeWatcher,
    apply_scheme,
    dark_palette,
    is_dark_palette,
    pygments_style_name,
    resolve_scheme,
    system_scheme,
)


def test_settings_defaults(tmp_path):
    settings = Settings(tmp_path / "s.ini")
    assert settings.geometry is None
    assert settings.dock_state is None
    assert settings.live_mode is True
    assert settings.theme == "system"
    assert settings.last_file is None
    assert settings.zoom == 1.0


def test_settings_round_trip_through_the_ini_file(tmp_path):
    path = tmp_path / "s.ini"
    settings = Settings(path)
    settings.geometry = b"\x01\x02geometry"
    settings.dock_state = QByteArray(b"\x00docks")
    settings.live_mode = False
    settings.theme = "dark"
    settings.last_file = tmp_path / "a.py"
    settings.zoom = 1.5
    settings.sync()
    again = Settings(path)
    assert bytes(again.geometry.data()) == b"\x01\x02geometry"
    assert bytes(again.dock_state.data()) == b"\x00docks"
    assert again.live_mode is False
    assert again.theme == "dark"
    assert again.last_file == str(tmp_path / "a.py")
    assert again.zoom == 1.5
    again.last_file = None
    assert again.last_file is None


def test_settings_ignore_garbage_and_reject_unknown_themes(tmp_path):
    path = tmp_path / "s.ini"
    path.write_text("[appearance]\nzoom=huge\ntheme=purple\n[engine]\nliveMode=false\n")
    settings = Settings(path)
    assert settings.zoom == 1.0
    assert settings.theme == "system"
    assert settings.live_mode is False
    with pytest.raises(ValueError, match="theme must be one of"):
        settings.theme = "purple"


def test_presentation_zoom_steps_clamps_and_signals(qtbot):
    zoom = PresentationZoom()
    with qtbot.waitSignal(zoom.sig_zoom_changed) as blocker:
        zoom.zoom_in()
    assert blocker.args == [1.1]
    zoom.zoom_in()
    assert zoom.factor == 1.25
    assert zoom.points(12) == 15
    for _ in range(20):
        zoom.zoom_in()
    assert zoom.factor == PresentationZoom.MAX
    with qtbot.assertNotEmitted(zoom.sig_zoom_changed):
        zoom.zoom_in()
        zoom.set_factor(99)
    zoom.set_factor(1.05)  # between steps: zoom out goes to the step below
    zoom.zoom_out()
    assert zoom.factor == 1.0
    zoom.set_factor(0.01)
    assert zoom.factor == PresentationZoom.MIN
    zoom.reset()
    assert zoom.factor == 1.0


def test_scheme_resolution_and_styles(qapp):
    assert is_dark_palette(dark_palette())
    assert not is_dark_palette(QPalette())  # Qt's default palette is light
    assert resolve_scheme("light") == LIGHT
    assert resolve_scheme("dark") == DARK
    assert resolve_scheme("system") == system_scheme()
    assert pygments_style_name(LIGHT) != pygments_style_name(DARK)


def test_apply_scheme_switches_the_application_palette(qapp):
    app = QApplication.instance()
    original = QPalette(app.palette())
    opposite = LIGHT if system_scheme() == DARK else DARK
    try:
        assert apply_scheme(app, opposite) == opposite
        assert is_dark_palette(app.palette()) == (opposite == DARK)
        assert apply_scheme(app, "system") == system_scheme()
        assert is_dark_palette(app.palette()) == (system_scheme() == DARK)
    finally:
        app.setPalette(original)


def test_theme_watcher_signals_a_new_effective_scheme(qtbot):
    watcher = ThemeWatcher("system")
    opposite = LIGHT if watcher.scheme == DARK else DARK
    with qtbot.waitSignal(watcher.sig_scheme_changed) as blocker:
        watcher.set_preference(opposite)
    assert blocker.args == [opposite]
    assert watcher.scheme == opposite
    with qtbot.assertNotEmitted(watcher.sig_scheme_changed):
        watcher.set_preference(opposite)
    with pytest.raises(ValueError):
        watcher.set_preference("sepia")
