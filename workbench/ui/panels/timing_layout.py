"""Where the timing panel puts its parts at the size it has.

On a projector a docked panel gets some 400 px at 1.5x fonts: three rows of settings
and a table leave the chart no room. So the panel picks one of three arrangements
from its own size, with some slack so that a resize by a few pixels does not flip it
back and forth:

* ``TALL``: the settings open, the table (and notes) above the chart;
* ``WIDE``: the settings folded behind a toggle, the table beside the chart;
* ``SWITCH``: the settings folded, the chart or the table, as a chart/table switch says.

The Measure and Cancel buttons, the progress and the status line stay in one row
above them all.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QBoxLayout,
    QButtonGroup,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QWidget,
)

TALL, WIDE, SWITCH = "tall", "wide", "switch"
SLACK_PX = 24  # at presentation scale 1: how far past a threshold the panel must grow
DETAILS_MIN_WIDTH = 320  # the table beside the chart, at presentation scale 1


def choose_arrangement(current: str, size: QSize, tall_height: int, wide_width: int,
                       slack: int) -> str:
    """The arrangement for a panel of ``size`` now showing ``current``.

    ``tall_height`` and ``wide_width`` are what ``TALL`` and ``WIDE`` need; to enter one
    the panel must exceed it by ``slack``, and it leaves only when below it again.
    """
    if size.height() >= tall_height + (0 if current == TALL else slack):
        return TALL
    if size.width() >= wide_width + (0 if current == WIDE else slack):
        return WIDE
    return SWITCH


class ElidedLabel(QLabel):
    """One line that ends in "…" when it is narrower than its text; the whole text is its
    tooltip. It asks for little width, so a long status never widens the panel."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt override)
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(self.fontMetrics().horizontalAdvance("…") * 3,
                     super().minimumSizeHint().height())

    def shown_text(self) -> str:
        """The text as drawn: elided to the label's width."""
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                             self.contentsRect().width())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        painter = QPainter(self)
        self.style().drawItemText(painter, self.contentsRect(),
                                  int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                                  self.palette(), self.isEnabled(), self.shown_text(),
                                  QPalette.ColorRole.WindowText)


