"""Under the editor: what went wrong with the editor's code, the catalog's explanation first.

An explained error shows its line and title, what was found (the specifics),
the teaching hint with a link to JAX's docs, and JAX's own message one click
away; it also marks its line in the editor. A bad argument spec is shown next
to the box it was typed in; anything else as plain text. A crash is the notice
bar's to report, once.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QTextBrowser

from workbench.api import messages as p
from workbench.api.errors import Explanation
from workbench.ui.editor.call_controls import CallControls
from workbench.ui.editor.editor import CodeEditor

MAX_HEIGHT = 110


def explanation_html(ex: Explanation) -> str:
    """The explanation's summary as HTML: where and what, the specifics, the hint, the docs."""
    where = f"line {ex.line}: " if ex.line else ""
    parts = [f"<b>{_html(where + ex.title)}</b>"]
    if ex.specifics:
        parts.append(f"<i>{_html(ex.specifics)}</i>".replace("\n", "<br>"))
    hint = _html(ex.hint)
    if ex.doc_url:
        hint += f' <a href="{_html(ex.doc_url)}">JAX docs</a>'
    parts.append(hint)
    return "<br>".join(parts)


class FailureView(QObject):
    """Shows the editor code's failures in ``messages`` and marks the editor."""

    sig_error_shown = Signal(object)
    """An error from the engine was shown (an ``Explanation`` or a message string)."""

    def __init__(self, editor: CodeEditor, controls: CallControls,
                 filename: Callable[[], str], parent: QObject | None = None):
        super().__init__(parent)
        self.editor = editor
        self.controls = controls
        self._filename = filename
        self.filename = filename
        """The name the editor's code runs under (its lines are this file's)."""
        self.messages = QTextBrowser()
        self.messages.setObjectName("messages")
        self.messages.setOpenExternalLinks(False)
        self.messages.setOpenLinks(False)
        self.messages.anchorClicked.connect(self._on_link)
        self.messages.setMaximumHeight(MAX_HEIGHT)
        self.messages.hide()
        self._shown = ("", "")  # (summary, JAX's own message) of the error shown

    def show_failure(self, reply: p.Reply) -> None:
        """Show a failed load or trace (not a cancellation, not a crash)."""
        self.controls.show_problem("")
        if isinstance(reply, p.EngineFailure) and reply.crashed:
            return  # the crash notice says it once, with the fault text and the line
        if isinstance(reply, p.UserCodeFailure):
            ex = reply.explanation
            same_file = ex.file is None or os.path.basename(ex.file) == os.path.basename(
                self._filename())
            if ex.line and same_file:
                self.editor.set_error_marks([(ex.line, ex.title, ex.hint)])
            self._shown = (explanation_html(ex), ex.message)
            self._show_html(expanded=False)
            self.sig_error_shown.emit(ex)
        elif isinstance(reply, p.UsageFailure) and reply.field == "args":
            self.controls.show_problem(reply.message)  # next to the box it was typed in
            self.editor.clear_error_marks()
            self.messages.hide()
            self.sig_error_shown.emit(reply.message)
        else:
            message = p.reply_text(reply)
            self._shown = ("", "")
            self.show_message(message)
            self.sig_error_shown.emit(message)

    def clear(self) -> None:
        """The code ran: no error to show, no line marked."""
        self.controls.show_problem("")
        self.editor.clear_error_marks()
        self.messages.hide()

    def show_message(self, text: str, rich: bool = False) -> None:
        if rich:
            self.messages.setHtml(text)
        else:
            self.messages.setPlainText(text)
        self.messages.show()

    def _show_html(self, expanded: bool) -> None:
        summary, original = self._shown
        if original:
            if expanded:
                summary += ('<br><a href="wb:less">hide JAX\'s message</a>'
                            f"<pre>{_html(original)}</pre>")
            else:
                summary += '<br><a href="wb:more">show JAX\'s message</a>'
        self.show_message(summary, rich=True)

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() == "wb":
            self._show_html(expanded=url.path() == "more")
        else:
            QDesktopServices.openUrl(url)


def _html(text: str) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
