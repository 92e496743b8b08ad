"""The find/replace bar and the go-to-line bar, on a real editor in a real window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import QVBoxLayout, QWidget

from workbench.ui.editor.editor import CodeEditor
from workbench.ui.editor.find_bar import FindBar, GoToLineBar

SOURCE = "alpha = 1\nbeta = alpha + 2\nAlpha = alpha * beta\nprint(beta)\n"
SHIFT = Qt.KeyboardModifier.ShiftModifier


class Holder(QWidget):
    """The editor with both bars under it, and an Escape shortcut like the window's Stop."""

    def __init__(self) -> None:
        super().__init__()
        self.editor = CodeEditor()
        self.find_bar = FindBar(self.editor)
        self.line_bar = GoToLineBar(self.editor)
        layout = QVBoxLayout(self)
        for widget in (self.editor, self.find_bar, self.line_bar):
            layout.addWidget(widget)
        self.stops = 0
        stop = QShortcut(QKeySequence("Escape"), self)
        stop.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        stop.activated.connect(self._on_stop)

    def _on_stop(self) -> None:
        self.stops += 1


@pytest.fixture
def holder(qtbot):
    holder = Holder()
    qtbot.addWidget(holder)
    holder.resize(700, 500)
    holder.show()
    holder.activateWindow()
    qtbot.waitActive(holder)
    holder.editor.setPlainText(SOURCE)
    holder.editor.setFocus()
    return holder


@pytest.fixture
def bar(holder) -> FindBar:
    return holder.find_bar


@pytest.fixture
def editor(holder) -> CodeEditor:
    return holder.editor


def selection(editor: CodeEditor) -> tuple[int, int, str]:
    cursor = editor.textCursor()
    return cursor.selectionStart(), cursor.selectionEnd(), cursor.selectedText()


# ---------------------------------------------------------------------- find
def test_find_moves_the_cursor_to_each_match_and_wraps(bar, editor):
    bar.open_find()
    bar.find_edit.setText("beta")
    assert bar.find_next()
    first = SOURCE.index("beta")
    assert selection(editor) == (first, first + 4, "beta")
    assert editor.current_line == 2
    assert bar.message() == "1 of 3" and not bar.message_is_error()
    bar.find_next()
    bar.find_next()
    assert editor.current_line == 4 and bar.message() == "3 of 3"
    bar.find_next()
    assert selection(editor)[0] == first
    assert bar.message() == "1 of 3, wrapped"


def test_find_previous_goes_back_and_wraps_to_the_end(bar, editor):
    bar.find_edit.setText("beta")
    assert bar.find_previous()  # from the very start: wraps to the last one
    assert editor.current_line == 4 and bar.message() == "3 of 3, wrapped"
    bar.find_previous()
    assert editor.current_line == 3 and bar.message() == "2 of 3"


def test_no_match_says_so_and_leaves_the_cursor(bar, editor):
    editor.go_to_line(2)
    before = selection(editor)
    bar.find_edit.setText("foo")
    assert not bar.find_next()
    assert bar.message() == "no match for 'foo'" and bar.message_is_error()
    assert selection(editor) == before
    assert bar.isVisible()


def test_an_empty_find_field_asks_for_text(bar):
    assert not bar.find_next()
    assert bar.message() == "type the text to find" and bar.message_is_error()
    assert bar.replace_all() == 0


def test_match_case(bar, editor):
    bar.find_edit.setText("Alpha")
    bar.find_next()
    assert bar.message() == "1 of 4"
    bar.case_button.setChecked(True)
    assert bar.message() == "1 of 1"
    assert selection(editor)[2] == "Alpha" and editor.current_line == 3


def test_typing_searches_as_you_type(qtbot, bar, editor):
    bar.open_find()
    qtbot.keyClicks(bar.find_edit, "be")
    assert selection(editor)[2] == "be" and editor.current_line == 2
    qtbot.keyClicks(bar.find_edit, "ta = a")  # the match grows where it is
    assert selection(editor)[2] == "beta = a" and editor.current_line == 2
    qtbot.keyClicks(bar.find_edit, "x")
    assert bar.message() == "no match for 'beta = ax'"


def test_enter_and_shift_enter_in_the_field(qtbot, bar, editor):
    bar.open_find()
    bar.find_edit.setText("beta")
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Return)
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Return)
    assert editor.current_line == 3
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Return, SHIFT)
    assert editor.current_line == 2


