"""A lesson in front of a class, in the real window: what the step shows is the current
truth (a fixed step stops reading "failed" the moment it runs) and a notebook's pasted
images are shown as images."""

from __future__ import annotations

import json
import threading
import time

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QImage, QTextDocument

from tests.lessons.test_embedded_images import png
from workbench.api import messages as p

ENGINE_MS = 60000

BROKEN = """\
# %% [markdown]
# # Fix me

# %%
total = undefined_name + 1
"""


def _blank(make_window, tmp_path):
    blank = tmp_path / "blank.py"
    blank.write_text("")
    return make_window(blank)


def _open_trusted(qtbot, make_window, tmp_path, name: str, text: str):
    """A window with the lesson ``text`` (saved as ``name``) open, trusted, the engine ready."""
    path = tmp_path / name
    path.write_text(text)
    window = _blank(make_window, tmp_path)
    window.trust_lesson(path)
    assert window.open_lesson(path)
    qtbot.waitUntil(lambda: window.tracer.engine_ready, timeout=ENGINE_MS)
    return window


def test_a_fixed_step_no_longer_reads_failed_once_it_runs(qtbot, make_window, tmp_path):
    window = _open_trusted(qtbot, make_window, tmp_path, "broken.py", BROKEN)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(1)
    qtbot.waitUntil(lambda: "this step's code failed" in window.lessons.message())
    assert "undefined_name" in window.lessons.message()
    window.editor.setPlainText("total = 41 + 1\n")  # the teacher fixes it ...
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.action_run.trigger()  # ... and presses Run
    qtbot.waitUntil(lambda: "failed" not in window.lessons.message())
    assert window.lesson_panel.message.isHidden()


def test_pasted_images_show_as_images_in_the_step_text(qtbot, make_window, tmp_path):
    notebook = {
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [
            {"cell_type": "markdown", "id": "a", "metadata": {},
             "source": f"# Pictures\n\n![pasted](attachment:pasted.png)\n\n"
                       f"![inline](data:image/png;base64,{png(420, 260, noise=True)})",
             "attachments": {"pasted.png": {"image/png": png(240, 120)}}},
            {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": None,
             "outputs": [], "source": "x = 1"},
        ],
    }
    path = tmp_path / "pictures.ipynb"
    path.write_text(json.dumps(notebook))
    window = _blank(make_window, tmp_path)
    assert window.open_lesson(path)
    window.lessons.go_to(1)  # declined here (this window asks nothing): the text shows
    browser = window.lesson_panel.text
    text = browser.toPlainText()
    assert "[image" not in text and "base64" not in text and "shown as written" not in text
    document = browser.document()
    sizes = []
    for name in ("wbimg:1", "wbimg:2"):
        image = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
        assert isinstance(image, QImage) and not image.isNull()
        sizes.append((image.width(), image.height()))
    assert sorted(sizes) == [(240, 120), (420, 260)]


FIRST = """\
# %% [markdown]
# # First

# %%
secret = 42
"""

SECOND = """\
# %% [markdown]
# # Second

# %%
seen = secret
"""


@pytest.mark.parametrize("engine", ["in-process", pytest.param("kernel", marks=pytest.mark.kernel)])
def test_a_second_lesson_does_not_see_the_first_ones_names(qtbot, make_window, tmp_path,
                                                           engine):
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text(FIRST)
    second.write_text(SECOND)
    window = _blank(make_window, tmp_path)
    for path in (first, second):
        window.trust_lesson(path)
    assert window.open_lesson(first)
    qtbot.waitUntil(lambda: window.tracer.engine_ready, timeout=ENGINE_MS)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(1)
    assert "failed" not in window.lessons.message()
    notices: list[str] = []
    window.engine.sig_notice.connect(lambda notice: notices.append(notice.message))
    assert window.open_lesson(second)
    qtbot.waitUntil(lambda: bool(notices), timeout=ENGINE_MS)
    assert notices[0].startswith("a fresh engine for the lesson 'Second'")
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(1)
    qtbot.waitUntil(lambda: "this step's code failed" in window.lessons.message())
    assert "secret" in window.lessons.message()


PAGING = """\
# %% [markdown]
# # Paging

# %%
import time
time.sleep(8)
first = 1

# %%
time.sleep(8)
second = 2

# %%
landed = 3
"""


def test_three_fast_nexts_past_two_slow_steps_show_the_landing_step_at_once(
        qtbot, make_window, tmp_path):
    """Each step passed used to run on the way; now the one on its way finishes and the
    landing step runs next: step 2 never runs, and the step says so."""
    window = _open_trusted(qtbot, make_window, tmp_path, "paging.py", PAGING)
    sources: list[str] = []
    window.engine.sig_request_sent.connect(
        lambda r: sources.append(r.source) if isinstance(r, p.LoadSource) else None)
    started = time.monotonic()
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    qtbot.waitUntil(lambda: len(sources) == 1)  # step 1 goes out once it is painted
    for _ in range(2):
        qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert time.monotonic() - started < 4
    assert window.lesson_panel.current() == 3
    assert window.editor.toPlainText() == "landed = 3\n"
    assert "waiting for step 1 to finish" in window.lesson_panel.outputs.toPlainText()
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS,
                          check_params_cb=lambda r: _step_of(r) == 3):
        pass
    assert [s.splitlines()[-1] for s in sources] == ["first = 1", "landed = 3"]
    qtbot.waitUntil(lambda: "step 2 above has not run in this engine"
                    in window.lessons.message())
    assert window.lesson_panel.run_above_button.isVisible()


