"""Lessons in the window on a real engine: walk every step, edit, reset, save, bad input, trust."""

from __future__ import annotations

import json

import nbformat
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.ui.lesson_util import answering
from workbench.api import messages as p
from workbench.lessons import bundled, read_lesson
from workbench.ui.lesson.lesson_controller import GONE, NOT_RUN
from workbench.ui.lesson.lesson_panel import EDITED_MARK

ENGINE_S = 60000

# One step per directive verb, a plain step, a step meant to fail, a text-only step.
WALK = """\
# %% [markdown]
# # A walk through the workbench
# Each step shows one panel.

# %%
# workbench: trace square --args f32[3]
import jax.numpy as jnp


def square(x):
    return x * x

# %% [markdown]
# ## Values
# Every variable of $x^3$.

# %%
# workbench: values cube --args f32[3]
def cube(x):
    return x * x * x

# %% [markdown]
# ## Plot

# %%
# workbench: plot wave --overlay bump --order 1 --range -2 2 --points 40
import jax.numpy as jnp


def wave(x):
    return jnp.sin(x)


def bump(x):
    return jnp.exp(-x * x)

# %% [markdown]
# ## Time

# %%
# workbench: time double --args f32[8] --modes jit --repeats 1 --min-batch 0.001 --budget 0.2
def double(x):
    return 2 * x

# %% [markdown]
# ## K-means

# %%
# workbench: kmeans --blobs 300 --k 3 --max-iter 5
points = 300

# %% [markdown]
# ## Plain

# %%
total = sum(range(10))

# %% [markdown]
# ## A sharp bit

# %%
# workbench: expect-error tracer-bool
# workbench: trace sign --args f32[]
def sign(x):
    if x > 0:
        return 1.0
    return -1.0

# %% [markdown]
# ## The end
# Read [the JAX docs](https://jax.readthedocs.io).
"""


def wait_engine(qtbot, window):
    qtbot.waitUntil(lambda: window.tracer.engine_ready, timeout=ENGINE_S)


def blank_window(make_window, tmp_path, **kwargs):
    """A window on an empty file opened from disk: nothing of its own runs."""
    blank = tmp_path / "blank.py"
    blank.write_text("")
    return make_window(blank, **kwargs)


def write_notebook(path, cells):
    nb = nbformat.v4.new_notebook()
    for kind, source, *tags in cells:
        cell = (nbformat.v4.new_markdown_cell(source) if kind == "markdown"
                else nbformat.v4.new_code_cell(source))
        if tags:
            cell.metadata["tags"] = tags
        nb.cells.append(cell)
    nbformat.write(nb, str(path))
    return path


def open_trusted(qtbot, window, path):
    window.trust_lesson(path)
    assert window.open_lesson(path)
    wait_engine(qtbot, window)


def page_down(qtbot, window):
    qtbot.keyClick(window.editor, Qt.Key.Key_PageDown)


def go(qtbot, window, number):
    """Select step ``number`` and wait until its code has loaded."""
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_S):
        window.lessons.go_to(number)


