"""The lesson beside the editor: its steps, the current step's text, Previous / Next, Reset.

The panel only shows and asks: the ``LessonController`` decides what a step does.
A step's text is Markdown rendered by Qt itself (``QTextBrowser.setMarkdown``:
headings, lists, code spans, links opened in the browser). Qt's Markdown has no
maths, so ``$...$`` shows as a code span and ``$$...$$`` as a code block, their
LaTeX turned into Unicode text by pylatexenc (``\\lambda\\alpha \\approx 1.75`` reads
``λα ≈ 1.75``); a formula it cannot read stays as written, never loses its
backslashes and stars to Markdown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from pylatexenc.latex2text import LatexNodes2Text
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from workbench.lessons import Step
from workbench.ui.style.presentation import base_font, scaled

EDITED_MARK = "● "
EDITED_TIP = ("edited: Reset step brings back the lesson's code; File > Save lesson writes "
              "your version into the lesson file")
_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})")
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
# pandoc's rule: no space after the opening $, none before the closing one, no digit after it.
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?=\S)([^$\n]*?\S)\$(?![$\d])")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_RELATION_SPACE = re.compile(r"\s*([=≈≤≥≠→<>×∈])\s*")


def _code_span(text: str) -> str:
    ticks = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


@functools.cache
def _latex_converter() -> LatexNodes2Text:
    return LatexNodes2Text(math_mode="text")


def maths_text(latex: str) -> str:
    """A formula's LaTeX as Unicode text; the source itself when it does not parse."""
    try:
        text = _latex_converter().latex_to_text(latex)
    except Exception:  # noqa: BLE001 - any LaTeX the converter trips on stays as written
        return latex
    text = _RELATION_SPACE.sub(r" \1 ", text)  # λ= 1.05: the converter eats the space
    return re.sub(r"  +", " ", text).strip() or latex


def _maths_as_code(prose: str) -> str:
    """``$$..$$`` as a code block and ``$..$`` as a code span, outside code spans."""
    def display(match: re.Match[str]) -> str:
        body = maths_text(match.group(1).strip("\n"))
        return f"\n\n```\n{body}\n```\n\n"

    out: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(prose):
        out.append(_INLINE_MATH.sub(lambda m: _code_span(maths_text(m.group(1))),
                                    _DISPLAY_MATH.sub(display, prose[last:span.start()])))
        out.append(span.group(0))
        last = span.end()
    out.append(_INLINE_MATH.sub(lambda m: _code_span(maths_text(m.group(1))),
                                _DISPLAY_MATH.sub(display, prose[last:])))
    return "".join(out)


def markdown_for_qt(text: str) -> str:
    """The step's Markdown with its maths turned into code (Qt renders no maths); fenced
    code blocks are left exactly as written."""
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for row in text.splitlines(keepends=True):
        match = _FENCE.match(row)
        if fence is None and match:
            out.append(_maths_as_code("".join(prose)))
            prose = []
            fence = match.group(2)[0] * len(match.group(2))
            out.append(row)
        elif fence is not None:
            out.append(row)
            if row.strip().startswith(fence) and not row.strip().strip(fence[0]):
                fence = None
        else:
            prose.append(row)
    out.append(_maths_as_code("".join(prose)))
    return "".join(out)