def test_nexts_within_one_turn_run_only_the_landing_step(qtbot, make_window, tmp_path):
    """A step's run goes out a turn after it is shown: a step left within that turn (three
    presses queued at once) never runs, and the landing step does not wait for it."""
    window = _open_trusted(qtbot, make_window, tmp_path, "paging.py", PAGING)
    sources: list[str] = []
    window.engine.sig_request_sent.connect(
        lambda r: sources.append(r.source) if isinstance(r, p.LoadSource) else None)
    for number in (1, 2, 3):
        window.lessons.go_to(number)
    assert sources == []
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS,
                          check_params_cb=lambda r: _step_of(r) == 3):
        pass
    assert sources == ["landed = 3\n"]
    qtbot.waitUntil(lambda: "steps 1 and 2 above have not run in this engine"
                    in window.lessons.message())


TWO_STEPS = """\
# %%
a = 1

# %%
b = 2
"""


def test_an_edits_answer_come_as_the_step_changes_is_not_taken_for_the_new_steps(
        qtbot, make_window, tmp_path):
    """The step's run goes out a turn after the step is shown. An edit's answer that was
    already on its way to the window in that turn once passed for the new step's, which
    then never ran: it now reaches nobody, as a superseded one does."""
    window = _open_trusted(qtbot, make_window, tmp_path, "two.py", TWO_STEPS)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(1)
    bridge = window.engine
    sent: list[p.LoadSource] = []
    bridge.sig_request_sent.connect(
        lambda r: sent.append(r) if isinstance(r, p.LoadSource) else None)
    answered = threading.Event()
    post = bridge._post

    def watch(fn, *args):  # on the engine's thread: the reply, posted to the window
        post(fn, *args)
        if fn == bridge._deliver_reply and _step_of(args[1]) == 1:
            answered.set()

    bridge._post = watch
    window.editor.setPlainText("a = 'edited'\n")
    window.tracer.run()
    assert answered.wait(ENGINE_MS / 1000)  # answered, not yet seen by the window
    loaded: list[int | None] = []
    window.tracer.sig_loaded.connect(lambda r: loaded.append(_step_of(r)))
    window.lessons.go_to(2)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS,
                          check_params_cb=lambda r: _step_of(r) == 2):
        pass
    assert loaded == [2]
    assert [r.source for r in sent] == ["a = 'edited'\n", "b = 2\n"]
    assert window.lessons.busy is False


def _step_of(reply) -> int | None:
    loaded = p.result_value(reply, p.Functions)
    return int(loaded.filename.rsplit(" ", 1)[-1]) if loaded is not None else None


JUMP = """\
# %% [markdown]
# # Jumping

# %%
import math

# %%
radius = 2.0

# %%
area = math.pi * radius ** 2
print(round(area, 2))
"""


def test_a_name_from_a_step_not_run_says_which_step_and_run_steps_above_fixes_it(
        qtbot, make_window, tmp_path):
    window = _open_trusted(qtbot, make_window, tmp_path, "jump.py", JUMP)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(3)  # picked in the list: steps 1 and 2 are jumped over
    qtbot.waitUntil(lambda: "has not run in this engine" in window.lessons.message())
    message = window.lessons.message()
    assert "'math' is not defined: step 1, which imports it, has not run" in message
    button = window.lesson_panel.run_above_button
    assert button.isVisible()
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "12.57" in window.lesson_panel.outputs.toPlainText())
    assert "failed" not in window.lessons.message() and not button.isVisible()
    assert window.lessons._outputs[2][0] == ()  # step 2 ran (nothing to show)



def test_run_all_above_runs_every_step_above_then_this_one(qtbot, make_window, tmp_path):
    window = _open_trusted(qtbot, make_window, tmp_path, "jump.py", JUMP)
    window.lessons.go_to(3)
    qtbot.waitUntil(lambda: window.lessons._pending is None, timeout=ENGINE_MS)
    sources: list[str] = []
    window.engine.sig_request_sent.connect(
        lambda r: sources.append(r.source) if isinstance(r, p.LoadSource) else None)
    window.actions_.action_run_above.trigger()
    qtbot.waitUntil(lambda: "12.57" in window.lesson_panel.outputs.toPlainText(),
                    timeout=ENGINE_MS)
    assert [s.splitlines()[0] for s in sources] == ["import math", "radius = 2.0",
                                                    "area = math.pi * radius ** 2"]


