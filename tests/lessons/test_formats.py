"""Reading and writing both lesson formats: round trips with and without edits, bad files."""

from __future__ import annotations

import base64
import json
import os
import textwrap
import time
import tracemalloc

import nbformat
import nbformat.v4 as nbf
import pytest

from workbench.lessons import (
    CallDirective,
    LessonError,
    bundled_lessons,
    lesson_text,
    read_lesson,
    write_lesson,
)
from workbench.lessons.formats import MAX_CELLS, MAX_CODE_CHARS, MAX_LESSON_BYTES
from workbench.lessons.text_notebooks import MAX_TEXT_BYTES

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
    out = write_lesson(lesson, {}, tmp_path / "copy.py").path
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
    assert write_lesson(lesson, {}, tmp_path / "copy.py").path.read_bytes() == crlf


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
    copy = write_lesson(read_lesson(path), {}, tmp_path / "copy.ipynb").path
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
    with pytest.raises(LessonError, match=r"future\.ipynb: unknown notebook format version 7 "
                                          r"\(the workbench reads nbformat 4\)"):
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


# ---------------------------------------------------------------------------- bad input


def refused(path, pattern):
    """Open ``path``: a LessonError of one line matching ``pattern``; its message."""
    with pytest.raises(LessonError, match=pattern) as info:
        read_lesson(path)
    message = str(info.value)
    assert "\n" not in message and len(message) < 300
    return message


def write_json(path, doc):
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_not_json_says_line_1(tmp_path):
    path = tmp_path / "notes.ipynb"
    path.write_text("Some notes, not a notebook\n", encoding="utf-8")
    refused(path, r"^notes\.ipynb is not a notebook: line 1 is not JSON \(Expecting value\)$")


@pytest.mark.parametrize("version", [1, 2, 3])
def test_old_nbformat_says_how_to_convert(tmp_path, version):
    path = write_json(tmp_path / "old.ipynb",
                      {"nbformat": version, "nbformat_minor": 0, "metadata": {},
                       "worksheets": [{"cells": [{"cell_type": "code", "input": "x = 1"}]}]})
    refused(path, rf"^old\.ipynb: nbformat {version} notebooks are not supported: convert "
                  r"with `jupyter nbconvert --to notebook --nbformat 4`$")


@pytest.mark.parametrize(("doc", "found"), [
    ([{"cells": []}], r"its JSON is a list, not an object"),
    ("just a string", r"its JSON is a string, not an object"),
    ({"cells": []}, r'its JSON has no "nbformat" version'),
    ({"nbformat": "4", "cells": []}, r"its nbformat is '4', not a version number"),
    ({"nbformat": True, "cells": []}, r"its nbformat is True, not a version number"),
    ({"nbformat": 4, "metadata": {}}, r'it has no "cells" list'),
    ({"nbformat": 4, "cells": {"0": {}}}, r'its "cells" is an object, not a list'),
    ({"nbformat": 4, "cells": [["x = 1"]]}, r"cell 1 is a list, not a cell object"),
    ({"nbformat": 4, "cells": [{"cell_type": "code", "source": 12}]},
     r"cell 1's source is a number, not text"),
    ({"nbformat": 4, "cells": [{"cell_type": "code", "source": ["a", 1]}]},
     r"cell 1's source is a list, not text"),
])
def test_json_that_is_not_a_notebook_says_what_it_found(tmp_path, doc, found):
    refused(write_json(tmp_path / "odd.ipynb", doc), rf"^odd\.ipynb(:| is not a notebook:) "
                                                     rf"{found}$")


def test_json_nested_too_deeply_or_with_a_huge_number(tmp_path):
    deep = tmp_path / "deep.ipynb"
    deep.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    refused(deep, r"^deep\.ipynb is not a notebook: its JSON is nested too deeply$")
    digits = tmp_path / "digits.ipynb"
    digits.write_text('{"nbformat": ' + "4" * 10_000 + "}", encoding="utf-8")
    refused(digits, r"^digits\.ipynb is not a notebook: its JSON cannot be read \(Exceeds")


