"""The data folder: the window starts when autosave cannot write, autosave is private, and the
temp files of killed writes are removed at the next start."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workbench.api.writer import _create_temp
from workbench.ui.storage.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def assert_starts_with_autosave_off(qtbot, make_window, folder: Path, why: str) -> None:
    window = make_window(autosave_dir=folder)
    assert not window.autosave.enabled
    assert window.autosave.off_reason is not None
    notice = window.notice_text.toPlainText()
    assert "autosave is off" in notice and why in notice
    assert not window.notice_bar.isHidden()
    assert not window.autosave_off.isHidden()
    assert why in window.autosave_off.toolTip()
    window.editor.setPlainText("x = 1\n")  # editing and closing work without autosave
    window.autosave.flush()
    assert window.autosave.saved_text("main") is None


def test_a_data_folder_that_cannot_be_made_leaves_autosave_off(qtbot, make_window, tmp_path):
    # Runs as root too (where chmod does not stop writes): a regular file where a folder
    # must go makes mkdir fail for real (ENOTDIR).
    blocker = tmp_path / "data"
    blocker.write_text("a file, not a folder")
    assert_starts_with_autosave_off(qtbot, make_window, blocker / "workbench" / "autosave",
                                    "Not a directory")


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0,
                    reason="POSIX permission bits; root writes into read-only folders")
def test_a_read_only_data_folder_leaves_autosave_off(qtbot, make_window, tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o500)
    try:
        assert_starts_with_autosave_off(qtbot, make_window, data / "autosave",
                                        "Permission denied")
    finally:
        data.chmod(0o700)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_unsaved_text_is_private(qtbot, make_window, tmp_path):
    old_umask = os.umask(0o022)  # the usual one, under which files come out 0644
    try:
        folder = tmp_path / "autosave"
        window = make_window(autosave_dir=folder)
        window.new_file()
        window.editor.setPlainText("password = 'hunter2'\n")
        qtbot.waitUntil(lambda: window.autosave.saved_text("main") == "password = 'hunter2'\n",
                        timeout=5000)
    finally:
        os.umask(old_umask)
    session = window.autosave.folder
    assert mode(folder) == 0o700
    assert mode(session) == 0o700
    files = list(session.iterdir())
    assert {f.name for f in files} >= {"lock.json"} and len(files) == 2
    assert all(mode(f) == 0o600 for f in files), {f.name: oct(mode(f)) for f in files}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_an_existing_open_autosave_folder_is_made_private(qtbot, make_window, tmp_path):
    folder = tmp_path / "autosave"
    folder.mkdir()
    folder.chmod(0o755)  # as an older version made it
    make_window(autosave_dir=folder)
    assert mode(folder) == 0o700


KILLED_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from PySide6.QtCore import QCoreApplication
    from workbench.ui.storage.autosave import Autosave
    from workbench.api.writer import _create_temp

    app = QCoreApplication([])
    saver = Autosave({folder!r})
    saver.update("main", "kept = 1\\n")
    saver.flush()
    for target in (Path({source!r}), saver.folder / "buffer-0000000000000000.json"):
        fd, name = _create_temp(target, 0o666)  # what atomic_write_bytes does first
        os.write(fd, b"half of a big write" * 1000)
        print(name, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # killed before the rename
    """
)


def test_temp_files_of_killed_writes_are_removed_at_start(qtbot, make_window, tmp_path):
    folder = tmp_path / "autosave"
    project = tmp_path / "project"
    project.mkdir()
    source = project / "model.py"
    source.write_text("def model(x):\n    return x\n")
    settings = Settings(tmp_path / "settings.ini")  # the file make_window's windows use
    settings.last_file = str(source)
    settings.sync()
    script = KILLED_WRITER.format(root=str(ROOT), folder=str(folder), source=str(source))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == -9, result.stderr
    leftovers = [Path(line) for line in result.stdout.split()]
    assert len(leftovers) == 2 and all(p.exists() for p in leftovers)
    # Not ours to remove: a write in progress in this (live) process, and look-alikes.
    fd, live = _create_temp(source, 0o666)
    os.close(fd)
    strangers = [project / ".model.py.1234abcd.tmp", project / "notes.tmp"]
    for stranger in strangers:
        stranger.write_text("someone else's")

    window = make_window(autosave_dir=folder)
    assert not any(p.exists() for p in leftovers), "temp files of a killed write survived"
    assert Path(live).exists()
    assert all(p.exists() for p in strangers)
    assert source.read_text() == "def model(x):\n    return x\n"
    assert window.editor.toPlainText() == "kept = 1\n"  # the crashed buffer came back
    os.unlink(live)


FULL_DISK = textwrap.dedent(
    """
    import resource, signal, sys
    sys.path.insert(0, {root!r})
    from PySide6.QtCore import QCoreApplication
    from workbench.ui.storage.autosave import Autosave

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))  # no byte fits
    app = QCoreApplication([])
    saver = Autosave({folder!r})
    print(saver.enabled, saver.off_reason)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE")
def test_a_write_that_fails_at_start_leaves_autosave_off_and_no_half_session(tmp_path):
    """The folder can be made but not one byte written (as on a full disk)."""
    folder = tmp_path / "autosave"
    script = FULL_DISK.format(root=str(ROOT), folder=str(folder))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-B", "-c", script], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("False autosave is off: cannot write to"), result.stdout
    assert "File too large" in result.stdout
    assert list(folder.iterdir()) == []  # neither a session without its lock nor a temp file
