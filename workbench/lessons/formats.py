"""Reading and writing lessons: Jupyter notebooks (nbformat 4) and notebooks kept as text
(MyST Markdown, Jupytext's percent and light scripts: ``text_notebooks``, through jupytext).

A notebook keeps its metadata and the outputs of the cells the teacher did not edit;
a text notebook written back without edits is byte for byte the file it read.

A lesson is read whole, within limits checked before the work they bound: the file
at most ``MAX_LESSON_BYTES`` (checked before it is read; a text notebook
``text_notebooks.MAX_TEXT_BYTES``), at most ``MAX_CELLS``
cells, a code cell at most ``MAX_CODE_CHARS`` characters and a Markdown cell
``MAX_TEXT_CHARS``. Anything else wrong is one ``LessonError`` line too. A
notebook's outputs and attachments (images, often most of the file) are dropped from
the JSON kept for saving: the step shows what its code outputs when it runs, and a
Markdown cell's image attachments are kept on its ``Cell`` for its text. Saving
reads them back from the notebook file on disk, for every cell whose source there is
still the one read (``notebook_text``).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.api.limits import FileRefused, OpenedFile, read_opened_file
from workbench.api.writer import atomic_write_bytes
from workbench.lessons.bundled import is_bundled_file
from workbench.lessons.model import (
    Attachment,
    Cell,
    CellKind,
    Format,
    Lesson,
    LessonError,
    build_steps,
    lesson_title,
)
from workbench.lessons.text_notebooks import (
    MAX_TEXT_BYTES,
    TEXT_SUFFIXES,
    TextNotebook,
    other_language,
    read_text_notebook,
    suffix_of,
    text_notebook_text,
)

MB = 1_000_000
MAX_LESSON_BYTES = 20 * MB
"""A lesson file larger than this is refused before it is read (a lesson is text and code;
what makes a notebook big is the outputs it drops)."""
MAX_CELLS = 2_000
"""More cells than a lesson has: 2,000 code cells with a directive each open in under half
a second (their directives are parsed as the lesson opens)."""
MAX_CODE_CHARS = 200_000
"""A code cell is something to read in the editor and run: 200,000 characters is thousands
of lines. Bigger ones hold data, and the lesson is refused rather than shown cut."""
MAX_TEXT_CHARS = 1_000_000
"""A Markdown cell is shown whole beside the editor."""
NBFORMAT_CONVERT = "jupyter nbconvert --to notebook --nbformat 4"
_HEAVY = ("outputs", "attachments")  # cell keys dropped on reading, read back on saving
_CODE_ROW = re.compile(r"^[^\S\n]*[^\s#]", re.MULTILINE)  # a line that is not a comment


@dataclass(frozen=True)
class _Notebook:
    """A notebook as the writer needs it: its JSON without the heavy parts of its cells."""

    doc: dict[str, Any]
    dropped: Mapping[int, tuple[str, ...]]
    """Cell index -> the keys (outputs, attachments) dropped from it, to read back on saving."""


def _name(path: Path) -> str:
    """The file's name for a one-line message, even when it holds a newline."""
    return path.name if path.name.isprintable() else ascii(path.name)


def _size(n: int) -> str:
    return f"{n / MB:.1f} MB"


def _read_bytes(path: Path, limit: int = MAX_LESSON_BYTES,
                what: str = "lessons") -> OpenedFile:
    """The file's bytes, read as every file the user names is (``api.limits``): a regular
    file only, its size checked first, the read stopped past the limit."""
    name = _name(path)

    def too_big(size: int) -> str:
        return f"{name} is too large: {_size(size)} ({what} are read up to {limit // MB} MB)"

    try:
        return read_opened_file(path, limit, too_big, name=name)
    except FileRefused as exc:
        if exc.reason == "missing":
            raise LessonError(f"no such lesson: {path}") from None
        if exc.reason == "folder":
            raise LessonError(f"{name} is a folder, not a lesson") from None
        raise LessonError(str(exc)) from None


