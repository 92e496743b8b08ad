"""`workbench lesson FILE --export OUT`: a handout of the lesson's run, its outputs and figures
inside, as HTML, as an executed notebook nbformat validates, and PDF or what to install."""

from __future__ import annotations

import base64
import json
import re

import nbformat
import pytest

from tests.cli.cli_util import run_cli
from workbench.lessons import read_lesson
from workbench.lessons.handout import PDF_NEEDS, StepShown, handout_notebook, pdf_route

LESSON = """\
---
kernelspec:
  name: python3
  display_name: Python 3
  language: python
---

# Handout lesson

Some *text* before the code.

```{code-cell}
print("hello from step 1")
```

A figure:

```{code-cell}
%matplotlib inline
import matplotlib.pyplot as plt
plt.plot([1, 3, 2])
plt.title("a small plot")
```

```{code-cell}
:tags: [remove-input]
6 * 7
```

```{code-cell}
:tags: [raises-exception]
1 / 0
```

```{code-cell}
:tags: [remove-cell]
hidden_setup = "never shown in HTML"
```
"""


@pytest.fixture
def lesson_file(tmp_path):
    path = tmp_path / "handout.md"
    path.write_text(LESSON, encoding="utf-8")
    return path


def test_an_executed_notebook_with_every_output(capsys, lesson_file, tmp_path):
    out = tmp_path / "class.ipynb"
    code, stdout, _ = run_cli(capsys, "lesson", str(lesson_file), "--export", str(out))
    assert code == 0, stdout
    assert f"handout written: {out}" in stdout
    nb = nbformat.read(out, as_version=4)
    nbformat.validate(nb)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.source for c in cells][0] == 'print("hello from step 1")'
    assert cells[0].outputs[0].output_type == "stream"
    assert cells[0].outputs[0].text == "hello from step 1\n"
    figure = [o for o in cells[1].outputs if o.output_type == "display_data"]
    png = base64.b64decode(figure[0].data["image/png"])
    assert png.startswith(b"\x89PNG")
    result = cells[2].outputs[0]
    assert result.output_type == "execute_result" and result.data["text/plain"] == "42"
    assert cells[2].execution_count == result.execution_count
    error = cells[3].outputs[-1]
    assert error.output_type == "error" and error.ename == "ZeroDivisionError"
    assert error.evalue == "division by zero"
    assert cells[3].metadata.tags == ["raises-exception"]
    assert [c.cell_type for c in nb.cells][:2] == ["markdown", "code"]
    assert nb.cells[0].source.startswith("# Handout lesson")


def test_one_html_page_with_the_figures_inside(capsys, lesson_file, tmp_path):
    out = tmp_path / "class.html"
    code, stdout, _ = run_cli(capsys, "lesson", str(lesson_file), "--export", str(out),
                              "--format", "json")
    assert code == 0
    assert json.loads(stdout)["handout"] == str(out)
    page = out.read_text(encoding="utf-8")
    assert len(re.findall(r'src="data:image/png;base64,iVBOR', page)) == 1  # the figure
    assert "hello from step 1" in page and "ZeroDivisionError" in page
    assert "Handout lesson" in page and "<em>text</em>" in page
    assert "6 * 7" not in page and "42" in page  # remove-input: its output only
    assert "never shown in HTML" not in page  # remove-cell


def test_the_teachers_edits_are_in_the_handout(lesson_file):
    lesson = read_lesson(lesson_file)
    nb = handout_notebook(lesson, {1: 'print("edited in class")\n'},
                          {1: StepShown()})
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source == 'print("edited in class")'
    assert code[1].source.startswith("%matplotlib inline")  # not edited: as read
    nbformat.validate(nb)


def test_a_pdf_is_made_or_says_what_to_install(capsys, lesson_file, tmp_path):
    out = tmp_path / "class.pdf"
    code, stdout, stderr = run_cli(capsys, "lesson", str(lesson_file), "--export", str(out))
    if pdf_route() is None:
        assert code == 2 and stdout == ""  # said before anything runs
        assert stderr.strip() == f"workbench lesson: error: {PDF_NEEDS}"
        assert not out.exists()
    else:
        assert code == 0 and out.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize(("name", "pattern"), [
    ("class.docx", r"--export class\.docx: a handout is OUT\.html, OUT\.ipynb or OUT\.pdf"),
    ("missing/class.html", r"--export .*missing/class\.html: no such folder: "),
])
def test_a_bad_export_is_one_line_before_anything_runs(capsys, lesson_file, tmp_path, name,
                                                       pattern):
    code, stdout, stderr = run_cli(capsys, "lesson", str(lesson_file), "--export",
                                   str(tmp_path / name))
    assert code == 2 and stdout == ""
    assert len(stderr.strip().splitlines()) == 1 and re.search(pattern, stderr)
