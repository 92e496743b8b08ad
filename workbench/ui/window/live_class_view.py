"""The live class in the window: Lesson › Teach on the server… and Follow the teacher…,
the lesson panel's line about the class (a follower's way back and "Ask for help"), and
the teacher's Class dock. The class itself is ``LiveLink``'s; this only places it.

A class runs on the Jupyter Server the window's engine runs on (``--server URL``): its
token, or JupyterHub's login, guards the shared lesson as it guards the kernels.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFormLayout,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMenuBar,
    QMessageBox,
    QStatusBar,
    QVBoxLayout,
)

from workbench.lessons.live_class import (
    MAX_NAME_CHARS,
    TeacherKey,
    make_printable,
    shared_path,
)
from workbench.ui.lesson.live_bar import LiveBar
from workbench.ui.lesson.live_link import STUDENT, TEACHER, LiveLink
from workbench.ui.panels.class_view import ClassViewPanel

if TYPE_CHECKING:
    from workbench.client.server import ServerTarget
    from workbench.ui.control.engine_bridge import EngineBridge
    from workbench.ui.lesson.lesson_controller import LessonController
    from workbench.ui.lesson.lesson_panel import LessonPanel
    from workbench.ui.storage.document import DocumentController
    from workbench.ui.window.lesson_view import LessonView
    from workbench.ui.window.notice_bar import NoticeBar


class ClassHost(Protocol):
    """What of the window a live class uses (the window itself: ``MainWindow``)."""

    engine: EngineBridge
    lessons: LessonController
    lesson_panel: LessonPanel
    lesson_view: LessonView
    document: DocumentController
    notice_bar: NoticeBar
    action_presentation: QAction
    console_dock: QDockWidget

    @property
    def path(self) -> Path | None: ...
    def open_lesson(self, path: str | os.PathLike[str]) -> bool: ...
    def build_panels(self) -> None: ...
    def menuBar(self) -> QMenuBar: ...  # noqa: N802 (Qt's names)
    def statusBar(self) -> QStatusBar: ...  # noqa: N802


NO_SERVER = ("A live class runs on the class's Jupyter Server: start the window on it "
             "(workbench --server URL) to teach or follow.")


class LiveClassView(QObject):
    """The window's live class: at most one link at a time, as teacher or follower."""

    def __init__(self, window: ClassHost, cache: Path) -> None:
        main = cast(QMainWindow, window)  # the host is the window itself
        super().__init__(main)
        self.window = window
        self.main = main
        self.cache = cache  # where a follower keeps its copy of the class's lesson
        self.key_file = cache / "teacher-key"  # what this machine's teaching is signed with
        self.link: LiveLink | None = None
        self.bar = LiveBar()
        layout = window.lesson_panel.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, self.bar)
        self.bar.sig_back.connect(self.back_to_teacher)
        self.bar.sig_help.connect(self.ask_for_help)
        self.panel: ClassViewPanel | None = None
        self.dock: QDockWidget | None = None
        menu = window.menuBar().findChild(QMenu, "lessonMenu")
        self.action_teach = self._action("actionTeach", "Teach on the server...",
                                         "Share the open lesson with the class on the "
                                         "window's Jupyter Server; students follow your step",
                                         self.teach_dialog)
        self.action_follow = self._action("actionFollow", "Follow the teacher...",
                                          "Join a lesson taught on the window's Jupyter "
                                          "Server: your lesson moves with the teacher's step",
                                          self.follow_dialog)
        self.action_leave = self._action("actionLeaveClass", "Leave the class",
                                         "Stop teaching or following (a teacher's leaving "
                                         "ends the class)", self.leave)
        self.action_leave.setEnabled(False)
        if menu is not None:
            menu.addSeparator()
            for action in (self.action_teach, self.action_follow, self.action_leave):
                menu.addAction(action)
        window.action_presentation.toggled.connect(self._on_presenting)

    def _action(self, name: str, text: str, tip: str, slot: object) -> QAction:
        action = QAction(text, self.main)
        action.setObjectName(name)
        action.setStatusTip(tip)
        action.triggered.connect(slot)
        return action

    # ------------------------------------------------------------------ starting

    def teach(self, lesson: str | os.PathLike[str] | None = None,
              target: ServerTarget | None = None) -> bool:
        """Teach ``lesson`` (a local file; default: the open lesson) on ``target`` (default:
        the server the engine runs on)."""
        window = self.window
        target = target or window.engine.server_target
        if target is None:
            return self._refuse(NO_SERVER)
        if lesson is not None and not window.open_lesson(lesson):
            return False
        opened = window.lessons.lesson
        if opened is None:
            return self._refuse("Open the lesson to teach first (Lesson › Open Lesson...).")
        try:
            shared = shared_path(opened.path.name)
        except ValueError as exc:
            return self._refuse(str(exc))
        return self._start(LiveLink(TEACHER, target, opened.path.name, shared, window.lessons,
                                    local=opened.path, key=TeacherKey.stored(self.key_file),
                                    parent=self))

    def follow(self, lesson: str, name: str | None = None,
               target: ServerTarget | None = None) -> bool:
        """Follow the teacher of ``lesson`` (its name, as the teacher gave it) on ``target``
        (default: the engine's server); ``name`` is shown to the teacher only if given."""
        target = target or self.window.engine.server_target
        if target is None:
            return self._refuse(NO_SERVER)
        try:
            shared = shared_path(lesson)
        except ValueError as exc:
            return self._refuse(str(exc))
        name = " ".join(make_printable(name or "").split())[:MAX_NAME_CHARS] or None
        host = "".join(ch if ch.isalnum() or ch in "-." else "_" for ch in target.label)
        local = self.cache / host / shared
        return self._start(LiveLink(STUDENT, target, Path(shared).name, shared,
                                    self.window.lessons, local=local, name=name, parent=self))

    def _start(self, link: LiveLink) -> bool:
        self.leave()
        self.link = link
        link.sig_status.connect(self.bar.set_status)
        link.sig_back.connect(self.bar.set_back)
        link.sig_notice.connect(self._on_notice)
        link.sig_failed.connect(self._on_failed)
        link.sig_left.connect(self._on_left)
        link.sig_joined.connect(self._on_joined)
        if link.teaching:
            link.set_presenting(self.window.action_presentation.isChecked())
            link.sig_class.connect(self._class_panel().show_class)
        self.bar.set_role(link.role)
        self.action_leave.setEnabled(True)
        link.start()
        return True

    def _refuse(self, text: str) -> bool:
        self.window.statusBar().showMessage(text, 10_000)
        if self.window.document.ask:
            QMessageBox.information(self.main, "Live class", text)
        return False

    # ------------------------------------------------------------------ dialogs

    def teach_dialog(self) -> None:
        if self.window.lessons.lesson is None:
            self.window.lesson_view.open_dialog(self.window.path)
        if self.window.lessons.lesson is not None:
            self.teach()

    def follow_dialog(self) -> None:
        if self.window.engine.server_target is None:
            self._refuse(NO_SERVER)
            return
        dialog = QDialog(self.main)
        dialog.setObjectName("followDialog")
        dialog.setWindowTitle("Follow the teacher")
        lesson, name = QLineEdit(), QLineEdit()
        lesson.setObjectName("followLesson")
        lesson.setPlaceholderText("the lesson's name, as the teacher gave it")
        name.setObjectName("followName")
        name.setMaxLength(MAX_NAME_CHARS)
        name.setPlaceholderText("optional: leave empty to stay anonymous")
        form = QFormLayout(dialog)
        form.addRow("Lesson", lesson)
        form.addRow("Your name for the teacher", name)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(dialog.accept)
        buttons.rejected.connect(dialog.reject)
        form.addRow(buttons)
        if dialog.exec() == QDialog.DialogCode.Accepted and lesson.text().strip():
            self.follow(lesson.text(), name.text())

    # ------------------------------------------------------------------ in class

    def back_to_teacher(self) -> None:
        if self.link is not None:
            self.link.back_to_teacher()

    def ask_for_help(self) -> None:
        if self.link is not None:
            self.window.statusBar().showMessage(self.link.ask_for_help(), 10_000)

    def leave(self) -> None:
        link = self.link
        if link is not None:
            link.leave()

    def closing(self) -> None:
        """The window closes: a teacher's followers hear the class ended before it goes."""
        link = self.link
        if link is not None:
            teaching = link.teaching
            link.leave()
            if teaching:
                link.wait_sent()

    def _on_presenting(self, on: bool) -> None:
        if self.link is not None:
            self.link.set_presenting(on)

    def _on_joined(self, _path: str) -> None:
        # Built now, not when a step first shows one: the step moves as soon as it is told.
        self.window.build_panels()
        link = self.link
        if link is not None and link.teaching and self.dock is not None:
            self.dock.show()
            self.dock.raise_()

    def _on_notice(self, text: str) -> None:
        self.window.notice_bar.add_window_notice(text)

    def _on_failed(self, text: str) -> None:
        self.window.notice_bar.add_window_notice(text)
        self.bar.set_status(text)

    def _on_left(self) -> None:
        link, self.link = self.link, None
        self.action_leave.setEnabled(False)
        self.bar.set_role(None)
        if link is not None:
            link.deleteLater()

    def _class_panel(self) -> ClassViewPanel:
        if self.panel is None:
            self.panel = ClassViewPanel()
            self.dock = QDockWidget("Class", self.main)
            self.dock.setObjectName("classDock")
            self.dock.setWidget(self.panel)
            # A tab beside the console and the panels: the window's full width for the table,
            # and no width taken from the editor (a dock of its own at the side made the
            # window wider than a 1024x768 projector in presentation mode).
            self.main.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
            self.main.tabifyDockWidget(self.window.console_dock, self.dock)
        return self.panel
