"""Notebooks kept as text: MyST Markdown (``{code-cell}`` blocks) and Jupytext's scripts
(percent ``# %%``, light, ...), read and written through jupytext, as Jupyter opens them.

JAX's own tutorials are such files. Jupytext decides the format (the front matter's
``jupytext`` block, else what the text looks like), and its cells become the lesson's:
a step per code cell, Markdown as text, cell tags (``raises-exception``,
``skip-execution``, ``remove-cell``) kept. Saving writes the same format back:
nothing when the teacher edited nothing, and with edits jupytext's writing of the
notebook, with every difference jupytext makes to the teacher's own lines (its version
in the header, spacing it normalises) undone outside the edited cells.

Jupytext reads about 0.5 ms per cell and a microsecond per character of code, so what
it is given is bounded first, in one pass over the lines: ``MAX_TEXT_BYTES`` in all,
``MAX_CELLS`` places where a cell may start, ``MAX_SCRIPT_CODE_CHARS`` of code.
"""

from __future__ import annotations

import copy
import difflib
import logging
import threading
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.lessons.model import Cell, CellKind, LessonError

MB = 1_000_000
MAX_TEXT_BYTES = 4 * MB
"""A text notebook has no outputs: 4 MB is ten times JAX's longest tutorial without its
images (autodidax, 107 KB; shard_map's 2.4 MB is base64 figures in its Markdown)."""
MAX_SCRIPT_CODE_CHARS = 1 * MB
"""Characters on code lines jupytext scans quote by quote (a second per MB)."""
MAX_MARKER_CHARS = 2_000
"""A line that starts a cell (``# %% tags=[...]``, a fence): jupytext reads its options with
patterns that take quadratic time (190,000 characters: 24 s); real ones are a line."""
MARKDOWN_SUFFIXES = (".md", ".markdown", ".myst", ".mystnb", ".mnb")
SCRIPT_SUFFIXES = (".py",)
TEXT_SUFFIXES = MARKDOWN_SUFFIXES + SCRIPT_SUFFIXES
_FENCES = ("```", "~~~", "+++", "<!--")  # where jupytext's Markdown formats start a cell
_SCRIPT_MARKS = ("# %%", "#%%", "# +", "# -", "# In[", "# <codecell>", "# <markdowncell>")
_LOG = logging.getLogger("jupytext")
# One import at a time: the window warms jupytext up on a thread (``warm_up``) while a
# lesson may be opened on the GUI thread.
_IMPORT = threading.Lock()


def _jupytext() -> Any:
    """jupytext, imported on first use: where jsonschema's format checkers are installed
    (Jupyter Server brings them) its nbformat takes seconds to import, a cost only a text
    notebook's reading should pay, and the window pays on a thread (``warm_up``)."""
    with _IMPORT:
        import jupytext

    return jupytext


def warm_up() -> None:
    """Import jupytext ahead of the first text notebook (the window does, on a thread)."""
    _jupytext()


@dataclass(frozen=True)
class TextNotebook:
    """What the writer needs: the file's text as read and jupytext's notebook of it."""

    text: str
    """The file's text with ``\\n`` line ends and no byte order mark (``bom``, ``crlf``)."""
    notebook: Any
    fmt: dict[str, str]
    """Jupytext's format of the file (its extension and format name)."""
    crlf: bool = False
    bom: bool = False

    @property
    def format_name(self) -> str:
        return self.fmt.get("format_name", "")


def other_language(suffix: str) -> str | None:
    """The language of a Jupytext script in another language than Python (``.R``, ``.jl``);
    None for any other suffix."""
    if suffix in TEXT_SUFFIXES or suffix == ".ipynb":
        return None
    from jupytext.languages import _SCRIPT_EXTENSIONS  # jupytext only for a text notebook

    language = _SCRIPT_EXTENSIONS.get(suffix, {}).get("language")
    return str(language) if language else None


def _lines(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end]
        start = end + 1


def _bound(text: str, name: str, markdown: bool, max_cells: int) -> None:
    """Refuse, in one pass, a text jupytext would read for long: more places where a cell
    may start than a lesson's cells, or (scripts) more code than a lesson's."""
    marks = runs = code = 0  # cell markers; runs of blank lines that may end a cell
    blanks = 1
    fenced = False
    for line in _lines(text):
        stripped = line.strip()
        if not stripped:
            blanks += 1
            # Markdown's cells end at two blank lines, a light script's at one.
            runs += blanks == (2 if markdown else 1)
            continue
        blanks = 0
        marker = stripped.startswith(_FENCES if markdown else _SCRIPT_MARKS)
        if marker and len(stripped) > MAX_MARKER_CHARS:
            raise LessonError(f"{name}: a line that starts a cell has {len(stripped):,} "
                              f"characters (a cell's marker is read up to "
                              f"{MAX_MARKER_CHARS:,})")
        if marker:
            marks += 1
            if markdown and stripped.startswith(("```", "~~~")):
                fenced = not fenced
        elif fenced or not (markdown or stripped.startswith("# ")):
            code += len(line)
        if marks > max_cells or runs > max_cells:
            break
    # MyST and percent scripts start cells at their markers only.
    only_marks = "{code-cell}" in text if markdown else ("# %%" in text or "#%%" in text)
    if marks + (0 if only_marks else runs) > max_cells:
        raise LessonError(f"{name} has more than {max_cells:,} cells; lessons are read up "
                          f"to {max_cells:,} (split it into several lessons)")
    if code > MAX_SCRIPT_CODE_CHARS:
        raise LessonError(f"{name} has {code:,} characters of code; a text notebook is read "
                          f"up to {MAX_SCRIPT_CODE_CHARS:,} (keep big data in a file the "
                          "code reads)")


