"""A teacher's own notebook in the window: steps run as Jupyter runs cells, show what Jupyter
shows under the step, and read "failed" only when the step's own code failed."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument

from tests.ui.test_lesson_window import ENGINE_S, blank_window, go, open_trusted, write_notebook
from workbench.ui.lesson.lesson_controller import SKIPPED

SHOWING = [
    ("markdown", "# Outputs\nA value, then a figure."),
    ("code", "import jax.numpy as jnp\nprint('hello')\nx = jnp.arange(3)\nx * 2"),
    ("code", "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"),
]


def test_a_step_shows_its_printed_text_value_and_figure(qtbot, make_window, tmp_path):
    path = write_notebook(tmp_path / "showing.ipynb", SHOWING)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    outputs = window.lesson_panel.outputs
    assert outputs.isHidden()  # nothing has run yet
    rows = window.lesson_panel.steps.height()
    go(qtbot, window, 1)
    qtbot.waitUntil(lambda: bool(outputs.shown), timeout=ENGINE_S)
    assert window.lesson_panel.steps.height() == rows  # outputs take room from the text
    assert [(o.kind, o.text) for o in outputs.shown] == [
        ("stream", "hello\n"), ("result", "Array([0, 2, 4], dtype=int32)")]
    assert not outputs.isHidden()
    assert "Out[" in outputs.toPlainText() and "hello" in outputs.toPlainText()
    go(qtbot, window, 2)
    qtbot.waitUntil(lambda: bool(outputs.shown), timeout=ENGINE_S)
    assert [o.kind for o in outputs.shown] == ["display"]
    assert outputs.shown[0].png.startswith(b"\x89PNG")
    assert "wbfig:0" in outputs.toHtml()
    figure = outputs.loadResource(QTextDocument.ResourceType.ImageResource.value,
                                  QUrl("wbfig:0"))
    assert 0 < figure.width() <= outputs.viewport().width()  # all of it, in a narrow dock
    # Back to step 1: its outputs are cleared as it runs again, then shown anew.
    window.lessons.go_to(1)
    assert outputs.shown == ()
    qtbot.waitUntil(lambda: bool(outputs.shown), timeout=ENGINE_S)
    assert outputs.shown[-1].text == "Array([0, 2, 4], dtype=int32)"


GUESSED = [
    ("code", "import jax\n\n\ndef pick(key, n):\n    return jax.random.normal(key, (n,))\n"),
    ("code", "samples = pick(jax.random.key(0), 3)\nsamples.shape"),
]


def test_a_guessed_trace_that_fails_is_not_the_steps_failure(qtbot, make_window, tmp_path):
    path = write_notebook(tmp_path / "guessed.ipynb", GUESSED)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    go(qtbot, window, 1)
    qtbot.waitUntil(lambda: "not traced" in window.jaxpr.text.toPlainText(),
                    timeout=ENGINE_S)
    assert "choose arguments for pick" in window.jaxpr.text.toPlainText()
    assert "failed" not in window.lesson_panel.message.text()
    assert window.editor.error_marks() == []
    go(qtbot, window, 2)  # the step after it builds on it, as in Jupyter
    qtbot.waitUntil(lambda: bool(window.lesson_panel.outputs.shown), timeout=ENGINE_S)
    assert window.lesson_panel.outputs.shown[-1].text == "(3,)"
    assert "failed" not in window.lesson_panel.message.text()


KNOCK_ON = [
    ("code", "import not_a_module_anywhere as plt\nz = 1"),
    ("code", "plt.plot([1, 2])"),
    ("code", "with open('ran.txt', 'w') as fh:\n    fh.write('ran')", "skip-execution"),
]


def test_a_knock_on_error_names_the_step_that_failed_and_skipped_steps_do_not_run(
        qtbot, make_window, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write_notebook(tmp_path / "knock.ipynb", KNOCK_ON)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    go(qtbot, window, 1)
    qtbot.waitUntil(lambda: "failed" in window.lesson_panel.message.text(), timeout=ENGINE_S)
    go(qtbot, window, 2)
    qtbot.waitUntil(lambda: "step 1, which imports it, failed"
                    in window.lesson_panel.message.text(), timeout=ENGINE_S)
    window.lessons.go_to(3)
    assert window.lesson_panel.message.text() == SKIPPED
    assert window.tracer.held
    assert window.editor.toPlainText().startswith("with open('ran.txt'")
    window.editor.insertPlainText("# an edit does not run it either\n")
    assert not window.tracer.live_timer.isActive()
    assert not (tmp_path / "ran.txt").exists()
