"""The Edit menu: undo, clipboard, find/replace, go to line and comment toggling.

``build_edit_menu`` is the one call a window makes: it fills the menu, adds the
actions to the window (so their shortcuts work with the menu closed) and puts the
find and go-to-line bars under the editor. Every action names its shortcut in its
tooltip and status tip, so a student hovering a menu entry learns the key.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QBoxLayout, QMenu, QWidget

from workbench.ui.editor.editor import CodeEditor
from workbench.ui.editor.find_bar import FindBar, GoToLineBar

Key = QKeySequence.StandardKey
Binding = QKeySequence | QKeySequence.StandardKey


def shortcut_text(action: QAction) -> str:
    """The action's first shortcut as the platform writes it ("Ctrl+Z"), or ""."""
    return action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)


class EditActions(QObject):
    """The Edit menu's actions and the bars they open, for one editor."""

    def __init__(self, menu: QMenu, editor: CodeEditor, parent: QWidget) -> None:
        super().__init__(parent)
        self.editor = editor
        self._parent = parent
        self.find_bar = FindBar(editor, parent)
        self.line_bar = GoToLineBar(editor, parent)

        self.undo = self._add(menu, "actionUndo", "&Undo", Key.Undo, editor.undo,
                              "Undo the last edit")
        self.redo = self._add(menu, "actionRedo", "&Redo", Key.Redo, editor.redo,
                              "Redo the edit just undone")
        menu.addSeparator()
        self.cut = self._add(menu, "actionCut", "Cu&t", Key.Cut, editor.cut,
                             "Cut the selection to the clipboard")
        self.copy = self._add(menu, "actionCopy", "&Copy", Key.Copy, editor.copy,
                              "Copy the selection to the clipboard")
        self.paste = self._add(menu, "actionPaste", "&Paste", Key.Paste, editor.paste,
                               "Paste the clipboard at the cursor")
        self.select_all = self._add(menu, "actionSelectAll", "Select &All", Key.SelectAll,
                                    editor.selectAll, "Select the whole text")
        menu.addSeparator()
        self.find = self._add(menu, "actionFind", "&Find...", QKeySequence("Ctrl+F"),
                              self.find_bar.open_find, "Find text in the editor")
        self.find_next = self._add(menu, "actionFindNext", "Find &Next", QKeySequence("F3"),
                                   self._on_find_next, "Find the next match")
        self.find_previous = self._add(
            menu, "actionFindPrevious", "Find Pre&vious", QKeySequence("Shift+F3"),
            self._on_find_previous, "Find the previous match")
        self.replace = self._add(menu, "actionReplace", "R&eplace...", QKeySequence("Ctrl+H"),
                                 self.find_bar.open_replace, "Find and replace text")
        self.go_to_line = self._add(menu, "actionGoToLine", "&Go to Line...",
                                    QKeySequence("Ctrl+G"), self.line_bar.open,
                                    "Move the cursor to a line by its number")
        menu.addSeparator()
        # Ctrl+/ is also what the editor's own key handling toggles comments with.
        self.toggle_comment = self._add(
            menu, "actionToggleComment", "Toggle &Comment", QKeySequence("Ctrl+/"),
            editor.toggle_comment, "Comment or uncomment the selected lines")

        editor.undoAvailable.connect(self.undo.setEnabled)
        editor.redoAvailable.connect(self.redo.setEnabled)
        editor.copyAvailable.connect(self._on_copy_available)
        QGuiApplication.clipboard().dataChanged.connect(self._on_clipboard_changed)
        self.undo.setEnabled(editor.document().isUndoAvailable())
        self.redo.setEnabled(editor.document().isRedoAvailable())
        self._on_copy_available(editor.textCursor().hasSelection())
        self._on_clipboard_changed()

    def actions(self) -> list[QAction]:
        """Every action, in menu order."""
        return [
            self.undo, self.redo, self.cut, self.copy, self.paste, self.select_all,
            self.find, self.find_next, self.find_previous, self.replace, self.go_to_line,
            self.toggle_comment,
        ]

    def place_bars_below_editor(self) -> bool:
        """Put the bars right under the editor when it sits in a box layout; False if not."""
        holder = self.editor.parentWidget()
        layout = holder.layout() if holder is not None else None
        if not isinstance(layout, QBoxLayout) or layout.indexOf(self.editor) < 0:
            return False
        index = layout.indexOf(self.editor)
        layout.insertWidget(index + 1, self.find_bar)
        layout.insertWidget(index + 2, self.line_bar)
        return True

    def _add(self, menu: QMenu, name: str, text: str, binding: Binding,
             slot: Callable[[], object], tip: str) -> QAction:
        action = QAction(text, self._parent)
        action.setObjectName(name)
        if isinstance(binding, QKeySequence.StandardKey):
            action.setShortcuts(binding)
        else:
            action.setShortcut(binding)
        action.setShortcutVisibleInContextMenu(True)
        tip = f"{tip} ({shortcut_text(action)})"
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        self._parent.addAction(action)  # the shortcut works while the menu is closed
        return action

    def _on_find_next(self) -> None:
        if self.find_bar.find_edit.text():
            self.find_bar.find_next()
        else:
            self.find_bar.open_find()

    def _on_find_previous(self) -> None:
        if self.find_bar.find_edit.text():
            self.find_bar.find_previous()
        else:
            self.find_bar.open_find()

    def _on_copy_available(self, available: bool) -> None:
        self.copy.setEnabled(available)
        self.cut.setEnabled(available and not self.editor.isReadOnly())

    def _on_clipboard_changed(self) -> None:
        self.paste.setEnabled(self.editor.canPaste())


def build_edit_menu(menu: QMenu, editor: CodeEditor, parent: QWidget) -> EditActions:
    """Fill `menu` with the editing actions for `editor`, owned by the window `parent`.

    The find and go-to-line bars go right under the editor when it sits in a box
    layout; otherwise place ``actions.find_bar`` and ``actions.line_bar`` yourself.
    """
    actions = EditActions(menu, editor, parent)
    actions.place_bars_below_editor()
    return actions
