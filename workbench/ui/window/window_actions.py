"""The window's actions (with their shortcuts and tips) and its menus.

The window hands in what each action does (``Slots``); nothing here knows the
window, so building the menus costs it two lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu

from workbench.examples import Example, bundled_examples
from workbench.ui.editor.edit_actions import EditActions, build_edit_menu
from workbench.ui.editor.editor import CodeEditor
from workbench.ui.style.presentation import PRESENTATION_FACTOR
from workbench.ui.style.theme import PREFERENCES

Shortcut = QKeySequence | QKeySequence.StandardKey | list[QKeySequence]
Slot = Callable[..., object]


@dataclass(frozen=True)
class Slots:
    """What the actions do."""

    run: Slot
    stop: Slot
    restart: Slot
    new: Slot
    open: Slot
    save: Slot
    save_as: Slot
    open_lesson: Slot
    save_lesson: Slot
    export_lesson: Slot
    close_lesson: Slot
    next_step: Slot
    previous_step: Slot
    run_above: Slot
    zoom_in: Slot
    zoom_out: Slot
    zoom_reset: Slot
    presentation: Slot
    full_screen: Slot
    reset_layout: Slot
    open_example: Callable[[Example], object]
    set_theme: Callable[[str], object]


class WindowActions:
    """Every action of the window, added to it so their shortcuts work anywhere in it."""

    def __init__(self, window: QMainWindow, slots: Slots):
        self.window = window
        self.slots = slots
        a = self._action
        self.action_run = a("actionRun", "Run", slots.run,
                            [QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")],
                            "run the editor source and trace the chosen function (Ctrl+Enter)")
        self.action_stop = a("actionStop", "Stop", slots.stop, QKeySequence("Escape"),
                             "stop what the engine runs (Esc)")
        self.action_restart = a("actionRestartEngine", "Restart engine", slots.restart, None,
                                "restart the engine and load the editor source again")
        self.action_new = a("actionNew", "New", slots.new, QKeySequence.StandardKey.New)
        self.action_open = a("actionOpen", "Open...", slots.open, QKeySequence.StandardKey.Open)
        self.action_save = a("actionSave", "Save", slots.save, QKeySequence.StandardKey.Save)
        self.action_save_as = a("actionSaveAs", "Save As...", slots.save_as,
                                QKeySequence.StandardKey.SaveAs)
        self.action_open_lesson = a(
            "actionOpenLesson", "Open Lesson...", slots.open_lesson, None,
            "open a Jupyter notebook, MyST Markdown or a Jupytext script as a step-by-step "
            "lesson")
        self.action_save_lesson = a(
            "actionSaveLesson", "Save lesson", slots.save_lesson, None,
            "write your edits of the lesson's steps into the lesson file, in its own format")
        self.action_export_lesson = a(
            "actionExportLesson", "Export handout...", slots.export_lesson, None,
            "write the lesson with what its steps showed (outputs, figures) as HTML, an "
            "executed notebook or PDF, your edits included")
        self.action_close_lesson = a(
            "actionCloseLesson", "Close lesson", slots.close_lesson, None,
            "close the lesson; the editor keeps the code of its step as an untitled buffer")
        # A presenter remote sends PageDown / PageUp. While a lesson is open these step
        # through it from anywhere in the window, the editor included (which then no longer
        # scrolls by pages with them); with no lesson open they are disabled and the editor
        # scrolls as usual.
        self.action_next_step = a("actionNextStep", "Next step", slots.next_step,
                                  QKeySequence(Qt.Key.Key_PageDown),
                                  "the lesson's next step (PageDown)")
        self.action_previous_step = a("actionPreviousStep", "Previous step",
                                      slots.previous_step, QKeySequence(Qt.Key.Key_PageUp),
                                      "the lesson's previous step (PageUp)")
        self.action_run_above = a("actionRunAllAbove", "Run all above", slots.run_above, None,
                                  "run every code step above the one shown, in order, then "
                                  "it (as Jupyter's Run All Above)")
        self.set_lesson_open(False)
        self.action_zoom_in = a("actionZoomIn", "Presentation zoom in", slots.zoom_in,
                                [QKeySequence("Ctrl++"), QKeySequence("Ctrl+=")])
        self.action_zoom_out = a("actionZoomOut", "Presentation zoom out", slots.zoom_out,
                                 QKeySequence("Ctrl+-"))
        self.action_zoom_reset = a("actionZoomReset", "Normal size", slots.zoom_reset,
                                   QKeySequence("Ctrl+0"))
        self.action_presentation = a(
            "actionPresentation", "Presentation mode", slots.presentation, QKeySequence("F5"),
            f"everything {PRESENTATION_FACTOR:g}× larger for a projector: menus, dialogs, "
            "plots (F5)")
        self.action_presentation.setCheckable(True)
        self.action_full_screen = a("actionFullScreen", "Full screen", slots.full_screen,
                                    QKeySequence(QKeySequence.StandardKey.FullScreen),
                                    "use the whole screen (F11)")
        self.action_full_screen.setCheckable(True)
        self.action_reset_layout = a("actionResetLayout", "Reset layout", slots.reset_layout,
                                     None, "editor and jaxpr on top, console and panels as "
                                     "tabs below")
        central = window.centralWidget()
        assert central is not None  # the splitter
        # Esc stops from the editor, the controls and the jaxpr view, not from the docks.
        window.removeAction(self.action_stop)
        self.action_stop.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        central.addAction(self.action_stop)
        toolbar = window.addToolBar("Engine")
        toolbar.setObjectName("engineToolbar")
        for action in (self.action_run, self.action_stop, self.action_restart):
            toolbar.addAction(action)

    def _action(self, name: str, text: str, slot: Slot, shortcut: Shortcut | None = None,
                tip: str = "") -> QAction:
        action = QAction(text, self.window)
        action.setObjectName(name)
        if shortcut is not None:
            action.setShortcuts(shortcut if isinstance(shortcut, list)
                                else [QKeySequence(shortcut)])
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    def set_lesson_open(self, on: bool) -> None:
        for action in (self.action_save_lesson, self.action_export_lesson,
                       self.action_close_lesson, self.action_next_step, self.action_previous_step,
                       self.action_run_above):
            action.setEnabled(on)

    def build_menus(self, editor: CodeEditor, theme_preference: str,
                    docks: list[QDockWidget]) -> Menus:
        return Menus(self, editor, theme_preference, docks)


class Menus:
    """The menu bar: File, Edit, View, Engine, Lesson, Help."""

    def __init__(self, actions: WindowActions, editor: CodeEditor, theme_preference: str,
                 docks: list[QDockWidget]):
        window, slots = actions.window, actions.slots
        menu = window.menuBar()
        file_menu = menu.addMenu("&File")
        for action in (actions.action_new, actions.action_open, actions.action_open_lesson):
            file_menu.addAction(action)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.setObjectName("recentMenu")
        self.examples_menu = file_menu.addMenu("&Examples")
        self.examples_menu.setObjectName("examplesMenu")
        for example in bundled_examples():
            action = self.examples_menu.addAction(example.title)
            action.setObjectName(f"example_{example.name}")
            action.triggered.connect(lambda _=False, e=example: slots.open_example(e))
        file_menu.addSeparator()
        for action in (actions.action_save, actions.action_save_as, actions.action_save_lesson,
                       actions.action_close_lesson):
            file_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction("Quit", QKeySequence.StandardKey.Quit, window.close)
        self.edit_actions: EditActions = build_edit_menu(menu.addMenu("&Edit"), editor, window)
        view_menu = menu.addMenu("&View")
        for action in (actions.action_presentation, actions.action_full_screen,
                       actions.action_zoom_in, actions.action_zoom_out,
                       actions.action_zoom_reset):
            view_menu.addAction(action)
        theme_menu = view_menu.addMenu("Theme")
        theme_menu.setObjectName("themeMenu")
        self.theme_actions = QActionGroup(window)
        for pref in PREFERENCES:
            action = theme_menu.addAction(pref)
            action.setObjectName(f"theme_{pref}")
            action.setCheckable(True)
            action.setChecked(pref == theme_preference)
            action.triggered.connect(partial(slots.set_theme, pref))
            self.theme_actions.addAction(action)
        view_menu.addSeparator()
        view_menu.addAction(actions.action_reset_layout)
        for dock in docks:
            view_menu.addAction(dock.toggleViewAction())
        engine_menu = menu.addMenu("E&ngine")
        for action in (actions.action_run, actions.action_stop, actions.action_restart):
            engine_menu.addAction(action)
        lesson_menu = menu.addMenu("&Lesson")
        lesson_menu.setObjectName("lessonMenu")
        for action in (actions.action_open_lesson, actions.action_next_step,
                       actions.action_previous_step, actions.action_run_above,
                       actions.action_save_lesson, actions.action_export_lesson,
                       actions.action_close_lesson):
            lesson_menu.addAction(action)
        self.help_menu: QMenu = menu.addMenu("&Help")
        self.help_menu.setObjectName("helpMenu")
        self.lessons_menu: QMenu = self.help_menu.addMenu("Lessons")

    def fill_recent(self, paths: list[str], open_path: Callable[[str], object]) -> None:
        """File › Open Recent: these paths, each opening with ``open_path``."""
        menu = self.recent_menu
        menu.clear()
        for path in paths:
            menu.addAction(path, partial(open_path, path))
        menu.setEnabled(not menu.isEmpty())

    def check_theme(self, preference: str) -> None:
        for action in self.theme_actions.actions():
            action.setChecked(action.objectName() == f"theme_{preference}")
