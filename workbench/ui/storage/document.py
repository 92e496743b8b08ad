"""The editor's document: its file, open/save/new, recovery after a crash, recent files, title.

Everything a user can lose lives here, apart from the engine: the path, the
text as last saved (to know what is modified), the file's line endings, and
the autosave that brings unsaved work back after a crash.

A file opened from disk is marked ``from_outside`` unless this window wrote it or it is
a bundled example: the window then pauses live mode, so opening a downloaded file never
runs it. Recovered buffers are the user's own typing, saved by this app: they run live.

Save never writes silently over someone else's edit: the bytes this window last read or
wrote are remembered (``DiskStamp``), and a file that holds other bytes now (another
window, another editor) is overwritten only when the user says so; a window that may not
ask refuses and keeps the text. A file changed on disk is not offered for reload.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from workbench.examples import EXAMPLES_DIR
from workbench.ui.editor.editor import CodeEditor
from workbench.ui.storage.autosave import Autosave, RecoveredBuffer
from workbench.ui.storage.files import (
    DiskStamp,
    FileReadError,
    RecentFiles,
    changed_on_disk,
    read_source,
    remove_stale_temps,
    write_source,
)
from workbench.ui.storage.recovery import RecoveryDialog
from workbench.ui.storage.settings import Settings

BUFFER_ID = "main"
UNTITLED = "untitled.py"


class DocumentController(QObject):
    """Opens, saves and recovers the editor's text; ``window`` parents its dialogs."""

    sig_title_changed = Signal(str)
    """The window title changed (file name, ``*`` when modified)."""
    sig_status = Signal(str, int)
    """A passing status-bar message and how long to show it (ms)."""
    sig_error = Signal(str)
    """Something the user must read: a file that cannot be opened or saved, a paste the
    editor refused."""
    sig_opened = Signal()
    """A file (or an empty buffer) replaced the editor's text; see ``from_outside``."""

    def __init__(self, window: QWidget, editor: CodeEditor, settings: Settings,
                 autosave_dir: str | os.PathLike[str] | None, *, ask: bool = True):
        super().__init__(window)
        self.window = window
        self.editor = editor
        self.settings = settings
        self.ask = ask
        self.path: Path | None = None
        self.from_outside = False
        """The text is a file this window did not write (nor a bundled example)."""
        self.recovered = False
        """The text just opened came back from a crashed window's autosave."""
        self._saved_text = ""
        self._newline = "\n"
        self._disk: DiskStamp | None = None  # the file's bytes as last read or written here
        self._written: dict[Path, str] = {}  # what this window saved, by path
        self.autosave = Autosave(autosave_dir, self)
        self.autosave.sig_error.connect(lambda message: self.sig_status.emit(message, 5000))
        self.recent = RecentFiles(settings.qsettings, parent=self)
        self._remove_stale_temps()
        editor.textChanged.connect(self.update_title)
        editor.sig_refused.connect(self._on_editor_refused)

    def start(self) -> None:
        """Track the buffer for autosave once the first text is in place."""
        self.autosave.track(BUFFER_ID, self.editor.document(), self.path)
        self.update_title()

    # ------------------------------------------------------------------ opening

    def recover(self) -> bool:
        """Bring back what crashed windows left; True when the editor now holds it.

        A lone untitled buffer comes back silently (so does a lone one with a file when
        nothing may ask); otherwise a dialog offers every one and this returns False, so
        the window opens its usual file behind it. Nothing is deleted unasked.
        """
        items = self.autosave.pending_recovery()
        if not items:
            return False
        if len(items) == 1 and (items[0].path is None or not self.ask):
            return self.restore(items[0])
        self.offer_recovery(items)
        return False

    def offer_recovery(self, items: list[RecoveredBuffer]) -> RecoveryDialog:
        """Show the recovery dialog over the window once the event loop runs (window-modal,
        without blocking the caller: the window is built and shown behind it)."""
        dialog = RecoveryDialog(items, self.window)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.sig_restore.connect(self.restore)
        dialog.sig_discard.connect(self.autosave.discard)
        dialog.finished.connect(dialog.deleteLater)
        QTimer.singleShot(0, dialog, dialog.open)
        return dialog

    def restore(self, item: RecoveredBuffer) -> bool:
        """Put a recovered buffer in the editor; its autosave copy goes once ours is on disk."""
        if not self.confirm_discard():
            return False
        self.path = Path(item.path) if item.path else None
        disk, self._newline, self._disk = "", "\n", None
        if self.path is not None:
            try:
                source = read_source(self.path)
                disk, self._newline, self._disk = source.text, source.newline, source.stamp
            except FileReadError:
                disk = ""
        self.from_outside = False  # typed in this app, and only the user's own eyes saw it
        # ... or a lesson's step the user declined to run: recovered text runs only on Run.
        self.recovered = True
        self._set_text(item.text, saved=disk)
        self.autosave.track(BUFFER_ID, self.editor.document(), self.path)
        self.autosave.flush()
        if self.autosave.saved_text(BUFFER_ID) == item.text:
            self.autosave.discard(item)
        when = datetime.datetime.fromtimestamp(item.saved_at).strftime("%H:%M:%S")
        name = self.path.name if self.path else "an untitled buffer"
        self.sig_status.emit(f"restored unsaved work of {name} from {when}", 8000)
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
        self.from_outside = False
        self._set_text("", saved="")
        self.autosave.set_path(BUFFER_ID, None)
        self.update_title()

    def show_detached(self, text: str) -> None:
        """Put text that belongs to no file in the editor (a lesson's step): no path, not
        modified, autosaved as an untitled buffer. Nothing is asked: the caller decided."""
        self.path = None
        self.from_outside = False
        self._set_text(text, saved=text)
        self.autosave.set_path(BUFFER_ID, None)

    def _try_open(self, path: str | os.PathLike[str]) -> bool:
        try:
            source = read_source(path)
        except FileReadError as exc:
            self.sig_error.emit(f"cannot open {path}: {exc}")
            return False
        # The file that was read decides, not what the path leads to a moment later.
        self.path = source.real_path or Path(path).resolve()
        self._newline, self._disk = source.newline, source.stamp
        self.from_outside = not (self.path.is_relative_to(EXAMPLES_DIR.resolve())
                                 or self._written.get(self.path) == source.text)
        self._set_text(source.text, saved=source.text)
        self.settings.last_file = str(self.path)
        self.recent.add(self.path)
        self.autosave.set_path(BUFFER_ID, self.path)
        self.update_title()
        return True

    # ------------------------------------------------------------------ saving

    def save(self) -> bool:
        """Write the text to its file, asking first if someone else wrote the file since."""
        if self.path is None:
            return self.save_as()
        if changed_on_disk(self.path, self._disk):
            return self._save_over_change(self.path)
        return self._write(self.path)

    def _save_over_change(self, path: Path) -> bool:
        """The file holds another window's (or editor's) edit: overwrite, Save As, or keep it."""
        changed = f"{path.name} changed on disk since you opened it"
        if not self.ask:
            self.sig_error.emit(f"{changed}, so your text was not saved over it: it is still "
                                "in the editor (use Save As to keep it in another file)")
            return False
        box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk", f"{changed}.",
                          QMessageBox.StandardButton.Cancel, self.window)
        box.setInformativeText("Another window or program saved it. Overwrite it with your "
                               "text, save your text as another file, or cancel and keep both.")
        overwrite = box.addButton("Overwrite it with your text",
                                  QMessageBox.ButtonRole.DestructiveRole)
        overwrite.setObjectName("overwrite")
        save_as = box.addButton("Save As...", QMessageBox.ButtonRole.AcceptRole)
        save_as.setObjectName("saveAs")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        box.deleteLater()
        if clicked is overwrite:
            return self._write(path)
        return clicked is save_as and self.save_as()

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
            # self.path is the real file opened or picked: a link planted there since is
            # replaced, never written through.
            self._disk = write_source(path, text, newline=self._newline, follow=path)
        except OSError as exc:
            self.sig_error.emit(f"could not save {path}: {exc.strerror or exc}")
            return False
        self._saved_text = text
        self._written[path.resolve()] = text
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

    def _on_editor_refused(self, message: str) -> None:
        self.sig_error.emit(message)
        self.sig_status.emit(message, 8000)

    def _remove_stale_temps(self) -> None:
        """Temp files of saves killed half-way, beside the files this app saved lately."""
        paths = [*self.recent.paths(), *([self.settings.last_file] if self.settings.last_file
                                          else [])]
        for folder in {Path(p).parent for p in paths}:
            remove_stale_temps(folder)

    def _set_text(self, text: str, saved: str) -> None:
        self._saved_text = saved
        self.editor.setPlainText(text)
        self.editor.clear_error_marks()
        self.update_title()
        self.sig_opened.emit()
        self.recovered = False