class Arranger(QObject):
    """Puts the timing panel's parts where its size has room for them (see the module).

    It owns the Settings toggle and the Chart/Table switch (the panel puts them in its
    row of buttons); the panel calls ``arrange`` on every resize and bounds its minimum
    size with ``bound``."""

    sig_arranged = Signal(str)
    """The parts moved for the panel's size: ``TALL``, ``WIDE`` or ``SWITCH``."""

    def __init__(self, panel: QWidget, bar: QWidget, settings: tuple[QWidget, ...],
                 details: QWidget, chart: QWidget, splitter: QSplitter):
        super().__init__(panel)
        self.panel, self.bar, self.settings = panel, bar, settings
        self.details, self.chart, self.splitter = details, chart, splitter
        self.current = TALL
        self._scale = 1.0
        self.settings_button = QPushButton("Settings")
        self.settings_button.setObjectName("timingSettingsToggle")
        self.settings_button.setToolTip(
            "show or hide what to measure (function, arguments, sweep, devices, baseline, "
            "budget) and the exports")
        self.settings_button.setCheckable(True)
        self.settings_button.setChecked(True)
        self.settings_button.toggled.connect(self._on_settings_toggled)
        chart_button = QPushButton("Chart")
        chart_button.setObjectName("timingShowChart")
        chart_button.setToolTip("show the chart (the panel has room for the chart or the table)")
        table_button = QPushButton("Table")
        table_button.setObjectName("timingShowTable")
        table_button.setToolTip(
            "show the table and the notes (the panel has room for the chart or the table)")
        self.page_buttons = (chart_button, table_button)
        self._pages = QButtonGroup(self)
        for b in self.page_buttons:
            b.setCheckable(True)
            b.hide()
            self._pages.addButton(b)
        chart_button.setChecked(True)
        self._pages.buttonToggled.connect(self._on_page_toggled)
        row = bar.layout()
        if isinstance(row, QBoxLayout):
            row.insertWidget(0, self.settings_button)
            for b in self.page_buttons:
                row.addWidget(b)
        details.setMinimumWidth(DETAILS_MIN_WIDTH)

    def set_scale(self, factor: float) -> None:
        """The presentation scale: the table beside the chart needs more room."""
        self._scale = max(factor, 1.0)
        self.details.setMinimumWidth(round(DETAILS_MIN_WIDTH * self._scale))
        self.panel.updateGeometry()
        self.arrange()

    def show_page(self, page: str) -> None:
        """With room for one only, show ``"chart"`` or ``"table"`` (the table and notes)."""
        self.page_buttons[0 if page == "chart" else 1].setChecked(True)

    def arrange(self) -> None:
        """Re-arrange if the panel's size now calls for another arrangement."""
        chosen = choose_arrangement(self.current, self.panel.size(), self.tall_height(),
                                    self.wide_width(), round(SLACK_PX * self._scale))
        if chosen == self.current:
            return
        self.current = chosen
        self.settings_button.setChecked(chosen == TALL)
        self.splitter.setOrientation(Qt.Orientation.Vertical if chosen == TALL
                                     else Qt.Orientation.Horizontal)
        for b in self.page_buttons:
            b.setVisible(chosen == SWITCH)
        self._show_pages()
        if chosen != SWITCH:  # the table at its least, the chart the rest
            self.splitter.setSizes([1, 1 << 20])
        self.panel.updateGeometry()
        self.sig_arranged.emit(chosen)

    def bound(self, hint: QSize) -> QSize:
        """The panel's minimum size: tall or wide it re-arranges below what they need, so
        it asks a scroll area for no more than the chart alone needs."""
        return hint if self.current == SWITCH else hint.boundedTo(self.switch_minimum())

    def tall_height(self) -> int:
        """What the settings, and the table above the chart, need."""
        _w, frame = self._frame()
        body = (self.details.minimumSizeHint().height() + self.splitter.handleWidth()
                + self.chart.minimumHeight())
        return frame + self._heights(self.bar, *self.settings) + body

    def wide_width(self) -> int:
        """What the table beside the chart needs."""
        frame, _h = self._frame()
        return (frame + self.chart.minimumWidth() + self.splitter.handleWidth()
                + self.details.minimumWidth())

    def switch_minimum(self) -> QSize:
        """The least the chart alone and the row above it need (with the settings if open)."""
        frame_w, frame_h = self._frame()
        parts = [self.bar, *(self.settings if self.settings_button.isChecked() else ())]
        width = max([w.minimumSizeHint().width() for w in parts] + [self.chart.minimumWidth()])
        height = self._heights(*parts) + max(self.chart.minimumHeight(),
                                             self.details.minimumSizeHint().height())
        return QSize(width + frame_w, height + frame_h)

    def _show_pages(self) -> None:
        one = self.current == SWITCH
        self.chart.setVisible(not one or self.page_buttons[0].isChecked())
        self.details.setVisible(not one or self.page_buttons[1].isChecked())

    def _on_page_toggled(self, _button: object, _checked: bool) -> None:
        self._show_pages()

    def _on_settings_toggled(self, shown: bool) -> None:
        for part in self.settings:
            part.setVisible(shown)

    def _heights(self, *widgets: QWidget) -> int:
        layout = self.panel.layout()
        spacing = max(layout.spacing(), 0) if layout is not None else 0
        return sum(w.minimumSizeHint().height() + spacing for w in widgets)

    def _frame(self) -> tuple[int, int]:
        """The panel's margins, and the height of what else it shows in its column (the
        stale banner, a message)."""
        layout = self.panel.layout()
        if layout is None:
            return 0, 0
        margins = layout.contentsMargins()
        known = {self.bar, *self.settings, self.splitter}
        items = (layout.itemAt(i) for i in range(layout.count()))
        extra = [w for w in (item.widget() for item in items if item is not None)
                 if w is not None and w not in known and not w.isHidden()]
        return (margins.left() + margins.right(),
                margins.top() + margins.bottom() + self._heights(*extra))
