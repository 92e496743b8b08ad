"""A lesson as steps: the text to read and the code to open, whichever format it came from.

Markdown cells gather into the text of the step their next code cell closes;
markdown after the last code cell is a step of its own, text only. Empty code
cells are skipped. The cells themselves are kept, so the lesson can be written
back in its own format with the teacher's edits (``workbench.lessons.formats``).

Cell tags are Jupyter's: ``expect-error`` / ``expect-error:KIND`` (the workbench's)
mark a step meant to fail; ``raises-exception`` (nbclient's and Jupyter Book's) one
that may fail (an error is allowed, not required, as in Jupyter);
``skip-execution`` (theirs too) marks a step whose code is shown and never run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from workbench.lessons.directives import (
    EXPECT_ERROR,
    RAISES_EXCEPTION,
    SKIP_EXECUTION,
    Directive,
    split_cell,
)
from workbench.lessons.markdown import first_heading, first_prose_line

Format = Literal["ipynb", "percent", "light", "myst", "markdown", "text"]
"""How the file keeps its cells: a Jupyter notebook, or as text (Jupytext's format names)."""
CellKind = Literal["markdown", "code", "raw"]
TITLE_CHARS = 60


class LessonError(ValueError):
    """A lesson file that cannot be read at all (not JSON, an unknown version, too large,
    missing); its message is one line that names the file and what was found."""


Attachment = tuple[str, str, str]
"""A Markdown cell's image: its name (``attachment:NAME``), MIME type and base64 bytes."""


@dataclass(frozen=True)
class Cell:
    kind: CellKind
    source: str
    tags: tuple[str, ...] = ()
    attachments: tuple[Attachment, ...] = field(default=(), repr=False)
    """A Markdown cell's images (pasted screenshots), shown in its text."""


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
    skip: bool = False
    """Tagged ``skip-execution``: the code is shown, but neither it nor its directive runs."""
    may_raise: bool = False
    """Tagged ``raises-exception`` (Jupyter's): an error is allowed, not required."""
    attachments: tuple[Attachment, ...] = field(default=(), repr=False)
    """The images the step's Markdown cells carry (``attachment:NAME`` in ``text``)."""

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
    """What the writer needs besides the cells: the notebook's JSON without its outputs
    (ipynb; ``formats`` reads those back from the file on saving) or the script's parts."""
    content_key: str = ""
    """``sha256:HEX`` of the exact bytes the lesson was read from: trust is decided on
    these, the bytes whose code runs, never on the file as it is later."""
    real_path: Path | None = None
    """The file those bytes came from (links resolved as it was read): a save through a
    link follows it only there."""
    bundled: bool = False
    """Read from a file shipped with the workbench (decided on the file that was read,
    not on its path): it runs without asking."""

    def step(self, number: int) -> Step:
        return self.steps[number - 1]

    def step_filename(self, number: int) -> str:
        """The name a step's code runs under: its own, so the functions a step lists are the
        ones it defines, and errors name the step (``01_peek.ipynb, step 3``)."""
        return f"{self.path.name}, step {number}"


def first_title(text: str) -> str:
    """The first Markdown heading, else the first line of prose, as plain text (``**Note**``
    reads ``Note``), shortened; never a ``# comment`` of a fenced code block."""
    return _shorten(first_heading(text) or first_prose_line(text))


def _shorten(line: str) -> str:
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def _expect_from_tags(tags: tuple[str, ...]) -> str | None:
    """The error kind the tags expect: ``expect-error:KIND`` names one; ``expect-error`` takes
    any; None when no tag expects an error (``raises-exception`` only allows one)."""
    expect: str | None = None
    for tag in tags:
        if tag.startswith(EXPECT_ERROR + ":") and tag.partition(":")[2].strip():
            return tag.partition(":")[2].strip()
        if tag in (EXPECT_ERROR, EXPECT_ERROR + ":"):
            expect = ""
    return expect


def _code_title(code: str) -> str:
    for row in code.splitlines():
        row = row.strip()
        if row and not row.startswith(("#", "@")):  # a decorator says less than its def
            return _shorten(row)
    return ""


def build_steps(cells: tuple[Cell, ...]) -> tuple[Step, ...]:
    steps: list[Step] = []
    texts: list[str] = []
    attached: list[Attachment] = []
    for index, cell in enumerate(cells):
        if cell.kind == "markdown":
            if cell.source.strip():
                texts.append(cell.source.strip("\n"))
                attached.extend(cell.attachments)
            continue
        if cell.kind != "code" or not cell.source.strip():
            continue
        split = split_cell(cell.source)
        text = "\n\n".join(texts)
        texts = []
        attachments, attached = tuple(attached), []
        expect = split.expect_error
        if expect is None:
            expect = _expect_from_tags(cell.tags)
        number = len(steps) + 1
        title = first_title(text) or _code_title(split.code) or f"Step {number}"
        steps.append(Step(number, title, text, split.code, index, split.directive, split.lines,
                          expect, split.problem, skip=SKIP_EXECUTION in cell.tags,
                          may_raise=RAISES_EXCEPTION in cell.tags, attachments=attachments))
    if texts:
        text = "\n\n".join(texts)
        steps.append(Step(len(steps) + 1, first_title(text) or f"Step {len(steps) + 1}", text,
                          attachments=tuple(attached)))
    return tuple(steps)


def lesson_title(cells: tuple[Cell, ...], path: Path) -> str:
    for cell in cells:
        if cell.kind == "markdown" and cell.source.strip():
            heading = first_heading(cell.source)
            if heading:
                return heading
    return path.stem.replace("_", " ")
