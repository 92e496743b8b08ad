"""The code editor: highlighting, indentation, comments, marks, cursor signal, zoom."""

from __future__ import annotations

import pytest
from pygments.lexers.python import PythonLexer
from pygments.token import Keyword, Operator, String
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPalette, QTextCharFormat
from PySide6.QtWidgets import QApplication, QToolTip

from workbench.ui.editor.editor import CodeEditor
from workbench.ui.editor.highlighter import lex_line
from workbench.ui.style.theme import PresentationZoom, dark_palette

CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def editor(qtbot):
    widget = CodeEditor()
    qtbot.addWidget(widget)
    widget.resize(600, 400)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def colour_at(editor: CodeEditor, line: int, column: int) -> QColor | None:
    """Foreground the highlighter gave the character at (1-based line, 0-based column)."""
    block = editor.document().findBlockByNumber(line - 1)
    for r in block.layout().formats():
        if r.start <= column < r.start + r.length and r.format.hasProperty(
            QTextCharFormat.Property.ForegroundBrush
        ):
            return r.format.foreground().color()
    return None


def style_colour(editor: CodeEditor, ttype) -> QColor:
    return editor.highlighter.format_for(ttype).foreground().color()


def type_line(qtbot, editor: CodeEditor, text: str) -> None:
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)


# ------------------------------------------------------------------ highlighting
def test_typing_colours_keywords_and_multiline_strings(qtbot, editor):
    type_line(qtbot, editor, "def f(x):")
    type_line(qtbot, editor, 's = """abc')
    qtbot.keyClicks(editor, 'def"""')
    assert editor.toPlainText() == 'def f(x):\n    s = """abc\n    def"""'
    keyword, string = style_colour(editor, Keyword), style_colour(editor, String.Double)
    assert keyword != string
    assert colour_at(editor, 1, 0) == keyword  # def
    assert colour_at(editor, 2, 8) == string  # the opening quotes
    # The second line of the string: its "def" is string, not keyword.
    assert colour_at(editor, 3, 0) == string
    assert colour_at(editor, 3, 4) == string
    # Closing the string on line 2 instead makes line 3 code again.
    editor.setPlainText('s = """abc"""\ndef g():\n    pass')
    assert colour_at(editor, 2, 0) == keyword


def test_docstring_spanning_lines_is_a_docstring_on_every_line(editor):
    editor.setPlainText(
        'def f():\n    """Line one.\n\n    def is not code here\n    """\n    return 1'
    )
    doc = style_colour(editor, String.Doc)
    for line, column in ((2, 4), (4, 4), (5, 4)):
        assert colour_at(editor, line, column) == doc
    assert colour_at(editor, 6, 4) == style_colour(editor, Keyword)


SAMPLES = [
    'x = """a\nb"""\ny = 1',
    "def f():\n    '''doc\n    more'''\n    return f'{x}'\n",
    'z = rb"""\n\\x00"""  + f"""{a}\n{b!r}\n""" # c\n',
    '  """first"""\n"""open\n\n\nclose""" ; import os, \\\n    sys\n',
    "class A(B):\n    @property\n    def x(self) -> int:  # comment\n        return 0x1F",
]


@pytest.mark.parametrize("source", SAMPLES)
def test_line_by_line_tokens_equal_whole_file_tokens(source):
    assert _per_line_types(source) == _whole_file_types(source)