def test_opening_takes_a_one_line_selection_as_the_text(bar, editor):
    cursor = editor.textCursor()
    cursor.setPosition(SOURCE.index("print"))
    cursor.movePosition(QTextCursor.MoveOperation.EndOfWord, QTextCursor.MoveMode.KeepAnchor)
    editor.setTextCursor(cursor)
    bar.open_find()
    assert bar.find_edit.text() == "print"
    assert not bar.is_replace_visible()
    editor.selectAll()  # several lines: not a search text
    bar.open_replace()
    assert bar.find_edit.text() == "print"
    assert bar.is_replace_visible()


def test_escape_closes_the_bar_and_returns_focus_not_stopping(qtbot, holder, bar, editor):
    bar.open_find()
    qtbot.waitUntil(bar.find_edit.hasFocus)
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    qtbot.waitUntil(editor.hasFocus)
    assert holder.stops == 0, "Escape in the bar reached the window's Stop"
    qtbot.keyClick(editor, Qt.Key.Key_Escape)  # the editor's Escape still stops
    assert holder.stops == 1


# ------------------------------------------------------------------- replace
def test_replace_replaces_the_current_match_then_moves_on(bar, editor):
    bar.open_replace()
    bar.find_edit.setText("beta")
    bar.replace_edit.setText("b")
    assert bar.replace()  # nothing selected yet: it finds the first match
    assert editor.toPlainText() == SOURCE
    assert bar.replace()
    assert editor.toPlainText() == SOURCE.replace("beta", "b", 1)
    assert selection(editor)[2] == "beta" and editor.current_line == 3
    assert bar.message() == "1 replaced, 2 left"


def test_replace_all_counts_and_undoes_in_one_step(bar, editor):
    bar.find_edit.setText("alpha")
    bar.replace_edit.setText("a")
    assert bar.replace_all() == 4  # case-insensitive: "Alpha" too
    assert bar.message() == "4 replaced"
    assert editor.toPlainText() == "a = 1\nbeta = a + 2\na = a * beta\nprint(beta)\n"
    editor.undo()
    assert editor.toPlainText() == SOURCE


def test_replace_all_with_text_containing_the_match_ends(bar, editor):
    bar.case_button.setChecked(True)
    bar.find_edit.setText("beta")
    bar.replace_edit.setText("beta_beta")
    assert bar.replace_all() == 3
    assert editor.toPlainText() == SOURCE.replace("beta", "beta_beta")


def test_replace_all_without_a_match(bar, editor):
    bar.find_edit.setText("zzz")
    assert bar.replace_all() == 0
    assert bar.message() == "no match for 'zzz'" and bar.message_is_error()
    assert editor.toPlainText() == SOURCE


# --------------------------------------------------------------- go to line
def test_go_to_line_moves_the_cursor_and_closes(qtbot, holder, editor):
    bar = holder.line_bar
    bar.open()
    assert bar.line_edit.text() == "1"
    assert bar.line_edit.placeholderText() == "1 to 5"
    qtbot.waitUntil(bar.line_edit.hasFocus)
    bar.line_edit.setText("3")
    with qtbot.waitSignal(bar.sig_went) as went:
        qtbot.keyClick(bar.line_edit, Qt.Key.Key_Return)
    assert went.args == [3]
    assert editor.current_line == 3 and editor.textCursor().positionInBlock() == 0
    assert not bar.isVisible()
    qtbot.waitUntil(editor.hasFocus)


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("abc", "'abc' is not a line number: type 1 to 5"),
        ("0", "there is no line 0: the file has lines 1 to 5"),
        (str(10**6), "there is no line 1000000: the file has lines 1 to 5"),
        ("-1", "'-1' is not a line number: type 1 to 5"),
        ("2.5", "'2.5' is not a line number: type 1 to 5"),
        ("", "type a line number, 1 to 5"),
    ],
)
def test_go_to_line_names_bad_input_and_stays(holder, editor, typed, said):
    bar = holder.line_bar
    editor.go_to_line(2)
    bar.open()
    bar.line_edit.setText(typed)
    assert not bar.go()
    assert bar.message() == said and bar.message_is_error()
    assert bar.isVisible()
    assert editor.current_line == 2, "the cursor moved on bad input"
    bar.line_edit.setText(" 4 ")
    assert bar.go()
    assert editor.current_line == 4 and bar.message() == ""
