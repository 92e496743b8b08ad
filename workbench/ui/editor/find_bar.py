"""Inline bars under the editor: find/replace, and go to line.

Both are plain widgets beside the editor rather than dialogs, so the text stays
visible while searching; each says what happened (or what was wrong with the input)
in a message next to its fields, and Escape closes it and gives the editor the focus.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QWidget,
)

from workbench.ui.editor.editor import CodeEditor

ERROR_STYLE = "color: #c0392b"
FindFlag = QTextDocument.FindFlag


class _EditorBar(QWidget):
    """What both bars share: the editor, a message label, a close button, Escape to close."""

    sig_closed = Signal()
    """The bar was closed (Escape or its close button); the editor has the focus again."""

    def __init__(self, editor: CodeEditor, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.editor = editor
        self.message_label = QLabel("")
        self.message_label.setObjectName(f"{name}Message")
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setObjectName(f"{name}Close")
        self.close_button.setToolTip("Close (Esc)")
        self.close_button.clicked.connect(self.close_bar)
        self.hide()

    def message(self) -> str:
        """The text of the message next to the fields ("" when there is none)."""
        return self.message_label.text()

    def message_is_error(self) -> bool:
        """Whether the message names a problem (shown in red) rather than a result."""
        return self.message_label.styleSheet() == ERROR_STYLE

    def close_bar(self) -> None:
        """Hide the bar and give the focus back to the editor."""
        self.hide()
        self.editor.setFocus()
        self.sig_closed.emit()

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message_label.setText(text)
        self.message_label.setStyleSheet(ERROR_STYLE if error else "")

    def event(self, event: QEvent) -> bool:
        # Claim Escape before a window shortcut (the main window's Stop) can take it.
        if event.type() == QEvent.Type.ShortcutOverride and _is_escape(event):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        if _is_escape(event):
            self.close_bar()
            event.accept()
            return
        super().keyPressEvent(event)


def _is_escape(event: QEvent) -> bool:
    return (
        isinstance(event, QKeyEvent)
        and event.key() == Qt.Key.Key_Escape
        and event.modifiers() == Qt.KeyboardModifier.NoModifier
    )


class FindBar(_EditorBar):
    """Find and replace in the editor's document (objectName ``findBar``)."""

    def __init__(self, editor: CodeEditor, parent: QWidget | None = None) -> None:
        super().__init__(editor, "findBar", parent)
        self.find_edit = QLineEdit()
        self.find_edit.setObjectName("findText")
        self.find_edit.setPlaceholderText("find")
        self.find_edit.setClearButtonEnabled(True)
        self.find_edit.setToolTip(
            "Text to find: Enter finds the next match, Shift+Enter the previous one"
        )
        self.case_button = QToolButton()
        self.case_button.setText("Aa")
        self.case_button.setObjectName("findCase")
        self.case_button.setCheckable(True)
        self.case_button.setToolTip("Match case: find only text with the same capitals")
        self.previous_button = QToolButton()
        self.previous_button.setText("↑")
        self.previous_button.setObjectName("findPreviousButton")
        self.previous_button.setToolTip("Previous match (Shift+F3)")
        self.next_button = QToolButton()
        self.next_button.setText("↓")
        self.next_button.setObjectName("findNextButton")
        self.next_button.setToolTip("Next match (F3)")
        self.replace_edit = QLineEdit()
        self.replace_edit.setObjectName("replaceText")
        self.replace_edit.setPlaceholderText("replace with")
        self.replace_edit.setToolTip("Replacement text: Enter replaces the current match")
        self.replace_button = QPushButton("Replace")
        self.replace_button.setObjectName("replaceButton")
        self.replace_button.setToolTip("Replace the current match and find the next one")
        self.replace_all_button = QPushButton("Replace all")
        self.replace_all_button.setObjectName("replaceAllButton")
        self.replace_all_button.setToolTip("Replace every match in one step (one Undo reverts it)")

        layout = QGridLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addWidget(self.find_edit, 0, 0)
        find_row = QHBoxLayout()
        for button in (self.case_button, self.previous_button, self.next_button):
            find_row.addWidget(button)
        find_row.addWidget(self.message_label, 1)
        find_row.addWidget(self.close_button)
        layout.addLayout(find_row, 0, 1)
        layout.addWidget(self.replace_edit, 1, 0)
        replace_row = QHBoxLayout()
        replace_row.addWidget(self.replace_button)
        replace_row.addWidget(self.replace_all_button)
        replace_row.addStretch(1)
        layout.addLayout(replace_row, 1, 1)
        layout.setColumnStretch(0, 1)
        layout.setColumnStretch(1, 1)
        self._replace_widgets = (self.replace_edit, self.replace_button, self.replace_all_button)
        self._set_replace_visible(False)

        self.find_edit.installEventFilter(self)
        self.find_edit.textEdited.connect(self._on_find_text_edited)
        self.replace_edit.returnPressed.connect(self.replace)
        self.case_button.toggled.connect(self._on_case_toggled)
        self.previous_button.clicked.connect(self.find_previous)
        self.next_button.clicked.connect(self.find_next)
        self.replace_button.clicked.connect(self.replace)
        self.replace_all_button.clicked.connect(self.replace_all)

    # ------------------------------------------------------------------ public API
    def open_find(self) -> None:
        """Show the bar for finding; a one-line selection in the editor becomes the text."""
        self._open(replace=False)
        self.find_edit.setFocus()

    def open_replace(self) -> None:
        """Show the bar with its replace row; focus the replacement once there is a text."""
        self._open(replace=True)
        (self.replace_edit if self.find_edit.text() else self.find_edit).setFocus()

    def is_replace_visible(self) -> bool:
        return not self.replace_edit.isHidden()

    def find_next(self) -> bool:
        """Select the next match after the cursor, wrapping at the end; False when none."""
        return self._find(backward=False)

    def find_previous(self) -> bool:
        """Select the previous match before the cursor, wrapping at the start."""
        return self._find(backward=True)

    def replace(self) -> bool:
        """Replace the selected match (if the selection is one) and select the next match."""
        text = self._wanted()
        if text is None:
            return False
        cursor = self.editor.textCursor()
        if not self._is_match(cursor.selectedText()):
            return self.find_next()
        cursor.insertText(self.replace_edit.text())
        self.editor.setTextCursor(cursor)
        left = self._count(text)
        if left:
            self._find(backward=False)
        self._say(f"1 replaced, {left} left" if left else "1 replaced, no more matches")
        return True

    def replace_all(self) -> int:
        """Replace every match in one undo step; the count is also said in the message."""
        text = self._wanted()
        if text is None:
            return 0
        self.show()
        doc = self.editor.document()
        replacement = self.replace_edit.text()
        edit = QTextCursor(doc)
        count = 0
        edit.beginEditBlock()
        found = doc.find(text, edit, self._flags(backward=False))
        while not found.isNull():
            edit.setPosition(found.selectionStart())
            edit.setPosition(found.selectionEnd(), QTextCursor.MoveMode.KeepAnchor)
            edit.insertText(replacement)  # the search goes on after the replacement
            count += 1
            found = doc.find(text, edit, self._flags(backward=False))
        edit.endEditBlock()
        if count:
            self.editor.setTextCursor(edit)
            self._say(f"{count} replaced")
        else:
            self._say(f"no match for '{text}'", error=True)
        return count

    # ------------------------------------------------------------------ internals
    def _open(self, *, replace: bool) -> None:
        selected = self.editor.textCursor().selectedText()
        if selected and "\u2029" not in selected:  # one line only: QTextCursor's paragraph mark
            self.find_edit.setText(selected)
        self._set_replace_visible(replace)
        self._say("")
        self.show()
        self.find_edit.selectAll()

    def _set_replace_visible(self, visible: bool) -> None:
        for widget in self._replace_widgets:
            widget.setVisible(visible)

    def _wanted(self) -> str | None:
        """The text to find, or None (and a message) when the field is empty."""
        text = self.find_edit.text()
        if not text:
            self.show()
            self._say("type the text to find", error=True)
            return None
        return text

    def _flags(self, *, backward: bool) -> QTextDocument.FindFlag:
        flags = FindFlag(0)
        if self.case_button.isChecked():
            flags |= FindFlag.FindCaseSensitively
        if backward:
            flags |= FindFlag.FindBackward
        return flags

    def _is_match(self, selected: str) -> bool:
        text = self.find_edit.text()
        if self.case_button.isChecked():
            return selected == text
        return selected.casefold() == text.casefold()

    def _find(self, *, backward: bool, start: QTextCursor | None = None) -> bool:
        text = self._wanted()
        if text is None:
            return False
        self.show()
        doc = self.editor.document()
        flags = self._flags(backward=backward)
        found = doc.find(text, start if start is not None else self.editor.textCursor(), flags)
        wrapped = found.isNull()
        if wrapped:
            edge = QTextCursor(doc)
            if backward:
                edge.movePosition(QTextCursor.MoveOperation.End)
            found = doc.find(text, edge, flags)
        if found.isNull():
            self._say(f"no match for '{text}'", error=True)
            return False
        self.editor.setTextCursor(found)
        self.editor.ensureCursorVisible()
        index = self._count(text, before=found.selectionStart())
        where = f"{index} of {self._count(text)}"
        self._say(f"{where}, wrapped" if wrapped and self._count(text) > 1 else where)
        return True

    def _count(self, text: str, before: int | None = None) -> int:
        """How many matches the document holds (starting at or before `before`, if given)."""
        doc = self.editor.document()
        flags = self._flags(backward=False)
        count = 0
        found = doc.find(text, QTextCursor(doc), flags)
        while not found.isNull() and (before is None or found.selectionStart() <= before):
            count += 1
            found = doc.find(text, found, flags)
        return count

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if (
            watched is self.find_edit
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.find_previous()
            else:
                self.find_next()
            return True
        return super().eventFilter(watched, event)

    def _on_find_text_edited(self, text: str) -> None:
        """Search as the user types, from where the current match starts."""
        if not text:
            self._say("")
            return
        start = QTextCursor(self.editor.textCursor())
        start.setPosition(start.selectionStart())
        self._find(backward=False, start=start)

    def _on_case_toggled(self, _checked: bool) -> None:
        if self.find_edit.text():
            self._on_find_text_edited(self.find_edit.text())


class GoToLineBar(_EditorBar):
    """A line number field (objectName ``goToLineBar``); bad input is named, never clamped."""

    sig_went = Signal(int)
    """The cursor went to this line (1-based)."""

    def __init__(self, editor: CodeEditor, parent: QWidget | None = None) -> None:
        super().__init__(editor, "goToLineBar", parent)
        self.label = QLabel("go to line")
        self.line_edit = QLineEdit()
        self.line_edit.setObjectName("goToLineText")
        self.line_edit.setMaximumWidth(120)
        self.line_edit.setToolTip("Line number to go to (1 to the last line); Enter goes there")
        self.go_button = QPushButton("Go")
        self.go_button.setObjectName("goToLineGo")
        self.go_button.setToolTip("Move the cursor to this line (Enter)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addWidget(self.label)
        layout.addWidget(self.line_edit)
        layout.addWidget(self.go_button)
        layout.addWidget(self.message_label, 1)
        layout.addWidget(self.close_button)
        self.line_edit.returnPressed.connect(self.go)
        self.go_button.clicked.connect(self.go)
        self.line_edit.textEdited.connect(self._on_line_edited)

    def open(self) -> None:
        """Show the bar with the cursor's line selected in the field."""
        last = self.editor.document().blockCount()
        self.line_edit.setPlaceholderText(f"1 to {last}")
        self.line_edit.setText(str(self.editor.current_line))
        self._say("")
        self.show()
        self.line_edit.selectAll()
        self.line_edit.setFocus()

    def go(self) -> bool:
        """Go to the typed line and close; otherwise say why not and stay open."""
        text = self.line_edit.text().strip()
        last = self.editor.document().blockCount()
        self.show()
        if not text:
            self._say(f"type a line number, 1 to {last}", error=True)
            return False
        if not (text.isascii() and text.isdigit()):
            self._say(f"'{text}' is not a line number: type 1 to {last}", error=True)
            return False
        line = int(text)
        if not 1 <= line <= last:
            self._say(f"there is no line {line}: the file has lines 1 to {last}", error=True)
            return False
        self.editor.go_to_line(line)
        self._say("")
        self.close_bar()
        self.sig_went.emit(line)
        return True

    def _on_line_edited(self, _text: str) -> None:
        """A new number is being typed: the complaint about the old one no longer holds."""
        self._say("")
