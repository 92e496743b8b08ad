"""Every pattern on a lesson's text runs in linear time: crafted lines a few hundred KB long
are read in well under a second each, where the old patterns took minutes.

Each family below made one of the old patterns quadratic (measured at 40 KB: the tags line
0.4 s, a directive line with a run of spaces 12.8 s, a role's title 5.5 s; at the size used
here, just under a code cell's limit, that is 10 s, 5 min and 2 min). A hang guard, not a
speed target: the limit is far above what the linear code takes on a loaded machine (a few
ms), below the old times.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from workbench.lessons.directives import directive_text, split_cell
from workbench.lessons.formats import lesson_from_text
from workbench.lessons.markdown import _role_text, render_markdown
from workbench.lessons.model import LessonError
from workbench.lessons.text_notebooks import MAX_MARKER_CHARS

SIZE = 190_000  # a code cell is read up to 200,000 characters
LIMIT_S = 3.0


def _timed(read, text: str, *more):
    start = time.perf_counter()
    result = read(text, *more)
    took = time.perf_counter() - start
    assert took < LIMIT_S, f"{took:.1f} s for {len(text)} characters: not linear"
    return result


def _percent(line: str) -> str:
    return f"{line}\nx = 1\n"


def _lesson(text: str, name: str = "crafted.py"):
    return lesson_from_text(text, Path(name))


def _lesson_or_refusal(text: str, name: str = "crafted.py"):
    """The lesson, or the one line that refuses it (a refusal is an answer too)."""
    try:
        return _lesson(text, name)
    except LessonError as exc:
        assert "\n" not in str(exc)
        return str(exc)


MARKERS = {  # jupytext reads a marker's options with quadratic patterns: 190 KB took 24 s
    "unclosed tags lists": lambda n: "# %% " + "tags=[" * (n // 6),
    "tags then spaces": lambda n: "# %% " + "tags" + " " * n + "=",
    "tags, spaces, equals, spaces": lambda n: "# %% " + ("tags  =  " * (n // 9)),
    "a kind never closed": lambda n: "# %% " + "[markdown" * (n // 9),
    "light options": lambda n: "# + " + "tags=[" * (n // 6),
    "a fence's options": lambda n: "```{code-cell} " + ":tags: [" * (n // 9),
    "a region's options": lambda n: "<!-- #region " + "tags=[" * (n // 6),
}


@pytest.mark.parametrize("line", MARKERS.values(), ids=MARKERS.keys())
def test_a_crafted_cell_marker_is_refused_at_once_or_read_at_its_limit(line):
    name = "crafted.md" if line(0).startswith(("`", "<")) else "crafted.py"
    refusal = _timed(_lesson_or_refusal, _percent(line(SIZE)), name)
    chars = len(line(SIZE).strip())
    assert refusal == (f"{name}: a line that starts a cell has {chars:,} characters "
                       f"(a cell's marker is read up to {MAX_MARKER_CHARS:,})")
    _timed(_lesson, _percent(line(MAX_MARKER_CHARS - 16)), name)


def test_the_tags_of_a_marker_are_still_read():
    lesson = _lesson('# %% [markdown] tags=["a", "b"]\n# hello\n')
    assert lesson.cells[-1].tags == ("a", "b") and lesson.cells[-1].kind == "markdown"
    lesson = _lesson('# %% tags = ["only"]  x\nx = 1\n')
    assert lesson.cells[-1].tags == ("only",)
    assert _lesson("# %% tags=[\nx = 1\n").cells[-1].tags == ()


DIRECTIVE_LINES = {
    "spaces inside the text": "# workbench: trace" + " " * SIZE + "f",
    "spaces after the text": "# workbench: trace f" + " " * SIZE,
    "tabs and spaces before the head": " \t" * (SIZE // 2) + "# workbench: trace f",
    "heads repeated": "# workbench:" * (SIZE // 12),
}


@pytest.mark.parametrize("line", DIRECTIVE_LINES.values(), ids=DIRECTIVE_LINES.keys())
def test_a_crafted_directive_line_is_read_in_linear_time(line):
    cell = _timed(split_cell, line + "\nx = 1\n")
    assert cell.lines == (line,) and cell.code == "x = 1\n"


def test_a_directive_line_still_says_what_it_asks():
    assert directive_text("   #   workbench:   trace f   \n") == "trace f"
    assert directive_text("# workbench:") == ""
    assert directive_text("x = 1  # workbench: trace f") is None


MARKDOWN = 95_000  # the lesson panel renders up to 100,000 characters of a cell
ROLE_TEXTS = {
    "a run of spaces in a title": "{func}`a" + " " * MARKDOWN + "b`",
    "many openings": "{func}`" + "a <" * (MARKDOWN // 3) + "`",
    "targets that never close": "{func}`" + "t <x" * (MARKDOWN // 4) + "`",
}


@pytest.mark.parametrize("text", ROLE_TEXTS.values(), ids=ROLE_TEXTS.keys())
def test_crafted_markdown_is_rendered_in_linear_time(text):
    assert _timed(render_markdown, text).html
    # The role's text itself (markdown-it leaves a role this long as text: a shorter one,
    # or one in a cell's other syntax, reaches it).
    _timed(_role_text, text[len("{func}`"):-1])


def test_a_role_still_shows_its_title():
    assert "<code>the sum</code>" in render_markdown("{func}`the sum <jax.numpy.sum>`").html
    assert "<code>sum</code>" in render_markdown("{func}`~jax.numpy.sum`").html
    assert "<code>a &lt;b&gt; c</code>" in render_markdown("{func}`a <b> c`").html
    assert _role_text("title" + " " * 1000 + "<target>") == "title"
    assert _role_text("<target>") == "<target>" and _role_text("a <>") == "a <>"


def test_random_lines_of_the_syntax_pieces_are_read_in_linear_time():
    """A fuzz over lines made of every piece the readers' patterns look for."""
    pieces = ["# %%", "tags", "=", "[", "]", "[markdown]", "# workbench:", " ", "\t", "<",
              ">", "{func}`", "`", "data:image/png;base64,", "QUJD", "\\begin{equation}",
              "$", "x"]
    rng = random.Random(20261128)
    for _ in range(12):
        chosen = rng.sample(pieces, 4)
        parts: list[str] = []
        while sum(map(len, parts)) < SIZE:
            parts.append(rng.choice(chosen) * rng.randint(1, 40))
        line = "".join(parts)[:SIZE]
        _timed(_lesson_or_refusal, _percent(line))
        _timed(split_cell, line)
        _timed(render_markdown, line[:MARKDOWN])
