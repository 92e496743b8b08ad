"""Links in a lesson's text, clicked with the mouse in the real window: a link to a local
file or a device used to be loaded into the text pane (``/dev/zero`` aborted the window
with ``std::bad_alloc``, ``/etc/hostname`` showed that file, also in a lesson declined);
now only web pages open, after the window says where they go, and headings of the lesson
are brought into view."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, QTimer, QUrl
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QMessageBox, QTextBrowser

LESSON = """\
# %% [markdown]
# # Links
# Local: [zero](/dev/zero), [host](/etc/hostname), [notes](notes.txt).
# Web: [the JAX docs](https://docs.jax.dev/en/latest/quickstart.html).
# Within: [see the end](#The-end).

# %%
x = 1

# %% [markdown]
# ## The end
# Nothing here runs.
"""


def _click_link(qtbot, browser: QTextBrowser, href: str) -> None:
    """A real mouse click in the middle of the link that points at ``href``."""
    document = browser.document()
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + fragment.length() // 2)
                browser.setTextCursor(cursor)
                browser.ensureCursorVisible()
                point = browser.cursorRect(cursor).center() + QPoint(1, 0)
                qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
                return
            it += 1
        block = block.next()
    raise AssertionError(f"no link to {href} in the text")


def _open(window, tmp_path):
    path = tmp_path / "links.py"
    path.write_text(LESSON)
    assert window.open_lesson(path)
    window.lessons.go_to(1)  # declined (this window asks nothing): shown, not run
    return window.lesson_panel.text


def test_links_to_files_and_devices_open_nothing_and_say_so(qtbot, make_window, tmp_path):
    blank = tmp_path / "blank.py"
    blank.write_text("")
    window = make_window(blank)
    browser = _open(window, tmp_path)
    shown = browser.toPlainText()
    said: list[str] = []
    window.lessons.links.sig_said.connect(said.append)
    for href in ("/dev/zero", "/etc/hostname", "notes.txt"):
        _click_link(qtbot, browser, href)
        assert said and href in said[-1] and "web links and its own headings only" in said[-1]
        assert browser.source() == QUrl() and browser.toPlainText() == shown
    assert window.statusBar().currentMessage() == said[-1]
    assert window.isVisible()


def test_a_web_link_says_where_it_goes_before_the_browser_opens_it(qtbot, asking_window,
                                                                  tmp_path):
    window = asking_window()
    opened: list[QUrl] = []
    window.lessons.links.open_url = lambda url: opened.append(url) or True
    path = tmp_path / "links.py"
    path.write_text(LESSON)
    assert window.open_lesson(path)
    browser = window.lesson_panel.text
    window.lesson_panel.set_current(1)  # the step's text, without running it
    asked: list[str] = []
    href = "https://docs.jax.dev/en/latest/quickstart.html"

    def answer(button: QMessageBox.StandardButton) -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        asked.append(box.text())
        box.button(button).click()

    QTimer.singleShot(0, lambda: answer(QMessageBox.StandardButton.Cancel))
    _click_link(qtbot, browser, href)
    assert asked == [f"The link opens docs.jax.dev in your browser: {href}."]
    assert opened == []  # cancelled: nothing opened
    QTimer.singleShot(0, lambda: answer(QMessageBox.StandardButton.Open))
    _click_link(qtbot, browser, href)
    assert opened == [QUrl(href)]
    assert browser.source() == QUrl()


def test_an_anchor_goes_to_the_heading_of_the_lesson(qtbot, make_window, tmp_path):
    blank = tmp_path / "blank.py"
    blank.write_text("")
    window = make_window(blank)
    browser = _open(window, tmp_path)
    _click_link(qtbot, browser, "#The-end")
    assert window.lessons.current == 2  # the text-only step that holds the heading
    assert "Nothing here runs." in browser.toPlainText()
