"""The GUI process is killed with SIGKILL mid-edit: the text comes back, the kernel goes away."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.kernel_util import process_alive

CHILD = textwrap.dedent(
    """
    import sys
    from PySide6.QtWidgets import QApplication
    from workbench.ui.window.main_window import MainWindow
    from workbench.ui.storage.settings import Settings

    app = QApplication([])
    settings_path, autosave_dir = sys.argv[1], sys.argv[2]
    window = MainWindow(None, settings=Settings(settings_path), autosave_dir=autosave_dir,
                        ask=False, console=False)
    window.show()
    window.new_file()

    def saved(_buffer_id):
        if window.autosave.saved_text("main") == window.editor.toPlainText() != "":
            print("SAVED", flush=True)

    def ready():
        print("KERNEL", window.engine.client.pid, flush=True)
        window.editor.setPlainText("def lost(x):\\n    return x * 42  # typed, never saved\\n")

    window.autosave.sig_saved.connect(saved)
    window.sig_engine_ready.connect(ready)
    app.exec()
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_text_survives_sigkill_and_the_kernel_follows(qtbot, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    settings_path, autosave_dir = tmp_path / "s.ini", tmp_path / "autosave"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(settings_path), str(autosave_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )
    try:
        kernel_pid = None
        for line in child.stdout:  # blocks on the child's own progress, with a pytest timeout
            if line.startswith("KERNEL"):
                kernel_pid = int(line.split()[1])
            if line.startswith("SAVED"):
                break
        assert kernel_pid is not None
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    # ipykernel's parent poller ends an orphaned kernel within about a second
    qtbot.waitUntil(lambda: not process_alive(kernel_pid), timeout=10000)

    from workbench.ui.storage.settings import Settings
    from workbench.ui.window.main_window import MainWindow

    window = MainWindow(None, settings=Settings(settings_path), autosave_dir=autosave_dir,
                        ask=False, console=False)
    qtbot.addWidget(window)
    try:
        assert window.editor.toPlainText().startswith("def lost(x):")
        assert "x * 42" in window.editor.toPlainText()
        assert window.path is None  # it was untitled: restored silently
    finally:
        window.close()