class LessonPanel(QWidget):
    """Title, steps, the current step's text and where the class is (``lessonPanel``)."""

    sig_step_chosen = Signal(int)
    """The user picked a step in the list (its number, from 1)."""
    sig_previous = Signal()
    """Previous was pressed."""
    sig_next = Signal()
    """Next was pressed."""
    sig_reset_step = Signal()
    """Reset step was pressed: bring back the lesson's own code of the step in the editor."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("lessonPanel")
        self._steps: tuple[Step, ...] = ()
        self._edited: set[int] = set()
        self._current = 0
        self._updating = False
        self.title = QLabel("")
        self.title.setObjectName("lessonTitle")
        self.title.setWordWrap(True)
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.steps = QListWidget()
        self.steps.setObjectName("lessonSteps")
        self.steps.setToolTip("the lesson's steps: pick one to open its code and run it")
        self.steps.currentRowChanged.connect(self._on_row_changed)
        self.text = QTextBrowser()
        self.text.setObjectName("lessonText")
        self.text.setOpenExternalLinks(True)  # links open in the browser
        self.position = QLabel("")
        self.position.setObjectName("lessonPosition")
        self.previous_button = QPushButton("◀ Previous")
        self.previous_button.setObjectName("lessonPrevious")
        self.previous_button.setToolTip("the previous step (PageUp)")
        self.previous_button.clicked.connect(self.sig_previous)
        self.next_button = QPushButton("Next ▶")
        self.next_button.setObjectName("lessonNext")
        self.next_button.setToolTip("the next step (PageDown)")
        self.next_button.clicked.connect(self.sig_next)
        self.reset_button = QPushButton("Reset step")
        self.reset_button.setObjectName("lessonResetStep")
        self.reset_button.setToolTip("bring back the lesson's own code of this step")
        self.reset_button.clicked.connect(self.sig_reset_step)
        self.reset_button.setEnabled(False)
        self._scheme = "light"
        self.message = QLabel("")
        self.message.setObjectName("lessonMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("lessonSplitter")
        self.splitter.addWidget(self.steps)
        self.splitter.addWidget(self.text)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        buttons = QHBoxLayout()
        buttons.addWidget(self.previous_button)
        buttons.addWidget(self.position, 1, Qt.AlignmentFlag.AlignCenter)
        buttons.addWidget(self.next_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        layout.addWidget(self.reset_button)
        self._show_position()

    # ------------------------------------------------------------------ public API

    def set_lesson(self, title: str, steps: Sequence[Step], overview: str = "") -> None:
        """Show a lesson's title and steps, none of them current yet (``overview`` as text)."""
        self._steps = tuple(steps)
        self._edited = set()
        self._current = 0
        self.title.setText(title)
        self._updating = True
        try:
            self.steps.clear()
            for step in self._steps:
                item = QListWidgetItem()
                self.steps.addItem(item)
                self._style_item(item, step)
            self.steps.setCurrentRow(-1)
        finally:
            self._updating = False
        self.text.setMarkdown(markdown_for_qt(overview))
        self.set_message("")
        self._show_position()

    def set_current(self, number: int) -> None:
        """Show step ``number``'s text and select its row (0: none)."""
        self._current = number
        self._updating = True
        try:
            self.steps.setCurrentRow(number - 1)
        finally:
            self._updating = False
        if 1 <= number <= len(self._steps):
            self.text.setMarkdown(markdown_for_qt(self._steps[number - 1].text))
        self._show_position()

    def set_edited(self, numbers: set[int], editor_step: int = 0) -> None:
        """Mark the edited steps; Reset is offered when the step in the editor is one."""
        self._edited = set(numbers)
        for row in range(self.steps.count()):
            item = self.steps.item(row)
            if item is not None:
                self._style_item(item, self._steps[row])
        self.reset_button.setEnabled(editor_step in self._edited)

    def set_message(self, text: str, *, expected: bool = False) -> None:
        """The step's problem, its run's outcome or the lesson file's state ("" hides it);
        ``expected``: a step that failed as it should, shown as an outcome, not a problem."""
        self.message.setText(text)
        self.message.setVisible(bool(text))
        self.message.setProperty("expected", expected)
        self._colour_message()

    def message_is_expected(self) -> bool:
        return bool(self.message.property("expected"))

    def message_text(self) -> str:
        return self.message.text()

    def current(self) -> int:
        return self._current

    def set_compact(self, on: bool) -> None:
        """Presentation layout: the steps list folds away, the text gets the height."""
        self.steps.setVisible(not on)

    def set_presentation_scale(self, factor: float) -> None:
        """The panel's fonts at ``factor`` times the application's normal size."""
        app = QApplication.instance()
        base = base_font(app) if isinstance(app, QApplication) else QFont()
        font = scaled(base, factor)
        self.setFont(font)
        self.text.document().setDefaultFont(font)
        bold = QFont(font)
        bold.setBold(True)
        self.title.setFont(bold)
        self.set_edited(self._edited, self._current if self.reset_button.isEnabled() else 0)

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme (the message's colour)."""
        self._scheme = scheme
        self._colour_message()

    def _colour_message(self) -> None:
        dark = self._scheme == "dark"
        if self.message.property("expected"):
            colour = "#81c995" if dark else "#1e6b30"  # failed as it should: a green outcome
        else:
            colour = "#ff8a80" if dark else "#b00020"
        self.message.setStyleSheet(f"QLabel#lessonMessage {{ color: {colour}; }}")

    # ------------------------------------------------------------------ helpers

    def _style_item(self, item: QListWidgetItem, step: Step) -> None:
        edited = step.number in self._edited
        item.setText(f"{EDITED_MARK if edited else ''}{step.number}. {step.title}")
        font = QFont(self.font())
        font.setItalic(edited)
        item.setFont(font)
        tips = []
        if edited:
            tips.append(EDITED_TIP)
        if step.problem:
            tips.append(f"directive not understood: {step.problem}")
        if not step.has_code:
            tips.append("text only: the editor keeps the code of the step before")
        item.setToolTip("\n".join(tips))

    def _show_position(self) -> None:
        total = len(self._steps)
        if not total:
            self.position.setText("no steps")
        elif self._current == 0:
            self.position.setText(f"{total} steps")
        else:
            self.position.setText(f"step {self._current} of {total}")
        self.previous_button.setEnabled(self._current > 1)
        self.next_button.setEnabled(self._current < total)

    def _on_row_changed(self, row: int) -> None:
        if not self._updating and row >= 0:
            self.sig_step_chosen.emit(row + 1)
