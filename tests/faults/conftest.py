"""The window fixtures of ``tests/ui`` (a real window on a real engine kernel) for fault tests."""

from tests.ui.conftest import bridge, make_window, session

__all__ = ["bridge", "make_window", "session"]
