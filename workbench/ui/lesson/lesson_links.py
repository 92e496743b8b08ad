"""A click on a link in a lesson's text: a web page opens in the browser once the user has
seen where it goes, a heading of the lesson is brought into view (its step shown first
when it is another step's), and anything else (a local file, a device, another
scheme) opens nothing and says so. What each link does is ``lessons.links``' decision."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QStatusBar, QWidget

from workbench.lessons.links import anchor_matches, heading_anchor, link_action
from workbench.lessons.markdown import headings
from workbench.ui.lesson.lesson_panel import LessonPanel

MESSAGE_MS = 8000


class LessonLinks(QObject):
    """Follows the links of ``panel``'s text; ``go_to`` shows a step (by number)."""

    sig_said = Signal(str)
    """What a click did or why it did nothing (also in the status bar)."""

    def __init__(self, panel: LessonPanel, parent: QWidget, status: Callable[[], QStatusBar],
                 go_to: Callable[[int], None], may_ask: Callable[[], bool],
                 open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl) -> None:
        super().__init__(parent)
        self._panel = panel
        self._parent = parent
        self._status = status
        self._go_to = go_to
        self._may_ask = may_ask
        self.open_url = open_url
        """Opens a web page (the desktop's browser)."""
        panel.sig_link.connect(self._on_link)

    def _on_link(self, href: str) -> None:
        action = link_action(href)
        if action.kind == "anchor":
            self._show_heading(action.target)
        elif action.kind == "web":
            self._open_web(action.target, action.message)
        else:
            self._say(action.message)

    def _show_heading(self, anchor: str) -> None:
        here = _heading_named(self._panel.shown_text(), anchor)
        if here is not None:
            self._panel.scroll_to_anchor(heading_anchor(here))
            return
        for number, text in enumerate(self._panel.step_texts(), start=1):
            found = _heading_named(text, anchor)
            if found is not None:
                self._go_to(number)
                self._panel.scroll_to_anchor(heading_anchor(found))
                return
        self._say(f"this lesson has no heading {anchor!r} for the link to go to")

    def _open_web(self, url: str, where: str) -> None:
        if not self._may_ask():
            self._say(f"not opened (this window asks nothing): {where}")
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Open a web page?",
                          f"The link {where}.", QMessageBox.StandardButton.Open
                          | QMessageBox.StandardButton.Cancel, self._parent)
        box.setObjectName("lessonLinkDialog")
        box.setDetailedText(url)
        box.setDefaultButton(QMessageBox.StandardButton.Open)
        if box.exec() != QMessageBox.StandardButton.Open:
            return
        if self.open_url(QUrl(url)):
            self._say(f"opened in your browser: {url}")
        else:
            self._say(f"no browser could open {url}")

    def _say(self, text: str) -> None:
        self._status().showMessage(text, MESSAGE_MS)
        self.sig_said.emit(text)


def _heading_named(markdown: str, anchor: str) -> str | None:
    """The heading of ``markdown`` that ``#anchor`` names, if any."""
    return next((h for h in headings(markdown) if anchor_matches(anchor, h)), None)