def test_sources_as_lists_or_strings_and_unknown_cell_types(tmp_path):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Mixed\n", "sources"]},
             {"cell_type": "code", "metadata": {"tags": ["x", 3]}, "outputs": [],
              "execution_count": None, "source": "a = 1\nb = 2"},
             {"cell_type": "slide", "metadata": {}, "source": "def nope(): pass"},
             {"metadata": {}, "source": "no type at all"},
             {"cell_type": "code", "metadata": "odd", "outputs": [], "execution_count": None,
              "source": ["c = 3\n", "d = 4"]}]
    path = write_json(tmp_path / "mixed.ipynb", {"nbformat": 4, "nbformat_minor": 5,
                                                 "metadata": {}, "cells": cells})
    lesson = read_lesson(path)
    assert [c.kind for c in lesson.cells] == ["markdown", "code", "raw", "raw", "code"]
    assert lesson.cells[0].source == "# Mixed\nsources"
    assert lesson.cells[1].tags == ("x",)
    assert [s.code for s in lesson.steps] == ["a = 1\nb = 2\n", "c = 3\nd = 4\n"]
    assert lesson.title == "Mixed"
    # the cells it does not know are written back as they were, next to an edited one
    write_lesson(lesson, {2: "c = 3\nd = 5\n"})  # step 2 is cell 4
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after["cells"][2:4] == cells[2:4]
    assert after["cells"][4]["source"] == ["c = 3\n", "d = 5\n"]
    assert after["cells"][0]["source"] == cells[0]["source"]


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    for name in ("huge.ipynb", "huge.py"):
        path = tmp_path / name
        with open(path, "wb") as fh:  # sparse: 50 MB on paper, nothing written
            fh.truncate(50_300_000)
        tracemalloc.start()
        try:
            what, limit = (("lessons", MAX_LESSON_BYTES) if name.endswith(".ipynb")
                           else ("text notebooks", MAX_TEXT_BYTES))
            refused(path, rf"^huge\.{path.suffix[1:]} is too large: 50\.3 MB \({what} are read "
                          rf"up to {limit // 1_000_000} MB\)$")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1_000_000


def test_cells_past_the_limit_are_refused_and_the_limit_opens_quickly(tmp_path):
    path = write_json(tmp_path / "many.ipynb", {
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "code", "source": f"x{i} = {i}"} for i in range(10_000)]})
    refused(path, rf"^many\.ipynb has 10,000 cells; lessons are read up to {MAX_CELLS:,} ")
    script = tmp_path / "many.py"
    script.write_text("".join(f"# %%\nx{i} = {i}\n" for i in range(10_000)), encoding="utf-8")
    refused(script, rf"^many\.py has more than {MAX_CELLS:,} cells; lessons are read up to ")
    # the most a lesson may have, each cell a code step with a directive, opens at once
    write_json(path, {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": f"# workbench: trace f{i} --args f32[3]\ndef f{i}(x):\n    return x"}
        for i in range(MAX_CELLS)]})
    started = time.perf_counter()
    lesson = read_lesson(path)
    assert time.perf_counter() - started < 1.5
    assert len(lesson.steps) == MAX_CELLS
    assert lesson.steps[-1].directive == CallDirective("trace", f"trace f{MAX_CELLS - 1} "
                                                       "--args f32[3]", f"f{MAX_CELLS - 1}",
                                                       "f32[3]")