def content_key(data: bytes) -> str:
    """What trust is given to: ``sha256:HEX`` of a lesson's bytes, as Jupyter signs a
    notebook's content rather than its name."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _decode(data: bytes, name: str) -> str:
    """UTF-8 text (a UTF-8 byte order mark is allowed), or why the bytes are not text."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise LessonError(f"{name} is UTF-16 text: save it as UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LessonError(f"{name} is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset "
                          f"{exc.start:,} (a binary file?)") from None
    nul = text.find("\0")
    if nul >= 0:
        raise LessonError(f"{name} is a binary file, not text: a NUL byte at offset {nul:,}")
    return text


def read_lesson(path: str | os.PathLike[str]) -> Lesson:
    """The lesson in ``path``: a notebook (``.ipynb``), a MyST or Markdown notebook (``.md``)
    or a Jupytext script (``.py``); ``LessonError`` if none."""
    p = Path(path)
    suffix = suffix_of(p)
    name = _name(p)
    language = other_language(suffix)
    if language is not None:
        raise LessonError(f"{name} is a Jupytext notebook in {language}; lessons run Python "
                          "code (open a .ipynb, .md or .py notebook)")
    if suffix != ".ipynb" and suffix not in TEXT_SUFFIXES:
        raise LessonError(f"{name} is not a lesson: open a Jupyter notebook (.ipynb), a MyST "
                          "or Markdown notebook (.md) or a Jupytext script (.py)")
    limit = MAX_LESSON_BYTES if suffix == ".ipynb" else MAX_TEXT_BYTES
    opened = _read_bytes(p, limit, "lessons" if suffix == ".ipynb" else "text notebooks")
    lesson = lesson_from_text(_decode(opened.data, name), p)
    return dataclasses.replace(lesson, content_key=content_key(opened.data),
                               real_path=Path(opened.real_path),
                               bundled=is_bundled_file(opened.identity))


def lesson_from_text(text: str, path: Path) -> Lesson:
    """The lesson in a file's text; ``path``'s suffix says its format."""
    if suffix_of(path) == ".ipynb":
        return notebook_from_text(text, path)
    name = _name(path)
    cells, document = read_text_notebook(text, name, suffix_of(path), MAX_CELLS)
    for index, cell in enumerate(cells):
        _check_cell(cell.kind, len(cell.source), f"{name}: cell {index + 1}")
    cells = _header_as_raw(cells, document)
    return Lesson(path, _text_format(document), lesson_title(cells, path), cells,
                  build_steps(cells), document)


_TEXT_FORMATS: dict[str, Format] = {"percent": "percent", "light": "light", "myst": "myst",
                                     "markdown": "markdown"}


def _text_format(document: TextNotebook) -> Format:
    return _TEXT_FORMATS.get(document.format_name, "text")


def _header_as_raw(cells: tuple[Cell, ...], document: TextNotebook) -> tuple[Cell, ...]:
    """A script's leading comment block (its licence, a title) is the file's, not a step:
    a first code cell of comments only, before a cell marker, is kept as raw."""
    if (cells and cells[0].kind == "code" and document.format_name == "percent"
            and _CODE_ROW.search(cells[0].source) is None):
        return (Cell("raw", cells[0].source), *cells[1:])
    return cells


def _check_cell(kind: CellKind, chars: int, place: str) -> None:
    """A cell within its limit, checked before its text is worked on; ``place`` names it."""
    limit = {"code": MAX_CODE_CHARS, "markdown": MAX_TEXT_CHARS}.get(kind)
    if limit is not None and chars > limit:
        what = "code" if kind == "code" else "Markdown"
        raise LessonError(
            f"{place} has {chars:,} characters of {what}; a {what} cell is read up to "
            f"{limit:,} (split it, or keep big data in a file the code reads)")


