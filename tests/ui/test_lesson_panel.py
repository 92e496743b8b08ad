"""The lesson panel on its own: Markdown, maths as images, edited marks, position, scale,
the step list's height."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QPalette, QTextDocument
from PySide6.QtWidgets import QApplication

from workbench.lessons import Step
from workbench.lessons.formats import lesson_from_text
from workbench.lessons.markdown import typeset
from workbench.ui.lesson.lesson_panel import EDITED_MARK, STEP_ROWS, LessonPanel
from workbench.ui.style.presentation import base_font
from workbench.ui.style.theme import dark_palette

LESSON = """\
# %% [markdown]
# # Derivatives
# The slope of $f(x) = x^2$ is
#
# $$
# f'(x) = 2 x
# $$
#
# - call `jax.grad(f)`
# - read [the docs](https://jax.readthedocs.io)

# %%
def f(x):
    return x * x

# %% [markdown]
# ## Second
# Keep `$HOME` as code.

# %%
# workbench: frobnicate
def g(x):
    return x

# %% [markdown]
# The end.
"""


@pytest.fixture
def panel(qtbot):
    lesson = lesson_from_text(LESSON, Path("derivatives.py"))
    widget = LessonPanel()
    qtbot.addWidget(widget)
    widget.set_lesson(lesson.title, lesson.steps, "# Derivatives\n\n3 steps.")
    widget.show()
    return widget


def test_the_step_text_is_rendered_markdown(panel):
    panel.set_current(1)
    html = panel.text.toHtml()
    text = panel.text.toPlainText()
    assert "# Derivatives" not in text and "Derivatives" in text  # a heading, not hashes
    assert "href=\"https://jax.readthedocs.io\"" in html
    assert "the docs" in text and "[the docs]" not in text
    assert "jax.grad(f)" in text and "`" not in text  # a code span
    assert not panel.text.openLinks() and not panel.text.openExternalLinks()  # LessonLinks
    doc = panel.text.document()
    assert any(doc.findBlockByNumber(i).textList() is not None
               for i in range(doc.blockCount()))  # the bullets are a list


def maths_images(panel) -> list[QImage]:
    """The images of the maths the panel's document shows, in order."""
    document = panel.text.document()
    names = re.findall(r'src="(wbmath:\d+)"', panel.text.toHtml())
    images = [document.resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
              for name in names]
    assert all(isinstance(image, QImage) and not image.isNull() for image in images)
    return images


def ink(image: QImage) -> QColor:
    """The colour of the image's most opaque pixel: the formula's ink."""
    best = max(((x, y) for x in range(image.width()) for y in range(image.height())),
               key=lambda at: image.pixelColor(*at).alpha())
    return image.pixelColor(*best)


def test_maths_are_typeset_images_in_the_document(panel):
    panel.set_current(1)
    html = panel.text.toHtml()
    assert 'alt="$f(x) = x^2$"' in html and "alt=\"$$f'(x) = 2 x$$\"" in html
    images = maths_images(panel)
    assert len(images) == 2  # inline and display
    assert "$f(x)" not in panel.text.toPlainText()  # an image, not the source
    text = panel.text.palette().color(QPalette.ColorRole.Text)
    assert ink(images[0]).name() == text.name()  # the maths in the text's colour
    panel.set_current(2)
    assert maths_images(panel) == [] and "$HOME" in panel.text.toPlainText()


def test_maths_follow_the_presentation_scale_and_the_theme(qtbot, qapp, panel):
    panel.set_current(1)
    normal = maths_images(panel)[0]
    panel.set_presentation_scale(1.5)
    big = maths_images(panel)[0]
    assert big.width() > 1.3 * normal.width()
    panel.set_presentation_scale(1.0)
    light = qapp.palette()
    try:
        qapp.setPalette(dark_palette())  # as the theme does, after its sig_scheme_changed
        panel.set_scheme("dark")
        qtbot.waitUntil(lambda: ink(maths_images(panel)[0]).lightness() > 180)  # light ink
    finally:
        qapp.setPalette(light)
    qtbot.waitUntil(lambda: ink(maths_images(panel)[0]).lightness() < 100)


