"""Handouts: the lesson as the class saw it, its steps' outputs and figures included, written
as an executed notebook, a single HTML page or a PDF, through nbconvert.

The notebook is built from the lesson's cells in their order: Markdown (with its pasted
images) and raw cells as read, each step's code as the teacher last had it (edits
included, directive lines kept) with the outputs of its last run: printed text, Out[n],
figures, and its error with the catalog's hint. Cells tagged as Jupyter Book hides
them (``remove-cell``, ``remove-input``, ``remove-output``) are hidden in HTML and PDF
as there; the notebook keeps everything.
"""

from __future__ import annotations

import base64
import importlib.util
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.api.cells import CellOutput
from workbench.api.errors import Explanation
from workbench.api.writer import atomic_write_bytes
from workbench.lessons.formats import cell_source
from workbench.lessons.model import Lesson

HANDOUT_SUFFIXES = (".html", ".ipynb", ".pdf")
PDF_NEEDS = ("PDF handouts need a browser or LaTeX for nbconvert: pip install "
             "'nbconvert[webpdf]' and run `playwright install chromium`, or install xelatex "
             "(TeX Live); --export OUT.html needs neither")
_HIDDEN = {"remove_cell_tags": {"remove-cell"}, "remove_input_tags": {"remove-input"},
           "remove_all_outputs_tags": {"remove-output"}}


class HandoutError(ValueError):
    """A handout that cannot be written; its message is one line that says why."""


@dataclass(frozen=True)
class StepShown:
    """What a step showed when it last ran: its outputs and, if it failed, its error."""

    outputs: tuple[CellOutput, ...] = ()
    error: Explanation | None = None
    execution_count: int | None = None
    """Its place in the order the steps ran (Jupyter's ``In [n]``), where known."""


def handout_notebook(lesson: Lesson, codes: Mapping[int, str],
                     shown: Mapping[int, StepShown]) -> Any:
    """The lesson as an nbformat 4 notebook: edited steps in ``codes`` (step number -> the
    editor's code), each step's outputs from ``shown`` (step number -> what it showed)."""
    import nbformat.v4 as nbf  # nbformat is slow to import where jsonschema's extras are

    by_cell = {step.cell: step for step in lesson.steps if step.cell is not None}
    cells = []
    for index, cell in enumerate(lesson.cells):
        meta = {"tags": list(cell.tags)} if cell.tags else {}
        if cell.kind == "markdown":
            attachments = {name: {mime: data} for name, mime, data in cell.attachments}
            made = nbf.new_markdown_cell(cell.source, metadata=meta)
            if attachments:
                made["attachments"] = attachments
        elif cell.kind == "raw":
            made = nbf.new_raw_cell(cell.source, metadata=meta)
        else:
            step = by_cell.get(index)
            source = cell.source
            if step is not None and step.number in codes:
                source = cell_source(codes[step.number], step.directive_lines)
            seen = shown.get(step.number) if step is not None else None
            outputs = _outputs(seen) if seen is not None else []
            counts = [o.execution_count for o in seen.outputs if o.execution_count] \
                if seen is not None else []
            count = counts[-1] if counts else seen.execution_count if seen else None
            made = nbf.new_code_cell(source.rstrip("\n"), metadata=meta, outputs=outputs,
                                     execution_count=count)
        cells.append(made)
    return nbf.new_notebook(cells=cells, metadata=_metadata(lesson))


def _metadata(lesson: Lesson) -> dict[str, Any]:
    meta: dict[str, Any] = {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                           "language": "python"},
                            "language_info": {"name": "python"}}
    if lesson.format == "ipynb":
        found = lesson.document.doc.get("metadata")
        if isinstance(found, dict):
            meta.update({k: v for k, v in found.items() if k in ("kernelspec", "title")})
    return meta


def _outputs(seen: StepShown) -> list[Any]:
    import nbformat.v4 as nbf

    made = []
    for output in seen.outputs:
        if output.kind == "stream":
            made.append(nbf.new_output("stream", name=output.stream or "stdout",
                                       text=output.text))
            continue
        data: dict[str, str] = {"text/plain": output.text}
        if output.png:
            data["image/png"] = base64.b64encode(output.png).decode("ascii")
        if output.kind == "result":
            made.append(nbf.new_output("execute_result", data=data,
                                       execution_count=output.execution_count))
        else:
            made.append(nbf.new_output("display_data", data=data))
    if seen.error is not None:
        error = seen.error
        lines = error.traceback.splitlines() or [error.message]
        made.append(nbf.new_output(
            "error", ename=error.exception_type or error.kind, evalue=error.message,
            traceback=[*lines, "", f"{error.title} ({error.kind}): {error.hint}"]))
    return made


def write_handout(notebook: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``notebook`` to ``path`` as its suffix says (.ipynb, .html, .pdf), through the
    app's one writer; ``HandoutError`` (one line) when it cannot be."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in HANDOUT_SUFFIXES:
        raise HandoutError(f"{target.name}: a handout is .html, .ipynb or .pdf")
    import nbformat

    nbformat.validate(notebook)
    if suffix == ".ipynb":
        data = (nbformat.writes(notebook) + "\n").encode("utf-8")
    elif suffix == ".html":
        data = _html(notebook).encode("utf-8")
    else:
        data = _pdf(notebook)
    atomic_write_bytes(target, data)
    return target


def _hidden() -> Any:
    from traitlets.config import Config

    config = Config()
    for trait, tags in _HIDDEN.items():
        setattr(config.TagRemovePreprocessor, trait, tags)
    config.TagRemovePreprocessor.enabled = True
    return config


def _html(notebook: Any) -> str:
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(config=_hidden(), embed_images=True)
    body, _ = exporter.from_notebook_node(notebook)
    return str(body)


def pdf_route() -> str | None:
    """How a PDF can be made here: nbconvert's ``webpdf`` (Playwright's Chromium) or
    ``latex`` (xelatex); None when neither is installed."""
    if importlib.util.find_spec("playwright") is not None and _playwright_chromium():
        return "webpdf"
    if shutil.which("xelatex"):
        return "latex"
    return None


def _playwright_chromium() -> bool:
    """Whether Playwright's own Chromium is installed (nbconvert launches no other)."""
    folder = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
                  or Path.home() / ".cache" / "ms-playwright")
    return folder.is_dir() and any(p.name.startswith("chromium") for p in folder.iterdir())


def _pdf(notebook: Any) -> bytes:
    route = pdf_route()
    if route is None:
        raise HandoutError(PDF_NEEDS)
    from nbconvert import PDFExporter, WebPDFExporter

    exporter = WebPDFExporter(config=_hidden()) if route == "webpdf" \
        else PDFExporter(config=_hidden())
    try:
        body, _ = exporter.from_notebook_node(notebook)
    except Exception as exc:  # noqa: BLE001 - a browser or TeX that failed: one line
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise HandoutError(f"the PDF could not be made ({route}): {first}") from None
    return bytes(body)
