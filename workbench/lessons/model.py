"""A lesson as steps: the text to read and the code to open, whichever format it came from.

Markdown cells gather into the text of the step their next code cell closes;
markdown after the last code cell is a step of its own, text only. Empty code
cells are skipped. The cells themselves are kept, so the lesson can be written
back in its own format with the teacher's edits (``workbench.lessons.formats``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from workbench.lessons.directives import EXPECT_ERROR, Directive, split_cell

Format = Literal["ipynb", "percent"]
CellKind = Literal["markdown", "code", "raw"]
TITLE_CHARS = 60
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<title>.+?)\s*#*\s*$", re.MULTILINE)


class LessonError(ValueError):
    """A lesson file that cannot be read at all (not JSON, an unknown version, missing)."""


@dataclass(frozen=True)
class Cell:
    kind: CellKind
    source: str
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    """One step of a lesson; ``number`` counts from 1, as "step 3 of 12" does."""

    number: int
    title: str
    text: str
    """Markdown to show beside the editor."""
    code: str = ""
    """What the editor shows and the engine runs: the cell without its directive lines."""
    cell: int | None = None
    """Index of the code cell in ``Lesson.cells``; None for a text-only step."""
    directive: Directive | None = None
    directive_lines: tuple[str, ...] = ()
    expect_error: str | None = None
    """The error kind this step must fail with (``""``: any error); None when it must work."""
    problem: str | None = None
    """Why a directive was not understood; the step still runs its code."""

    @property
    def has_code(self) -> bool:
        return self.cell is not None


@dataclass(frozen=True)
class Lesson:
    path: Path
    format: Format
    title: str
    cells: tuple[Cell, ...]
    steps: tuple[Step, ...]
    document: Any = field(default=None, compare=False, repr=False)
    """What the writer needs besides the cells: the notebook (ipynb) or the file's parts."""

    def step(self, number: int) -> Step:
        return self.steps[number - 1]

    def step_filename(self, number: int) -> str:
        """The name a step's code runs under: its own, so the functions a step lists are the
        ones it defines, and errors name the step (``01_peek.ipynb, step 3``)."""
        return f"{self.path.name}, step {number}"


def first_title(text: str) -> str:
    """The first Markdown heading, else the first non-empty line, shortened."""
    match = _HEADING.search(text)
    line = match.group("title") if match else next(
        (row.strip() for row in text.splitlines() if row.strip()), "")
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def _expect_from_tags(tags: tuple[str, ...]) -> str | None:
    for tag in tags:
        if tag == EXPECT_ERROR:
            return ""
        if tag.startswith(EXPECT_ERROR + ":"):
            return tag.partition(":")[2].strip()
    return None


def _code_title(code: str) -> str:
    for row in code.splitlines():
        row = row.strip()
        if row and not row.startswith("#"):
            return first_title(row)
    return ""


def build_steps(cells: tuple[Cell, ...]) -> tuple[Step, ...]:
    steps: list[Step] = []
    texts: list[str] = []
    for index, cell in enumerate(cells):
        if cell.kind == "markdown":
            if cell.source.strip():
                texts.append(cell.source.strip("\n"))
            continue
        if cell.kind != "code" or not cell.source.strip():
            continue
        split = split_cell(cell.source)
        text = "\n\n".join(texts)
        texts = []
        expect = split.expect_error
        if expect is None:
            expect = _expect_from_tags(cell.tags)
        number = len(steps) + 1
        title = first_title(text) or _code_title(split.code) or f"Step {number}"
        steps.append(Step(number, title, text, split.code, index, split.directive, split.lines,
                          expect, split.problem))
    if texts:
        text = "\n\n".join(texts)
        steps.append(Step(len(steps) + 1, first_title(text) or f"Step {len(steps) + 1}", text))
    return tuple(steps)


def lesson_title(cells: tuple[Cell, ...], path: Path) -> str:
    for cell in cells:
        if cell.kind == "markdown" and cell.source.strip():
            match = _HEADING.search(cell.source)
            if match:
                return match.group("title")
    return path.stem.replace("_", " ")
