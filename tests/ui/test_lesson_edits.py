"""Unsaved lesson edits on disk: written after a pause, removed when none is left, and a
damaged file is no edits rather than an error."""

from __future__ import annotations

from workbench.ui.lesson.lesson_edits import LessonEdits


def test_edits_are_written_after_a_pause_and_removed_when_none_is_left(qtbot, tmp_path):
    lesson = tmp_path / "l.ipynb"
    edits = LessonEdits(tmp_path / "autosave")
    assert edits.load(lesson) == {}
    edits.update({3: "x = 1\n"})
    file = edits.file_for(lesson)
    qtbot.waitUntil(file.exists, timeout=5000)
    assert LessonEdits(tmp_path / "autosave").load(lesson) == {3: "x = 1\n"}
    edits.update({})
    qtbot.waitUntil(lambda: not file.exists(), timeout=5000)


def test_a_damaged_file_reads_as_no_edits(qtbot, tmp_path):
    lesson = tmp_path / "l.py"
    edits = LessonEdits(tmp_path)
    file = edits.file_for(lesson)
    file.parent.mkdir(parents=True)
    for damaged in ("{", '{"codes": [1, 2]}', '{"codes": {"x": "y"}}', "[]"):
        file.write_text(damaged)
        assert edits.load(lesson) == {}


def test_without_a_folder_nothing_is_written(qtbot, tmp_path):
    edits = LessonEdits(None)
    assert edits.load(tmp_path / "l.py") == {}
    edits.update({1: "y = 2\n"})
    edits.flush()
    assert edits.file_for(tmp_path / "l.py") is None
    assert list(tmp_path.iterdir()) == []
