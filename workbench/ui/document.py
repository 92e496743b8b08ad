"""The editor's document: its file, open/save/new, recovery after a crash, recent files, title.

Everything a user can lose lives here, apart from the engine: the path, the
text as last saved (to know what is modified), the file's line endings, and
the autosave that brings unsaved work back after a crash.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from workbench.ui.autosave import Autosave
from workbench.ui.editor import CodeEditor
from workbench.ui.files import FileReadError, RecentFiles, read_source, write_source
from workbench.ui.settings import Settings

BUFFER_ID = "main"
UNTITLED = "untitled.py"


class DocumentController(QObject):
    """Opens, saves and recovers the editor's text; ``window`` parents its dialogs."""

    sig_title_changed = Signal(str)
    """The window title changed (file name, ``*`` when modified)."""
    sig_status = Signal(str, int)
    """A passing status-bar message and how long to show it (ms)."""
    sig_error = Signal(str)
    """Something the user must read: a file that cannot be opened or saved."""
    sig_opened = Signal()
    """A file (or an empty buffer) replaced the editor's text."""

    def __init__(self, window: QWidget, editor: CodeEditor, settings: Settings,
                 autosave_dir: str | os.PathLike[str] | None, *, ask: bool = True):
        super().__init__(window)
        self.window = window
        self.editor = editor
        self.settings = settings
        self.ask = ask
        self.path: Path | None = None
        self._saved_text = ""
        self._newline = "\n"
        self.autosave = Autosave(autosave_dir, self)
        self.autosave.sig_error.connect(lambda message: self.sig_status.emit(message, 5000))
        self.recent = RecentFiles(settings.qsettings, parent=self)
        editor.textChanged.connect(self.update_title)

    def start(self) -> None:
        """Track the buffer for autosave once the first text is in place."""
        self.autosave.track(BUFFER_ID, self.editor.document(), self.path)
        self.update_title()

    # ------------------------------------------------------------------ opening

    def recover(self) -> bool:
        """Offer what a crashed session left; an untitled buffer comes back silently."""
        items = self.autosave.pending_recovery()
        if not items:
            return False
        item = items[0]
        for other in items[1:]:
            self.autosave.discard(other)
        if item.path is not None and self.ask:
            answer = QMessageBox.question(
                self.window, "Restore unsaved work?",
                f"The workbench did not close cleanly. Restore the unsaved changes to "
                f"{item.path}?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.Yes,
            )
            if answer != QMessageBox.StandardButton.Yes:
                self.autosave.discard(item)
                return False
        self.path = Path(item.path) if item.path else None
        disk = ""
        if self.path is not None:
            try:
                disk = read_source(self.path).text
            except FileReadError:
                disk = ""
        self._set_text(item.text, saved=disk)
        self.autosave.discard(item)
        self.sig_status.emit("restored unsaved work from the last session", 8000)
        return True

    def open_last(self) -> bool:
        """The file open when the workbench last closed, if it is still there."""
        last = self.settings.last_file
        return last is not None and Path(last).is_file() and self._try_open(last)

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        """Open a file; it runs only through Run or live mode, never on its own."""
        if not self.confirm_discard():
            return False
        return self._try_open(path)

    def open_dialog(self) -> None:
        start = str(self.path.parent) if self.path else str(Path.cwd())
        path, _ = QFileDialog.getOpenFileName(self.window, "Open", start,
                                              "Python (*.py);;All (*)")
        if path:
            self.open_path(path)

    def new_file(self) -> None:
        if not self.confirm_discard():
            return
        self.path = None
        self._set_text("", saved="")
        self.autosave.set_path(BUFFER_ID, None)
        self.update_title()

    def _try_open(self, path: str | os.PathLike[str]) -> bool:
        try:
            source = read_source(path)
        except FileReadError as exc:
            self.sig_error.emit(f"cannot open {path}: {exc}")
            return False
        self.path = Path(path).resolve()
        self._newline = source.newline
        self._set_text(source.text, saved=source.text)
        self.settings.last_file = str(self.path)
        self.recent.add(self.path)
        self.autosave.set_path(BUFFER_ID, self.path)
        self.update_title()
        return True

    # ------------------------------------------------------------------ saving

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self) -> bool:
        start = str(self.path) if self.path else str(Path.cwd() / UNTITLED)
        path, _ = QFileDialog.getSaveFileName(self.window, "Save As", start, "Python (*.py)")
        return self.save_to(path) if path else False

    def save_to(self, path: str | os.PathLike[str]) -> bool:
        self.path = Path(path).resolve()
        self.autosave.set_path(BUFFER_ID, self.path)
        ok = self._write(self.path)
        if ok:
            self.recent.add(self.path)
            self.settings.last_file = str(self.path)
        return ok

    def _write(self, path: Path) -> bool:
        text = self.editor.toPlainText()
        try:
            write_source(path, text, newline=self._newline)
        except OSError as exc:
            self.sig_error.emit(f"could not save {path}: {exc.strerror or exc}")
            return False
        self._saved_text = text
        self.update_title()
        self.sig_status.emit(f"saved {path}", 3000)
        return True

    # ------------------------------------------------------------------ state

    def is_modified(self) -> bool:
        return self.editor.toPlainText() != self._saved_text

    def confirm_discard(self) -> bool:
        """Ask to save unsaved changes; False when the user cancels."""
        if not self.is_modified() or not self.ask:
            return True
        answer = QMessageBox.question(
            self.window, "Unsaved changes", "Save the changes first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def filename(self) -> str:
        """The name the engine compiles the source under (tracebacks and lines use it)."""
        return str(self.path) if self.path else UNTITLED

    def update_title(self) -> None:
        name = self.path.name if self.path else UNTITLED
        star = "*" if self.is_modified() else ""
        self.sig_title_changed.emit(f"{name}{star} - workbench")

    def closing(self) -> None:
        """The window closes cleanly: remember the file, and that nothing needs recovering."""
        if self.path is not None:
            self.settings.last_file = str(self.path)
        self.autosave.mark_clean_exit()

    def _set_text(self, text: str, saved: str) -> None:
        self._saved_text = saved
        self.editor.setPlainText(text)
        self.editor.clear_error_marks()
        self.update_title()
        self.sig_opened.emit()
