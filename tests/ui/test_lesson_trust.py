"""Trust belongs to a lesson's content, not its path: other text saved under a trusted name
asks again (and, declined, runs nothing); a FIFO or a device is never trusted."""

from __future__ import annotations

import os

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
