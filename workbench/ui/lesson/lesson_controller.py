"""A lesson in the window: which step is shown, what the teacher changed, what each step runs.

Selecting a code step puts its code (the teacher's edit, else the lesson's) in the
editor, loads it in the engine under the step's own filename keeping earlier
steps' names (as a notebook's cells do), runs it at once and applies its
directive: the function, arguments and transforms chosen, the panel that shows it
brought to the front and, for plot, time and k-means, filled in and started.
A text-only step only shows its text: the editor keeps the code of the step
before, and edits there still belong to that step.

Nothing runs when a lesson opens. A lesson from outside the bundled ones asks once, the
first time a step would run, before its code even reaches the editor, and the answer "yes"
is remembered for exactly the bytes that were read (their SHA-256): trust, like bundled
status, is decided on what was read, the code that runs, never on the file as it is when a
step is picked. "No" runs nothing (no load, trace, values, live mode or directive) until the
lesson is opened again: the step's code is shown as text and live mode is held, so an edit
does not run it either; only Run does, as the user's own explicit choice.

Edits are kept per step while the lesson is open, marked in the list, and
written back in the lesson's own format by Save lesson; a failed write keeps them.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QStatusBar, QWidget

from workbench.api import messages as p
from workbench.api.cells import CellOutput
from workbench.api.errors import Explanation
from workbench.api.state import Notice, NoticeKind
from workbench.lessons import (
    CallDirective,
    Lesson,
    LessonError,
    PlotDirective,
    Step,
    TimeDirective,
    is_bundled,
    read_lesson,
    write_lesson,
)
from workbench.lessons.handout import StepShown
from workbench.lessons.plan import judge
from workbench.lessons.progress import missing_name_note, not_run_note, steps_text, unrun_above
from workbench.ui.control.requests import Key
from workbench.ui.control.trace_controller import TraceController
from workbench.ui.editor.call_controls import CallControls
from workbench.ui.editor.editor import CodeEditor
from workbench.ui.lesson.lesson_edits import LessonEdits
from workbench.ui.lesson.lesson_links import LessonLinks
from workbench.ui.lesson.lesson_panel import LessonPanel
from workbench.ui.lesson.lesson_trust import LessonTrust
from workbench.ui.lesson.step_chain import StepChain
from workbench.ui.lesson.step_panels import LessonPanels, apply_directive
from workbench.ui.panels.jaxpr_panel import JaxprPanel
from workbench.ui.storage.document import DocumentController
from workbench.ui.storage.settings import Settings


class LessonHost(Protocol):
    """What a lesson needs of the window it is open in, and nothing more."""

    def show_message(self, text: str, rich: bool = False) -> None: ...
    def show_panel(self, dock_name: str) -> None: ...
    def lesson_panels(self) -> LessonPanels: ...
    def statusBar(self) -> QStatusBar: ...  # noqa: N802 (Qt's name)
    def setWindowTitle(self, title: str) -> None: ...  # noqa: N802 (Qt's name)
    def windowTitle(self) -> str: ...  # noqa: N802 (Qt's name)


NOT_RUN = ("not run: you chose not to run this lesson's code. Its code is in the editor: "
           "press Run to run it anyway, or open the lesson again to be asked again")
FAILED_ON_PURPOSE = "this step fails on purpose"
SKIPPED = ("not run: this step is tagged skip-execution (its code is only to read): press "
           "Run to run it anyway")
PAUSED = "lesson open: pick a step (PageDown) to run its code"
FRESH = ("a fresh engine for the lesson {title!r}: the names the lesson before defined are "
         "gone, as a notebook starts on its own kernel")
GONE = ("the lesson file is gone from disk: the lesson stays open from memory, and "
        "Save lesson writes it again")
CONSOLE = "consoleDock"
DOCKS = {"values": "graphDock", "plot": "plotDock", "time": "timingDock",
         "kmeans": "kmeansDock"}


FORMAT_NAMES = {"ipynb": "Notebook", "percent": "Percent script", "light": "Jupytext script",
                "myst": "MyST notebook", "markdown": "Markdown notebook"}


class LessonController(QObject):
    """The open lesson, its current step and the teacher's edits; drives the window."""

    sig_opened = Signal(object)
    """A lesson was opened (the ``Lesson``)."""
    sig_closed = Signal()
    """The lesson was closed."""
    sig_step_changed = Signal(int)
    """Step N (from 1) is now the current step."""
    sig_step_chosen = Signal(int)
    """Step N is about to be shown (before its code is placed and run)."""
    sig_edits_changed = Signal()
    """The set of edited steps, or the code of one, changed."""
    sig_message = Signal(str)
    """The lesson panel's message changed ("" when there is nothing to say)."""
    sig_saved = Signal(str)
    """The lesson was written to this path."""
    sig_outputs = Signal(object)
    """The step in the editor ran and showed these outputs (``tuple[CellOutput, ...]``)."""
    sig_judged = Signal(int, str, object)
    """Step N's run was judged: "" when it went as the lesson says, else the error's kind;
    then the error (an ``Explanation``), if it is one of the user's code."""

    def __init__(self, host: LessonHost, parent: QWidget, panel: LessonPanel,
                 document: DocumentController, editor: CodeEditor, tracer: TraceController,
                 controls: CallControls, settings: Settings, jaxpr: JaxprPanel):
        super().__init__(parent)
        self.host = host
        self.parent_widget = parent
        self.document = document
        self.editor = editor
        self.tracer = tracer
        self.controls = controls
        self.settings = settings
        self.jaxpr = jaxpr
        self.panel = panel
        self.lesson: Lesson | None = None
        self.current = 0
        """The step shown (0 before the first is picked)."""
        self.editor_step = 0
        """The code step whose code is in the editor (0: none yet)."""
        self.codes: dict[int, str] = {}
        """The teacher's code of each edited step, by step number."""
        self._notes: dict[int, str] = {}  # per step: how its last run went
        # per step: what it showed when it last ran (outputs, how many were cut)
        self._outputs: dict[int, tuple[tuple[CellOutput, ...], int]] = {}
        self._errors: dict[int, Explanation] = {}  # per step: the error of its last run
        self._pending: int | None = None  # the step whose LoadSource is on its way
        self._waiting: int | None = None  # the step shown whose run waits for _pending's
        self._ran: set[int] = set()
        """The code steps sent to this engine since it started (a restart forgets them)."""
        self._unsent: object | None = None  # _pending's, till its run goes out a turn later
        self._placing = False
        self.trust = LessonTrust(settings, tracer, parent)
        """Whether the lesson's code may run (decided on the bytes read)."""
        self._engine_used = False  # a step of a lesson ran in the engine since it started
        self._gone = False
        autosave = document.autosave
        self.edits = LessonEdits(autosave.root if autosave.off_reason is None else None, self)
        """The edits, kept on disk too until saved or discarded (a crash loses none)."""
        self.sig_edits_changed.connect(lambda: self.edits.update(self.codes))
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_changed)
        panel.sig_step_chosen.connect(self.go_to)
        panel.sig_next.connect(self.next_step)
        panel.sig_previous.connect(self.previous_step)
        panel.sig_reset_step.connect(self.reset_step)
        self.links = LessonLinks(panel, parent, host.statusBar, self.go_to,
                                 lambda: self.document.ask)
        """What a click on a link in the lesson's text does (web pages, its headings)."""
        self.chain = StepChain(tracer.requests, self)
        """Runs the steps above the one shown (Run steps above, Run all above)."""
        self.chain.sig_step_done.connect(self._on_chain_step)
        self.chain.sig_finished.connect(self._on_chain_finished)
        panel.sig_run_above.connect(self.run_steps_above)
        tracer.requests.engine.sig_notice.connect(self._on_engine_notice)
        editor.textChanged.connect(self._on_editor_changed)
        tracer.sig_loaded.connect(self._on_loaded)
        tracer.sig_failed.connect(self._on_failed)
        tracer.sig_no_functions.connect(self._on_traced_ok)
        tracer.session.sig_traced.connect(self._on_traced_ok)

    # ------------------------------------------------------------------ opening, closing

    @property
    def is_open(self) -> bool:
        return self.lesson is not None

    @property
    def busy(self) -> bool:
        """A step's run is on its way, waits for one, or steps above run."""
        return self._pending is not None or self._waiting is not None \
            or bool(self.chain.running)

    def open(self, path: str | os.PathLike[str]) -> bool:
        """Open a lesson; nothing runs until a step is picked. False (and one message) when
        it cannot be read or the user keeps what is open."""
        try:
            lesson = read_lesson(path)
        except LessonError as exc:
            self.host.show_message(f"cannot open the lesson: {exc}")
            self.host.statusBar().showMessage(f"cannot open the lesson: {exc}", 8000)
            return False
        if self.lesson is not None:
            if not self.confirm_discard():
                return False
            self.edits.forget()
        elif not self.document.confirm_discard():
            return False
        if self._engine_used:
            # As Jupyter starts each notebook on its own kernel: no name of the lesson
            # before leaks into this one (nor its console history).
            self._engine_used = False
            self.tracer.requests.engine.restart(fresh=FRESH.format(title=lesson.title))
        self._set_lesson(lesson)
        self.tracer.keep_names = True
        self._place("")
        self.tracer.pause_live(PAUSED)
        self.sig_opened.emit(lesson)
        return True

    def close(self) -> bool:
        """Close the lesson (asking first about unsaved edits); the editor keeps its text as
        an untitled buffer. False when the user cancels."""
        if self.lesson is None:
            return True
        if not self.confirm_discard():
            return False
        self.edits.forget()
        self._unwatch()
        self.lesson = None
        self.codes = {}
        self._notes = {}
        self._outputs, self._errors = {}, {}
        self.current = self.editor_step = 0
        self._pending = self._waiting = self._unsent = None
        self.chain.cancel()
        self.tracer.keep_names = False
        self.panel.outputs.clear_outputs()
        self.document.show_detached(self.editor.toPlainText())
        self.sig_closed.emit()
        return True

    def _set_lesson(self, lesson: Lesson) -> None:
        self._unwatch()
        self.lesson = lesson
        self.codes = {}
        self._notes = {}
        self._outputs, self._errors = {}, {}
        self.current = self.editor_step = 0
        self._pending = self._waiting = self._unsent = None
        self._ran = set()
        self.chain.cancel()
        self.trust.reset(lesson)
        self._gone = False
        kept = self.edits.load(lesson.path)
        self.codes = {n: code for n, code in kept.items() if 1 <= n <= len(lesson.steps)
                      and lesson.step(n).has_code and lesson.step(n).code != code}
        if self.codes:
            self._notes[-1] = (f"your unsaved edits of {len(self.codes)} step(s) from last "
                               "time are back (marked ●): Save lesson keeps them, Reset step "
                               "drops one")
        self._watch()
        count = len(lesson.steps)
        overview = (f"# {lesson.title}\n\n{count} steps. Press **PageDown** (or Next) to "
                    "start: each code step opens in the editor and runs when you select it.")
        self.panel.set_lesson(lesson.title, lesson.steps, overview, folder=lesson.path.parent)
        self._refresh()

    # ------------------------------------------------------------------ moving

    def next_step(self) -> None:
        if self.lesson is not None and self.current < len(self.lesson.steps):
            self.go_to(self.current + 1)

    def previous_step(self) -> None:
        if self.current > 1:
            self.go_to(self.current - 1)

    def go_to(self, number: int) -> None:
        """Show step ``number``; a code step's code goes into the editor and runs."""
        lesson = self.lesson
        if lesson is None or not 1 <= number <= len(lesson.steps):
            return
        self._check_file()
        self.sig_step_chosen.emit(number)
        step = lesson.step(number)
        self.current = number
        self.panel.set_current(number)
        self.panel.outputs.show_outputs(*self._outputs.get(number, ((), 0)))
        if step.has_code:
            self.editor_step = number
            self._show_and_run(step, self.codes.get(number, step.code))
        self._refresh()
        self.sig_step_changed.emit(number)

    def reset_step(self) -> None:
        """The lesson's own code back in the editor for the step there, run again."""
        lesson, number = self.lesson, self.editor_step
        if lesson is None or number == 0:
            return
        self.codes.pop(number, None)
        step = lesson.step(number)
        running = self._pending == number and self._unsent is None  # sent: it runs now
        self._show_and_run(step, step.code)
        if running:
            self._waiting = number  # its edited code is still running: the lesson's runs next
        self._refresh()
        self.sig_edits_changed.emit()

    # ------------------------------------------------------------------ saving

    def shown(self) -> dict[int, StepShown]:
        """What each step showed when it last ran here: a handout's outputs."""
        return {n: StepShown(outputs, self._errors.get(n))
                for n, (outputs, _) in self._outputs.items()}

    def has_unsaved_edits(self) -> bool:
        return bool(self.codes)

    def confirm_discard(self) -> bool:
        """Ask to save the lesson's edits first; False when the user cancels."""
        if not self.codes or not self.document.ask:
            return True
        box = QMessageBox(
            QMessageBox.Icon.Question, "Unsaved lesson edits",
            f"Save your edits of {len(self.codes)} step(s) into the lesson first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, self.parent_widget)
        box.setObjectName("lessonUnsavedDialog")
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def save(self) -> bool:
        """Write the edits into the lesson file, in its own format; a bundled lesson is saved
        elsewhere (Save As), the workbench's own copy stays as shipped."""
        lesson = self.lesson
        if lesson is None:
            return False
        if lesson.bundled or is_bundled(lesson.path):
            return self.save_as_dialog()
        return self.save_to(lesson.path)

    def is_modified(self) -> bool:
        return self.has_unsaved_edits()

    def save_as(self) -> bool:
        return self.save_as_dialog()

    def save_as_dialog(self) -> bool:
        lesson = self.lesson
        if lesson is None:
            return False
        if not self.document.ask:  # no dialogs in this window: say what to do instead
            self._say_failed("not saved: choose where with Save As (a bundled lesson stays as "
                             "shipped)")
            return False
        suffix = lesson.path.suffix
        kind = f"{FORMAT_NAMES.get(lesson.format, 'Lesson')} (*{suffix})"
        start = str(Path.home() / lesson.path.name) \
            if lesson.bundled or is_bundled(lesson.path) else str(lesson.path)
        path, _ = QFileDialog.getSaveFileName(self.parent_widget, "Save lesson as", start, kind)
        if not path:
            return False
        if not path.lower().endswith(suffix):
            path += suffix
        return self.save_to(path)

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        """Write the lesson with its edits to ``path`` and follow it there; on failure the
        edits stay and the panel says why."""
        lesson = self.lesson
        if lesson is None:
            return False
        target = Path(path)
        if target.suffix.lower() != lesson.path.suffix.lower():
            self._say_failed(f"a {lesson.path.suffix} lesson is saved as {lesson.path.suffix}, "
                             f"not {target.name}")
            return False
        try:
            saved = write_lesson(lesson, self.codes, target)
        except OSError as exc:
            self._say_failed(f"could not save the lesson to {target}: {exc.strerror or exc}; "
                             "your edits are kept")
            return False
        if self.trust.trusted:  # the user's own edits of a lesson trusted: the bytes written
            self.settings.trust_content(saved.content_key)
        written = saved.path
        try:
            fresh = read_lesson(written)
        except LessonError:
            fresh = None  # written, but not readable back: keep working from memory
        if fresh is not None:
            self._adopt(fresh)
        self._gone = False
        self._notes.pop(-1, None)
        self._watch()
        self._refresh()
        self.host.statusBar().showMessage(f"lesson saved: {written}", 4000)
        self.sig_saved.emit(str(written))
        self.sig_edits_changed.emit()
        self.edits.flush()  # in the lesson now: nothing left to keep beside it
        return True

    def _adopt(self, fresh: Lesson) -> None:
        """The lesson as written: its steps now hold the edits, so none is edited any more."""
        editor_text = self.editor.toPlainText()
        self._unwatch()
        self.lesson = fresh
        self.codes = {}
        # Trust goes with the bytes read back: the ones written, unless someone else
        # wrote the file in between.
        self.trust.reset(fresh)
        count = len(fresh.steps)
        self.current = min(self.current, count)
        self.editor_step = min(self.editor_step, count)
        if self.editor_step and fresh.step(self.editor_step).code != editor_text:
            self.codes[self.editor_step] = editor_text  # never lose what is in the editor
        self.panel.set_lesson(fresh.title, fresh.steps, folder=fresh.path.parent)
        self.panel.set_current(self.current)

    def _say_failed(self, text: str) -> None:
        self._notes[-1] = text
        self._refresh()
        self.host.statusBar().showMessage(text, 8000)

    def _may_run(self) -> bool:
        """Ask once before the first step of a lesson from elsewhere runs."""
        return self.lesson is not None and self.trust.may_run(self.lesson, self.document.ask)

    # ------------------------------------------------------------------ running a step

    def engine_filename(self) -> str | None:
        """The name the editor's code runs under while it holds a lesson step."""
        if self.lesson is None or self.editor_step == 0:
            return None
        return self.lesson.step_filename(self.editor_step)

    def _place(self, code: str) -> None:
        self._placing = True
        try:
            self.document.show_detached(code)
        finally:
            self._placing = False

    def _show_and_run(self, step: Step, code: str) -> None:
        """Ask first (if the lesson is not trusted), then put the code in the editor and run
        it; declined, the code is only shown, with live mode held."""
        self._notes.pop(step.number, None)
        if step.skip:  # Jupyter's skip-execution tag: shown, never run unasked
            self._notes[step.number] = SKIPPED
            self.tracer.hold(SKIPPED.partition(" (")[0])
            self._place(code)
            self.jaxpr.clear(SKIPPED.partition(" (")[0])
            return
        if not self._may_run():
            self._notes[step.number] = NOT_RUN
            self.tracer.hold(NOT_RUN.partition(".")[0])
            self._place(code)
            self.jaxpr.clear(NOT_RUN.partition(".")[0])
            return
        self._place(code)
        self._run(step)

    def _run(self, step: Step) -> None:
        """Run the step now, or once the step on its way has answered: a step passed while
        another runs never runs (going to a step runs that step, not those on the way)."""
        if self._pending == step.number:
            return  # on its way already: its outputs come
        if self._pending is not None or self.chain.running:
            self._waiting = step.number
            self._outputs.pop(step.number, None)
            waiting = f"waiting for step {self.chain.running or self._pending} to finish"
            self.tracer.pause_live(waiting)  # the code placed is not run live meanwhile
            self.panel.outputs.show_running(waiting)
            return
        self._start(step)

    def _start_waiting(self) -> None:
        """The step on its way answered: run the step shown, if it waits."""
        number, self._waiting = self._waiting, None
        lesson = self.lesson
        if (number is not None and lesson is not None and number == self.editor_step
                and self._pending is None and not self.chain.running):
            self._notes.pop(number, None)
            self._start(lesson.step(number))

    def _start(self, step: Step) -> None:
        first = step.number not in self._ran
        self._ran.add(step.number)
        directive = step.directive
        controls = self.controls
        controls.blockSignals(True)  # one request below, not a trace of the old source first
        try:
            if isinstance(directive, CallDirective):
                controls.select(directive.function, directive.args, directive.transforms)
            elif isinstance(directive, PlotDirective):
                controls.select(directive.function, None, ())
            elif isinstance(directive, TimeDirective):
                # A sweep's spec names a size (f32[N]): the editor's call keeps its own spec.
                controls.select(directive.function,
                                None if directive.sweep else directive.args, ())
            else:  # what the step calls decides, else its own functions: nothing before it
                controls.forget_wanted()
            self.tracer.follow_call = directive is None
        finally:
            controls.blockSignals(False)
        self._pending = step.number
        self._engine_used = True
        self._outputs.pop(step.number, None)
        self.panel.outputs.show_running()
        # Its run and panel go out a turn later, once it is painted: a kernel compiling, or
        # the Graph panel laid out to come forward, delayed ten followers' paint on 2 cores.
        # The editor's earlier code's answer, in that turn or later, is not this step's.
        self.tracer.requests.abandon(Key.LOAD, Key.TRACE)
        self._unsent = token = object()
        QTimer.singleShot(0, self, partial(
            self._send, token, step.number, first,
            DOCKS.get(directive.verb, CONSOLE) if directive is not None else CONSOLE))

    def _send(self, token: object, number: int, first: bool, dock: str) -> None:
        if token is not self._unsent or self._pending != number:  # a lesson since, or refused
            return
        self._unsent = None
        if self.editor_step != number:  # left before it ran: the step shown now runs instead
            self._pending = None
            if first:
                self._ran.discard(number)
                self._refresh()
            self._start_waiting()
            return
        self.host.show_panel(dock)  # no panel of an earlier step stays in front
        self.tracer.run()

    def _on_loaded(self, reply: p.Reply) -> None:
        if self.chain.running:
            # The editor's code ran (Run, an edit) while steps above ran: its load took the
            # place of the chain's, whose answer is dropped. The chain ends here, said.
            self.chain.cancel()
            self._notes[-1] = "Run steps above stopped: the editor's code ran meanwhile"
        number, self._pending = self._pending, None
        self._loaded(reply, number)
        self._start_waiting()

    def _loaded(self, reply: p.Reply, number: int | None) -> None:
        """``number``: the step whose run this answers (None: Run or an edit of the editor's
        step)."""
        lesson = self.lesson
        ran = self.editor_step if number is None else number
        if lesson is not None and ran:
            self._show_outputs(reply, ran)
            if p.result_value(reply, p.Functions) is None and not self._call_step(ran):
                self._judge_failure(reply, ran)  # its code is the step's whole verdict
        if lesson is None or self.editor_step == 0 or ran != self.editor_step:
            return
        if p.result_value(reply, p.Functions) is None:
            return  # the failure is shown by _on_failed
        directive = lesson.step(self.editor_step).directive
        if not isinstance(directive, CallDirective):
            self._on_succeeded()  # its code ran: a trace with guessed arguments is no verdict
        if number is None:
            return  # Run pressed or an edit: judged again, its directive not re-applied
        if directive is not None:
            apply_directive(self.host.lesson_panels, directive, self._add_note)

    def _show_outputs(self, reply: p.Reply, number: int) -> None:
        """What step ``number`` showed when it ran (also after a live edit)."""
        loaded = p.result_value(reply, p.Functions)
        self._errors.pop(number, None)
        if loaded is not None:
            self._outputs[number] = (loaded.outputs, loaded.outputs_dropped)
        elif isinstance(reply, p.UserCodeFailure):
            self._outputs[number] = (reply.outputs, 0)
            self._errors[number] = reply.explanation
        else:
            self._outputs.pop(number, None)
        self.sig_outputs.emit(self._outputs.get(number, ((), 0))[0])
        if self.current == number:
            self.panel.outputs.show_outputs(*self._outputs.get(number, ((), 0)))

    # ------------------------------------------------------------------ outcomes

    def _call_step(self, number: int | None = None) -> bool:
        """Whether the step (the editor's) asks for a trace or values: then that call's outcome
        is the step's; otherwise only its code's is (a trace with guessed arguments is none)."""
        lesson = self.lesson
        number = self.editor_step if number is None else number
        return (lesson is not None and number != 0
                and isinstance(lesson.step(number).directive, CallDirective))

    def _missing_name(self, reply: p.Reply, number: int) -> str:
        """For a name the step needs that a step above binds but has not run here: which."""
        if self.lesson is None or not isinstance(reply, p.UserCodeFailure):
            return ""
        return missing_name_note(self.lesson, number, self._ran, reply.explanation.message)

    # ------------------------------------------------------------------ steps above

    def run_steps_above(self) -> None:
        """Run the code steps above the one shown that have not run in this engine, then the
        step shown again."""
        lesson = self.lesson
        if lesson is not None and self.current:
            self._run_above(unrun_above(lesson, self.current, self._ran))

    def run_all_above(self) -> None:
        """Jupyter's Run All Above: every code step above the one shown, in order, then it."""
        lesson = self.lesson
        if lesson is not None and self.current:
            self._run_above(unrun_above(lesson, self.current, ()))

    def _run_above(self, numbers: tuple[int, ...]) -> None:
        lesson = self.lesson
        if lesson is None or self.chain.running or not self._may_run():
            return
        if self._pending is not None:  # a newer load would drop its answer: wait for it
            self._say_failed(f"step {self._pending} is still running: Run steps above once "
                             "it has finished")
            return
        self._waiting = self.current if lesson.step(self.current).has_code else None
        self.panel.outputs.show_running(f"running {steps_text(numbers)} first"
                                        if numbers else "")
        self.chain.start(lesson, numbers)

    def _on_chain_step(self, number: int, reply: p.Reply) -> None:
        self._ran.add(number)
        self._notes.pop(number, None)
        self._show_outputs(reply, number)
        if p.result_value(reply, p.Functions) is None:
            self._judge_failure(reply, number)
        self._refresh()

    def _on_chain_finished(self, failed: int | None, reply: p.Reply | None) -> None:
        if failed is not None and reply is not None:
            self._waiting = None
            self._ran.discard(failed)
            what = p.reply_text(reply).splitlines()[0] if p.reply_text(reply) else "it failed"
            self._say_failed(f"Run steps above stopped at step {failed}: {what}")
            return
        self._start_waiting()
        self._refresh()

    def _on_engine_notice(self, notice: Notice) -> None:
        """A restarted (or crashed) engine has none of the steps' names any more."""
        if notice.kind in (NoticeKind.RESTARTED, NoticeKind.CRASHED) and self._ran:
            # The editor's code (the step shown) is what a restart loads again, if anything.
            self._ran = {self.editor_step} & self._ran
            self.chain.cancel()
            self._refresh()

    def _on_traced_ok(self, _result: object = None) -> None:
        if self._call_step():
            self._on_succeeded()

    def _on_failed(self, reply: p.Reply) -> None:
        if not reply.id and self._pending is not None:
            # Refused before it was sent (past the source limit): nothing is on its way.
            self._pending = None
            self._judge_failure(reply)
            self._start_waiting()
            return
        if self._call_step():
            self._judge_failure(reply)

    def _judge_failure(self, reply: p.Reply, number: int | None = None) -> None:
        lesson = self.lesson
        number = self.editor_step if number is None else number
        if lesson is None or number == 0 or isinstance(reply, p.Cancelled):
            return
        expected = lesson.step(number).expect_error
        kind = reply.explanation.kind if isinstance(reply, p.UserCodeFailure) else None
        if isinstance(reply, p.UserCodeFailure):
            ex = reply.explanation
            line = f"line {ex.line}: " if ex.line else ""
            specifics = f" — {ex.specifics.splitlines()[0]}" if ex.specifics else ""
            what = f"{line}{ex.title}{specifics} ({kind})"
        else:
            what = p.reply_text(reply).splitlines()[0]
        judged = judge(expected, kind or "", lesson.step(number).may_raise)
        missing = self._missing_name(reply, number)
        if judged.verdict == "failed" and missing:
            note = f"this step's code failed: {missing} ({kind})"
        elif judged.verdict == "failed":
            note = f"this step's code failed: {what}"
        elif judged.verdict == "expected-error":
            note = f"{FAILED_ON_PURPOSE}: {what}"
        else:
            note = f"this step should fail with {expected}, but it failed otherwise: {what}"
        self._notes[number] = note
        self._refresh()
        self.sig_judged.emit(number, "" if judged.verdict == "expected-error"
                             else kind or "engine", getattr(reply, "explanation", None))

    def _on_succeeded(self, _result: object = None) -> None:
        lesson, number = self.lesson, self.editor_step
        if lesson is None or number == 0:
            return
        expected = lesson.step(number).expect_error
        if expected is None:
            if self._notes.get(number, "").startswith("this step"):
                self._notes.pop(number, None)
        else:
            self._notes[number] = (f"this step should fail ({expected or 'any error'}), but "
                                   "it ran without an error")
        self._refresh()
        self.sig_judged.emit(number, "" if expected is None else "no-error", None)

    def _add_note(self, text: str) -> None:
        number = self.editor_step
        old = self._notes.get(number, "")
        self._notes[number] = f"{old}\n{text}" if old else text
        self._refresh()

    # ------------------------------------------------------------------ edits

    def _on_editor_changed(self) -> None:
        lesson, number = self.lesson, self.editor_step
        if self._placing or lesson is None or number == 0:
            return
        text = self.editor.toPlainText()
        was = dict(self.codes)
        if text == lesson.step(number).code:
            self.codes.pop(number, None)
        else:
            self.codes[number] = text
        if set(was) != set(self.codes):
            self._refresh()
        self.sig_edits_changed.emit()

    # ------------------------------------------------------------------ the file

    def _watch(self) -> None:
        if self.lesson is not None and self.lesson.path.exists():
            self._watcher.addPath(str(self.lesson.path))

    def _unwatch(self) -> None:
        files = self._watcher.files()
        if files:
            self._watcher.removePaths(files)

    def _on_file_changed(self, _path: str) -> None:
        self._check_file()

    def _check_file(self) -> None:
        lesson = self.lesson
        if lesson is None:
            return
        gone = not lesson.path.exists()
        if gone != self._gone:
            self._gone = gone
            self._refresh()

    # ------------------------------------------------------------------ showing

    def message(self) -> str:
        """What the panel says about the lesson file and the current step."""
        lesson = self.lesson
        if lesson is None:
            return ""
        parts = []
        if self._gone:
            parts.append(GONE)
        if -1 in self._notes:
            parts.append(self._notes[-1])
        if self.current:
            step = lesson.step(self.current)
            if step.problem:
                parts.append(f"directive not understood: {step.problem} (the code still runs)")
            shown = self.current if step.has_code else 0
            if shown and shown in self._notes:
                parts.append(self._notes[shown])
            missing = self._unrun_shown()
            if missing and not (shown and "has not run in this engine" in
                                self._notes.get(shown, "")):
                parts.append(not_run_note(missing))
        return "\n".join(parts)

    def title(self) -> str:
        """The window title while the lesson is open."""
        lesson = self.lesson
        if lesson is None:
            return ""
        where = f" — step {self.current} of {len(lesson.steps)}" if self.current else ""
        star = "*" if self.codes else ""
        return f"{lesson.title}{where}{star} - workbench"

    def _unrun_shown(self) -> tuple[int, ...]:
        """The steps above the shown one, which ran (or waits to), that have not run here."""
        lesson, number = self.lesson, self.current
        if lesson is None or not number or (number not in self._ran and number != self._waiting):
            return ()
        return unrun_above(lesson, number, self._ran)

    def _refresh(self) -> None:
        self.panel.set_run_above(bool(self._unrun_shown()) and not self.chain.running)
        self.panel.set_edited(set(self.codes), self.editor_step)
        text = self.message()
        expected = text.startswith(FAILED_ON_PURPOSE) and "\n" not in text
        if text != self.panel.message_text() or expected != self.panel.message_is_expected():
            self.panel.set_message(text, expected=expected)
            self.sig_message.emit(text)
        self.host.setWindowTitle(self.title() or self.host.windowTitle())

