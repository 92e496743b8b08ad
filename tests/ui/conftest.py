"""A real main window or bridge, with private settings and autosave, on the real engine.

The engine runs in this process by default (``workbench.engine.inprocess``: no kernel to
start, JAX imported once for the whole run); a test or module marked ``kernel``
(``@pytest.mark.kernel``, ``pytestmark = pytest.mark.kernel``), a window with a console
and a module with a ``KERNEL_ENV`` get a real engine kernel, as the application does.
"""

from __future__ import annotations

import gc

import pytest


def wants_kernel(request) -> bool:
    """The test (or its module) is marked ``kernel``: Stop, restart, crashes, the console."""
    return request.node.get_closest_marker("kernel") is not None


def in_process_bridge(parent=None):
    """An EngineBridge whose engine runs on a thread of this process."""
    from workbench.engine.inprocess import InProcessClient
    from workbench.ui.control.engine_bridge import EngineBridge

    bridge = EngineBridge(parent, client_factory=InProcessClient)
    bridge.in_process = True
    return bridge


@pytest.fixture(scope="module")
def bridge(qapp, request):
    """An EngineBridge on the engine, one per test module: in-process, or a real kernel for
    a module marked ``kernel`` or with a ``KERNEL_ENV`` (the kernel's environment).

    The module's ``KERNEL_SOURCE`` (a ``LoadSource`` request), when it has one, is loaded
    first and must succeed.
    """
    from workbench.api import messages as p
    from workbench.ui.control.engine_bridge import EngineBridge

    env = getattr(request.module, "KERNEL_ENV", None)
    if env is not None:
        b = EngineBridge(env=env)
    elif wants_kernel(request):
        b = EngineBridge()
    else:
        b = in_process_bridge()
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
def requests(bridge):
    """The typed requests the panels send, through ``bridge``."""
    from workbench.ui.control.requests import EngineRequests

    return EngineRequests(bridge)


@pytest.fixture
def session(bridge):
    """A session on ``bridge`` that knows the functions of the module's ``KERNEL_SOURCE``."""
    from workbench.ui.control.session import Session

    session = Session(bridge)
    session.set_functions(bridge.loaded_functions)
    return session


def _window_maker(qtbot, tmp_path, *, kernel: bool):
    """``make(path, **kwargs)`` building shown windows, and the list of those it built."""
    from workbench.ui.storage.settings import Settings
    from workbench.ui.window.main_window import MainWindow

    windows = []

    def make(path=None, *, console=False, autosave_dir=None, **kwargs):
        own_bridge = "engine" not in kwargs and not kernel and not console
        if own_bridge:
            kwargs["engine"] = in_process_bridge()
        window = MainWindow(
            path,
            settings=Settings(tmp_path / "settings.ini"),
            autosave_dir=autosave_dir or tmp_path / "autosave",
            ask=False,
            console=console,
            **kwargs,
        )
        if getattr(window.engine, "in_process", False) and window.engine.parent() is None:
            # Deleted with the window, as its own bridge is: the replies cancelled when it
            # closes then reach no deleted widget.
            window.engine.setParent(window)
        qtbot.addWidget(window)
        window.show()
        windows.append(window)
        return window

    return make, windows


def _close_windows(windows) -> None:
    for window in windows:
        window.close()
        window.deleteLater()
    windows.clear()  # else this very list keeps them alive through the collection below
    # Delete the windows now, and collect their Python wrappers now, while nothing is being
    # built: left to the cyclic collector, pyqtgraph's items of a closed window were once
    # destroyed in the middle of the next test's QGraphicsObject constructor (a segfault).
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    # What the test built is young (the suite collects only between tests): the young
    # generations hold the windows, and walking the whole heap cost 0.2-0.3 s a window.
    # The full collection comes when due (``_collect_between_tests``).
    gc.collect(1)


@pytest.fixture
def make_window(qtbot, tmp_path, request):
    """Build shown main windows: on the in-process engine, or on a real kernel when the test
    is marked ``kernel``, asks for a console, or passes its own ``engine``."""
    make, windows = _window_maker(qtbot, tmp_path, kernel=wants_kernel(request))
    yield make
    _close_windows(windows)


@pytest.fixture
def make_kernel_window(qtbot, tmp_path):
    """Build shown main windows, each on its own real engine kernel."""
    make, windows = _window_maker(qtbot, tmp_path, kernel=True)
    yield make
    _close_windows(windows)


@pytest.fixture
def asking_window(qtbot, tmp_path):
    """Windows that ask (ask=True), on one settings file, each on its own in-process engine,
opened on ``path`` (a blank file by default): trust, unsaved edits, save conflicts."""
    from workbench.ui.storage.settings import Settings
    from workbench.ui.window.main_window import MainWindow

    windows = []
    blank = tmp_path / "blank.py"
    blank.write_text("")

    def make(path=None):
        window = MainWindow(path or blank, settings=Settings(tmp_path / "settings.ini"),
                            autosave_dir=tmp_path / "autosave", ask=True, console=False,
                            engine=in_process_bridge())
        window.engine.setParent(window)  # deleted with it, as the window's own bridge is
        window.show()  # not qtbot.addWidget: its teardown would close it before ours, asking
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.document.ask = False
        window.lessons.codes.clear()
        window.close()
        window.deleteLater()
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
