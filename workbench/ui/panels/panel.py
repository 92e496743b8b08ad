"""What every docked panel shares: presentation scale, colour scheme, no work while hidden.

Work a panel is asked to do (re-sampling curves after an edit, say) waits under
a key, the newest per key winning, and runs once the event loop turns: the
session's signals that arrive together (new functions, then a new call) cost
one round of work. A panel in a background tab or a closed dock is not
visible; its work waits until it is shown.

Work that follows the editor (re-sampling the plot, the graph's values) also
waits until the user pauses typing (``SETTLE_S`` after the last edit): the
engine runs one request at a time, and the next edit's trace must not queue
behind the last edit's curves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QBoxLayout, QLabel, QWidget

from workbench.ui.panels.banner import stale_banner

if TYPE_CHECKING:
    from workbench.ui.control.session import Session
    from workbench.ui.style.theme import PresentationZoom

SOURCE_FAILED = "the editor's code does not run now: this shows the last code that ran"
SETTLE_S = 0.6  # seconds after the last edit before panels follow it


class Panel(QWidget):
    """Base of the plot, timing and k-means panels."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._deferred: dict[str, Callable[[], None]] = {}
        self._flush_timer = QTimer(self, singleShot=True, interval=0)  # dies with the panel
        self._flush_timer.timeout.connect(self._flush)
        self._settling: dict[str, Callable[[], None]] = {}
        self._settle_session: Session | None = None
        self._settle_timer = QTimer(self, singleShot=True)
        self._settle_timer.timeout.connect(self._on_settle_timer)
        self._stale: QLabel | None = None
        self._overlay_on: QWidget | None = None  # the view the banner lies over

    def set_presentation_scale(self, factor: float) -> None:
        """Fonts, line widths and markers for a projector: 1.0 is the normal size."""
        raise NotImplementedError

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's colour scheme, ``"light"`` or ``"dark"``."""
        raise NotImplementedError

    def follow_zoom(self, zoom: PresentationZoom) -> None:
        """Take the window's zoom now, and each change of it when the panel is shown: a
        panel in a background tab re-lays its plots out only once it is brought forward,
        so presentation mode costs the panels nobody sees nothing."""
        zoom.sig_zoom_changed.connect(self._on_zoom)
        if zoom.factor != 1.0:
            self.set_presentation_scale(zoom.factor)

    def _on_zoom(self, factor: float) -> None:
        self.when_shown("presentation scale", partial(self.set_presentation_scale, factor))

    def forget_view_state(self) -> None:
        """Drop what belongs to the code shown so far (a crosshair, a selection): other code
        is opened. Panels with such state override it."""

    def when_shown(self, key: str, work: Callable[[], None]) -> None:
        """Run ``work`` when the event loop next turns, or when the panel is next shown."""
        self._deferred[key] = work
        if self.isVisible() and not self._flush_timer.isActive():
            self._flush_timer.start()

    def when_settled(self, key: str, work: Callable[[], None], session: Session) -> None:
        """Like ``when_shown``, once the user has not edited for ``SETTLE_S`` (at once when
        they have not edited lately)."""
        self._settling[key] = work
        if self._settle_session is not session:
            self._settle_session = session
            session.sig_edited.connect(self._on_edited)
        self._schedule_settled()

    def _schedule_settled(self) -> None:
        session = self._settle_session
        if session is None or not self._settling:
            return
        wait = SETTLE_S - (time.monotonic() - session.last_edit)
        if wait > 0:
            self._settle_timer.start(int(wait * 1000))
            return
        self._settle_timer.stop()  # no edit lately: as ``when_shown`` does
        settled, self._settling = self._settling, {}
        for key, work in settled.items():
            self.when_shown(key, work)

    def _on_edited(self) -> None:
        if self._settling:
            self._schedule_settled()

    def _on_settle_timer(self) -> None:
        self._schedule_settled()  # runs the work, or waits again for an edit that came

    def set_stale(self, text: str | None) -> None:
        """A banner over the panel saying what it shows is not current (None: it is again)."""
        if self._stale is None:
            if text is None:
                return
            self._stale = stale_banner("staleBanner", self)
            anchor = self.stale_anchor()
            if anchor is None:
                layout = self.layout()
                if isinstance(layout, QBoxLayout) and layout.direction() in (
                        QBoxLayout.Direction.TopToBottom, QBoxLayout.Direction.Down):
                    layout.insertWidget(0, self._stale)
                else:  # no column to put it on top of: over the panel's top edge
                    self._overlay_on = self
            else:
                self._overlay_on = anchor
            if self._overlay_on is not None:
                # Over a view, clicks and the wheel reach the view under it.
                self._stale.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
                self._overlay_on.installEventFilter(self)
        self._stale.setText(text or "")
        self._stale.setVisible(text is not None)
        if text is not None and self._overlay_on is not None:
            self._place_overlay()
            self._stale.raise_()

    def stale_anchor(self) -> QWidget | None:
        """The view whose top edge the stale banner lies over, or None for a banner on top
        of the panel's column. Over a view, showing and hiding the banner moves nothing: a
        lesson's every step shows it until the step's results come, and re-laying the
        plots out twice a step cost more than the rest of the step's display."""
        return None

    def _place_overlay(self) -> None:
        banner, view = self._stale, self._overlay_on
        if banner is None or view is None:
            return
        if not view.isVisibleTo(self):  # the view gave way (k-means settings): the panel's top
            view = self
        top_left = view.mapTo(self, QPoint(0, 0)) if view is not self else QPoint(0, 0)
        width = view.width()
        banner.setGeometry(top_left.x(), top_left.y(), width, banner.heightForWidth(width))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if (watched is self._overlay_on and self._stale is not None
                and event.type() in (QEvent.Type.Resize, QEvent.Type.Move,
                                     QEvent.Type.Show, QEvent.Type.Hide)
                and not self._stale.isHidden()):
            self._place_overlay()
        return super().eventFilter(watched, event)

    def follow_source(self, session: Session) -> None:
        """Mark the panel stale while the editor's code does not run (it shows the last code
        that did), and current again once a source loads or a call traces."""
        self._source_session = session
        session.sig_functions_changed.connect(self._on_source_ran)
        session.sig_traced.connect(self._on_source_ran)
        session.sig_trace_failed.connect(self._on_trace_failed)
        if session.source_failure is not None:
            self.update_source_stale(source_failed=True)

    def update_source_stale(self, *, source_failed: bool) -> None:
        """What the banner says about the source; panels with more to say override it."""
        self.set_stale(SOURCE_FAILED if source_failed else None)

    def _on_source_ran(self, _value: Any = None) -> None:
        self.update_source_stale(source_failed=False)

    def _on_trace_failed(self, _reply: Any = None) -> None:
        self.update_source_stale(source_failed=self._source_session.source_failure is not None)

    def stale_text(self) -> str | None:
        """The banner's text while the panel shows something not current, else None."""
        return self._stale.text() if self._stale is not None and not self._stale.isHidden() \
            else None

    def has_deferred_work(self) -> bool:
        return bool(self._deferred or self._settling)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self._flush()

    def _flush(self) -> None:
        self._flush_timer.stop()
        if not self.isVisible():
            return  # the next showEvent runs it
        deferred, self._deferred = self._deferred, {}
        for work in deferred.values():
            work()
