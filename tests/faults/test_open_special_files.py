"""File > Open on something that is not a regular file: a FIFO would block forever and a link
to /dev/zero would eat the memory. Each is read in a child process with a time and memory
limit, so a regression fails the test instead of hanging or swapping the machine."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workbench.api.limits import MAX_SOURCE_BYTES, source_too_big
from workbench.ui.storage.files import FileReadError, read_source

ROOT = Path(__file__).resolve().parents[2]

READER = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, resource.RLIM_INFINITY))
    sys.path.insert(0, {root!r})
    from workbench.ui.storage.files import FileReadError, read_source
    try:
        source = read_source({path!r})
    except FileReadError as exc:
        print("refused:", exc)
    else:
        print("read", len(source.text), "characters")
    """
)


def read_in_child(path: Path) -> str:
    """What ``read_source(path)`` does, in a child that may take 30 s and 4 GiB at most."""
    script = READER.format(root=str(ROOT), path=str(path))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    try:
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading {path.name} did not return within 30 s")
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    assert read_in_child(fifo) == (
        "refused: pipe.py is a named pipe (FIFO), not a regular file: the editor opens files only")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_link_to_dev_zero_is_refused(tmp_path):
    link = tmp_path / "zero.py"
    link.symlink_to("/dev/zero")
    assert read_in_child(link) == (
        "refused: zero.py (a link to /dev/zero) is a device, not a regular file: "
        "the editor opens files only")


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(FileReadError, match="is a folder"):
        read_source(tmp_path)


def test_the_shared_size_limit_and_its_message(tmp_path):
    big = tmp_path / "big.py"
    with open(big, "wb") as handle:
        handle.truncate(MAX_SOURCE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(FileReadError) as info:
        read_source(big)
    assert str(info.value) == source_too_big(MAX_SOURCE_BYTES + 1, "big.py")
    just_fits = tmp_path / "fits.py"
    just_fits.write_bytes(b"#" * (MAX_SOURCE_BYTES - 1) + b"\n")
    assert len(read_source(just_fits).text) == MAX_SOURCE_BYTES


def test_the_window_says_why_and_keeps_its_text(qtbot, make_window, tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    assert read_in_child(fifo).startswith("refused")  # safe to try in this process now
    window = make_window()
    before = window.editor.toPlainText()
    assert not window.open_path(fifo)
    assert "pipe (FIFO)" in window.messages.toPlainText()
    assert not window.messages.isHidden()
    assert window.editor.toPlainText() == before
