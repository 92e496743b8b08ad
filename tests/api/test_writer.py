"""The one writer (``api.writer``) as an attacker and a full disk meet it, through the lesson
writer that used a fixed temp name and ``open(tmp, "w")``: a link planted under the temp
name or at the lesson is never written through, the lesson's mode is kept and its copy
never wider, a lesson opened through a link gets the edit in its real file, and a write
the disk refuses leaves the lesson as it was and no temp file behind."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap

import pytest

from workbench.api import writer
from workbench.api.writer import atomic_write_bytes, write_destination
from workbench.lessons import read_lesson, write_lesson

LESSON = """\
# %% [markdown]
# # Saved

# %%
x = 1
"""
EDIT = "x = 2\n"


def _lesson(folder, name="lesson.py", text=LESSON):
    path = folder / name
    path.write_text(text)
    return path


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if ".wb-" in p.name)


def test_a_link_planted_under_the_old_temp_name_is_never_written_through(tmp_path):
    path = _lesson(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / ".lesson.py.wb-tmp").symlink_to(victim)  # the fixed name the writer used
    lesson = read_lesson(path)
    write_lesson(lesson, {1: EDIT})
    assert victim.read_text() == "keep me"
    assert "x = 2" in path.read_text()
    assert _leftovers(tmp_path) == [".lesson.py.wb-tmp"]  # the planted link, untouched


def test_a_link_planted_at_the_lesson_after_it_was_read_is_replaced_not_followed(tmp_path):
    path = _lesson(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    lesson = read_lesson(path)  # a regular file when read
    path.unlink()
    path.symlink_to(victim)  # then swapped for a link
    write_lesson(lesson, {1: EDIT})
    assert victim.read_text() == "keep me"
    assert not path.is_symlink() and "x = 2" in path.read_text()


def test_a_private_lesson_stays_private_and_its_copy_is_never_wider(tmp_path, monkeypatch):
    path = _lesson(tmp_path)
    path.chmod(0o600)
    seen: list[int] = []
    real_fsync = os.fsync

    def fsync(fd):  # the temp copy, written and about to be renamed
        seen.append(stat.S_IMODE(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(writer.os, "fsync", fsync)
    old = os.umask(0o022)
    try:
        write_lesson(read_lesson(path), {1: EDIT})
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert seen and seen[0] == 0o600


def test_the_copy_is_created_with_the_final_mode_not_widened_after(tmp_path):
    target = tmp_path / "private.txt"
    target.write_text("x")
    target.chmod(0o600)
    fd, name = writer._create_temp(target, writer._kept_mode(target) or 0o666)
    try:
        assert stat.S_IMODE(os.fstat(fd).st_mode) == 0o600  # from its first byte on
    finally:
        os.close(fd)
        os.unlink(name)


def test_a_lesson_opened_through_a_link_gets_the_edit_in_its_real_file(tmp_path):
    (tmp_path / "course").mkdir()
    real = _lesson(tmp_path / "course")
    link = tmp_path / "today.py"
    link.symlink_to(real)
    lesson = read_lesson(link)
    assert lesson.real_path == real
    write_lesson(lesson, {1: EDIT})
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert "x = 2" in real.read_text()


def test_a_link_repointed_after_the_read_is_not_followed_to_its_new_target(tmp_path):
    real = _lesson(tmp_path, "real.py")
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("not yours")
    link = tmp_path / "today.py"
    link.symlink_to(real)
    lesson = read_lesson(link)
    link.unlink()
    link.symlink_to(elsewhere)
    write_lesson(lesson, {1: EDIT})
    assert elsewhere.read_text() == "not yours"
    assert not link.is_symlink() and "x = 2" in link.read_text()


def test_save_as_follows_a_link_the_user_picked(tmp_path):
    lesson = read_lesson(_lesson(tmp_path))
    real = tmp_path / "real.py"
    real.write_text("")
    picked = tmp_path / "picked.py"
    picked.symlink_to(real)
    written = write_lesson(lesson, {}, picked)
    assert picked.is_symlink() and real.read_text() == LESSON
    assert written.path == picked


def test_write_destination_follows_only_to_the_file_opened(tmp_path):
    real = tmp_path / "real.py"
    real.write_text("")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    assert write_destination(link, real) == real
    assert write_destination(link, None) == link
    assert write_destination(link, tmp_path / "other.py") == link
    assert write_destination(real, real) == real


@pytest.mark.skipif(not hasattr(__import__("resource"), "RLIMIT_FSIZE"),
                    reason="no file size limit to stand in for a full disk here")
def test_a_write_the_disk_refuses_leaves_the_lesson_and_no_temp_file(tmp_path):
    """A file size limit refuses the write half-way, as a full disk does (EFBIG for ENOSPC):
    before, a 98 KB partial temp file stayed beside the lesson."""
    path = _lesson(tmp_path)
    child = textwrap.dedent(f"""
        import resource, signal, sys
        from workbench.lessons import read_lesson, write_lesson
        lesson = read_lesson({str(path)!r})
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (32_000, 32_000))
        try:
            write_lesson(lesson, {{1: "y = 0\\n" * 50_000}})
        except OSError as exc:
            print("refused", exc.errno)
            sys.exit(0)
        sys.exit("written past the limit")
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused")
    assert path.read_text() == LESSON
    assert _leftovers(tmp_path) == []


def test_atomic_write_bytes_says_where_it_wrote(tmp_path):
    target = tmp_path / "new.bin"
    assert atomic_write_bytes(target, b"data") == target
    assert target.read_bytes() == b"data"
