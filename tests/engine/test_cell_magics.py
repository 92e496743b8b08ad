"""Magics in a lesson step as ipykernel runs them, in this process (``workbench lesson
--check``'s engine) and in the kernel: ``%matplotlib inline`` with ``InlineBackend`` options,
``%xmode``, ``%load_ext``; a backend whose figures would show nowhere is refused in one line."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import nbformat
import nbformat.v4 as nbf
import pytest

from tests.cli.cli_util import run_cli
from workbench.api import messages as p
from workbench.engine.cells.shell import NO_WINDOWS, shell_for

RETINA = ("%matplotlib inline\n%config InlineBackend.figure_format='retina'\n"
          "import matplotlib.pyplot as plt\nplt.plot([1,2,3])")
DEFAULT = "%config InlineBackend.figure_format='png'\nplt.plot([1,2,3])"
HINT = "IPython refused this % line (a magic); the lines after it in this step did not run."


@pytest.fixture
def png_figures():
    """This process's shell is shared by every test: its figures are plain PNGs again after."""
    yield
    shell_for(None).run_line_magic("config", "InlineBackend.figure_format='png'")


def check(capsys, tmp_path, *cells: str, outputs: bool = False) -> tuple[int, dict, str]:
    """``workbench lesson NOTEBOOK --check --format json`` on a notebook of ``cells``."""
    path = tmp_path / "magics.ipynb"
    nbformat.write(nbf.new_notebook(cells=[nbf.new_code_cell(c) for c in cells]), path)
    extra = ("--outputs", str(tmp_path / "figures")) if outputs else ()
    code, out, err = run_cli(capsys, "lesson", str(path), "--check", "--format", "json", *extra)
    return code, json.loads(out), err


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def twice(retina: tuple[int, int], plain: tuple[int, int]) -> bool:
    """Twice the pixels each way, as Jupyter's retina figures (the tight bounding box rounds
    each size to a whole pixel, so the doubled one may differ by a pixel or two)."""
    return all(abs(r - 2 * s) <= 2 for r, s in zip(retina, plain, strict=True))


def figure_of(step: dict) -> str:
    figures = [o["figure"] for o in step["outputs"] if o["kind"] == "display" and o["has_figure"]]
    assert len(figures) == 1, step
    return figures[0]


def test_matplotlib_inline_and_retina_figures_under_lesson_check(capsys, tmp_path, png_figures):
    code, doc, err = check(capsys, tmp_path, RETINA, DEFAULT, outputs=True)
    assert code == 0, doc
    assert [s["status"] for s in doc["steps"]] == ["ok", "ok"]
    assert "Traceback" not in err and "NotImplementedError" not in err
    retina, plain = (png_size(Path(figure_of(s)).read_bytes()) for s in doc["steps"])
    assert twice(retina, plain), (retina, plain)


@pytest.mark.parametrize("backend", ["qt", "tk", "notebook", "widget"])
def test_a_backend_that_shows_nowhere_is_refused_in_one_line(capsys, tmp_path, backend):
    line = NO_WINDOWS.format(request=f"%matplotlib {backend}")
    assert line == (f"%matplotlib {backend}: the workbench shows a step's figures inline; "
                    "interactive backends need a desktop kernel: use %matplotlib inline")
    code, doc, err = check(capsys, tmp_path, f"%matplotlib {backend}\nprint('after it')",
                           "import matplotlib.pyplot as plt\nplt.plot([1, 2])")
    assert code == 1
    refused, drawn = doc["steps"]
    assert refused["status"] == "failed"
    error = refused["error"]
    assert (error["title"], error["message"], error["hint"], error["line"]) == (
        line, line, HINT, 1)
    assert [o["text"] for o in refused["outputs"]] == [f"UsageError: {line}\n"]
    assert "after it" not in err and "Traceback" not in err and "Traceback" not in str(doc)
    # Nothing changed: the next step's figure still comes out inline.
    assert drawn["status"] == "ok"
    assert [o["has_figure"] for o in drawn["outputs"] if o["kind"] == "display"] == [True]


def test_xmode_and_load_ext_run(capsys, tmp_path):
    code, doc, _ = check(capsys, tmp_path, "%xmode minimal", "%xmode Minimal",
                         "%load_ext autoreload\n'autoreload' in get_ipython().magics_manager"
                         ".magics['line']", "%xmode Plain")
    assert code == 0, doc
    assert [s["status"] for s in doc["steps"]] == ["ok"] * 4
    texts = [[o["text"] for o in s["outputs"]] for s in doc["steps"]]
    assert texts == [["Exception reporting mode: Minimal\n"]] * 2 + [
        ["True"], ["Exception reporting mode: Plain\n"]]


@pytest.mark.kernel
def test_the_kernel_refuses_what_it_cannot_show_in_the_same_line(engine):
    """ipykernel takes a browser's backend (nothing here shows it) and fails with a traceback
    on a GUI without a display; a desktop kernel opens Qt windows as Jupyter's does."""
    backends = ["notebook", "widget"]
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        backends.append("qt")
    for step, backend in enumerate(backends, start=1):
        reply = engine.call(p.LoadSource(source=f"%matplotlib {backend}\nx = 1",
                                         filename=f"k.ipynb, step {step}", cell=True,
                                         keep_names=True), timeout=120)
        assert isinstance(reply, p.UserCodeFailure), reply
        line = NO_WINDOWS.format(request=f"%matplotlib {backend}")
        assert (reply.explanation.title, reply.explanation.hint) == (line, HINT)
        assert [o.text for o in reply.outputs] == [f"UsageError: {line}\n"]
    sizes = []
    for step, source in ((8, RETINA), (9, DEFAULT)):
        reply = engine.call(p.LoadSource(source=source, filename=f"k.ipynb, step {step}",
                                         cell=True, keep_names=True), timeout=120)
        value = p.result_value(reply, p.Functions)
        assert value is not None, p.reply_text(reply)
        assert [o.kind for o in value.outputs] == ["result", "display"]
        sizes.append(png_size(value.outputs[1].png))
    assert twice(*sizes), sizes
