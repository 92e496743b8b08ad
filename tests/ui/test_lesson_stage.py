"""A lesson in front of a class, in the real window: what the step shows is the current
truth (a fixed step stops reading "failed" the moment it runs) and a notebook's pasted
images are shown as images."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument

from tests.lessons.test_embedded_images import png

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


def test_a_fixed_step_no_longer_reads_failed_once_it_runs(qtbot, make_window, tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(BROKEN)
    window = _blank(make_window, tmp_path)
    window.trust_lesson(path)
    assert window.open_lesson(path)
    qtbot.waitUntil(lambda: window.tracer.engine_ready, timeout=ENGINE_MS)
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
