"""Lessons: notebooks (``.ipynb``, MyST Markdown, Jupytext scripts) read as steps that
drive the workbench.

No jax and no Qt here: the window and the ``workbench lesson`` command read lessons
alike. ``model`` holds the steps, ``formats`` reads and writes every format (text
notebooks through ``text_notebooks``), ``handout`` writes a run with its outputs,
``directives`` parses ``# workbench: VERB ...`` lines with the CLI's own argument
definitions, ``bundled`` finds the lessons shipped in ``assets/lessons``.
"""

from workbench.lessons.bundled import LESSONS_DIR, bundled_lessons, is_bundled
from workbench.lessons.directives import (
    CallDirective,
    Directive,
    DirectiveError,
    KMeansDirective,
    PlotDirective,
    TimeDirective,
    parse_directive,
)
from workbench.lessons.formats import lesson_text, read_lesson, write_lesson
from workbench.lessons.model import Lesson, LessonError, Step

__all__ = [
    "LESSONS_DIR",
    "CallDirective",
    "Directive",
    "DirectiveError",
    "KMeansDirective",
    "Lesson",
    "LessonError",
    "PlotDirective",
    "Step",
    "TimeDirective",
    "bundled_lessons",
    "is_bundled",
    "lesson_text",
    "parse_directive",
    "read_lesson",
    "write_lesson",
]