def test_after_a_restart_the_step_offers_to_run_the_steps_above_again(qtbot, make_window,
                                                                      tmp_path):
    window = _open_trusted(qtbot, make_window, tmp_path, "jump.py", JUMP)
    for number in (1, 2, 3):
        with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
            window.lessons.go_to(number)
    assert "not run" not in window.lessons.message()
    assert not window.lesson_panel.run_above_button.isVisible()
    with qtbot.waitSignal(window.engine.sig_notice, timeout=ENGINE_MS):
        window.restart_engine()
    qtbot.waitUntil(lambda: "steps 1 and 2 above have not run in this engine"
                    in window.lessons.message())
    assert window.lesson_panel.run_above_button.isVisible()


FIGURE = """\
# %% [markdown]
# # A figure on stage

# %%
import matplotlib.pyplot as plt
plt.plot([0, 1, 2, 3], [0, 1, 4, 9])
plt.title("squares")
plt.show()
"""


def test_a_figure_is_the_stage_at_1280x800_presenting(qtbot, make_window, tmp_path):
    """Before: scaled to 55% in a 400 px pane under an empty text pane of 290 px."""
    path = tmp_path / "figure.py"
    path.write_text(FIGURE)
    window = _blank(make_window, tmp_path)
    window.resize(1280, 800)
    window.set_presentation(True)
    window.trust_lesson(path)
    assert window.open_lesson(path)
    qtbot.waitUntil(lambda: window.tracer.engine_ready, timeout=ENGINE_MS)
    outputs = window.lesson_panel.outputs
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(1)
    qtbot.waitUntil(lambda: bool(outputs.figure_sizes()), timeout=ENGINE_MS)

    def whole() -> bool:
        (width, height), = outputs.figure_sizes()
        view = outputs.viewport()
        return (width >= 430 and width <= view.width() and height <= view.height()
                and outputs.horizontalScrollBar().maximum() == 0)

    qtbot.waitUntil(whole, timeout=5000)
    text = window.lesson_panel.text
    assert text.height() < outputs.height() / 2  # the heading's room, not half the pane
    # A click on the figure shows it enlarged.
    (width, _), = outputs.figure_sizes()
    block = outputs.document().begin()
    while block.isValid() and "\ufffc" not in block.text():
        block = block.next()
    rect = outputs.document().documentLayout().blockBoundingRect(block)
    point = rect.center().toPoint() - QPoint(0, outputs.verticalScrollBar().value())
    qtbot.mouseClick(outputs.viewport(), Qt.MouseButton.LeftButton, pos=point)
    view = window.lesson_panel.figure_view
    assert view is not None and view.isVisible()
    assert view.label.pixmap().width() > width
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.lesson_panel.figure_view is None)


TWO = """\
# %%
def twice(x):
    return x * 2

# %%
total = 1 + 2
"""


def test_a_step_that_defines_no_function_says_so(qtbot, make_window, tmp_path):
    window = _open_trusted(qtbot, make_window, tmp_path, "two.py", TWO)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(1)
    assert window.controls.function() == "twice"
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(2)
    qtbot.waitUntil(lambda: window.jaxpr.text.toPlainText().startswith(
        "this step defines no function"))
    assert window.controls.function() == "" and window.jaxpr.trace() is None


def test_an_edit_run_while_steps_above_run_ends_them_and_nothing_waits_for_ever(
        qtbot, make_window, tmp_path):
    """The editor's load takes the place of the chain's (one load at a time): the chain's
    answer never comes, so the chain must end there, or every later step would wait."""
    window = _open_trusted(qtbot, make_window, tmp_path, "jump.py", JUMP)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(3)
    window.lessons.run_steps_above()
    assert window.lessons.busy
    window.action_run.trigger()  # the teacher presses Run meanwhile
    qtbot.waitUntil(lambda: not window.lessons.busy, timeout=ENGINE_MS)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(2)  # runs at once: nothing is left waiting
    assert "radius" not in window.lessons.message()


CALLS = """\
# %%
import jax
import jax.numpy as jnp

def loss(x):
    return jnp.sum(jnp.tanh(x) ** 2)

def other(a, b):
    return a + b

# %%
x = jnp.ones((10, 15, 3))
print(loss(x))

# %%
dloss = jax.grad(loss)
g = dloss(x[0])
"""


def test_a_step_traces_what_it_calls_at_the_arguments_it_passed(qtbot, make_window, tmp_path):
    """Not a guess from the definitions (the first function, at f32[1000]): the step's
    last call of a lesson function, at the shapes its arguments have in the namespace."""
    window = _open_trusted(qtbot, make_window, tmp_path, "calls.py", CALLS)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(1)
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(2)
    qtbot.waitUntil(lambda: (trace := window.jaxpr.trace()) is not None
                    and trace.function == "loss" and trace.args == ("f32[10,15,3]",),
                    timeout=ENGINE_MS)
    assert window.controls.function() == "loss" and window.controls.args() == "f32[10,15,3]"
    with qtbot.waitSignal(window.tracer.sig_loaded, timeout=ENGINE_MS):
        window.lessons.go_to(3)
    qtbot.waitUntil(lambda: (trace := window.jaxpr.trace()) is not None
                    and trace.function == "dloss" and trace.args == ("f32[15,3]",),
                    timeout=ENGINE_MS)
