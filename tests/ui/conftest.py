"""A real main window or bridge on a real engine kernel, with private settings and autosave."""

from __future__ import annotations

import gc

import pytest


@pytest.fixture(scope="module")
def bridge(qapp, request):
    """An EngineBridge on a real engine kernel, one per test module.

    The module's ``KERNEL_SOURCE`` (a ``LoadSource`` request), when it has one, is loaded
    first and must succeed; its ``KERNEL_ENV``, when it has one, is the kernel's environment.
    """
    from workbench.api import messages as p
    from workbench.ui.engine_bridge import EngineBridge

    env = getattr(request.module, "KERNEL_ENV", None)
    b = EngineBridge(env=env) if env is not None else EngineBridge()
    b.start()
    b.loaded_functions = ()
    load = getattr(request.module, "KERNEL_SOURCE", None)
    if load is not None:
        reply = b.client.call(load, timeout=120)
        assert isinstance(reply, p.Result)
        b.loaded_functions = reply.value.functions
    yield b
    b.close()


@pytest.fixture
def session(bridge):
    """A session on ``bridge`` that knows the functions of the module's ``KERNEL_SOURCE``."""
    from workbench.ui.session import Session

    session = Session(bridge)
    session.set_functions(bridge.loaded_functions)
    return session


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
        window.deleteLater()
    # Delete the windows now, and collect their Python wrappers now, while nothing is being
    # built: left to the cyclic collector, pyqtgraph's items of a closed window were once
    # destroyed in the middle of the next test's QGraphicsObject constructor (a segfault).
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
