"""Reading crafted lessons: linear in their size, and a 10 MB one in under 2 s.

Each kind of lesson below is written at 1, 2, 5, 10 and 20 MB (the largest a lesson
may be) and read as ``workbench lesson FILE`` reads it to list its steps (and the
window to show its step list). Printed: seconds at each size, and seconds per MB
beside the 1 MB file's (the peer: a linear reader keeps that ratio near 1; a
backtracking one grows with the size), and the longest any one step takes to render
as the window shows it. Files of 50 and 100 MB are refused
before they are read. Target: every 10 MB lesson within 2 s.

Then a MyST Markdown notebook of 200 cells (100 Markdown, 100 code, as JAX's tutorials
are written) is opened as a lesson, beside Jupytext's own reading of the same text
(the peer: the lesson is read through it). Printed: the medians of 7 opens, warm (the
first open also imports jupytext and nbformat, printed apart). Target: under 300 ms.

    .venv/bin/python benchmarks/lesson_listing.py [--sizes 1,2,5,10,20]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.lessons.formats import MAX_CELLS, MAX_CODE_CHARS, MAX_TEXT_CHARS  # noqa: E402

MB = 1_000_000


def _notebook(cells: list[dict]) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})


def _md(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(text: str, tags: list[str] | None = None, outputs: list | None = None) -> dict:
    return {"cell_type": "code", "metadata": {"tags": tags or []}, "source": text,
            "outputs": outputs or [], "execution_count": None}


def steps(size: int) -> tuple[str, str]:
    """A notebook of as many small steps as a lesson may have, each with a directive."""
    per = size // MAX_CELLS
    cells = []
    for i in range(MAX_CELLS // 2):
        cells.append(_md(f"## Step {i}\n" + "word " * (per // 5)))
        cells.append(_code(f"# workbench: trace f --args f32[{i + 1}]\ndef f(x):\n"
                           f"    return x * {i}\n" + "# " + "c" * per + "\n"))
    return "steps.ipynb", _notebook(cells)


def backticks(size: int) -> tuple[str, str]:
    """Markdown cells of backtick runs of every length: code spans that never close."""
    cell = "".join("`" * n + " x " for n in range(1, 400))
    cell = (cell * (MAX_TEXT_CHARS // len(cell)))[:MAX_TEXT_CHARS - 10]
    return "backticks.ipynb", _notebook([_md(cell) for _ in range(max(1, size // len(cell)))])


def emphasis(size: int) -> tuple[str, str]:
    """Markdown cells of unclosed emphasis and brackets, nested: delimiter runs to match."""
    cell = ("*a **b _c __d [e [[f `g " * 40_000)[:MAX_TEXT_CHARS - 10]
    return "emphasis.ipynb", _notebook([_md(cell) for _ in range(max(1, size // len(cell)))])


def directives(size: int) -> tuple[str, str]:
    """Code cells whose directive line is as long as a cell may be."""
    line = "# workbench: plot f --args " + "f32[3]," * ((MAX_CODE_CHARS - 100) // 7)
    cell = line + "\ndef f(x):\n    return x\n"
    return "directives.ipynb", _notebook([_code(cell) for _ in range(max(1, size // len(cell)))])


def tags(size: int) -> tuple[str, str]:
    """Cells tagged with thousands of tags each (a tag line of a percent script alike)."""
    many = [f"tag-{i}" for i in range(20_000)]
    per = len(json.dumps(many))
    return "tags.ipynb", _notebook([_code("x = 1\n", many) for _ in range(max(1, size // per))])


def outputs(size: int) -> tuple[str, str]:
    """A few cells carrying huge image outputs (dropped as the lesson is read)."""
    image = {"output_type": "display_data", "metadata": {},
             "data": {"image/png": "iVBORw0KGgo" * (MB // 11)}}
    cells = [_code("x = 1\n", outputs=[image] * max(1, size // MB // 4)) for _ in range(4)]
    return "outputs.ipynb", _notebook(cells)


KINDS: dict[str, Callable[[int], tuple[str, str]]] = {
    "steps": steps, "backticks": backticks, "emphasis": emphasis,
    "directives": directives, "tags": tags, "outputs": outputs,
}


MYST_TARGET_S = 0.3


def myst(cells: int = 200) -> str:
    """A MyST notebook as jupytext writes one: front matter, then Markdown and code cells."""
    parts = ["---\njupytext:\n  text_representation:\n    extension: .md\n"
             "    format_name: myst\nkernelspec:\n  display_name: Python 3\n"
             "  language: python\n  name: python3\n---\n\n# A long tutorial\n"]
    for i in range(cells // 2):
        parts.append(f"{'+++' if i else ''}\n## Part {i}\n\nSome *text* with `code`, a "
                     f"{{func}}`jax.jit` role and $x^{i}$ maths.\n")
        tags = ":tags: [raises-exception]\n\n" if i % 10 == 9 else ""
        parts.append(f"```{{code-cell}}\n{tags}import jax.numpy as jnp\n\n"
                     f"def f{i}(x):\n    return jnp.sin(x) * {i}\n\nf{i}(1.0)\n```\n")
    return "\n".join(parts)


def myst_open(tmp: str) -> tuple[float, float, float, int]:
    """Seconds to open the 200-cell MyST lesson (first, then the median of 7) and
    Jupytext's median reading of the same text; the number of cells read."""
    import statistics

    from workbench.lessons.formats import read_lesson

    path = Path(tmp) / "long_tutorial.md"
    path.write_text(myst(), encoding="utf-8")
    t0 = time.perf_counter()
    lesson = read_lesson(path)
    first = time.perf_counter() - t0
    ours, theirs = [], []
    import jupytext

    text = path.read_text(encoding="utf-8")
    for _ in range(7):  # interleaved: the machine's noise hits both alike
        t0 = time.perf_counter()
        read_lesson(path)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        jupytext.reads(text, fmt="md")
        theirs.append(time.perf_counter() - t0)
    return first, statistics.median(ours), statistics.median(theirs), len(lesson.cells)


