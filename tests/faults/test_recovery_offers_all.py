"""Three crashed windows left unsaved work: the next start offers every buffer and deletes none
unasked. The buffers are written by real processes through ``Autosave`` and SIGKILLed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from workbench.ui.storage.autosave import Autosave
from workbench.ui.storage.recovery import RecoveryDialog, first_line

ROOT = Path(__file__).resolve().parents[2]

CRASHING_WINDOW = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, {root!r})
    from PySide6.QtCore import QCoreApplication
    from workbench.ui.storage.autosave import Autosave

    app = QCoreApplication([])
    saver = Autosave({folder!r})
    saver.update("main", {text!r}, path={path!r})
    saver.flush()
    os.kill(os.getpid(), signal.SIGKILL)  # a crash: no clean exit, the session stays
    """
)


def crash_with(folder: Path, text: str, path: Path | None = None) -> None:
    """A window process that autosaved ``text`` and was killed before it could close."""
    script = CRASHING_WINDOW.format(root=str(ROOT), folder=str(folder), text=text,
                                    path=str(path) if path else None)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == -9, result.stderr


def buffer_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("session-*/buffer-*.json"))


@pytest.fixture
def three_crashes(tmp_path):
    folder = tmp_path / "autosave"
    edited = tmp_path / "model.py"
    edited.write_text("def model(x):\n    return x\n")
    texts = ["# first crash\nuntitled_a = 1\n",
             "def model(x):\n    return x * 3  # edited, never saved\n",
             "\n\n# third crash\nuntitled_b = 2\n"]
    crash_with(folder, texts[0])
    crash_with(folder, texts[1], edited)
    crash_with(folder, texts[2])
    assert len(buffer_files(folder)) == 3
    return folder, edited, texts


def recovery_dialog(qtbot, window) -> RecoveryDialog:
    qtbot.waitUntil(lambda: window.findChild(RecoveryDialog, "recoveryDialog") is not None
                    and window.findChild(RecoveryDialog, "recoveryDialog").isVisible(),
                    timeout=10000)
    dialog = window.findChild(RecoveryDialog, "recoveryDialog")
    assert dialog.isModal() or dialog.windowModality() != Qt.WindowModality.NonModal
    return dialog


def test_every_buffer_is_offered_and_none_deleted_unasked(qtbot, make_window, three_crashes):
    folder, edited, texts = three_crashes
    window = make_window(autosave_dir=folder)
    dialog = recovery_dialog(qtbot, window)
    offered = dialog.items()
    assert sorted(item.text for item in offered) == sorted(texts)
    assert [item.saved_at for item in offered] == sorted(
        (item.saved_at for item in offered), reverse=True)  # newest first
    rows = [dialog.row_texts(row) for row in range(len(offered))]
    for item, row in zip(offered, rows, strict=True):
        assert first_line(item.text) in row
        assert (edited.name if item.path else "untitled") in row
    assert first_line(texts[2]) == "# third crash"
    # Showing the dialog deletes nothing (the window's own autosave may add its buffer
    # meanwhile: 500 ms after its text was set, which a loaded machine reaches first).
    assert all(Path(item.source).exists() for item in offered)
    assert len([f for f in buffer_files(folder) if f.parent.name.split("-")[1]
                != str(os.getpid())]) == 3

    chosen = next(item for item in offered if item.path == str(edited))
    dialog.select([chosen])
    qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    assert window.editor.toPlainText() == chosen.text
    assert window.path == edited
    assert window.is_modified()  # the file on disk still has the old text
    others = {item.source for item in offered if item is not chosen}
    assert all(Path(source).exists() for source in others), "unrestored work was deleted"
    assert not Path(chosen.source).exists()  # it lives on in this window's own autosave
    assert window.autosave.saved_text("main") == chosen.text


def test_discard_deletes_only_what_was_picked_and_later_keeps_the_rest(qtbot, make_window,
                                                                       three_crashes):
    folder, _edited, texts = three_crashes
    window = make_window(autosave_dir=folder)
    dialog = recovery_dialog(qtbot, window)
    offered = dialog.items()
    doomed = next(item for item in offered if item.text == texts[0])
    dialog.select([doomed])
    qtbot.mouseClick(dialog.discard_button, Qt.MouseButton.LeftButton)
    assert not Path(doomed.source).exists()
    assert [item for item in dialog.items() if item == doomed] == []
    kept = [item for item in offered if item != doomed]
    assert all(Path(item.source).exists() for item in kept)
    qtbot.mouseClick(dialog.later_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert all(Path(item.source).exists() for item in kept)
    assert window.editor.toPlainText() not in texts  # the usual file opened behind the dialog
    # Still there next time.
    watcher = Autosave(folder)
    try:
        assert sorted(item.text for item in watcher.pending_recovery()) == sorted(
            item.text for item in kept)
    finally:
        watcher.mark_clean_exit()