def test_pagedown_walks_every_step_and_each_panel_shows_its_result(qtbot, make_window,
                                                                   tmp_path):
    path = tmp_path / "walk.py"
    path.write_text(WALK)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    panel = window.lesson_panel
    assert window.lesson_dock.isVisible()
    assert panel.position.text() == "8 steps"
    assert window.editor.toPlainText() == ""  # opening runs nothing, shows no code yet
    window.editor.setFocus()

    page_down(qtbot, window)  # 1: trace
    assert panel.position.text() == "step 1 of 8"
    assert "def square" in window.editor.toPlainText()
    assert "workbench:" not in window.editor.toPlainText()
    qtbot.waitUntil(lambda: window.jaxpr.trace() is not None
                    and window.jaxpr.trace().function == "square", timeout=ENGINE_S)
    assert window.controls.args() == "f32[3]"

    page_down(qtbot, window)  # 2: values, on the Graph tab
    assert 'alt="$x^3$"' in panel.text.toHtml()  # the maths typeset, its source kept
    qtbot.waitUntil(lambda: window.graph_panel is not None
                    and window.graph_panel.values is not None
                    and window.graph_panel.values.function == "cube", timeout=ENGINE_S)
    assert window.graph_panel.isVisible()

    page_down(qtbot, window)  # 3: plot, f and its overlay
    plot = window.plot_panel
    qtbot.waitUntil(lambda: set(plot.functions()) == {"wave", "bump"}
                    and all(plot.last_curves(n) is not None for n in ("wave", "bump")),
                    timeout=ENGINE_S)
    assert plot.isVisible()
    assert plot.order() == 1
    assert plot.x_range() == (-2.0, 2.0)
    assert plot.last_curves("wave").function == "wave"
    assert len(plot.last_curves("bump").values) == 2  # f and f'

    page_down(qtbot, window)  # 4: time
    timing = window.timing_panel
    qtbot.waitUntil(lambda: timing.report is not None and timing.report.function == "double",
                    timeout=ENGINE_S)
    assert timing.isVisible()
    assert timing.args_edit.text() == "f32[8]"
    assert not timing.eager_box.isChecked()

    page_down(qtbot, window)  # 5: k-means
    km = window.kmeans_panel
    qtbot.waitUntil(lambda: km.demo is not None, timeout=ENGINE_S)
    assert km.isVisible()
    assert km.demo.points.shape[0] == 300 and km.demo.run.centroids.shape[1] == 3

    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_S) as loaded:
        page_down(qtbot, window)  # 6: plain code
    assert "total = sum" in window.editor.toPlainText()
    assert window.session.source_failure is None
    assert loaded.args[0].value.functions == ()

    page_down(qtbot, window)  # 7: fails on purpose
    qtbot.waitUntil(lambda: "fails on purpose" in panel.message.text(), timeout=ENGINE_S)
    assert panel.message.isVisible()
    assert panel.message_is_expected()  # an outcome, in green, not a problem in red
    assert "#1e6b30" in panel.message.styleSheet()
    assert window.messages.isVisible()  # the catalog's error shows as usual

    page_down(qtbot, window)  # 8: text only
    assert panel.position.text() == "step 8 of 8"
    assert "def sign" in window.editor.toPlainText()  # the editor keeps the step before
    assert "the JAX docs" in panel.text.toPlainText()
    assert not panel.next_button.isEnabled()
    page_down(qtbot, window)  # past the end: stays
    assert panel.position.text() == "step 8 of 8"
    qtbot.keyClick(window.editor, Qt.Key.Key_PageUp)
    assert panel.position.text() == "step 7 of 8"


SMALL = """\
# %% [markdown]
# # Small

# %%
# workbench: trace square --args f32[3]
def square(x):
    return x * x

# %%
def half(x):
    return x / 2
"""


def test_edits_are_kept_per_step_marked_and_reset(qtbot, make_window, tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    go(qtbot, window, 1)
    edited = "def square(x):\n    return x * x * 2\n"
    window.editor.setPlainText(edited)
    item = window.lesson_panel.steps.item(0)
    assert item.text().startswith(EDITED_MARK) and item.font().italic()
    assert "Reset step" in item.toolTip()
    assert window.lesson_panel.reset_button.isEnabled()
    assert window.is_modified()
    assert window.windowTitle().startswith("Small — step 1 of 2*")

    go(qtbot, window, 2)
    assert "def half" in window.editor.toPlainText()
    assert not window.lesson_panel.reset_button.isEnabled()
    go(qtbot, window, 1)
    assert window.editor.toPlainText() == edited  # switching back keeps the edit
    qtbot.waitUntil(lambda: window.jaxpr.trace() is not None
                    and window.jaxpr.trace().function == "square", timeout=ENGINE_S)

    qtbot.waitUntil(lambda: not window.lessons.busy, timeout=ENGINE_S)
    loads: list[str] = []
    window.engine.sig_request_sent.connect(
        lambda r: loads.append(r.source) if isinstance(r, p.LoadSource) else None)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_S):
        window.lesson_panel.reset_button.click()
    qtbot.waitUntil(lambda: not window.lessons.busy, timeout=ENGINE_S)
    assert loads == [read_lesson(path).step(1).code]  # run once (it ran twice when idle)
    assert window.editor.toPlainText() == read_lesson(path).step(1).code
    assert not window.lesson_panel.steps.item(0).text().startswith(EDITED_MARK)
    assert not window.lesson_panel.reset_button.isEnabled()
    assert not window.is_modified()

    # Reset pressed before the step's run went out (a turn after it is shown): the one
    # run that goes out is the lesson's code.
    go(qtbot, window, 2)
    window.editor.setPlainText("def half(x):\n    return x / 4\n")
    go(qtbot, window, 1)
    qtbot.waitUntil(lambda: not window.lessons.busy, timeout=ENGINE_S)
    loads.clear()
    window.lessons.go_to(2)
    window.lessons.reset_step()
    qtbot.waitUntil(lambda: loads != [] and not window.lessons.busy, timeout=ENGINE_S)
    assert loads == [read_lesson(path).step(2).code]


