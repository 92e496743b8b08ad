"""Which steps above the one shown have not run, and the NameError that names one."""

from __future__ import annotations

from pathlib import Path

from workbench.lessons.formats import lesson_from_text
from workbench.lessons.progress import (
    missing_name_note,
    not_run_note,
    steps_text,
    undefined_name,
    unrun_above,
)

LESSON = """\
# %%
import math

# %% tags=["skip-execution"]
slow = 1

# %% [markdown]
# Text only.

# %%
radius = 2.0

# %%
area = math.pi * radius ** 2
"""


def _lesson():
    return lesson_from_text(LESSON, Path("l.py"))


def test_steps_text_reads_as_a_teacher_says_it():
    assert steps_text([2]) == "step 2"
    assert steps_text([3, 2]) == "steps 2 and 3"
    assert steps_text([2, 3, 4]) == "steps 2-4"
    assert steps_text([2, 4, 7, 8, 9]) == "steps 2, 4 and 7-9"
    assert not_run_note([2]).startswith("step 2 above has not run in this engine")


def test_unrun_above_skips_text_steps_and_skip_execution():
    lesson = _lesson()
    numbers = [s.number for s in lesson.steps]
    assert numbers == [1, 2, 3, 4]  # the Markdown joins the next code step
    assert unrun_above(lesson, 4, ran=set()) == (1, 3)  # step 2 is skip-execution
    assert unrun_above(lesson, 4, ran={1}) == (3,)
    assert unrun_above(lesson, 1, ran=set()) == ()


def test_a_name_error_names_the_step_that_binds_it():
    lesson = _lesson()
    assert undefined_name("name 'radius' is not defined") == "radius"
    assert undefined_name("something else") is None
    note = missing_name_note(lesson, 4, set(), "name 'math' is not defined")
    assert note.startswith("'math' is not defined: step 1, which imports it, has not run")
    assert missing_name_note(lesson, 4, {1, 3}, "name 'math' is not defined") == ""
    assert missing_name_note(lesson, 4, set(), "name 'nowhere' is not defined") == ""
