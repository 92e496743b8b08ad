"""Reading and writing both lesson formats: round trips with and without edits, bad files."""

from __future__ import annotations

import json
import textwrap

import nbformat
import nbformat.v4 as nbf
import pytest

from workbench.lessons import LessonError, bundled_lessons, lesson_text, read_lesson, write_lesson

SCRIPT = textwrap.dedent("""\
    # A header comment the file keeps
    # (before the first cell)

    # %% [markdown]
    # # Percent lesson
    #
    # Some *text*.

    # %%
    # workbench: trace f --args f32[3]
    def f(x):
        return jnp.sin(x)


    # %% tags=["expect-error:name"]
    y = undefined_name
    # %% [md]
    # ## Next
    # %%
    # workbench: plot g --order 1
    def g(x):
        return x ** 2

    # %% [markdown]
    # The end.
    """)


def test_percent_without_edits_is_byte_identical(tmp_path):
    path = tmp_path / "l.py"
    path.write_bytes(SCRIPT.encode())
    lesson = read_lesson(path)
    assert lesson.format == "percent" and lesson.title == "Percent lesson"
    assert [s.title for s in lesson.steps] == ["Percent lesson", "y = undefined_name", "Next",
                                               "The end."]
    assert lesson_text(lesson, {}) == SCRIPT
    out = write_lesson(lesson, {}, tmp_path / "copy.py")
    assert out.read_bytes() == SCRIPT.encode()


def test_percent_with_edits_changes_only_the_edited_cells(tmp_path):
    path = tmp_path / "l.py"
    path.write_text(SCRIPT, encoding="utf-8")
    lesson = read_lesson(path)
    new_f = "def f(x):\n    return jnp.cos(x)\n"
    new_g = "def g(x):\n    return x ** 3\n"
    write_lesson(lesson, {1: new_f, 3: new_g})
    text = path.read_text(encoding="utf-8")
    expected = SCRIPT.replace("    return jnp.sin(x)", "    return jnp.cos(x)").replace(
        "    return x ** 2", "    return x ** 3")
    assert text == expected  # directive lines, markers, blank lines and other cells kept
    reread = read_lesson(path)
    assert reread.step(1).code == new_f and reread.step(3).code == new_g
    assert reread.step(1).directive_lines == ("# workbench: trace f --args f32[3]",)
    assert reread.step(3).directive == lesson.step(3).directive
    assert reread.step(2).code == lesson.step(2).code
    assert reread.step(2).expect_error == "name"


def test_percent_crlf_round_trips(tmp_path):
    crlf = SCRIPT.replace("\n", "\r\n").encode()
    path = tmp_path / "l.py"
    path.write_bytes(crlf)
    lesson = read_lesson(path)
    assert lesson.title == "Percent lesson"
    assert lesson.step(1).code == "def f(x):\n    return jnp.sin(x)\n"
    assert lesson.step(1).directive is not None
    assert lesson.step(2).expect_error == "name"
    assert write_lesson(lesson, {}, tmp_path / "copy.py").read_bytes() == crlf


def notebook():
    first = nbf.new_code_cell("# workbench: trace f --args f32[3]\ndef f(x):\n    return x + 1",
                              execution_count=3,
                              outputs=[nbf.new_output("stream", name="stdout", text="old\n")])
    second = nbf.new_code_cell("print(f(1.0))", execution_count=4,
                               metadata={"tags": ["keep"]},
                               outputs=[nbf.new_output("stream", name="stdout", text="2.0\n")])
    return nbf.new_notebook(
        cells=[nbf.new_markdown_cell("# Notebook lesson\nIntro"), first,
               nbf.new_markdown_cell("## Call it"), second],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}, "custom": {"teacher": "A"}})


def test_notebook_round_trips_with_edits(tmp_path):
    path = tmp_path / "l.ipynb"
    nbformat.write(notebook(), path)
    lesson = read_lesson(path)
    assert [s.title for s in lesson.steps] == ["Notebook lesson", "Call it"]
    new_code = "def f(x):\n    return x + 2\n"
    write_lesson(lesson, {1: new_code})
    reread = read_lesson(path)
    assert reread.step(1).code == new_code
    assert reread.step(1).directive_lines == ("# workbench: trace f --args f32[3]",)
    assert reread.step(2).code == lesson.step(2).code
    before, after = notebook(), nbformat.read(path, as_version=4)
    assert after.metadata == before.metadata
    assert after.cells[1].source == "# workbench: trace f --args f32[3]\n" + new_code
    assert after.cells[1].outputs == [] and after.cells[1].execution_count is None
    for i in (0, 2, 3):  # untouched cells keep their source, metadata and outputs
        assert after.cells[i].source == before.cells[i].source
        assert after.cells[i].metadata == before.cells[i].metadata
        assert after.cells[i].get("outputs") == before.cells[i].get("outputs")
    assert after.cells[3].execution_count == 4
    nbformat.validate(after)


def test_notebook_without_edits_keeps_its_outputs(tmp_path):
    path = tmp_path / "l.ipynb"
    nbformat.write(notebook(), path)
    copy = write_lesson(read_lesson(path), {}, tmp_path / "copy.ipynb")
    assert nbformat.read(copy, as_version=4) == nbformat.read(path, as_version=4)


def test_invalid_json_names_the_line(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_text('{\n  "cells": [\n    {"cell_type": "code",\n  ]\n}\n', encoding="utf-8")
    with pytest.raises(LessonError, match=r"broken\.ipynb is not a notebook: invalid JSON "
                                          r"at line 4"):
        read_lesson(path)


def test_unknown_nbformat_version(tmp_path):
    path = tmp_path / "future.ipynb"
    doc = json.loads(nbformat.writes(notebook()))
    doc["nbformat"] = 7
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(LessonError, match="unknown notebook format version 7"):
        read_lesson(path)


def test_a_txt_file_is_not_a_lesson(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("# %%\nx = 1\n", encoding="utf-8")
    with pytest.raises(LessonError, match=r"notes\.txt is not a lesson: open a Jupyter"):
        read_lesson(path)


def test_a_missing_file(tmp_path):
    with pytest.raises(LessonError, match="no such lesson: .*gone.ipynb"):
        read_lesson(tmp_path / "gone.ipynb")


def test_a_folder(tmp_path):
    folder = tmp_path / "lesson.ipynb"
    folder.mkdir()
    with pytest.raises(LessonError, match="is a folder, not a lesson"):
        read_lesson(folder)


def test_percent_crlf_edits_keep_crlf(tmp_path):
    path = tmp_path / "l.py"
    path.write_bytes(SCRIPT.replace("\n", "\r\n").encode())
    lesson = read_lesson(path)
    write_lesson(lesson, {1: "def f(x):\n    return jnp.cos(x)\n"})
    expected = SCRIPT.replace("jnp.sin", "jnp.cos").replace("\n", "\r\n").encode()
    assert path.read_bytes() == expected
    assert read_lesson(path).step(1).code == "def f(x):\n    return jnp.cos(x)\n"


@pytest.mark.parametrize("path", bundled_lessons(), ids=lambda p: p.name)
def test_bundled_lesson_written_back_unedited_is_its_file(path):
    # Notebooks too: nbformat.writes drops the final newline Jupyter writes.
    assert lesson_text(read_lesson(path), {}) == path.read_text(encoding="utf-8")