def test_line_by_line_tokens_equal_whole_file_tokens_on_examples(examples_dir):
    for path in sorted(examples_dir.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert _per_line_types(source) == _whole_file_types(source), path.name


def _whole_file_types(source: str) -> list:
    types = [None] * len(source)
    for start, ttype, value in PythonLexer().get_tokens_unprocessed(source):
        for i in range(start, min(start + len(value), len(source))):
            types[i] = ttype
    return [t for t, ch in zip(types, source, strict=True) if ch != "\n"]


def _per_line_types(source: str) -> list:
    types, state = [], 0
    for line in source.split("\n"):
        tokens, state = lex_line(line, state)
        row = [None] * len(line)
        for start, length, ttype in tokens:
            row[start : start + length] = [ttype] * length
        types.extend(row)
    return types


def test_characters_beyond_the_bmp_keep_formats_aligned(editor):
    editor.setPlainText('s = "\U0001f600" + x')
    # Qt counts the emoji as two UTF-16 units: the closing quote sits at unit 7.
    assert colour_at(editor, 1, 7) == style_colour(editor, String.Double)
    assert colour_at(editor, 1, 9) == style_colour(editor, Operator)


def test_a_big_file_is_coloured_in_slices_to_the_end(qtbot, editor):
    body = "\n".join(f"def f{i}(x):\n    return x + {i}" for i in range(1500))
    editor.setPlainText(body + '\n"""\ntail\n"""')
    qtbot.waitUntil(lambda: not editor.highlighter.is_pending(), timeout=10_000)
    last = editor.document().blockCount()
    assert colour_at(editor, last - 1, 0) == style_colour(editor, String.Doc)
    assert colour_at(editor, last - 3, 4) == style_colour(editor, Keyword)


def test_dark_palette_picks_a_dark_style(editor):
    assert editor.scheme == "light"
    light = style_colour(editor, Keyword)
    editor.setPalette(dark_palette())
    assert editor.scheme == "dark"
    assert editor.highlighter.style_name == "monokai"
    assert style_colour(editor, Keyword) != light
    editor.set_theme("light")
    assert editor.highlighter.style_name == "default"


# ------------------------------------------------------------------- indentation
def test_enter_after_colon_indents_four(qtbot, editor):
    type_line(qtbot, editor, "def f(x):")
    assert editor.toPlainText() == "def f(x):\n    "
    type_line(qtbot, editor, "if x > 0:  # positive")
    assert editor.toPlainText().endswith("    if x > 0:  # positive\n        ")
    type_line(qtbot, editor, "return x")
    assert editor.toPlainText().endswith("        return x\n    ")
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # a blank line keeps no trailing spaces
    assert editor.toPlainText().endswith("        return x\n\n    ")


def test_colon_inside_a_string_does_not_indent(qtbot, editor):
    type_line(qtbot, editor, 'print("a:")')
    assert editor.toPlainText() == 'print("a:")\n'


def test_tab_shift_tab_and_backspace_use_four_spaces(qtbot, editor):
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.toPlainText() == "    "
    qtbot.keyClicks(editor, "ab")
    qtbot.keyClick(editor, Qt.Key.Key_Tab)  # to the next stop
    assert editor.toPlainText() == "    ab  "
    editor.setPlainText("a = 1\nb = 2\n")
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.toPlainText() == "    a = 1\n    b = 2\n"
    qtbot.keyClick(editor, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert editor.toPlainText() == "a = 1\nb = 2\n"
    editor.setPlainText("        x")
    editor.go_to_line(1)
    cursor = editor.textCursor()
    cursor.setPosition(8)
    editor.setTextCursor(cursor)
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    assert editor.toPlainText() == "    x"


def test_toggle_comment_round_trips_and_undoes_in_one_step(qtbot, editor):
    original = "def f(x):\n    y = x\n\n    return y\n"
    editor.setPlainText(original)
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Slash, CTRL)
    assert editor.toPlainText() == "# def f(x):\n#     y = x\n\n#     return y\n"
    qtbot.keyClick(editor, Qt.Key.Key_Slash, CTRL)
    assert editor.toPlainText() == original
    editor.go_to_line(2)
    editor.toggle_comment()
    assert editor.toPlainText().splitlines()[1] == "    # y = x"
    editor.undo()
    assert editor.toPlainText() == original


# ------------------------------------------------------------------ marks, signal
# The offscreen platform cannot raise the tooltip window; showing it still works.
@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_error_mark_tooltip_shows_title_and_hint(qtbot, editor):
    editor.setPlainText("import jax.numpy as jnp\ny = jnp.ones(3) + jnp.ones(4)\nz = y\n")
    editor.set_error_marks([(2, "Shapes do not match", "Add f32[3] to f32[4]? Check the sizes.")])
    assert editor.error_tooltip(2) == "Shapes do not match\nAdd f32[3] to f32[4]? Check the sizes."
    assert editor.error_tooltip(1) is None
    wavy = [
        s
        for s in editor.extraSelections()
        if s.format.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline
    ]
    assert [s.cursor.block().blockNumber() for s in wavy] == [1]

    block = editor.document().findBlockByNumber(1)
    rect = editor.blockBoundingGeometry(block).translated(editor.contentOffset())
    pos = QPoint(30, int(rect.center().y()))
    viewport = editor.viewport()
    QApplication.sendEvent(
        viewport, QHelpEvent(QEvent.Type.ToolTip, pos, viewport.mapToGlobal(pos))
    )
    assert "Shapes do not match" in QToolTip.text()
    assert "Check the sizes." in QToolTip.text()
    QToolTip.hideText()

    editor.go_to_line(1)
    qtbot.keyClick(editor, Qt.Key.Key_Home)
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # a line inserted above moves the mark down
    assert [line for line, _, _ in editor.error_marks()] == [3]
    editor.clear_error_marks()
    assert editor.error_marks() == []
    assert editor.error_tooltip(3) is None
    editor.set_error_marks([(99, "Unexpected end of file", ""), (0, "no such line", "")])
    assert editor.error_marks() == [(editor.blockCount(), "Unexpected end of file", "")]


def test_cursor_line_signal_and_go_to_line(qtbot, editor):
    editor.setPlainText("\n".join(f"x{i} = {i}" for i in range(300)))
    with qtbot.waitSignal(editor.sig_cursor_line_changed) as blocker:
        editor.go_to_line(250)
    assert blocker.args == [250]
    assert editor.current_line == 250
    assert editor.viewport().rect().contains(editor.cursorRect())
    with qtbot.waitSignal(editor.sig_cursor_line_changed) as blocker:
        qtbot.keyClick(editor, Qt.Key.Key_Down)
    assert blocker.args == [251]
    with qtbot.assertNotEmitted(editor.sig_cursor_line_changed):
        qtbot.keyClick(editor, Qt.Key.Key_End)  # same line


def test_highlight_lines_adds_and_clears_line_highlights(editor):
    editor.setPlainText("a\nb\nc\nd\n")
    before = len(editor.extraSelections())
    editor.highlight_lines([2, 4])
    assert editor.highlighted_lines() == [2, 4]
    assert len(editor.extraSelections()) == before + 2
    editor.highlight_lines([])
    assert len(editor.extraSelections()) == before


# --------------------------------------------------------------------------- zoom
def test_zoom_keys_change_the_font_size(qtbot, editor):
    base = editor.zoom_points
    qtbot.keyClick(editor, Qt.Key.Key_Equal, CTRL)
    assert editor.zoom_points == base + 1
    assert editor.document().defaultFont().pointSizeF() == base + 1
    qtbot.keyClick(editor, Qt.Key.Key_Minus, CTRL)
    qtbot.keyClick(editor, Qt.Key.Key_Minus, CTRL)
    assert editor.zoom_points == base - 1
    qtbot.keyClick(editor, Qt.Key.Key_0, CTRL)
    assert editor.zoom_points == base
    with qtbot.waitSignal(editor.sig_zoom_changed) as blocker:
        editor.set_zoom(20)
    assert blocker.args == [20.0]
    assert editor.font().pointSizeF() == 20


def test_editor_follows_the_presentation_zoom(qtbot):
    zoom = PresentationZoom()
    editor = CodeEditor(zoom=zoom, base_points=12)
    qtbot.addWidget(editor)
    assert editor.zoom_points == 12
    zoom.set_factor(2.0)
    assert editor.zoom_points == 24
    editor.zoom_out()  # the editor's keys drive the shared model
    assert zoom.factor == 1.75
    assert editor.zoom_points == 21


def test_palette_change_without_forced_theme_follows_lightness(editor):
    palette = QPalette(editor.palette())
    palette.setColor(QPalette.ColorRole.Window, QColor(20, 20, 20))
    editor.setPalette(palette)
    assert editor.scheme == "dark"