def test_save_writes_a_percent_script_back_and_never_into_another_file(qtbot, make_window,
                                                                      tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    go(qtbot, window, 2)
    window.editor.setPlainText("def half(x):\n    return x * 0.5\n")
    assert window.save()  # Save (Ctrl+S) while a lesson is open is Save lesson
    assert (tmp_path / "blank.py").read_text() == ""  # the file open before is untouched
    assert path.read_text() == SMALL.replace("return x / 2", "return x * 0.5")
    again = read_lesson(path)
    assert again.step(1).directive is not None and again.step(1).directive.function == "square"
    assert not window.is_modified()
    assert not window.lesson_panel.steps.item(1).text().startswith(EDITED_MARK)


def test_save_lesson_writes_a_notebook_back(qtbot, make_window, tmp_path):
    path = write_notebook(tmp_path / "nb.ipynb", [
        ("markdown", "# Notebook lesson\nSome *text*."),
        ("code", "# workbench: trace square --args f32[3]\ndef square(x):\n    return x * x"),
        ("code", "def half(x):\n    return x / 2"),
    ])
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    assert window.action_save_lesson.isEnabled()
    go(qtbot, window, 1)
    window.editor.setPlainText("def square(x):\n    return x ** 2\n")
    window.action_save_lesson.trigger()
    nb = nbformat.read(str(path), as_version=4)
    assert nb.cells[1].source == ("# workbench: trace square --args f32[3]\n"
                                  "def square(x):\n    return x ** 2\n")
    assert nb.cells[2].source == "def half(x):\n    return x / 2"
    assert read_lesson(path).step(1).code == "def square(x):\n    return x ** 2\n"


def test_a_failed_save_keeps_the_edits_and_says_why(qtbot, make_window, tmp_path):
    folder = tmp_path / "gone"
    folder.mkdir()
    path = folder / "small.py"
    path.write_text(SMALL)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    go(qtbot, window, 2)
    window.editor.setPlainText("def half(x):\n    return x * 0.5\n")
    path.unlink()
    folder.rmdir()
    assert not window.lessons.save()
    assert "could not save the lesson" in window.lesson_panel.message.text()
    assert window.lessons.codes == {2: "def half(x):\n    return x * 0.5\n"}
    assert window.is_modified()
    folder.mkdir()  # the folder is back: the same edits save
    assert window.lessons.save()
    assert "return x * 0.5" in path.read_text()


def test_a_lesson_file_that_disappears_stays_open_and_saves_again(qtbot, make_window, tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    go(qtbot, window, 1)
    path.unlink()
    go(qtbot, window, 2)  # still works, from memory
    assert GONE in window.lesson_panel.message.text()
    assert "def half" in window.editor.toPlainText()
    window.editor.setPlainText("def half(x):\n    return x * 0.5\n")
    assert window.lessons.save()
    assert path.is_file() and "return x * 0.5" in path.read_text()
    assert GONE not in window.lesson_panel.message.text()


def test_bad_notebooks_do_not_open_and_change_nothing(qtbot, make_window, tmp_path):
    window = blank_window(make_window, tmp_path)
    window.editor.setPlainText("x = 1\n")
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{ not json")
    assert not window.open_lesson(broken)
    assert "invalid JSON" in window.messages.toPlainText()
    future = tmp_path / "future.ipynb"
    future.write_text(json.dumps({"nbformat": 99, "nbformat_minor": 0, "cells": [],
                                  "metadata": {}}))
    assert not window.open_lesson(future)
    assert "unknown notebook format version 99" in window.messages.toPlainText()
    assert not window.lessons.is_open
    assert not window.lesson_dock.isVisible()
    assert window.editor.toPlainText() == "x = 1\n"
    assert not window.action_next_step.isEnabled()


BAD_STEPS = """\
# %%
def broken(:
    pass

# %%
# workbench: frobnicate fast
def fine(x):
    return x + 1

# %%
# workbench: trace fine --args
def also(x):
    return x - 1
"""


def test_bad_steps_show_their_problem_and_the_rest_still_works(qtbot, make_window, tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(BAD_STEPS)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    go(qtbot, window, 1)  # a syntax error: the step's error shows
    qtbot.waitUntil(lambda: "this step's code failed" in window.lesson_panel.message.text(),
                    timeout=ENGINE_S)
    assert "syntax" in window.lesson_panel.message.text()
    with qtbot.waitSignal(window.sig_traced, timeout=ENGINE_S) as traced:
        window.lessons.go_to(2)  # an unknown verb: said on the step, the code still runs
    assert traced.args[0].function == "fine"
    message = window.lesson_panel.message.text()
    assert "directive not understood" in message and "frobnicate" in message
    assert "failed" not in message
    assert "directive not understood" in window.lesson_panel.steps.item(1).toolTip()
    with qtbot.waitSignal(window.sig_traced, timeout=ENGINE_S) as traced:
        window.lessons.go_to(3)  # a bad argument spec: the same
    assert traced.args[0].function == "also"
    assert "--args" in window.lesson_panel.message.text()


TRUST = """\
# %%
marker = 1

# %%
seen = marker
"""


def test_no_answer_runs_nothing_and_says_so(qtbot, make_window, tmp_path):
    path = tmp_path / "strange.py"
    path.write_text(TRUST)
    window = blank_window(make_window, tmp_path)  # ask=False: nobody to ask, so no
    assert window.open_lesson(path)
    wait_engine(qtbot, window)
    window.lessons.go_to(1)
    assert window.lesson_panel.message.text() == NOT_RUN
    assert window.editor.toPlainText() == "marker = 1\n"
    assert window.tracer.paused
    window.trust_lesson(path)  # now it may run: step 2 shows step 1 never did
    go(qtbot, window, 2)
    qtbot.waitUntil(lambda: "failed" in window.lesson_panel.message.text(), timeout=ENGINE_S)
    assert "(name)" in window.lesson_panel.message.text()  # marker is not defined
    assert "step 1, which defines it, has not run" in window.lesson_panel.message.text()


def test_a_lesson_from_elsewhere_asks_once(qtbot, asking_window, tmp_path):
    path = tmp_path / "strange.py"
    path.write_text(TRUST)
    window = asking_window()
    assert window.open_lesson(path)
    wait_engine(qtbot, window)
    asked: list[str] = []
    timer = answering(asked, QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_S):
        window.lessons.go_to(1)
    assert len(asked) == 1 and "runs its code in the engine" in asked[0]
    timer = answering(asked, QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_S):
        window.lessons.go_to(2)
    qtbot.waitUntil(lambda: not timer.isActive())
    assert len(asked) == 1  # once per lesson ...
    assert window.session.source_failure is None  # step 1 ran: marker is defined
    second = asking_window()  # ... and remembered in the settings
    assert second.open_lesson(path)
    wait_engine(qtbot, second)
    timer = answering(asked, QMessageBox.StandardButton.No)
    with qtbot.waitSignal(second.tracer.sig_loaded, timeout=ENGINE_S):
        second.lessons.go_to(1)
    qtbot.waitUntil(lambda: not timer.isActive())
    assert len(asked) == 1


def _writing_notebook(tmp_path):
    """A notebook from elsewhere whose first cell writes a file: the proof that code ran."""
    marker = tmp_path / "ran.txt"
    path = write_notebook(tmp_path / "from_the_internet.ipynb", [
        ("markdown", "# Downloaded"),
        ("code", f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n\n\n"
                 "def f(x):\n    return x * 2\n"),
        ("code", "# workbench: values f --args f32[3]\ny = 1\n"),
    ])
    return path, marker


def _engine_barrier(qtbot, window):
    """A request the kernel answers after everything sent before it has run."""
    answered: list[object] = []
    window.engine.request(p.Devices(), answered.append)
    qtbot.waitUntil(lambda: bool(answered), timeout=ENGINE_S)


def test_untrusted_notebook_runs_nothing_before_yes(qtbot, asking_window, tmp_path):
    path, marker = _writing_notebook(tmp_path)
    window = asking_window()
    wait_engine(qtbot, window)
    sent: list[object] = []
    window.engine.sig_request_sent.connect(sent.append)
    assert window.open_lesson(path)
    while_asked: list[tuple[bool, bool, list[object]]] = []
    asked: list[str] = []

    def answer_no() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        asked.append(box.text())
        # The question is open: nothing ran, nothing is on its way, nothing is scheduled.
        while_asked.append((marker.exists(), window.tracer.live_timer.isActive(), list(sent)))
        box.button(QMessageBox.StandardButton.No).click()

    QTimer.singleShot(0, answer_no)
    window.lessons.go_to(1)  # the step of the first code cell
    assert len(asked) == 1 and "runs its code in the engine" in asked[0]
    assert while_asked == [(False, False, [])]
    assert window.lesson_panel.message.text() == NOT_RUN
    assert "Path(" in window.editor.toPlainText()  # shown, to read
    window.editor.insertPlainText("# a teacher's edit\n")  # an edit does not run it either
    assert window.tracer.held and not window.tracer.live_timer.isActive()
    window.lessons.go_to(2)  # a directive step: not applied
    _engine_barrier(qtbot, window)
    assert not marker.exists()
    assert [type(r).__name__ for r in sent] == ["Devices"]  # no load, trace or values
    assert window.jaxpr.model.rowCount() == 0
    assert window.session.trace is None or window.session.trace.name != "f"

    second = asking_window()  # a new window, a new question: yes
    wait_engine(qtbot, second)
    assert second.open_lesson(path)
    QTimer.singleShot(0, lambda: QApplication.activeModalWidget().button(
        QMessageBox.StandardButton.Yes).click())
    with qtbot.waitSignal(second.tracer.sig_loaded, timeout=ENGINE_S):
        second.lessons.go_to(1)
    assert marker.read_text() == "ran"


def test_closing_with_unsaved_lesson_edits_asks(qtbot, asking_window, tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    window = asking_window()
    window.trust_lesson(path)
    assert window.open_lesson(path)
    wait_engine(qtbot, window)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_S):
        window.lessons.go_to(2)
    window.editor.setPlainText("def half(x):\n    return x * 0.5\n")
    asked: list[str] = []
    timer = answering(asked, QMessageBox.StandardButton.Cancel)
    window.close()
    assert not timer.isActive()
    assert len(asked) == 1 and "lesson" in asked[0]
    assert window.isVisible()  # cancelled: nothing lost
    assert window.lessons.codes == {2: "def half(x):\n    return x * 0.5\n"}


def test_bundled_lessons_never_ask(qtbot, asking_window, tmp_path, monkeypatch):
    folder = tmp_path / "lessons"
    folder.mkdir()
    path = folder / "01_small.py"
    path.write_text(SMALL)
    (folder / "02_broken.ipynb").write_text("{")
    monkeypatch.setattr(bundled, "LESSONS_DIR", folder)  # the bundled folder, moved
    window = asking_window()
    window.fill_lessons_menu()
    actions = [a for a in window.lessons_menu.actions()]
    assert [a.text() for a in actions] == ["Small", "02_broken.ipynb (cannot be read)"]
    assert not actions[1].isEnabled() and "invalid JSON" in actions[1].toolTip()
    actions[0].trigger()
    assert window.lessons.is_open
    wait_engine(qtbot, window)
    asked: list[str] = []
    timer = answering(asked, QMessageBox.StandardButton.No)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_S):
        window.lessons.go_to(1)
    qtbot.waitUntil(lambda: not timer.isActive())
    assert asked == []


def test_help_lessons_copes_with_no_lessons(qtbot, make_window, tmp_path, monkeypatch):
    monkeypatch.setattr(bundled, "LESSONS_DIR", tmp_path / "nowhere")
    window = blank_window(make_window, tmp_path)
    window.fill_lessons_menu()
    (action,) = window.lessons_menu.actions()
    assert action.objectName() == "lessonsNone" and not action.isEnabled()


def test_presentation_puts_the_lesson_text_beside_the_editor(qtbot, make_window, tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    window.set_presentation(True)
    panel = window.lesson_panel
    assert not panel.steps.isVisible()  # folded away
    assert panel.text.isVisible()
    assert window.dockWidgetArea(window.lesson_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert panel.text.font().pointSizeF() > window.editor.font().pointSizeF() * 0.5
    editor_left = window.editor.mapTo(window, window.editor.rect().topLeft()).x()
    assert window.lesson_dock.geometry().right() <= editor_left  # beside it, on its left
    window.set_presentation(False)
    assert panel.steps.isVisible()


def test_opening_a_lesson_leaves_nothing_of_the_file_before_on_show(qtbot, make_window,
                                                                     tmp_path):
    """The jaxpr of the example open before is not the lesson's: opening clears it, and the
    panels say that what they show came from before, until a step runs."""
    from workbench.examples import bundled_examples

    selu = next(e for e in bundled_examples() if e.function == "selu")
    window = make_window(selu.path)
    window.build_panels()
    window.run()
    qtbot.waitUntil(lambda: window.jaxpr.trace() is not None, timeout=ENGINE_S)
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    open_trusted(qtbot, window, path)
    assert window.jaxpr.trace() is None
    assert "PageDown" in window.jaxpr.text.toPlainText()
    assert "before the lesson" in (window.plot_panel.stale_text() or "")
    assert "before the lesson" in (window.graph_panel.stale_text() or "")
    go(qtbot, window, 1)
    qtbot.waitUntil(lambda: window.jaxpr.trace() is not None
                    and window.jaxpr.trace().function == "square", timeout=ENGINE_S)
    qtbot.waitUntil(lambda: window.plot_panel.stale_text() is None, timeout=ENGINE_S)


def test_paging_faster_than_steps_load_ends_on_the_last_steps_function(qtbot, make_window,
                                                                       tmp_path):
    """PageUp, PageUp, PageDown, PageDown at once: the controls and the trace follow the step
    the presenter stopped on, not a function an earlier, superseded step asked for."""
    path = tmp_path / "fast.py"
    path.write_text(FAST)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    go(qtbot, window, 3)  # third and aaa are known to the controls now
    window.editor.setFocus()
    for _ in range(2):
        qtbot.keyClick(window.editor, Qt.Key.Key_PageUp)  # to 1, whose function is unknown
    for _ in range(2):
        page_down(qtbot, window)  # back to 3 before 1 has loaded
    assert window.lesson_panel.position.text() == "step 3 of 3"
    # Step 2, on its way, answers first; then step 3 runs (step 1 was passed: never run).
    qtbot.waitUntil(lambda: not window.lessons.busy and window.jaxpr.trace() is not None
                    and window.jaxpr.trace().function == "third", timeout=ENGINE_S)
    assert window.controls.function() == "third"


FAST = """\
# %%
# workbench: trace first --args f32[2]
def first(x):
    return x + 1

# %%
# workbench: trace second --args f32[2]
def second(x):
    return x * 2

# %%
# workbench: plot third --order 1
def aaa(x):
    return x - 1


def third(x):
    return x * x
"""


def test_unsaved_step_edits_survive_a_crash_and_go_once_saved(qtbot, make_window, tmp_path):
    """The teacher's edits of several steps live in memory; they are kept on disk too, so a
    window that dies before Save lesson loses none: the next open of the lesson has them."""
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    first = blank_window(make_window, tmp_path)
    open_trusted(qtbot, first, path)
    go(qtbot, first, 1)
    first.editor.setPlainText("def square(x):\n    return x ** 2\n")
    go(qtbot, first, 2)
    first.editor.setPlainText("def half(x):\n    return x * 0.5\n")
    kept = first.lessons.edits.file_for(path)
    qtbot.waitUntil(lambda: kept.exists() and "0.5" in kept.read_text(), timeout=5000)

    # The first window never closes cleanly (a crash); a new one opens the same lesson.
    second = make_window(tmp_path / "blank.py")
    open_trusted(qtbot, second, path)
    assert second.lessons.codes == {1: "def square(x):\n    return x ** 2\n",
                                    2: "def half(x):\n    return x * 0.5\n"}
    assert "from last time" in second.lesson_panel.message_text()
    assert second.lesson_panel.steps.item(0).text().startswith(EDITED_MARK)
    assert second.editor.toPlainText() == ""  # still nothing runs on opening

    assert second.save()
    assert "x ** 2" in path.read_text() and "x * 0.5" in path.read_text()
    assert not kept.exists()


def test_a_trace_step_is_one_round_trip(qtbot, make_window, tmp_path):
    """The step's load carries the trace of the function the step defines, so the tree
    follows in the same round trip (no second Trace request after the load)."""
    from workbench.api import messages as p

    path = tmp_path / "fast.py"
    path.write_text(FAST)
    window = blank_window(make_window, tmp_path)
    open_trusted(qtbot, window, path)
    go(qtbot, window, 1)
    qtbot.waitUntil(lambda: window.jaxpr.trace() is not None, timeout=ENGINE_S)
    sent: list[object] = []
    window.engine.sig_request_sent.connect(sent.append)
    with qtbot.waitSignal(window.sig_traced, timeout=ENGINE_S) as traced:
        window.lessons.go_to(2)
    assert traced.args[0].function == "second"
    loads = [r for r in sent if isinstance(r, p.LoadSource)]
    assert len(loads) == 1 and loads[0].trace is not None and loads[0].trace.name == "second"
    assert not [r for r in sent if isinstance(r, p.Trace)]