def test_the_step_list_shows_twelve_rows_in_the_dock_of_a_1600x1000_window(qtbot):
    widget = LessonPanel()
    qtbot.addWidget(widget)
    steps = [Step(n, f"step {n}", f"Text of step {n}.") for n in range(1, 31)]
    widget.set_lesson("Long lesson", steps)
    widget.resize(416, 559)  # the lesson dock's size in a 1600x1000 main window
    widget.show()
    qtbot.waitExposed(widget)
    widget.set_current(1)
    assert widget.steps_rows_shown() >= STEP_ROWS
    assert widget.text.height() >= 0.35 * sum(widget.splitter.sizes())  # the text keeps room
    widget.resize(416, 800)  # a taller dock: the text takes the height, the list its rows
    qtbot.waitUntil(lambda: widget.text.height() > 400)
    assert STEP_ROWS <= widget.steps_rows_shown() <= STEP_ROWS + 1
    widget.splitter.moveSplitter(500, 1)  # the user drags the handle: theirs from now on
    widget.resize(416, 820)
    assert widget.steps.height() > 400


def test_position_buttons_and_the_chosen_step(qtbot, panel):
    assert panel.position.text() == "3 steps"
    assert not panel.previous_button.isEnabled() and panel.next_button.isEnabled()
    panel.set_current(2)
    assert panel.position.text() == "step 2 of 3"
    assert panel.previous_button.isEnabled() and panel.next_button.isEnabled()
    assert "$HOME" in panel.text.toPlainText()
    panel.set_current(3)
    assert not panel.next_button.isEnabled()
    with qtbot.waitSignal(panel.sig_step_chosen) as chosen:
        panel.steps.setCurrentRow(0)  # the user picks a row
    assert chosen.args == [1]
    assert panel.current() == 3  # the controller decides what becomes current
    panel.set_current(2)
    with qtbot.waitSignal(panel.sig_next):
        panel.next_button.click()


def test_rows_carry_titles_and_edited_steps_are_marked(panel):
    rows = [panel.steps.item(i) for i in range(panel.steps.count())]
    assert [r.text() for r in rows] == ["1. Derivatives", "2. Second", "3. The end."]
    assert "directive not understood" in rows[1].toolTip()
    assert "text only" in rows[2].toolTip()
    panel.set_edited({2}, editor_step=2)
    assert rows[1].text() == f"{EDITED_MARK}2. Second" and rows[1].font().italic()
    assert "Reset step" in rows[1].toolTip()
    assert not rows[0].text().startswith(EDITED_MARK)
    assert panel.reset_button.isEnabled()
    panel.set_edited({2}, editor_step=1)  # the step in the editor is not the edited one
    assert not panel.reset_button.isEnabled()
    panel.set_edited(set(), editor_step=2)
    assert rows[1].text() == "2. Second" and not rows[1].font().italic()


def test_message_shows_and_hides(panel):
    panel.set_message("the lesson file is gone")
    assert panel.message.isVisible() and panel.message_text() == "the lesson file is gone"
    panel.set_message("")
    assert not panel.message.isVisible()


def test_presentation_scale_and_compact_layout(panel):
    base = base_font(QApplication.instance()).pointSizeF()
    panel.set_presentation_scale(1.5)
    assert panel.text.font().pointSizeF() == pytest.approx(base * 1.5)
    assert panel.text.document().defaultFont().pointSizeF() == pytest.approx(base * 1.5)
    panel.set_presentation_scale(1.0)
    assert panel.text.font().pointSizeF() == pytest.approx(base)
    panel.set_compact(True)
    assert not panel.steps.isVisible() and panel.text.isVisible()
    panel.set_compact(False)
    assert panel.steps.isVisible()
    panel.set_scheme("dark")
    assert "#ff8a80" in panel.message.styleSheet()


def test_a_lessons_maths_are_typeset_before_its_steps_are_visited(qtbot):
    """Typesetting a step's formulas took 30-60 ms on its first visit, paid on the
    presenter's PageDown and on every follower the teacher moved; the panel typesets them
    while the lesson is read, so a visit finds them all done."""
    typeset.cache_clear()
    lesson = lesson_from_text(LESSON.replace("x^2", "x^2 + 7"), Path("ahead.py"))
    widget = LessonPanel()
    qtbot.addWidget(widget)
    widget.set_lesson(lesson.title, lesson.steps)
    widget.show()
    qtbot.waitUntil(lambda: typeset.cache_info().currsize == 2, timeout=10_000)
    misses = typeset.cache_info().misses
    widget.set_current(1)
    assert len(maths_images(widget)) == 2
    assert typeset.cache_info().misses == misses
