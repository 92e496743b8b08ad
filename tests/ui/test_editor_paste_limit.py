"""A paste or a drop past a source's limit is refused whole, at once, and said plainly.

A 10 MB paste once froze the window for 12.5 s and kept the engine busy for 149 s.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QDropEvent, QGuiApplication

from workbench.api import messages as p
from workbench.api.limits import MAX_SOURCE_BYTES
from workbench.ui.editor.editor import CodeEditor
from workbench.ui.editor.source_limit import run_refusal

SOURCE = "def f(x):\n    return x * 2\n"
LINE = "\u20ac" * 99 + "\n"  # 298 bytes in 100 characters: sizes are bytes, not characters


def _text(size_bytes: int) -> str:
    return LINE * (size_bytes // len(LINE.encode()))


@pytest.fixture
def editor(qtbot):
    widget = CodeEditor()
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    widget.setPlainText(SOURCE)
    return widget


def _mime(text: str) -> QMimeData:
    mime = QMimeData()
    mime.setText(text)
    return mime


def test_a_6_mb_paste_is_refused_whole_with_a_message(qtbot, editor):
    QGuiApplication.clipboard().setMimeData(_mime("#" * 6_000_000))
    with qtbot.waitSignal(editor.sig_refused, timeout=1000) as refused:
        editor.paste()  # returns once refused: the text never reaches the document
    assert refused.args == ["the paste (6.0 MB) would make the text 6.0 MB, over the 5.2 MB "
                            "limit for a source; nothing was pasted"]
    assert editor.toPlainText() == SOURCE
    assert not editor.document().isUndoAvailable()  # nothing to undo: nothing happened


def test_the_limit_counts_bytes_and_the_text_already_there(qtbot, editor):
    editor.setPlainText(_text(2_700_000))
    before = editor.toPlainText()
    paste = _text(2_700_000)  # fits alone (900,000 characters), not with the text
    assert len(paste) < MAX_SOURCE_BYTES / 5
    with qtbot.waitSignal(editor.sig_refused, timeout=1000) as refused:
        editor.insertFromMimeData(_mime(paste))
    assert refused.args[0].startswith("the paste (2.7 MB) would make the text 5.4 MB")
    assert editor.toPlainText() == before
    editor.selectAll()  # replacing the selection: 2.7 MB in all, it fits
    with qtbot.assertNotEmitted(editor.sig_refused):
        editor.insertFromMimeData(_mime(paste))
    assert editor.toPlainText() == paste


def test_a_paste_that_fits_is_pasted(qtbot, editor):
    editor.moveCursor(editor.textCursor().MoveOperation.End)
    with qtbot.assertNotEmitted(editor.sig_refused):
        editor.insertFromMimeData(_mime("y = 1\n"))
    assert editor.toPlainText() == SOURCE + "y = 1\n"


def test_a_big_drop_is_refused_too(qtbot, editor):
    mime = _mime("#" * 6_000_000)
    drop = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(editor.sig_refused, timeout=1000) as refused:
        editor.dropEvent(drop)
    assert refused.args[0].endswith("nothing was dropped")
    assert refused.args[0].startswith("the drop (6.0 MB)")
    assert editor.toPlainText() == SOURCE


def test_a_source_past_the_limit_is_never_run():
    assert run_refusal(SOURCE) is None
    assert run_refusal("#" * MAX_SOURCE_BYTES) is None
    assert run_refusal("#" * (MAX_SOURCE_BYTES + 1)) == (
        "the text is 5.2 MB, over the 5.2 MB limit for a source; it was not run")
    assert run_refusal("\u20ac" * 2_000_000).startswith("the text is 6.0 MB")


def test_the_window_shows_why_the_paste_was_refused(qtbot, make_window, tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SOURCE)
    window = make_window(path)
    QGuiApplication.clipboard().setMimeData(_mime("#" * 10_000_000))
    window.editor.paste()
    assert window.editor.toPlainText() == SOURCE and not window.is_modified()
    message = ("the paste (10.0 MB) would make the text 10.0 MB, over the 5.2 MB limit for a "
               "source; nothing was pasted")
    assert window.messages.isVisible() and window.messages.toPlainText() == message
    assert window.statusBar().currentMessage() == message


def test_a_source_past_the_limit_is_not_sent(qtbot, make_window, tmp_path):
    """Text set past the limit another way than a paste (a script, a file grown on disk) is
    not run: the window says why, and no source goes to the engine."""
    path = tmp_path / "small.py"
    path.write_text(SOURCE)
    window = make_window(path)
    qtbot.waitUntil(lambda: window.tracer.engine_ready, timeout=60_000)
    sent: list[p.Request] = []
    window.engine.sig_request_sent.connect(sent.append)
    window.editor.setPlainText(("# " + "\u20ac" * 97 + "\n") * 20_000)  # 5.9 MB
    window.run()
    assert not any(isinstance(request, p.LoadSource) for request in sent)
    assert window.messages.toPlainText() == (
        "the text is 5.9 MB, over the 5.2 MB limit for a source; it was not run")
