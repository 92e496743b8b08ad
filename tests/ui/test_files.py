"""Atomic writes, source reading with encoding checks, and the Recent files list."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from workbench.api.limits import MAX_SOURCE_BYTES
from workbench.ui.storage.files import (
    FileReadError,
    RecentFiles,
    atomic_write_bytes,
    atomic_write_text,
    read_source,
    write_source,
)

ROOT = Path(__file__).resolve().parents[2]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# ------------------------------------------------------------------ atomic writes
def test_atomic_write_creates_and_replaces(tmp_path):
    target = tmp_path / "a.py"
    atomic_write_text(target, "x = 1\n")
    assert target.read_text() == "x = 1\n"
    atomic_write_text(target, "x = 2\n")
    assert target.read_text() == "x = 2\n"
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_atomic_write_keeps_permissions_and_follows_symlinks(tmp_path):
    target = tmp_path / "real.py"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    atomic_write_text(link, "new", follow=target)  # the user opened the link: followed
    assert link.is_symlink()
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o640


def test_failed_replace_leaves_target_and_no_temp_file(tmp_path):
    target = tmp_path / "is_a_folder"
    target.mkdir()
    (target / "inside.txt").write_text("keep")
    with pytest.raises(OSError):
        atomic_write_bytes(target, b"data")  # written and synced, then the rename fails
    assert (target / "inside.txt").read_text() == "keep"
    assert leftovers(tmp_path) == []


def test_unencodable_text_leaves_target_unchanged(tmp_path):
    target = tmp_path / "a.py"
    target.write_text("original")
    with pytest.raises(UnicodeEncodeError):
        write_source(target, "caf\u00e9 \u2603", encoding="latin-1")
    assert target.read_text() == "original"
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE")
def test_write_cut_short_by_the_disk_never_leaves_a_partial_file(tmp_path):
    """A real short write: the child may write at most 4 KiB per file, and writes 100 KiB."""
    target = tmp_path / "a.py"
    target.write_text("original")
    child = textwrap.dedent(
        f"""
        import resource, signal, sys
        sys.path.insert(0, {str(ROOT)!r})
        from workbench.ui.storage.files import atomic_write_bytes
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
        try:
            atomic_write_bytes({str(target)!r}, b"x" * 100_000)
        except OSError as exc:
            print("failed", exc.errno)
        else:
            print("written")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.startswith("failed"), result.stdout + result.stderr
    assert target.read_text() == "original"
    assert leftovers(tmp_path) == []


# ----------------------------------------------------------------------- reading
def test_read_source_normalises_line_ends_and_writes_them_back(tmp_path):
    target = tmp_path / "win.py"
    target.write_bytes(b"a = 1\r\nb = 2\r\n")
    source = read_source(target)
    assert source.text == "a = 1\nb = 2\n"
    assert source.newline == "\r\n"
    write_source(target, source.text + "c = 3\n", source.encoding, source.newline)
    assert target.read_bytes() == b"a = 1\r\nb = 2\r\nc = 3\r\n"


def test_read_source_honours_bom_and_coding_line(tmp_path):
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbfs = 'caf\xc3\xa9'\n")
    source = read_source(bom)
    assert source.text == "s = 'caf\u00e9'\n"
    write_source(bom, source.text, source.encoding)
    assert bom.read_bytes().startswith(b"\xef\xbb\xbf")
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n")
    assert read_source(latin).text.endswith("s = 'caf\u00e9'\n")
    assert read_source(latin).encoding == "iso-8859-1"


def test_read_source_explains_bad_bytes_binary_and_missing_files(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"x = 1\ny = '\xff'\n")
    with pytest.raises(FileReadError, match=r"not valid utf-8 text \(byte 0xff on line 2\)"):
        read_source(bad)
    binary = tmp_path / "blob.py"
    binary.write_bytes(b"\x00\x01\x02")
    with pytest.raises(FileReadError, match="binary"):
        read_source(binary)
    with pytest.raises(FileReadError, match="cannot read"):
        read_source(tmp_path / "missing.py")
    big = tmp_path / "big.py"
    with open(big, "wb") as handle:
        handle.truncate(MAX_SOURCE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(FileReadError, match="MB"):
        read_source(big)


# ------------------------------------------------------------------ recent files
def test_recent_files_are_capped_ordered_persisted_and_pruned(qtbot, tmp_path):
    ini = str(tmp_path / "settings.ini")
    files = []
    for i in range(12):
        path = tmp_path / f"f{i}.py"
        path.write_text("")
        files.append(str(path.resolve()))
    recent = RecentFiles(QSettings(ini, QSettings.Format.IniFormat))
    with qtbot.waitSignal(recent.sig_changed):
        recent.add(files[0])
    for path in files[1:]:
        recent.add(path)
    assert recent.paths() == files[::-1][:10]
    recent.add(files[5])
    assert recent.paths()[0] == files[5]
    assert len(recent.paths()) == 10

    again = RecentFiles(QSettings(ini, QSettings.Format.IniFormat))
    assert again.paths() == recent.paths()
    os.remove(files[5])
    assert files[5] not in again.paths()
    assert len(again.paths()) == 9
    again.clear()
    assert again.paths() == []


def test_recent_files_with_one_entry_survive_an_ini_round_trip(tmp_path):
    ini = str(tmp_path / "settings.ini")
    only = tmp_path / "only.py"
    only.write_text("")
    settings = QSettings(ini, QSettings.Format.IniFormat)
    RecentFiles(settings).add(only)
    settings.sync()
    assert RecentFiles(QSettings(ini, QSettings.Format.IniFormat)).paths() == [str(only.resolve())]
