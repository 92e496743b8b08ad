"""Trust belongs to a lesson's content, not its path: other text saved under a trusted name
asks again (and, declined, runs nothing); a FIFO or a device is never trusted; and trust,
like bundled status, is decided on the bytes that were read, the ones that run."""

from __future__ import annotations

import os

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.ui.lesson_util import answering
from workbench.lessons import bundled, read_lesson
from workbench.ui.lesson.lesson_controller import NOT_RUN
from workbench.ui.storage.settings import Settings, content_key

LESSON = """\
# %% [markdown]
# # Trusted

# %%
made = "by the teacher"
"""

SWAPPED = """\
# %% [markdown]
# # Trusted

# %%
made = "by someone else"
"""


def test_trust_is_of_the_bytes_said_yes_to(tmp_path):
    settings = Settings(tmp_path / "settings.ini")
    path = tmp_path / "lesson.py"
    path.write_text(LESSON)
    settings.trust_lesson(path)
    assert settings.is_trusted_lesson(path)
    path.write_text(SWAPPED)  # the same name, other content
    assert not settings.is_trusted_lesson(path)
    path.write_text(LESSON)  # the content said yes to, wherever it is
    copy = tmp_path / "copy.py"
    copy.write_text(LESSON)
    assert settings.is_trusted_lesson(path) and settings.is_trusted_lesson(copy)


def test_a_fifo_or_a_folder_is_never_trusted(tmp_path):
    fifo = tmp_path / "lesson.ipynb"
    os.mkfifo(fifo)
    assert content_key(fifo) is None  # not opened: a FIFO would block the read
    assert content_key(tmp_path) is None
    settings = Settings(tmp_path / "settings.ini")
    settings.trust_lesson(fifo)
    assert settings.trusted_lessons == ()


def test_other_text_under_a_trusted_name_runs_nothing(qtbot, make_window, tmp_path):
    path = tmp_path / "lesson.py"
    path.write_text(LESSON)
    blank = tmp_path / "blank.py"
    blank.write_text("")
    window = make_window(blank)  # asks nothing (tests): a question is a "no"
    window.trust_lesson(path)
    path.write_text(SWAPPED)
    assert window.open_lesson(path)
    window.lessons.go_to(1)
    assert window.lessons.message().startswith(NOT_RUN.split(":")[0])
    assert window.editor.toPlainText().startswith('made = "by someone else"')


# ---------------------------------------------------------------------- what runs decides
# The window reads a lesson once; the code that runs is that copy. Trust used to be
# decided on the file on disk when a step was picked, and bundled status on the path:
# each swap below ran code nobody trusted.

EVIL = """\
# %% [markdown]
# # Trusted

# %%
made = "by an attacker"
"""


def _declined(window) -> bool:
    return window.lessons.message().startswith(NOT_RUN.split(":")[0])


def test_bytes_swapped_back_to_trusted_ones_after_the_read_run_nothing(qtbot, make_window,
                                                                        tmp_path):
    path = tmp_path / "lesson.py"
    path.write_text(LESSON)
    blank = tmp_path / "blank.py"
    blank.write_text("")
    window = make_window(blank)
    window.trust_lesson(path)  # the teacher's lesson, said yes to
    path.write_text(EVIL)
    assert window.open_lesson(path)  # the attacker's bytes are read ...
    path.write_text(LESSON)  # ... then the trusted ones put back before a step is picked
    window.lessons.go_to(1)
    assert _declined(window)
    assert window.editor.toPlainText().startswith('made = "by an attacker"')


def test_a_link_repointed_at_a_trusted_lesson_after_the_read_runs_nothing(qtbot, make_window,
                                                                         tmp_path):
    trusted = tmp_path / "trusted.py"
    trusted.write_text(LESSON)
    evil = tmp_path / "evil.py"
    evil.write_text(EVIL)
    link = tmp_path / "today.py"
    link.symlink_to(evil)
    blank = tmp_path / "blank.py"
    blank.write_text("")
    window = make_window(blank)
    window.trust_lesson(trusted)
    assert window.open_lesson(link)
    link.unlink()
    link.symlink_to(trusted)
    window.lessons.go_to(1)
    assert _declined(window)
    assert 'by an attacker' in window.editor.toPlainText()


def test_a_link_repointed_at_a_bundled_lesson_while_asked_about_unsaved_changes_asks(
        qtbot, asking_window, tmp_path, monkeypatch):
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "01_shipped.py").write_text(LESSON)
    monkeypatch.setattr(bundled, "LESSONS_DIR", folder)
    evil = tmp_path / "evil.py"
    evil.write_text(EVIL)
    link = tmp_path / "today.py"
    link.symlink_to(evil)
    window = asking_window()
    window.editor.setPlainText("typed, not saved")  # Open asks about it first
    asked: list[str] = []

    def repoint_then_discard() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        asked.append(box.text())
        link.unlink()
        link.symlink_to(folder / "01_shipped.py")  # while the question is open
        box.button(QMessageBox.StandardButton.Discard).click()

    QTimer.singleShot(0, repoint_then_discard)
    assert window.open_lesson(link)
    assert asked == ["Save the changes first?"]
    timer = answering(asked, QMessageBox.StandardButton.No)
    window.lessons.go_to(1)
    qtbot.waitUntil(lambda: not timer.isActive())
    assert len(asked) == 2 and "runs its code in the engine" in asked[1]
    assert "today.py" in asked[1] and "a link to" in asked[1]
    assert window.lesson_panel.message.text() == NOT_RUN
    assert not window.lessons.lesson.bundled


def test_bundled_is_the_file_read_not_the_path(tmp_path, monkeypatch):
    folder = tmp_path / "lessons"
    folder.mkdir()
    shipped = folder / "01_shipped.py"
    shipped.write_text(LESSON)
    monkeypatch.setattr(bundled, "LESSONS_DIR", folder)
    link = tmp_path / "mine.py"
    link.symlink_to(shipped)
    copy = tmp_path / "copy.py"
    copy.write_text(LESSON)
    assert read_lesson(shipped).bundled and read_lesson(link).bundled
    assert not read_lesson(copy).bundled
    read = read_lesson(copy)
    assert read.content_key == content_key(copy)  # the key of the very bytes read


def test_yes_trusts_the_bytes_read_not_the_file_now(qtbot, asking_window, tmp_path):
    path = tmp_path / "lesson.py"
    path.write_text(LESSON)
    window = asking_window()
    assert window.open_lesson(path)
    path.write_text(EVIL)  # changed on disk while the lesson is open
    asked: list[str] = []
    timer = answering(asked, QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=60000):
        window.lessons.go_to(1)
    assert not timer.isActive() and len(asked) == 1
    assert window.settings.is_trusted_content(window.lessons.lesson.content_key)
    assert not window.settings.is_trusted_lesson(path)  # the other bytes are not trusted