def read_and_render(path: Path) -> tuple[float, float]:
    """Seconds to list the lesson as ``workbench lesson FILE`` does, and the longest any one
    of its steps takes to render (the window renders the step it shows)."""
    from workbench.cli.lesson_cmd import _listed, _skipped
    from workbench.lessons.formats import read_lesson
    from workbench.lessons.markdown import render_markdown

    t0 = time.perf_counter()
    lesson = read_lesson(path)
    for step in lesson.steps:
        _skipped(step) or _listed(step)
    listed = time.perf_counter() - t0
    worst = 0.0
    for step in lesson.steps:
        if step.text:
            t0 = time.perf_counter()
            render_markdown(step.text)
            worst = max(worst, time.perf_counter() - t0)
    return listed, worst


def refused(path: Path, size: int) -> float:
    from workbench.lessons.formats import read_lesson
    from workbench.lessons.model import LessonError

    with open(path, "wb") as fh:
        fh.truncate(size)
    t0 = time.perf_counter()
    try:
        read_lesson(path)
    except LessonError:
        return time.perf_counter() - t0
    raise AssertionError(f"{size} bytes were read")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,5,10,20", help="sizes in MB")
    opts = parser.parse_args()
    sizes = [int(s) for s in opts.sizes.split(",")]
    worst = step_worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'listing':<11}" + "".join(f"{s:>7} MB" for s in sizes)
              + "   s/MB at the largest / at the smallest   slowest step rendered", flush=True)
        for kind, make in KINDS.items():
            row, per_mb, rendered = [], [], 0.0
            for size in sizes:
                name, text = make(int(size * MB * 0.97))  # the largest within the limit
                path = Path(tmp) / name
                path.write_text(text)
                real = path.stat().st_size / MB
                seconds, step = read_and_render(path)
                row.append(seconds)
                per_mb.append(seconds / real)
                rendered = max(rendered, step)
                if size == 10:
                    worst = max(worst, seconds)
            step_worst = max(step_worst, rendered)
            print(f"{kind:<11}" + "".join(f"{s:>8.2f}s" for s in row)
                  + f"   {per_mb[-1] / per_mb[0]:5.2f}{rendered * 1e3:30.0f} ms", flush=True)
        for size in (50, 100):
            seconds = refused(Path(tmp) / f"big{size}.ipynb", size * MB)
            print(f"{size} MB file refused before it is read in {seconds * 1e3:.1f} ms")
        first, ours, theirs, cells = myst_open(tmp)
    print(f"MyST notebook of {cells} cells opened: median {ours * 1e3:.0f} ms   Jupytext's "
          f"reading alone {theirs * 1e3:.0f} ms   ratio {ours / theirs:.2f}   "
          f"target < {MYST_TARGET_S * 1e3:.0f} ms   (first open, importing jupytext: "
          f"{first * 1e3:.0f} ms)")
    print(f"slowest 10 MB lesson listed: {worst:.2f} s   target < 2 s")
    print(f"slowest step rendered: {step_worst * 1e3:.0f} ms")
    return 0 if worst < 2 and ours < MYST_TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
