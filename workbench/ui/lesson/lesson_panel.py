"""The lesson beside the editor: its steps, the current step's text, Previous / Next, Reset.

The panel only shows and asks: the ``LessonController`` decides what a step does.
A step's text is Markdown shown as Jupyter shows it: ``workbench.lessons.markdown``
turns it into HTML with its maths typeset as images (in the text's size and colour,
typeset again when the zoom or the theme changes), which the panel adds to its
document as resources.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QFont,
    QFontMetricsF,
    QImage,
    QPalette,
    QResizeEvent,
    QShowEvent,
    QTextDocument,
)
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
from workbench.lessons.links import link_action
from workbench.lessons.markdown import TextStyle, has_maths, render_markdown, warm_up
from workbench.ui.lesson.figure_view import FigureView
from workbench.ui.lesson.step_outputs import MAX_UPSCALE, StepOutputs
from workbench.ui.style.presentation import base_font, scaled

EDITED_MARK = "● "
EDITED_TIP = ("edited: Reset step brings back the lesson's code; File > Save lesson writes "
              "your version into the lesson file")
STEP_ROWS = 12  # rows of the step list shown at once, where the lesson has as many
STEPS_SHARE_MAX = 0.6  # of the height between list and text, the most the list takes itself
TEXT_SHARE_MAX = 0.4  # of the height under the list, the most the text takes beside outputs
AHEAD_AFTER_MS = 1000  # the lesson's formulas are typeset once it has been read this long


_warming: list[threading.Thread] = []


def _warm_up_maths() -> None:
    """Load mathtext on a thread, once: the first formula then costs milliseconds."""
    if not _warming:
        thread = threading.Thread(target=warm_up, name="workbench-mathtext", daemon=True)
        _warming.append(thread)
        thread.start()


def _content_height(view: QTextBrowser, lines: int, empty: bool = False) -> int:
    """The height that shows ``view``'s whole text (``empty``: just ``lines`` lines)."""
    document = view.document()
    document.setTextWidth(view.viewport().width())
    least = lines * view.fontMetrics().lineSpacing()
    height = least if empty else max(document.size().height(), least)
    return int(height + 2 * view.frameWidth() + 4)


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
    sig_run_above = Signal()
    """Run steps above was pressed: run the steps above this one that have not run here."""
    sig_outputs_width = Signal(int)
    """The width the step's outputs need to show its widest figure whole (0: none)."""
    sig_link = Signal(str)
    """A link in the text was clicked (its address as written); the panel opens nothing
    itself: ``LessonLinks`` decides."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("lessonPanel")
        self._steps: tuple[Step, ...] = ()
        self._edited: set[int] = set()
        self._current = 0
        self._updating = False
        self._markdown = ""
        self._ahead: list[Step] = []  # steps whose formulas are typeset before their visit
        self._ahead_timer = QTimer(self, singleShot=True)
        self._ahead_timer.timeout.connect(self._typeset_ahead)
        self._attachments: tuple[tuple[str, str, str], ...] = ()
        self._folder: Path | None = None
        self._shown_style: TextStyle | None = None
        self._steps_sized_by_user = False
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
        # A lesson is someone else's text: a click never lets the browser widget load
        # what a link names (``/dev/zero`` never ends); ``sig_link`` says what was asked.
        self.text.setOpenExternalLinks(False)
        self.text.setOpenLinks(False)
        self.text.anchorClicked.connect(self._on_anchor_clicked)
        self.text.highlighted.connect(self._on_link_hovered)
        self.text.installEventFilter(self)
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
        self.run_above_button = QPushButton("Run steps above")
        self.run_above_button.setObjectName("lessonRunAbove")
        self.run_above_button.setToolTip("run the code steps above this one that have not run "
                                         "in this engine (passed on the way, or before a "
                                         "restart), then this one")
        self.run_above_button.clicked.connect(self.sig_run_above)
        self.run_above_button.hide()
        self._scheme = "light"
        self.message = QLabel("")
        self.message.setObjectName("lessonMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("lessonSplitter")
        self.outputs = StepOutputs()
        """What the current step showed when it ran (hidden while it showed nothing)."""
        self.outputs.sig_figure_clicked.connect(self._on_figure_clicked)
        self.outputs.sig_wanted_width.connect(self._on_outputs_changed)
        self.figure_view: FigureView | None = None
        """The figure shown enlarged, while it is open."""
        # The text and the outputs share the space under the list: outputs appearing take
        # room from the text, never rows from the list.
        self.reading = QSplitter(Qt.Orientation.Vertical)
        self.reading.setObjectName("lessonReading")
        self.reading.addWidget(self.text)
        self.reading.addWidget(self.outputs)
        self.reading.setChildrenCollapsible(False)
        self.splitter.addWidget(self.steps)
        self.splitter.addWidget(self.reading)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 0)  # the list keeps its rows, the text takes the rest
        self.splitter.setStretchFactor(1, 1)
        self.splitter.splitterMoved.connect(self._on_splitter_moved)
        buttons = QHBoxLayout()
        buttons.addWidget(self.previous_button)
        buttons.addWidget(self.position, 1, Qt.AlignmentFlag.AlignCenter)
        buttons.addWidget(self.next_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.run_above_button)
        layout.addLayout(buttons)
        layout.addWidget(self.reset_button)
        self._show_position()

    # ------------------------------------------------------------------ public API

    def set_lesson(self, title: str, steps: Sequence[Step], overview: str = "", *,
                   folder: Path | None = None) -> None:
        """Show a lesson's title and steps, none of them current yet (``overview`` as text);
        ``folder``: the lesson's, where the images its Markdown names are found."""
        self._steps = tuple(steps)
        self._folder = folder
        self._edited = set()
        self._current = 0
        self.title.setText(title)
        if any(has_maths(text) for text in (overview, *(s.text for s in self._steps))):
            _warm_up_maths()
        self._ahead = [step for step in self._steps if has_maths(step.text)]
        if self._ahead:
            self._ahead_timer.start(AHEAD_AFTER_MS)
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
        self._show_markdown(overview)
        self.set_message("")
        self._show_position()
        self._fit_steps()

    def _typeset_ahead(self) -> None:
        """One step's formulas typeset (and cached) per turn of the event loop while the
        class reads (never while the presenter pages): going to a step then costs no
        mathtext (10-40 ms a step here), which a PageDown and a follower moved by the
        teacher would otherwise wait on."""
        if not self._ahead:
            return
        if any(thread.is_alive() for thread in _warming):  # mathtext still loading there
            self._ahead_timer.start(AHEAD_AFTER_MS)
            return
        step = self._ahead.pop(0)
        render_markdown(step.text, self._text_style(), self._folder, step.attachments)
        if self._ahead:
            self._ahead_timer.start(0)

    def set_current(self, number: int) -> None:
        """Show step ``number``'s text and select its row (0: none)."""
        self._current = number
        if self._ahead:  # paging: typeset ahead once the class reads again
            self._ahead_timer.start(AHEAD_AFTER_MS)
        self._updating = True
        try:
            self.steps.setCurrentRow(number - 1)
        finally:
            self._updating = False
        if 1 <= number <= len(self._steps):
            step = self._steps[number - 1]
            self._show_markdown(step.text, step.attachments)
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

    def set_run_above(self, on: bool) -> None:
        """Offer Run steps above (steps above the one shown have not run here)."""
        self.run_above_button.setVisible(on)

    def message_is_expected(self) -> bool:
        return bool(self.message.property("expected"))

    def message_text(self) -> str:
        return self.message.text()

    def current(self) -> int:
        return self._current

    def shown_text(self) -> str:
        """The Markdown the text shows now (the overview, or the current step's)."""
        return self._markdown

    def step_texts(self) -> tuple[str, ...]:
        """Each step's Markdown, in order."""
        return tuple(step.text for step in self._steps)

    def scroll_to_anchor(self, name: str) -> None:
        """Bring the heading ``name`` (``links.heading_anchor``) of the text shown to the top."""
        self.text.scrollToAnchor(name)

    def set_compact(self, on: bool) -> None:
        """Presentation layout: the steps list folds away, the text gets the height."""
        self.steps.setVisible(not on)
        self._fit_steps()

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
        self.outputs.upscale = MAX_UPSCALE if factor > 1.0 else 1.0
        if self.outputs.shown:
            self.outputs.show_outputs(self.outputs.shown, self.outputs.dropped)
        self._restyle_text()  # the maths at the new size
        self._fit_steps()

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme (the message's and the maths' colour)."""
        self._scheme = scheme
        self._colour_message()
        self._restyle_text()

    def _colour_message(self) -> None:
        dark = self._scheme == "dark"
        if self.message.property("expected"):
            colour = "#81c995" if dark else "#1e6b30"  # failed as it should: a green outcome
        else:
            colour = "#ff8a80" if dark else "#b00020"
        self.message.setStyleSheet(f"QLabel#lessonMessage {{ color: {colour}; }}")

    def steps_rows_shown(self) -> int:
        """How many rows of the step list can be seen whole."""
        row = self.steps.sizeHintForRow(0) if self.steps.count() else -1
        if row <= 0 or not self.steps.isVisible():
            return 0
        return self.steps.viewport().height() // row

    def _on_anchor_clicked(self, url: QUrl) -> None:
        self.sig_link.emit(url.toString())

    def _on_link_hovered(self, url: QUrl) -> None:
        """Say where a link goes before it is clicked (its text may say otherwise)."""
        href = url.toString()
        self.text.setToolTip(link_action(href).message if href else "")

    # ------------------------------------------------------------------ Qt events

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.text and event.type() == QEvent.Type.PaletteChange:
            self._restyle_text()  # the theme's palette comes after its sig_scheme_changed
        return super().eventFilter(watched, event)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self._restyle_text()  # on a screen now: its pixel ratio and dpi are known

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._fit_steps()

    # ------------------------------------------------------------------ helpers

    def _text_style(self) -> TextStyle:
        """The text's size and colour, which the maths follow."""
        font = self.text.document().defaultFont()
        dpi = float(self.text.logicalDpiY()) or 96.0
        size = font.pointSizeF() if font.pointSizeF() > 0 else font.pixelSize() * 72.0 / dpi
        width = self.text.viewport().width() - 2 * self.text.document().documentMargin()
        return TextStyle(
            point_size=round(size, 2),
            colour=self.text.palette().color(QPalette.ColorRole.Text).name(),
            dpi=dpi,
            device_pixel_ratio=self.text.devicePixelRatioF(),
            x_height=QFontMetricsF(font, self.text).xHeight(),
            max_image_width=int(width) if width > 100 else None,
        )

    def _show_markdown(self, markdown: str,
                       attachments: tuple[tuple[str, str, str], ...] = ()) -> None:
        self._markdown = markdown
        self._attachments = attachments
        style = self._text_style()
        rendered = render_markdown(markdown, style, self._folder, attachments)
        document = self.text.document()
        self.text.clear()  # drops the images of the text before
        code = self.text.palette().color(QPalette.ColorRole.AlternateBase).name()
        document.setDefaultStyleSheet(f"pre {{ background-color: {code}; }}")
        for name, image in rendered.images.items():
            document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name),
                                 QImage.fromData(image.data))
        self.text.setHtml(rendered.html)
        self._shown_style = style
        self._fit_reading()

    def _restyle_text(self) -> None:
        """The same text again where its size, colour or screen changed, scrolled as it was."""
        style = self._text_style()
        if self._shown_style is None or style == self._shown_style:
            return
        bar = self.text.verticalScrollBar()
        at = bar.value()
        self._show_markdown(self._markdown, self._attachments)
        bar.setValue(at)

    def _fit_steps(self) -> None:
        """The list as tall as ``STEP_ROWS`` rows (fewer for a shorter lesson), the text the
        rest, until the user drags the handle between them."""
        if self._steps_sized_by_user or not self.steps.isVisibleTo(self):
            return
        total = sum(self.splitter.sizes())
        if total <= 0:
            return
        count = min(max(self.steps.count(), 1), STEP_ROWS)
        row = self.steps.sizeHintForRow(0) if self.steps.count() else -1
        if row <= 0:
            row = self.steps.fontMetrics().height() + 4
        want = count * row + 2 * self.steps.frameWidth() + 2
        want = min(want, int(total * STEPS_SHARE_MAX))
        self.splitter.setSizes([want, total - want])

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

    def _fit_reading(self) -> None:
        """The text as tall as its Markdown (two lines at least), the outputs the rest: the
        outputs are what the class came to see, an empty text pane is no stage (a step
        without Markdown hides it while it has outputs)."""
        shown = bool(self._markdown.strip()) or not self.outputs.isVisibleTo(self)
        if shown != self.text.isVisibleTo(self):
            self.text.setVisible(shown)
        if not (self.text.isVisibleTo(self) and self.outputs.isVisibleTo(self)):
            return
        total = sum(self.reading.sizes())
        if total <= 0:
            return
        text = _content_height(self.text, lines=2)
        outputs = _content_height(self.outputs, lines=3)
        if text + outputs > total:  # not room for both: the outputs first, the text its share
            text = max(min(text, int(total * TEXT_SHARE_MAX)), total - outputs)
        text = min(text, total - _content_height(self.outputs, lines=3, empty=True))
        if abs(self.reading.sizes()[0] - text) > 2:  # a new layout only when it changes
            self.reading.setSizes([text, total - text])

    def _on_outputs_changed(self, width: int) -> None:
        self._fit_reading()
        self.sig_outputs_width.emit(width)

    def _on_figure_clicked(self, image: QImage) -> None:
        if self.figure_view is not None:
            self.figure_view.close()
        self.figure_view = FigureView(image, self)
        self.figure_view.destroyed.connect(self._on_figure_closed)
        self.figure_view.show()

    def _on_figure_closed(self) -> None:
        self.figure_view = None

    def _on_splitter_moved(self, _pos: int, _index: int) -> None:
        self._steps_sized_by_user = True

    def _on_row_changed(self, row: int) -> None:
        if not self._updating and row >= 0:
            self.sig_step_chosen.emit(row + 1)
