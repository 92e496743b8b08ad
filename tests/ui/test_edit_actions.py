"""The Edit menu: each action is there, shows its shortcut, and does what it says."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QMainWindow, QVBoxLayout, QWidget

from workbench.ui.editor.edit_actions import EditActions, build_edit_menu, shortcut_text
from workbench.ui.editor.editor import CodeEditor

Key = QKeySequence.StandardKey
CTRL = Qt.KeyboardModifier.ControlModifier
SOURCE = "def f(x):\n    y = x * 2\n    return y\n"


class Window(QMainWindow):
    """A window laid out like the workbench's: the editor in a box layout."""

    def __init__(self) -> None:
        super().__init__()
        self.editor = CodeEditor()
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addWidget(self.editor)
        self.setCentralWidget(central)
        self.edit_menu = self.menuBar().addMenu("&Edit")
        self.edit_actions = build_edit_menu(self.edit_menu, self.editor, self)


@pytest.fixture
def window(qtbot):
    window = Window()
    qtbot.addWidget(window)
    window.resize(700, 500)
    window.show()
    window.activateWindow()
    qtbot.waitActive(window)
    window.editor.setPlainText(SOURCE)
    window.editor.setFocus()
    return window


@pytest.fixture
def actions(window) -> EditActions:
    return window.edit_actions


EXPECTED = [
    ("actionUndo", Key.Undo),
    ("actionRedo", Key.Redo),
    ("", None),
    ("actionCut", Key.Cut),
    ("actionCopy", Key.Copy),
    ("actionPaste", Key.Paste),
    ("actionSelectAll", Key.SelectAll),
    ("", None),
    ("actionFind", "Ctrl+F"),
    ("actionFindNext", "F3"),
    ("actionFindPrevious", "Shift+F3"),
    ("actionReplace", "Ctrl+H"),
    ("actionGoToLine", "Ctrl+G"),
    ("", None),
    ("actionToggleComment", "Ctrl+/"),
]


def test_the_menu_holds_every_action_in_order(window):
    assert [a.objectName() for a in window.edit_menu.actions()] == [n for n, _ in EXPECTED]
    assert all(a.isSeparator() for a in window.edit_menu.actions() if not a.objectName())


@pytest.mark.parametrize(("name", "keys"), [e for e in EXPECTED if e[0]])
def test_each_action_has_its_shortcut_and_names_it(window, name, keys):
    keys = QKeySequence(keys)  # a QKeySequence needs the application: not at import
    action = window.findChild(type(window.edit_actions.undo), name)
    assert action is not None, name
    assert action.shortcut() == keys
    assert action.isShortcutVisibleInContextMenu()
    text = keys.toString(QKeySequence.SequenceFormat.NativeText)
    assert text and shortcut_text(action) == text
    assert f"({text})" in action.toolTip()
    assert action.statusTip() == action.toolTip()
    assert action in window.actions(), "not on the window: the shortcut needs the menu open"


def test_standard_actions_keep_every_platform_binding(actions):
    assert actions.undo.shortcuts() == QKeySequence.keyBindings(Key.Undo)
    assert actions.redo.shortcuts() == QKeySequence.keyBindings(Key.Redo)
    assert actions.paste.shortcuts() == QKeySequence.keyBindings(Key.Paste)


def test_undo_and_redo_follow_the_editor_and_restore_the_text(qtbot, window, actions):
    editor = window.editor
    assert not actions.undo.isEnabled() and not actions.redo.isEnabled()
    editor.moveCursor(editor.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor, "z = 1")
    assert editor.toPlainText() == SOURCE + "z = 1"
    assert actions.undo.isEnabled()
    actions.undo.trigger()
    assert editor.toPlainText() == SOURCE
    assert not actions.undo.isEnabled() and actions.redo.isEnabled()
    actions.redo.trigger()
    assert editor.toPlainText() == SOURCE + "z = 1"
    assert not actions.redo.isEnabled()