# ---------------------------------------------------------------------------- notebooks


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _load_notebook(text: str, name: str) -> dict[str, Any]:
    """The notebook's JSON, checked as far as the lesson needs: an object, nbformat 4, a list
    of at most ``MAX_CELLS`` cells."""
    try:
        raw = json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as exc:
        where = ("line 1 is not JSON" if exc.pos == 0
                 else f"invalid JSON at line {exc.lineno:,}, column {exc.colno:,}")
        raise LessonError(f"{name} is not a notebook: {where} ({exc.msg})") from None
    except RecursionError:
        raise LessonError(f"{name} is not a notebook: its JSON is nested too deeply") from None
    except ValueError as exc:  # a number of more digits than int() reads
        why = str(exc).partition(":")[0]
        raise LessonError(f"{name} is not a notebook: its JSON cannot be read ({why})") from None
    if not isinstance(raw, dict):
        raise LessonError(f"{name} is not a notebook: its JSON is {_json_type(raw)}, "
                          "not an object")
    version = raw.get("nbformat")
    if version is None:
        raise LessonError(f"{name} is not a notebook: its JSON has no \"nbformat\" version")
    if type(version) is not int:
        raise LessonError(f"{name} is not a notebook: its nbformat is {_short(version)}, "
                          "not a version number")
    if version in (1, 2, 3):
        raise LessonError(f"{name}: nbformat {version} notebooks are not supported: convert "
                          f"with `{NBFORMAT_CONVERT}`")
    if version != 4:
        raise LessonError(f"{name}: unknown notebook format version {version} (the "
                          "workbench reads nbformat 4)")
    cells = raw.get("cells")
    if cells is None:
        raise LessonError(f"{name} is not a notebook: it has no \"cells\" list")
    if not isinstance(cells, list):
        raise LessonError(f"{name} is not a notebook: its \"cells\" is {_json_type(cells)}, "
                          "not a list")
    if len(cells) > MAX_CELLS:
        raise LessonError(f"{name} has {len(cells):,} cells; lessons are read up to "
                          f"{MAX_CELLS:,} (split it into several lessons)")
    return raw


