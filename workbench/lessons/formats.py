"""Reading and writing lessons: Jupyter notebooks (``nbformat``) and percent-format scripts.

A percent script is the Jupytext convention Spyder and VS Code also run: ``# %%``
starts a code cell, ``# %% [markdown]`` (or ``[md]``) a Markdown cell whose lines
are ``#``-prefixed, ``tags=["..."]`` on the marker line tags the cell. The
parser keeps every marker and blank line, so a script written back without
edits is byte for byte the file it read; a notebook keeps its metadata and the
outputs of the cells the teacher did not edit.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from workbench.lessons.model import Cell, CellKind, Lesson, LessonError, build_steps, lesson_title

MAX_LESSON_BYTES = 20 * 1024 * 1024
_MARKER = re.compile(r"^#\s?%%(?P<rest>.*)$")
_KIND = re.compile(r"\[(?P<kind>markdown|md|raw)\]")
_TAGS = re.compile(r"tags\s*=\s*(?P<tags>\[[^\]]*\])")


@dataclass(frozen=True)
class _PercentCell:
    marker: str | None  # the "# %%" line with its newline; None for code before the first
    body: str  # the lines after the marker, without the blank lines that end the cell
    gap: str  # the blank lines that end the cell


def _read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise LessonError(f"no such lesson: {path}") from None
    except OSError as exc:
        raise LessonError(f"cannot read {path}: {exc.strerror or exc}") from None
    if path.is_dir():
        raise LessonError(f"{path} is a folder, not a lesson")
    if size > MAX_LESSON_BYTES:
        raise LessonError(f"{path} is {size / 1e6:.0f} MB; a lesson is at most "
                          f"{MAX_LESSON_BYTES / 1e6:.0f} MB")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise LessonError(f"cannot read {path}: {exc.strerror or exc}") from None


def read_lesson(path: str | os.PathLike[str]) -> Lesson:
    """The lesson in ``path`` (``.ipynb`` or a ``.py`` percent script); ``LessonError`` if none."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".ipynb", ".py"):
        raise LessonError(f"{p.name} is not a lesson: open a Jupyter notebook (.ipynb) or a "
                          "percent-format script (.py with # %% cells)")
    data = _read_bytes(p)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise LessonError(f"{p.name} is not UTF-8 text") from None
    return notebook_from_text(text, p) if suffix == ".ipynb" else percent_from_text(text, p)


# ---------------------------------------------------------------------------- notebooks


def notebook_from_text(text: str, path: Path) -> Lesson:
    import nbformat

    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LessonError(f"{path.name} is not a notebook: invalid JSON at line {exc.lineno}, "
                          f"column {exc.colno} ({exc.msg})") from None
    if not isinstance(raw, dict):
        raise LessonError(f"{path.name} is not a notebook: its JSON is not an object")
    version = raw.get("nbformat")
    if version not in (3, 4):
        raise LessonError(f"{path.name}: unknown notebook format version {version!r} "
                          "(this reads nbformat 3 and 4)")
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises jsonschema's and its own
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LessonError(f"{path.name} is not a valid notebook: {message}") from None
    cells: list[Cell] = []
    for cell in nb.cells:
        kind: CellKind = cell.get("cell_type", "raw")
        if kind not in ("markdown", "code", "raw"):
            kind = "raw"
        tags = tuple(str(t) for t in cell.get("metadata", {}).get("tags", ()))
        cells.append(Cell(kind, str(cell.get("source", "")), tags))
    frozen = tuple(cells)
    return Lesson(path, "ipynb", lesson_title(frozen, path), frozen, build_steps(frozen), nb)


def notebook_text(lesson: Lesson, sources: Mapping[int, str]) -> str:
    """The notebook with the cells in ``sources`` (cell index -> source) replaced.

    An edited cell loses its outputs: they were computed from the old code.
    """
    import copy

    import nbformat

    nb = copy.deepcopy(lesson.document)
    for index, source in sources.items():
        cell = nb.cells[index]
        cell.source = source
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    text = str(nbformat.writes(nb))
    return text if text.endswith("\n") else text + "\n"  # as Jupyter and nbformat.write end it


# ---------------------------------------------------------------------------- percent scripts