def _yaml_problem(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"{problem} (line {mark.line + 1})" if mark is not None else problem


def read_text_notebook(text: str, name: str, suffix: str,
                       max_cells: int) -> tuple[tuple[Cell, ...], TextNotebook]:
    """The cells of a MyST or Jupytext notebook's text; ``LessonError`` (one line) if none."""
    bom = text.startswith("\ufeff")
    body = text.removeprefix("\ufeff")
    crlf = "\r\n" in body[: body.find("\n") + 1]
    if crlf:
        body = body.replace("\r\n", "\n")
    _bound(body, name, suffix in MARKDOWN_SUFFIXES, max_cells)
    jupytext = _jupytext()
    import yaml

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat's "duplicate cell id", fixed by it
            level = _LOG.level
            _LOG.setLevel(logging.ERROR)  # "YAML header in raw cell is not a dictionary"
            try:
                notebook = jupytext.reads(body, fmt={"extension": suffix})
            finally:
                _LOG.setLevel(level)
    except yaml.YAMLError as exc:
        raise LessonError(f"{name}: its front matter (the --- block at the top) is not "
                          f"YAML: {_yaml_problem(exc)}") from None
    except Exception as exc:  # noqa: BLE001 - jupytext's many parse errors: one line each
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise LessonError(f"{name} cannot be read as a notebook: {first}") from None
    _check_language(notebook, name)
    if len(notebook.cells) > max_cells:
        raise LessonError(f"{name} has {len(notebook.cells):,} cells; lessons are read up to "
                          f"{max_cells:,} (split it into several lessons)")
    representation = notebook.metadata.get("jupytext", {}).get("text_representation", {})
    fmt = {"extension": suffix,
           "format_name": str(representation.get("format_name", ""))}
    cells = tuple(_cell(c) for c in notebook.cells)
    return cells, TextNotebook(body, notebook, fmt, crlf, bom)


def _check_language(notebook: Any, name: str) -> None:
    """A notebook whose kernel runs another language is not a lesson (its code is not
    Python); the front matter's kernelspec says, else Jupytext's main language."""
    spec = notebook.metadata.get("kernelspec")
    language = spec.get("language") if isinstance(spec, dict) else None
    if not isinstance(language, str):
        language = notebook.metadata.get("jupytext", {}).get("main_language")
    if isinstance(language, str) and language.lower() not in ("python", "python3", "ipython",
                                                             "ipython3"):
        kernel = spec.get("name") if isinstance(spec, dict) else None
        by = f" (its kernelspec: {kernel})" if isinstance(kernel, str) else ""
        raise LessonError(f"{name} is a notebook in {language}{by}; lessons run Python code")


def _cell(cell: Any) -> Cell:
    kind: CellKind = cell.cell_type if cell.cell_type in ("markdown", "code") else "raw"
    tags = cell.metadata.get("tags")
    found = tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else ()
    return Cell(kind, cell.source + "\n" if kind == "code" and cell.source else cell.source,
                found)


def text_notebook_text(document: TextNotebook, sources: Mapping[int, str]) -> str:
    """The file with the cells in ``sources`` (cell index -> source) replaced: the file as
    read when none is, else jupytext's writing with the teacher's own lines kept."""
    if sources:
        jupytext = _jupytext()
        notebook = copy.deepcopy(document.notebook)
        for index, source in sources.items():
            notebook.cells[index].source = source.rstrip("\n")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            base = jupytext.writes(document.notebook, fmt=document.fmt)
            edited = jupytext.writes(notebook, fmt=document.fmt)
        body = "".join(_merge(document.text.splitlines(keepends=True),
                              base.splitlines(keepends=True),
                              edited.splitlines(keepends=True)))
    else:
        body = document.text
    if document.crlf:
        body = body.replace("\n", "\r\n")
    return ("\ufeff" if document.bom else "") + body


def _merge(original: list[str], base: list[str], edited: list[str]) -> list[str]:
    """``edited`` (jupytext's writing with edits) with each difference between ``base``
    (its writing without them) and ``original`` (the file) put back where ``edited`` kept
    ``base``'s lines: jupytext's version line, its spacing, outside the edited cells."""
    kept: dict[int, int] = {}  # base line -> edited line, for the lines the edits kept
    for tag, i1, i2, j1, _ in difflib.SequenceMatcher(None, base, edited,
                                                       autojunk=False).get_opcodes():
        if tag == "equal":
            kept.update({i1 + k: j1 + k for k in range(i2 - i1)})
    patches: list[tuple[int, int, list[str]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, base, original,
                                                        autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            span = [kept.get(k) for k in range(i1, i2)]
            first = span[0]
            if first is None or span != list(range(first, first + len(span))):
                continue  # an edited cell's lines: the edit wins
            patches.append((first, first + len(span), original[j1:j2]))
        else:  # lines the file has and jupytext's writing drops, between two kept lines
            before = kept.get(i1 - 1) if i1 > 0 else -1
            after = kept.get(i1) if i1 < len(base) else len(edited)
            if before is not None and after is not None and after == before + 1:
                patches.append((after, after, original[j1:j2]))
    out = list(edited)
    for e1, e2, lines in sorted(patches, reverse=True):
        out[e1:e2] = lines
    return out


def suffix_of(path: Path) -> str:
    """The suffix a lesson is known by: lower case, but for Jupytext's ``.R`` (R's scripts)."""
    return path.suffix if path.suffix == ".R" else path.suffix.lower()