def _source(value: object) -> str | None:
    """A cell's source, a string or a list of lines as Jupyter writes it; None if neither."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(value)
    return None


def _tags(cell: Mapping[str, Any]) -> tuple[str, ...]:
    meta = cell.get("metadata")
    tags = meta.get("tags") if isinstance(meta, dict) else None
    return tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else ()


def notebook_from_text(text: str, path: Path) -> Lesson:
    """The lesson in a notebook's text; its outputs and attachments are dropped from the
    JSON kept for the writer here (a Markdown cell's images are kept on its ``Cell``)."""
    name = _name(path)
    raw = _load_notebook(text, name)
    cells: list[Cell] = []
    dropped: dict[int, tuple[str, ...]] = {}
    for index, cell in enumerate(raw["cells"]):
        if not isinstance(cell, dict):
            raise LessonError(f"{name}: cell {index + 1} is {_json_type(cell)}, "
                              "not a cell object")
        source = _source(cell.get("source", ""))
        if source is None:
            raise LessonError(f"{name}: cell {index + 1}'s source is "
                              f"{_json_type(cell.get('source'))}, not text")
        kind = cell.get("cell_type")
        heavy = tuple(key for key in _HEAVY if cell.get(key))
        attachments = _attachments(cell.get("attachments")) if kind == "markdown" else ()
        for key in heavy:
            cell[key] = [] if key == "outputs" else {}
        if heavy:
            dropped[index] = heavy
        known: CellKind = kind if kind in ("markdown", "code") else "raw"
        _check_cell(known, len(source), f"{name}: cell {index + 1}")
        cells.append(Cell(known, source, _tags(cell), attachments))
    frozen = tuple(cells)
    return Lesson(path, "ipynb", lesson_title(frozen, path), frozen, build_steps(frozen),
                  _Notebook(raw, dropped))


def _attachments(value: object) -> tuple[Attachment, ...]:
    """A Markdown cell's attachments as ``(name, mime, base64)``: one image each (the first
    image type a bundle offers); anything else in the JSON is ignored."""
    if not isinstance(value, dict):
        return ()
    found: list[Attachment] = []
    for name, bundle in value.items():
        if not isinstance(name, str) or not isinstance(bundle, dict):
            continue
        for mime, data in bundle.items():
            if isinstance(mime, str) and mime.startswith("image/"):
                text = "".join(data) if isinstance(data, list) and all(
                    isinstance(d, str) for d in data) else data
                if isinstance(text, str):
                    found.append((name, mime, text))
                    break
    return tuple(found)


def _disk_cells(path: Path) -> list[Any]:
    """The cells of the notebook now on disk at ``path``; none if it cannot be read."""
    try:
        raw = _load_notebook(_decode(_read_bytes(path).data, _name(path)), _name(path))
    except LessonError:
        return []
    cells: list[Any] = raw["cells"]
    return cells


def _restore(path: Path, cells: list[Any], wanted: Mapping[int, tuple[str, ...]]) -> None:
    """Put back the outputs and attachments dropped on reading, from the file on disk, into
    the cells whose type and source there are still the ones read (by cell id, else by
    position); a cell changed or gone there keeps none."""
    disk = _disk_cells(path)
    by_id = {c["id"]: c for c in disk if isinstance(c, dict) and isinstance(c.get("id"), str)}
    for index, keys in wanted.items():
        mine = cells[index]
        ident = mine.get("id")
        theirs = by_id.get(ident) if isinstance(ident, str) else None
        if theirs is None and index < len(disk):
            theirs = disk[index]
        if (not isinstance(theirs, dict) or theirs.get("cell_type") != mine.get("cell_type")
                or _source(theirs.get("source", "")) != _source(mine.get("source", ""))):
            continue
        for key in keys:
            if key in theirs:
                mine[key] = theirs[key]


def notebook_text(lesson: Lesson, sources: Mapping[int, str]) -> str:
    """The notebook with the cells in ``sources`` (cell index -> source) replaced.

    An edited cell loses its outputs: they were computed from the old code. The other
    cells' outputs and attachments, dropped on reading, are read back from the notebook
    file (``lesson.path``) as it is now: a cell whose source there is no longer the one
    read, or a file gone or unreadable, leaves that cell without them. Written in
    ``nbformat.write``'s JSON layout (an edited source as a list of lines, other values as
    read), so an unedited notebook that Jupyter wrote comes back byte for byte.
    """
    nb: _Notebook = lesson.document
    doc = copy.deepcopy(nb.doc)
    cells: list[Any] = doc["cells"]
    wanted = {i: keys for i, keys in nb.dropped.items() if i not in sources}
    if wanted:
        _restore(lesson.path, cells, wanted)
    for index, source in sources.items():
        cell = cells[index]
        cell["source"] = source.splitlines(keepends=True)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    _strip_transient(doc)
    text = json.dumps(doc, indent=1, sort_keys=True, separators=(",", ": "),
                      ensure_ascii=False)
    return text + "\n"  # as Jupyter and nbformat.write end it


def _strip_transient(doc: dict[str, Any]) -> None:
    """What nbformat never writes to a file (``nbformat.v4.rwbase.strip_transient``)."""
    meta = doc.get("metadata")
    if isinstance(meta, dict):
        for key in ("orig_nbformat", "orig_nbformat_minor", "signature"):
            meta.pop(key, None)
    for cell in doc["cells"]:
        if isinstance(cell, dict) and isinstance(cell.get("metadata"), dict):
            cell["metadata"].pop("trusted", None)


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
    return text_notebook_text(lesson.document, sources)


@dataclass(frozen=True)
class WrittenLesson:
    """Where a lesson was written and the key of the bytes written there."""

    path: Path
    content_key: str


def write_lesson(lesson: Lesson, codes: Mapping[int, str],
                 path: str | os.PathLike[str] | None = None) -> WrittenLesson:
    """Write the lesson with its edited steps, in its own format, through the app's one
    writer (``api.writer``): atomic, the file's mode kept, a link at the lesson's own path
    followed only to the file the lesson was read from (elsewhere, to where it leads now:
    the user picked that name)."""
    target = Path(path) if path is not None else lesson.path
    same = os.path.abspath(target) == os.path.abspath(lesson.path)
    follow = lesson.real_path if same and lesson.real_path is not None \
        else Path(os.path.realpath(target))
    data = lesson_text(lesson, codes).encode("utf-8")
    atomic_write_bytes(target, data, follow=follow)
    return WrittenLesson(target, content_key(data))
