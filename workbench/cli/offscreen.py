"""A QApplication for headless drawing (`plot -o`, `kmeans -o`): offscreen when no display."""

from __future__ import annotations

import os
from typing import Any


def qt_app() -> Any:
    """The running QApplication, or a new one on the offscreen platform when there is no display."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication(["workbench"])