def _split_percent(text: str) -> tuple[_PercentCell, ...]:
    rows = text.splitlines(keepends=True)
    groups: list[tuple[str | None, list[str]]] = [(None, [])]
    for row in rows:
        if _MARKER.match(row.rstrip("\r\n")):
            groups.append((row, []))
        else:
            groups[-1][1].append(row)
    cells: list[_PercentCell] = []
    for marker, body in groups:
        end = len(body)
        while end and not body[end - 1].strip():
            end -= 1
        cells.append(_PercentCell(marker, "".join(body[:end]), "".join(body[end:])))
    return tuple(cells)


def _marker_kind(marker: str) -> tuple[CellKind, tuple[str, ...]]:
    rest = _MARKER.match(marker.rstrip("\r\n"))
    assert rest is not None
    kind_match = _KIND.search(rest.group("rest"))
    kind: CellKind = "code"
    if kind_match:
        kind = "raw" if kind_match.group("kind") == "raw" else "markdown"
    tags: tuple[str, ...] = ()
    tag_match = _TAGS.search(rest.group("rest"))
    if tag_match:
        try:
            found = json.loads(tag_match.group("tags"))
            tags = tuple(str(t) for t in found) if isinstance(found, list) else ()
        except json.JSONDecodeError:
            tags = ()
    return kind, tags


def _uncomment(body: str) -> str:
    out = []
    for row in body.splitlines():
        stripped = row.lstrip()
        if stripped.startswith("# "):
            out.append(stripped[2:])
        elif stripped.startswith("#"):
            out.append(stripped[1:])
        else:
            out.append(row)
    return "\n".join(out)


def percent_from_text(text: str, path: Path) -> Lesson:
    parts = _split_percent(text)
    cells: list[Cell] = []
    kept: list[_PercentCell] = []
    for part in parts:
        if part.marker is None:
            # Before the first marker: a header of comments is the file's, code is a cell.
            code_rows = [r for r in part.body.splitlines() if r.strip() and
                         not r.lstrip().startswith("#")]
            if not code_rows:
                kept.append(part)
                cells.append(Cell("raw", part.body))
                continue
            cells.append(Cell("code", _lf(part.body)))
        else:
            kind, tags = _marker_kind(part.marker)
            cells.append(Cell(kind, _uncomment(part.body) if kind == "markdown"
                              else _lf(part.body), tags))
        kept.append(part)
    frozen = tuple(cells)
    return Lesson(path, "percent", lesson_title(frozen, path), frozen, build_steps(frozen),
                  tuple(kept))


def _lf(text: str) -> str:
    """Code as the editor holds it and the engine runs it: ``\n`` line ends (a CRLF file's too)."""
    return text.replace("\r\n", "\n")


def percent_text(lesson: Lesson, sources: Mapping[int, str]) -> str:
    """The script with the code cells in ``sources`` (cell index -> source) replaced.

    Edited cells get the file's own line ends (CRLF when its first line ends so).
    """
    out: list[str] = []
    parts: tuple[_PercentCell, ...] = lesson.document
    original = "".join((p.marker or "") + p.body + p.gap for p in parts)
    newline = "\r\n" if original[: original.find("\n") + 1].endswith("\r\n") else "\n"
    for index, part in enumerate(parts):
        body = part.body
        if index in sources:
            body = sources[index].rstrip("\n") + "\n" if sources[index].strip() else ""
            body = body.replace("\r\n", "\n").replace("\n", newline)
        gap = part.gap
        if index in sources and index < len(parts) - 1 and not gap:
            gap = newline  # keep a blank line before the next marker
        out.append((part.marker or "") + body + gap)
    return "".join(out)


# ---------------------------------------------------------------------------- writing


def cell_source(code: str, directive_lines: tuple[str, ...]) -> str:
    """A code cell's source from the editor's code and the step's directive lines."""
    head = "".join(line + "\n" for line in directive_lines)
    return head + code


def lesson_text(lesson: Lesson, codes: Mapping[int, str]) -> str:
    """The lesson file's text with the steps in ``codes`` (step number -> editor code) edited."""
    sources: dict[int, str] = {}
    for number, code in codes.items():
        step = lesson.step(number)
        if step.cell is None:
            continue
        sources[step.cell] = cell_source(code, step.directive_lines)
    if lesson.format == "ipynb":
        return notebook_text(lesson, sources)
    return percent_text(lesson, sources)


def write_lesson(lesson: Lesson, codes: Mapping[int, str],
                 path: str | os.PathLike[str] | None = None) -> Path:
    """Write the lesson with its edited steps, in its own format, atomically; the path."""
    target = Path(path) if path is not None else lesson.path
    text = lesson_text(lesson, codes)
    tmp = target.with_name(f".{target.name}.wb-tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    os.replace(tmp, target)
    return target