def test_copy_cut_and_paste_go_through_the_clipboard(window, actions):
    editor = window.editor
    clipboard = QGuiApplication.clipboard()
    assert not actions.copy.isEnabled() and not actions.cut.isEnabled()
    cursor = editor.textCursor()
    cursor.setPosition(0)
    cursor.setPosition(3, cursor.MoveMode.KeepAnchor)  # "def"
    editor.setTextCursor(cursor)
    assert actions.copy.isEnabled() and actions.cut.isEnabled()
    actions.copy.trigger()
    assert clipboard.text() == "def"
    assert actions.paste.isEnabled()
    actions.cut.trigger()
    assert editor.toPlainText() == SOURCE[3:]
    assert not actions.copy.isEnabled(), "nothing is selected after a cut"

    clipboard.setText("pasted ")
    editor.moveCursor(editor.textCursor().MoveOperation.Start)
    actions.paste.trigger()
    assert editor.toPlainText() == "pasted " + SOURCE[3:]


def test_paste_is_disabled_while_the_clipboard_is_empty(actions):
    QGuiApplication.clipboard().clear()
    assert not actions.paste.isEnabled()
    QGuiApplication.clipboard().setText("x")
    assert actions.paste.isEnabled()


def test_select_all_selects_the_whole_text(window, actions):
    actions.select_all.trigger()
    cursor = window.editor.textCursor()
    assert (cursor.selectionStart(), cursor.selectionEnd()) == (0, len(SOURCE))


def test_toggle_comment_from_the_menu_and_from_its_key_once(qtbot, window, actions):
    editor = window.editor
    editor.go_to_line(2)
    actions.toggle_comment.trigger()
    assert editor.toPlainText().splitlines()[1] == "    # y = x * 2"
    # The window's shortcut and the editor's own Ctrl+/ must not both toggle.
    qtbot.keyClick(editor, Qt.Key.Key_Slash, CTRL)
    assert editor.toPlainText() == SOURCE


def test_keys_open_the_bars_with_the_focus_in_their_field(qtbot, window, actions):
    qtbot.keyClick(window.editor, Qt.Key.Key_F, CTRL)
    assert actions.find_bar.isVisible() and not actions.find_bar.is_replace_visible()
    qtbot.waitUntil(actions.find_bar.find_edit.hasFocus)
    qtbot.keyClicks(actions.find_bar.find_edit, "return")
    assert window.editor.textCursor().selectedText() == "return"

    qtbot.keyClick(actions.find_bar.find_edit, Qt.Key.Key_H, CTRL)
    assert actions.find_bar.is_replace_visible()
    qtbot.waitUntil(actions.find_bar.replace_edit.hasFocus)

    qtbot.keyClick(actions.find_bar.replace_edit, Qt.Key.Key_G, CTRL)
    assert actions.line_bar.isVisible()
    qtbot.waitUntil(actions.line_bar.line_edit.hasFocus)
    assert actions.line_bar.line_edit.text() == "3"  # the line of the found "return"


def test_find_next_and_previous_keys_search_without_the_field_focused(qtbot, window, actions):
    actions.find_bar.find_edit.setText("y")
    window.editor.setFocus()
    qtbot.keyClick(window.editor, Qt.Key.Key_F3)
    assert window.editor.current_line == 2
    qtbot.keyClick(window.editor, Qt.Key.Key_F3)
    assert window.editor.current_line == 3
    qtbot.keyClick(window.editor, Qt.Key.Key_F3, Qt.KeyboardModifier.ShiftModifier)
    assert window.editor.current_line == 2
    assert actions.find_bar.message() == "1 of 2"


def test_find_next_with_nothing_to_find_opens_the_bar(window, actions):
    assert not actions.find_bar.isVisible()
    actions.find_next.trigger()
    assert actions.find_bar.isVisible()
    assert window.editor.textCursor().position() == 0


def test_the_bars_sit_right_under_the_editor(window, actions):
    layout = window.centralWidget().layout()
    index = layout.indexOf(window.editor)
    assert layout.indexOf(actions.find_bar) == index + 1
    assert layout.indexOf(actions.line_bar) == index + 2
