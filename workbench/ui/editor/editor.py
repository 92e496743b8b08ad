"""The code editor: a QPlainTextEdit with the few comforts a teacher needs on a projector.

Line numbers, Pygments highlighting, Python indentation, comment toggling, zoom, and
two kinds of line marks driven from outside: error marks (title and teaching hint on
hover) and a secondary highlight for the lines of the selected jaxpr equation.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable

from pygments.token import Comment, Punctuation, Text
from PySide6.QtCore import QEvent, QMimeData, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QDropEvent,
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QHelpEvent,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
    QWheelEvent,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from workbench.ui.editor.highlighter import PythonHighlighter, lex_line
from workbench.ui.editor.source_limit import fits_surely, insert_refusal, utf8_size
from workbench.ui.style.theme import (
    DARK,
    LIGHT,
    PresentationZoom,
    is_dark_palette,
    pygments_style_name,
)

INDENT = 4
MIN_POINTS, MAX_POINTS = 6.0, 72.0
_DEDENT_AFTER = re.compile(r"\s*(return|pass|break|continue|raise)\b")


class _Gutter(QWidget):
    """The line-number margin; the editor paints it and answers its tooltips."""

    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self.setObjectName("editorGutter")
        self._editor = editor

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(self._editor.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        self._editor._paint_gutter(event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            self._editor._show_line_tooltip(event, self)
            return True
        return super().event(event)


class CodeEditor(QPlainTextEdit):
    """Python editor widget (objectName `editor`)."""

    sig_cursor_line_changed = Signal(int)
    """The text cursor moved to another line (1-based line number)."""

    sig_zoom_changed = Signal(float)
    """The editor's font size changed (points)."""

    sig_refused = Signal(str)
    """A paste or a drop was refused (it would take the text past a source's limit): why."""

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        zoom: PresentationZoom | None = None,
        base_points: float | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("editor")
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self._base_points = float(base_points or max(font.pointSizeF(), 11.0))
        self.setFont(font)

        self._zoom_model = zoom
        self._forced_scheme: str | None = None
        self._scheme = LIGHT
        self._errors: list[tuple[QTextCursor, str, str]] = []
        self._highlighted: list[int] = []
        self._last_line = 0
        self._dropping = False

        self._gutter = _Gutter(self)
        self._highlighter = PythonHighlighter(self.document())
        self.blockCountChanged.connect(self._on_block_count_changed)
        self.updateRequest.connect(self._on_update_request)
        self.cursorPositionChanged.connect(self._on_cursor_position_changed)

        if zoom is not None:
            zoom.sig_zoom_changed.connect(self._on_presentation_zoom_changed)
            self._apply_points(zoom.points(self._base_points))
        else:
            self._apply_points(self._base_points)
        self._apply_scheme()
        self._on_cursor_position_changed()

    # ----------------------------------------------------------------- public API
    @property
    def highlighter(self) -> PythonHighlighter:
        return self._highlighter

    @property
    def scheme(self) -> str:
        """ "light" or "dark": the colours in use."""
        return self._scheme

    @property
    def zoom_points(self) -> float:
        return self.font().pointSizeF()

    @property
    def current_line(self) -> int:
        """The cursor's line, 1-based."""
        return self.textCursor().blockNumber() + 1

    def set_theme(self, scheme: str | None) -> None:
        """Force "light" or "dark" colours; None follows the widget palette's lightness."""
        if scheme not in (None, LIGHT, DARK):
            raise ValueError(f"scheme must be 'light', 'dark' or None, not {scheme!r}")
        self._forced_scheme = scheme
        self._apply_scheme()

    def set_zoom(self, points: float) -> None:
        """Set the font size in points (6-72); with a presentation zoom model, set the model."""
        points = min(MAX_POINTS, max(MIN_POINTS, float(points)))
        if self._zoom_model is not None:
            self._zoom_model.set_factor(points / self._base_points)
        else:
            self._apply_points(points)

    def zoom_in(self) -> None:
        """One step larger (Ctrl+=)."""
        if self._zoom_model is not None:
            self._zoom_model.zoom_in()
        else:
            self.set_zoom(self.zoom_points + 1)

    def zoom_out(self) -> None:
        """One step smaller (Ctrl+-)."""
        if self._zoom_model is not None:
            self._zoom_model.zoom_out()
        else:
            self.set_zoom(self.zoom_points - 1)

    def reset_zoom(self) -> None:
        """Back to the normal size (Ctrl+0)."""
        if self._zoom_model is not None:
            self._zoom_model.reset()
        else:
            self.set_zoom(self._base_points)

    def go_to_line(self, line: int) -> None:
        """Put the cursor at the start of `line` (1-based, clamped) and scroll it into view."""
        block = self._block(line)
        cursor = QTextCursor(block)
        self.setTextCursor(cursor)
        if not self._block_visible(block):
            self.centerCursor()
        self.ensureCursorVisible()

    def set_error_marks(self, marks: Iterable[tuple[int, str, str]]) -> None:
        """Mark lines (1-based) with an error title and teaching hint shown on hover.

        Marks stick to their text: lines inserted above move them down. A line past the
        end (an unexpected end of file) marks the last line.
        """
        self._errors = []
        for line, title, hint in marks:
            if line >= 1:
                self._errors.append((QTextCursor(self._block(line)), str(title), str(hint)))
        self._refresh_marks()

    def clear_error_marks(self) -> None:
        """Remove every error mark."""
        self._errors = []
        self._refresh_marks()

    def error_marks(self) -> list[tuple[int, str, str]]:
        """The current marks as (line, title, hint), following edits since they were set."""
        return [(c.blockNumber() + 1, title, hint) for c, title, hint in self._errors]

    def error_tooltip(self, line: int) -> str | None:
        """Plain text shown on hover over `line`, or None when it has no mark."""
        parts = [
            f"{title}\n{hint}" if hint else title
            for n, title, hint in self.error_marks()
            if n == line
        ]
        return "\n\n".join(parts) if parts else None

    def highlight_lines(self, lines: Iterable[int]) -> None:
        """Secondary highlight of some lines (those of the selected jaxpr equation); [] clears."""
        self._highlighted = sorted({int(n) for n in lines if n >= 1})
        self._refresh_marks()

    def highlighted_lines(self) -> list[int]:
        return list(self._highlighted)

    def indent_selection(self) -> None:
        """Add one indent level to every non-empty line touched by the selection."""
        self._edit_lines(lambda text: text and " " * INDENT + text, keep_selection=True)

    def dedent_selection(self) -> None:
        """Remove up to one indent level from every line touched by the selection (Shift+Tab)."""

        def dedent(text: str) -> str:
            if text.startswith("\t"):
                return text[1:]
            spaces = len(text) - len(text.lstrip(" "))
            return text[min(spaces, INDENT) :]

        self._edit_lines(dedent, keep_selection=True)

    def toggle_comment(self) -> None:
        """Comment the selected lines with "# ", or uncomment them when all are comments."""
        first, last = self._selected_blocks()
        texts = [self.document().findBlockByNumber(n).text() for n in range(first, last + 1)]
        code = [t for t in texts if t.strip()]
        if not code:
            return
        if all(t.lstrip().startswith("#") for t in code):

            def change(text: str) -> str:
                body = text.lstrip()
                if not body.startswith("#"):
                    return text
                indent = text[: len(text) - len(body)]
                body = body[2:] if body.startswith("# ") else body[1:]
                return indent + body
        else:
            column = min(len(t) - len(t.lstrip()) for t in code)

            def change(text: str) -> str:
                return text[:column] + "# " + text[column:] if text.strip() else text

        self._edit_lines(change, keep_selection=True)

    # ------------------------------------------------------------ key handling
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        key, mods = event.key(), event.modifiers()
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        plain = not (
            mods & ~(Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier)
        )
        if ctrl and key in (Qt.Key.Key_Equal, Qt.Key.Key_Plus):
            self.zoom_in()
        elif ctrl and key == Qt.Key.Key_Minus:
            self.zoom_out()
        elif ctrl and key == Qt.Key.Key_0:
            self.reset_zoom()
        elif ctrl and key in (Qt.Key.Key_Slash, Qt.Key.Key_Question):
            self.toggle_comment()
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and plain:
            self._newline_with_indent()
        elif key == Qt.Key.Key_Tab and not mods:
            self._on_tab()
        elif key == Qt.Key.Key_Backtab or (
            key == Qt.Key.Key_Tab and mods == Qt.KeyboardModifier.ShiftModifier
        ):
            self.dedent_selection()
        elif key == Qt.Key.Key_Backspace and not mods and self._backspace_indent():
            pass
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    # ------------------------------------------------------------ paste and drop
    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802 (Qt override)
        """Paste or drop, unless the text would pass a source's limit: then nothing, and
        ``sig_refused`` says why (a 10 MB paste froze the window for seconds)."""
        if source.hasText():
            refusal = self._insert_refusal(source.text(), "drop" if self._dropping else "paste")
            if refusal is not None:
                self.sig_refused.emit(refusal)
                return
        super().insertFromMimeData(source)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt override)
        self._dropping = True
        try:
            super().dropEvent(event)
        finally:
            self._dropping = False

    def _insert_refusal(self, text: str, what: str) -> str | None:
        added = utf8_size(text)
        if fits_surely(self.document().characterCount(), added):
            return None
        selected = self.textCursor().selectedText().replace("\u2029", "\n")  # it is replaced
        total = utf8_size(self.toPlainText()) - utf8_size(selected) + added
        return insert_refusal(what, added, total)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt override)
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = event.angleDelta().y()
            if steps > 0:
                self.zoom_in()
            elif steps < 0:
                self.zoom_out()
            event.accept()
            return
        super().wheelEvent(event)

    def _on_tab(self) -> None:
        cursor = self.textCursor()
        if cursor.hasSelection() and self._selected_blocks()[0] != self._selected_blocks()[1]:
            self.indent_selection()
            return
        cursor.insertText(" " * (INDENT - cursor.positionInBlock() % INDENT))
        self.setTextCursor(cursor)

    def _newline_with_indent(self) -> None:
        cursor = self.textCursor()
        cursor.beginEditBlock()
        cursor.removeSelectedText()
        block = cursor.block()
        text = block.text()
        column = cursor.positionInBlock()
        indent = len(text) - len(text.lstrip(" "))
        indent = min(indent, column)
        before = text[:column]
        if before.strip():
            if _ends_with_colon(before, block.previous().userState()):
                indent += INDENT
            elif _DEDENT_AFTER.match(before):
                indent = max(0, indent - INDENT)
        elif column == len(text) and text:
            # Leave no trailing spaces on a line that stayed blank.
            cursor.movePosition(
                QTextCursor.MoveOperation.StartOfBlock, QTextCursor.MoveMode.KeepAnchor
            )
            cursor.removeSelectedText()
        cursor.insertText("\n" + " " * indent)
        cursor.endEditBlock()
        self.setTextCursor(cursor)
        self.ensureCursorVisible()

    def _backspace_indent(self) -> bool:
        """In leading spaces, Backspace removes back to the previous indent stop."""
        cursor = self.textCursor()
        if cursor.hasSelection():
            return False
        column = cursor.positionInBlock()
        before = cursor.block().text()[:column]
        if column == 0 or before.strip(" "):
            return False
        remove = (column - 1) % INDENT + 1
        cursor.movePosition(QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor, remove)
        cursor.removeSelectedText()
        self.setTextCursor(cursor)
        return True

    def _selected_blocks(self) -> tuple[int, int]:
        """First and last block numbers touched by the selection (or the cursor's block)."""
        cursor = self.textCursor()
        doc = self.document()
        start = doc.findBlock(cursor.selectionStart())
        end = doc.findBlock(cursor.selectionEnd())
        last = end.blockNumber()
        # A selection ending at the very start of a line does not include that line.
        if (
            cursor.hasSelection()
            and cursor.selectionEnd() == end.position()
            and last > start.blockNumber()
        ):
            last -= 1
        return start.blockNumber(), last

    def _edit_lines(self, change: Callable[[str], str], *, keep_selection: bool) -> None:
        """Replace each selected line by change(line) in one undo step; keep the cursor sensible."""
        first, last = self._selected_blocks()
        cursor = self.textCursor()
        old_column = cursor.positionInBlock()
        old_len = len(cursor.block().text())
        keep_selection = keep_selection and cursor.hasSelection()
        doc = self.document()
        edit = QTextCursor(doc)
        edit.beginEditBlock()
        for number in range(first, last + 1):
            block = doc.findBlockByNumber(number)
            text = block.text()
            new = change(text)
            if new == text:
                continue
            edit.setPosition(block.position())
            edit.setPosition(block.position() + len(text), QTextCursor.MoveMode.KeepAnchor)
            edit.insertText(new)
        edit.endEditBlock()
        if keep_selection:
            start = doc.findBlockByNumber(first)
            end = doc.findBlockByNumber(last)
            cursor.setPosition(start.position())
            cursor.setPosition(end.position() + end.length() - 1, QTextCursor.MoveMode.KeepAnchor)
        else:
            block = doc.findBlockByNumber(first)
            column = max(0, old_column + block.length() - 1 - old_len)
            cursor.setPosition(block.position() + min(column, block.length() - 1))
        self.setTextCursor(cursor)

    # --------------------------------------------------------------- painting
    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        metrics = QFontMetricsF(self.font())
        return int(metrics.horizontalAdvance("9") * (digits + 1) + metrics.height() * 0.9 + 6)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self._place_gutter()

    def _place_gutter(self) -> None:
        rect = self.contentsRect()
        self._gutter.setGeometry(QRect(rect.left(), rect.top(), self.gutter_width(), rect.height()))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "_highlighter"):
            self._apply_scheme()

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.ToolTip:
            self._show_line_tooltip(event, self.viewport())
            return True
        return super().viewportEvent(event)

    def _paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self._gutter)
        palette = self.palette()
        painter.fillRect(event.rect(), self._colors["gutter"])
        painter.setFont(self.font())
        metrics = QFontMetricsF(self.font())
        marker = metrics.height() * 0.5
        errors = {line for line, _, _ in self.error_marks()}
        highlighted = set(self._highlighted)
        current = self.current_line
        width = self._gutter.width()
        block = self.firstVisibleBlock()
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        while block.isValid() and top <= event.rect().bottom():
            height = self.blockBoundingRect(block).height()
            if block.isVisible() and top + height >= event.rect().top():
                line = block.blockNumber() + 1
                row = QRect(0, int(top), width - 4, int(metrics.height()))
                if line in highlighted:
                    painter.fillRect(
                        QRect(0, int(top), 3, int(height)), self._colors["secondary_bar"]
                    )
                if line in errors:
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.setBrush(self._colors["error"])
                    painter.drawEllipse(
                        QRect(
                            4, int(top + (metrics.height() - marker) / 2), int(marker), int(marker)
                        )
                    )
                role = (
                    QPalette.ColorRole.Text
                    if line == current
                    else QPalette.ColorRole.PlaceholderText
                )
                painter.setPen(palette.color(role))
                painter.drawText(
                    row, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, str(line)
                )
            top += height
            block = block.next()
        painter.end()

    def _show_line_tooltip(self, event: QEvent, widget: QWidget) -> None:
        assert isinstance(event, QHelpEvent)
        line = self._line_at_y(event.pos().y())  # gutter and viewport share the y axis
        text = self.error_tooltip(line) if line else None
        if text is None:
            QToolTip.hideText()
            event.ignore()
            return
        rich = "<br><br>".join(
            f"<b>{html.escape(title)}</b>"
            + (f"<br>{html.escape(hint)}".replace("\n", "<br>") if hint else "")
            for n, title, hint in self.error_marks()
            if n == line
        )
        QToolTip.showText(event.globalPos(), rich, widget)

    def _line_at_y(self, y: float) -> int | None:
        """The 1-based line drawn at viewport height y, or None below the last line."""
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        while block.isValid():
            geometry = self.blockBoundingGeometry(block).translated(offset)
            if geometry.top() > y:
                return None
            if y <= geometry.bottom():
                return block.blockNumber() + 1
            block = block.next()
        return None

    # ------------------------------------------------------------------ slots
    def _on_block_count_changed(self, _count: int) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._on_block_count_changed(0)

    def _on_cursor_position_changed(self) -> None:
        line = self.current_line
        self._refresh_marks()
        if line != self._last_line:
            self._last_line = line
            self._gutter.update()
            self.sig_cursor_line_changed.emit(line)

    def _on_presentation_zoom_changed(self, factor: float) -> None:
        self._apply_points(self._base_points * factor)

    # ---------------------------------------------------------------- helpers
    def _apply_points(self, points: float) -> None:
        points = min(MAX_POINTS, max(MIN_POINTS, points))
        if abs(points - self.font().pointSizeF()) < 1e-6 and self._gutter.font() == self.font():
            return
        font = self.font()
        font.setPointSizeF(points)
        self.setFont(font)
        self._gutter.setFont(font)
        self.setTabStopDistance(QFontMetricsF(font).horizontalAdvance(" ") * INDENT)
        self._on_block_count_changed(0)
        self._place_gutter()
        self.sig_zoom_changed.emit(points)

    def _apply_scheme(self) -> None:
        scheme = self._forced_scheme or (DARK if is_dark_palette(self.palette()) else LIGHT)
        self._scheme = scheme
        dark = scheme == DARK
        highlight = self.palette().color(QPalette.ColorRole.Highlight)
        self._colors = {
            "current": _with_alpha(highlight, 40 if dark else 22),
            "secondary": QColor(255, 200, 60, 70) if dark else QColor(255, 210, 80, 110),
            "secondary_bar": QColor(255, 190, 40),
            "error": QColor(235, 80, 80) if dark else QColor(210, 30, 30),
            "error_bg": QColor(235, 80, 80, 45) if dark else QColor(255, 80, 80, 35),
            "gutter": self.palette().color(QPalette.ColorRole.Window),
        }
        self._highlighter.set_style(pygments_style_name(scheme))
        self._refresh_marks()

    def _refresh_marks(self) -> None:
        if not hasattr(self, "_colors"):
            return
        selections: list[QTextEdit.ExtraSelection] = []
        current = QTextEdit.ExtraSelection()
        current.format.setBackground(self._colors["current"])
        current.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        current.cursor = self.textCursor()
        current.cursor.clearSelection()
        selections.append(current)
        for line in self._highlighted:
            if line <= self.document().blockCount():
                selections.append(self._line_selection(line, self._colors["secondary"]))
        for cursor, _title, _hint in self._errors:
            block = cursor.block()
            selections.append(
                self._line_selection(block.blockNumber() + 1, self._colors["error_bg"])
            )
            text = block.text()
            start = len(text) - len(text.lstrip())
            if start < len(text):
                wavy = QTextEdit.ExtraSelection()
                wavy.format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
                wavy.format.setUnderlineColor(self._colors["error"])
                wavy.cursor = QTextCursor(block)
                wavy.cursor.setPosition(block.position() + start)
                wavy.cursor.setPosition(
                    block.position() + len(text), QTextCursor.MoveMode.KeepAnchor
                )
                selections.append(wavy)
        self.setExtraSelections(selections)
        self._gutter.update()

    def _line_selection(self, line: int, colour: QColor) -> QTextEdit.ExtraSelection:
        selection = QTextEdit.ExtraSelection()
        selection.format.setBackground(colour)
        selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        selection.cursor = QTextCursor(self._block(line))
        return selection

    def _block(self, line: int) -> QTextBlock:
        count = self.document().blockCount()
        return self.document().findBlockByNumber(min(max(1, int(line)), count) - 1)

    def _block_visible(self, block: QTextBlock) -> bool:
        geometry = self.blockBoundingGeometry(block).translated(self.contentOffset())
        return geometry.top() >= 0 and geometry.bottom() <= self.viewport().height()


def _with_alpha(colour: QColor, alpha: int) -> QColor:
    result = QColor(colour)
    result.setAlpha(alpha)
    return result


def _ends_with_colon(text: str, state: int) -> bool:
    """Does this code (comments and strings aside) end with ':' and so open a block?"""
    tokens, _ = lex_line(text, state if state >= 0 else 0)
    for start, length, ttype in reversed(tokens):
        if ttype in Comment or ttype in Text:
            continue
        return ttype in Punctuation and text[start : start + length].rstrip() == ":"
    return False
