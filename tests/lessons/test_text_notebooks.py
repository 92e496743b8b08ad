"""MyST and Jupytext notebooks as lessons, on JAX's own tutorials: one step per code cell,
their tags, and saving that changes only what the teacher edited."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import jupytext
import pytest

from workbench.lessons import LessonError, lesson_text, read_lesson, write_lesson
from workbench.lessons.text_notebooks import MAX_TEXT_BYTES

JAX_DOCS = Path(__file__).parent / "data" / "jax_docs"
REAL = [JAX_DOCS / name for name in ("jit-compilation.md", "key-concepts.md", "arrays.md",
                                     "array_refs.py")]
EDIT = "edited_by_the_teacher = True"


def code_cells(path: Path) -> int:
    return sum(c.cell_type == "code" and bool(c.source.strip())
               for c in jupytext.read(path).cells)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_a_real_notebook_opens_with_one_step_per_code_cell(path):
    lesson = read_lesson(path)
    assert lesson.format == ("myst" if path.suffix == ".md" else "light")
    assert sum(s.has_code for s in lesson.steps) == code_cells(path) > 10
    assert lesson_text(lesson, {}) == path.read_text(encoding="utf-8")


def test_myst_tags_are_the_steps():
    lesson = read_lesson(JAX_DOCS / "jit-compilation.md")
    assert lesson.title == "Just-in-time compilation"
    first = lesson.step(1)
    assert first.code == "# This ensures that code cell tracebacks appearing below will be " \
                         "concise.\n%xmode minimal\n"
    assert lesson.cells[first.cell].tags == ("remove-cell",)
    raising = [s.number for s in lesson.steps if s.may_raise]
    assert raising == [7, 8]
    assert "x.ndim" in lesson.step(7).code or "if" in lesson.step(7).code


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_an_edited_step_changes_only_its_own_lines(path, tmp_path):
    original = path.read_text(encoding="utf-8")
    lesson = read_lesson(shutil.copy(path, tmp_path / path.name))
    steps = [s for s in lesson.steps if s.has_code]
    for step in (steps[0], steps[len(steps) // 2], steps[-1]):
        target = tmp_path / f"edited-{step.number}{path.suffix}"
        write_lesson(lesson, {step.number: step.code + EDIT + "\n"}, target)
        written = target.read_text(encoding="utf-8")
        # one line more, every other byte kept: the header's jupytext_version too
        assert written.count(EDIT) == 1 and written.replace(EDIT + "\n", "") == original
        again = read_lesson(target)
        assert again.step(step.number).code == step.code + EDIT + "\n"
        assert [s.code for s in again.steps if s.number != step.number] == \
               [s.code for s in lesson.steps if s.number != step.number]


def test_a_percent_script_keeps_its_magics_commented_as_jupytext_writes_them(tmp_path):
    path = tmp_path / "magic.py"
    path.write_text("# %%\n# %matplotlib inline\nimport math\n\n# %%\nx = 1\n", "utf-8")
    lesson = read_lesson(path)
    assert lesson.step(1).code == "%matplotlib inline\nimport math\n"
    write_lesson(lesson, {2: "x = 2\n"})
    assert path.read_text("utf-8") == "# %%\n# %matplotlib inline\nimport math\n\n# %%\nx = 2\n"


def test_a_markdown_file_with_python_blocks_is_a_lesson(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nSome text.\n\n```python\nx = 1\n```\n\nMore.\n", "utf-8")
    lesson = read_lesson(path)
    assert lesson.format == "markdown" and lesson.title == "Notes"
    assert [s.code for s in lesson.steps] == ["x = 1\n", ""]


def test_crlf_and_a_byte_order_mark_survive_an_edit(tmp_path):
    text = (JAX_DOCS / "key-concepts.md").read_text("utf-8")
    path = tmp_path / "k.md"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    lesson = read_lesson(path)
    step = next(s for s in lesson.steps if s.has_code)
    write_lesson(lesson, {step.number: step.code + EDIT + "\n"})
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\n" not in data.replace(b"\r\n", b"")
    assert read_lesson(path).step(step.number).code.endswith(EDIT + "\n")


# ---------------------------------------------------------------------------- bad files


def refused(path: Path, pattern: str) -> str:
    with pytest.raises(LessonError, match=pattern) as info:
        read_lesson(path)
    assert "\n" not in str(info.value)
    return str(info.value)


def test_a_broken_front_matter_says_where(tmp_path):
    path = tmp_path / "broken.md"
    path.write_text("---\njupytext:\n  formats: md:myst\n kernelspec: [\n---\n\n"
                    "```{code-cell}\nx = 1\n```\n", "utf-8")
    refused(path, r"^broken\.md: its front matter \(the --- block at the top\) is not YAML: "
                  r"expected <block end>, but found '<block mapping start>' \(line 4\)$")


def test_bad_code_cell_options_are_one_line(tmp_path):
    path = tmp_path / "options.md"
    path.write_text("```{code-cell}\n:tags: [remove-cell\nx = 1\n```\n", "utf-8")
    refused(path, r"^options\.md cannot be read as a notebook: ")


def test_a_notebook_of_another_language_is_not_a_lesson(tmp_path):
    path = tmp_path / "r.md"
    path.write_text("---\nkernelspec:\n  name: ir\n  language: R\n  display_name: R\n---\n\n"
                    "```{code-cell} r\nx <- 1\n```\n", "utf-8")
    refused(path, r"^r\.md is a notebook in R \(its kernelspec: ir\); lessons run Python code$")
    script = tmp_path / "analysis.R"
    script.write_text("# %%\nx <- 1\n", "utf-8")
    refused(script, r"^analysis\.R is a Jupytext notebook in R; lessons run Python code")
    julia = tmp_path / "fit.jl"
    julia.write_text("# %%\nx = 1\n", "utf-8")
    refused(julia, r"^fit\.jl is a Jupytext notebook in julia;")


def test_a_20_mb_markdown_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.md"
    path.write_text("word " * 4_000_000, "utf-8")
    started = time.perf_counter()
    refused(path, rf"^huge\.md is too large: 20\.0 MB \(text notebooks are read up to "
                  rf"{MAX_TEXT_BYTES // 1_000_000} MB\)$")
    assert time.perf_counter() - started < 1.0


def test_many_cells_and_much_code_are_refused_before_jupytext_reads_them(tmp_path):
    paragraphs = tmp_path / "paragraphs.md"  # Markdown's cells end at two blank lines
    paragraphs.write_text("para\n\n\n" * 20_000, "utf-8")
    refused(paragraphs, r"^paragraphs\.md has more than 2,000 cells; lessons are read up to ")
    light = tmp_path / "light.py"  # the light format's cells end at a blank line
    light.write_text("x = 1\n\n" * 20_000, "utf-8")
    refused(light, r"^light\.py has more than 2,000 cells")
    code = tmp_path / "code.py"
    code.write_text(("x = " + "1" * 99 + "\n") * 12_000, "utf-8")
    refused(code, r"^code\.py has 1,236,000 characters of code; a text notebook is read up "
                  r"to 1,000,000 ")


def test_an_unknown_suffix_names_the_formats(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("x = 1\n", "utf-8")
    message = refused(path, r"^notes\.txt is not a lesson: ")
    assert re.search(r"\.ipynb.*\.md.*\.py", message)