def test_a_code_cell_past_the_limit_names_the_cell(tmp_path):
    big = "data = [" + "1, " * (MAX_CODE_CHARS // 3) + "]\n"
    nb = nbf.new_notebook(cells=[nbf.new_markdown_cell("# Data"), nbf.new_code_cell(big)])
    path = tmp_path / "data.ipynb"
    nbformat.write(nb, path)
    refused(path, rf"^data\.ipynb: cell 2 has {len(big):,} characters of code; a code cell "
                  rf"is read up to {MAX_CODE_CHARS:,} \(split it")
    script = tmp_path / "data.py"
    script.write_text(f"# %% [markdown]\n# # Data\n\n# %%\n{big}", encoding="utf-8")
    refused(script, rf"^data\.py: cell 2 has {len(big):,} characters of code")
    headless = tmp_path / "plain.py"  # no # %% at all: Jupytext's light format, one cell
    headless.write_text(big, encoding="utf-8")
    refused(headless, r"^plain\.py: cell 1 has ")
    # Markdown may be larger: it is shown, not run
    text = "# Long read\n\n" + "word " * (MAX_CODE_CHARS // 4)
    nbformat.write(nbf.new_notebook(cells=[nbf.new_markdown_cell(text),
                                           nbf.new_code_cell("x = 1")]), path)
    assert read_lesson(path).steps[0].text == text


@pytest.mark.parametrize(("name", "data", "pattern"), [
    ("png.ipynb", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
     r"^png\.ipynb is not UTF-8 text: byte 0x89 at offset 0 \(a binary file\?\)$"),
    ("latin.py", "# %%\nx = 'café'\n".encode("latin-1"),
     r"^latin\.py is not UTF-8 text: byte 0xe9 at offset 13 "),
    ("nul.py", b"# %%\nx = 1\n\x00\x00\x00", r"^nul\.py is a binary file, not text: a NUL "
                                              r"byte at offset 11$"),
    ("wide.ipynb", '{"nbformat": 4}'.encode("utf-16"),
     r"^wide\.ipynb is UTF-16 text: save it as UTF-8$"),
])
def test_binary_bytes(tmp_path, name, data, pattern):
    path = tmp_path / name
    path.write_bytes(data)
    refused(path, pattern)


def test_a_name_with_a_newline_stays_one_line(tmp_path):
    path = tmp_path / "two\nlines.ipynb"
    path.write_text("nope", encoding="utf-8")
    refused(path, r"^'two\\nlines\.ipynb' is not a notebook")


def test_utf8_byte_order_marks_are_read(tmp_path):
    path = tmp_path / "bom.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + nbformat.writes(notebook()).encode())
    assert read_lesson(path).title == "Notebook lesson"
    script = tmp_path / "bom.py"
    script.write_bytes(b"\xef\xbb\xbf" + SCRIPT.encode())
    lesson = read_lesson(script)
    assert lesson.title == "Percent lesson"
    assert lesson_text(lesson, {}).encode() == b"\xef\xbb\xbf" + SCRIPT.encode()


# ---------------------------------------------------------------------------- outputs


def image_notebook(megabytes):
    """The test notebook with a ``megabytes`` PNG output in its second code cell."""
    nb = notebook()
    png = base64.b64encode(os.urandom(megabytes * 750_000)).decode()
    nb.cells[3].outputs.append(nbf.new_output("display_data", data={
        "image/png": png, "text/plain": "<Figure size 640x480 with 1 Axes>"}))
    nb.cells[0].attachments = {"pic.png": {"image/png": png[:100_000]}}
    return nb


def test_outputs_are_dropped_on_reading(tmp_path):
    path = tmp_path / "big.ipynb"
    nbformat.write(image_notebook(15), path)
    size = path.stat().st_size
    assert size > 15_000_000
    tracemalloc.start()
    try:
        lesson = read_lesson(path)
        peak, now = tracemalloc.get_traced_memory()[1], tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert peak < 3.5 * size  # the bytes, the text and its JSON: nothing copied beyond
    assert now < 1_000_000  # the lesson keeps none of the image
    assert [s.title for s in lesson.steps] == ["Notebook lesson", "Call it"]


def test_saving_reads_the_outputs_back(tmp_path):
    path = tmp_path / "big.ipynb"
    nbformat.write(image_notebook(2), path)
    original = path.read_text(encoding="utf-8")
    lesson = read_lesson(path)
    assert lesson_text(lesson, {}) == original  # unedited: byte for byte, image included
    copy = write_lesson(lesson, {1: "def f(x):\n    return x + 2\n"}, tmp_path / "copy.ipynb").path
    before, after = nbformat.read(path, as_version=4), nbformat.read(copy, as_version=4)
    assert after.cells[1].outputs == [] and after.cells[1].execution_count is None
    assert after.cells[3].outputs == before.cells[3].outputs  # the image, intact
    assert after.cells[3].execution_count == 4
    assert after.cells[0].attachments == before.cells[0].attachments
    nbformat.validate(after)


def test_saving_when_the_file_changed_or_went_keeps_only_matching_outputs(tmp_path):
    path = tmp_path / "l.ipynb"
    nbformat.write(notebook(), path)
    lesson = read_lesson(path)
    changed = nbformat.read(path, as_version=4)
    changed.cells[3].source = "print(f(2.0))"  # edited elsewhere: its outputs are not ours
    nbformat.write(changed, path)
    write_lesson(lesson, {}, tmp_path / "copy.ipynb")
    after = nbformat.read(tmp_path / "copy.ipynb", as_version=4)
    assert after.cells[1].outputs == notebook().cells[1].outputs
    assert after.cells[3].source == "print(f(1.0))" and after.cells[3].outputs == []
    path.unlink()  # gone: the lesson is written from memory, without outputs
    write_lesson(lesson, {})
    after = nbformat.read(path, as_version=4)
    assert [c.get("outputs") for c in after.cells] == [None, [], None, []]
    assert after.cells[1].source == notebook().cells[1].source
    nbformat.validate(after)
