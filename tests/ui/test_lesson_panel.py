"""The lesson panel on its own: Markdown, maths as code, edited marks, position, scale."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from workbench.lessons.formats import percent_from_text
from workbench.ui.lesson.lesson_panel import EDITED_MARK, LessonPanel, markdown_for_qt, maths_text
from workbench.ui.style.presentation import base_font

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
    lesson = percent_from_text(LESSON, Path("derivatives.py"))
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
    assert panel.text.openExternalLinks()
    doc = panel.text.document()
    assert any(doc.findBlockByNumber(i).textList() is not None
               for i in range(doc.blockCount()))  # the bullets are a list


def test_maths_shows_as_code_written_as_it_is():
    converted = markdown_for_qt("slope of $f(x) = x^2$ costs $5 and $6\n\n$$\na*b\n$$\n")
    assert "`f(x) = x^2`" in converted
    assert "$5 and $6" in converted  # money, not maths
    assert "```\na*b\n```" in converted
    fenced = "```python\nprice = '$x$'\n```\n"
    assert markdown_for_qt(fenced) == fenced  # code is left as written
    assert markdown_for_qt("keep `$x$` as is") == "keep `$x$` as is"


def test_maths_latex_reads_as_unicode_text():
    converted = markdown_for_qt(r"slope $\lambda = 1.05$, left $-\lambda\alpha \approx -1.75$"
                                "\n\n$$\n\\sum_i x_i^2\n$$\n")
    assert "`λ = 1.05`" in converted
    assert "`-λα ≈ -1.75`" in converted
    assert "```\n∑_i x_i^2\n```" in converted
    assert maths_text(r"\frac{a}{") in (r"\frac{a}{", "a/")  # never raises
    assert maths_text(r"J_{ij} = \partial f_i / \partial x_j") == "J_ij = ∂f_i / ∂x_j"


def test_display_maths_renders_as_a_code_block(panel):
    panel.set_current(1)
    text = panel.text.toPlainText()
    assert "f'(x) = 2 x" in text and "$$" not in text
    assert "f(x) = x^2" in text and "$f(x)" not in text


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
