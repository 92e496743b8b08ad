"""The plot panel's controls, in a compact row that a short panel keeps and a box it folds away.

On a projector (presentation font, a dock 400 px tall) the panel's controls used to take the
dock and push the plot below its edge. Now one row always shows what a lesson step needs
(order, x range, the crosshair's x) with a "more" button; the rest (the functions on the plot,
points, tangent, finite-difference error) sits in a box under it, always open while the panel
is tall enough and opened by the button when it is short. The panel decides which from the
height its plot gets (``wants_compact``), so nothing outside has to tell it.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.panels.param_slider import fmt_number

DEFAULT_RANGE = (-5.0, 5.0)
DEFAULT_POINTS = 1000
MORE_CLOSED = "more ▾"
MORE_OPEN = "less ▴"
LIST_MAX_HEIGHT = 70  # the list of plotted functions with every control shown
COMPACT_LIST_ROWS = 2  # opened behind "more" on a short panel: two names, then it scrolls


def wants_compact(compact: bool, plot_height: int, more_height: int, need: int,
                  hysteresis: int) -> bool:
    """Whether the panel should show the compact controls.

    ``plot_height`` is the plot's height now, ``more_height`` what the folded box would take
    from it when shown (0 when it shows already), ``need`` the height the plot needs beside
    the full controls. Going back to the full controls waits until the plot keeps ``need``
    plus ``hysteresis`` with the box open, so a dock dragged near the limit does not flicker.
    """
    if compact:
        return plot_height - more_height < need + hysteresis
    return plot_height < need


class PlotControls(QWidget):
    """Order, range and crosshair x in one row; functions, points, tangent and errors below."""

    sig_more_toggled = Signal(bool)
    """The folded box was opened (True) or closed by the "more" button."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("plotControls")
        self._compact = False

        self.function_choice = QComboBox()
        self.function_choice.setObjectName("plotFunctionChoice")
        self.function_choice.setToolTip("a function of the editor to add to the plot")
        self.function_choice.setMinimumContentsLength(10)
        self.add_button = QPushButton("add")
        self.add_button.setObjectName("plotAddFunction")
        self.add_button.setToolTip("overlay this function on the plot")
        self.overlay_list = QListWidget()
        self.overlay_list.setObjectName("plotOverlayList")
        self.overlay_list.setMaximumHeight(LIST_MAX_HEIGHT)
        self.remove_button = QPushButton("remove")
        self.remove_button.setObjectName("plotRemoveFunction")
        self.remove_button.setToolTip("remove the selected function from the plot")

        self.order_spin = QSpinBox()
        self.order_spin.setObjectName("plotOrder")
        self.order_spin.setToolTip("how many derivatives to draw: 0 is f alone, 2 is f, f′ and f″")
        self.order_spin.setRange(0, 4)
        self.order_spin.setValue(2)
        self.order_spin.setPrefix("order ")
        self.lo_edit = QLineEdit(fmt_number(DEFAULT_RANGE[0]))
        self.lo_edit.setObjectName("plotRangeLo")
        self.lo_edit.setToolTip("left end of the x range (panning the plot changes it too)")
        self.hi_edit = QLineEdit(fmt_number(DEFAULT_RANGE[1]))
        self.hi_edit.setObjectName("plotRangeHi")
        self.hi_edit.setToolTip("right end of the x range (panning the plot changes it too)")
        self.cursor_edit = QLineEdit()
        self.cursor_edit.setObjectName("plotCursorX")
        self.cursor_edit.setPlaceholderText("x")
        self.cursor_edit.setToolTip(
            "put the crosshair at exactly this x (press Enter), e.g. 0 to see a kink; "
            "the mouse snaps to 0 and to kinks within a few pixels; empty hides it")
        for edit in (self.lo_edit, self.hi_edit, self.cursor_edit):
            edit.setMaximumWidth(80)
        self.more_button = QPushButton(MORE_CLOSED)
        self.more_button.setObjectName("plotMore")
        self.more_button.setCheckable(True)
        self.more_button.setToolTip("more controls: functions on the plot, points, tangent, "
                                    "finite-difference error")
        self.more_button.toggled.connect(self._on_more_toggled)

        self.points_spin = QSpinBox()
        self.points_spin.setObjectName("plotPoints")
        self.points_spin.setToolTip("how many points to sample on the range")
        self.points_spin.setRange(2, 100_000)
        self.points_spin.setValue(DEFAULT_POINTS)
        self.points_spin.setSuffix(" points")
        self.points_spin.setKeyboardTracking(False)
        self.tangent_box = QCheckBox("tangent")
        self.tangent_box.setObjectName("plotTangent")
        self.tangent_box.setToolTip("draw the tangent of f at the cursor")
        self.error_box = QCheckBox("finite-difference error")
        self.error_box.setObjectName("plotFdError")
        self.error_box.setToolTip(
            "compare each derivative with a finite difference of the one before")

        self.row = QWidget()
        self.row.setObjectName("plotControlRow")
        row = QHBoxLayout(self.row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.order_spin)
        row.addWidget(QLabel("x from"))
        row.addWidget(self.lo_edit)
        row.addWidget(QLabel("to"))
        row.addWidget(self.hi_edit)
        row.addSpacing(8)
        row.addWidget(QLabel("crosshair x ="))
        row.addWidget(self.cursor_edit)
        row.addStretch(1)
        row.addWidget(self.more_button)

        self.more_box = QWidget()
        self.more_box.setObjectName("plotMoreBox")
        functions = QHBoxLayout()
        functions.addWidget(QLabel("function"))
        functions.addWidget(self.function_choice)
        functions.addWidget(self.add_button)
        functions.addWidget(self.overlay_list, 1)
        functions.addWidget(self.remove_button)
        options = QHBoxLayout()
        options.addWidget(self.points_spin)
        options.addWidget(self.tangent_box)
        options.addWidget(self.error_box)
        options.addStretch(1)
        more = QVBoxLayout(self.more_box)
        more.setContentsMargins(0, 0, 0, 0)
        more.addLayout(functions)
        more.addLayout(options)

        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.row)
        self._layout.addWidget(self.more_box)
        self.set_compact(False)

    def is_compact(self) -> bool:
        """True while only the row shows and the rest waits behind "more"."""
        return self._compact

    def set_compact(self, on: bool) -> None:
        """Fold the box away behind "more" (it stays open if the user opened it), or show all."""
        self._compact = on
        self.more_button.setVisible(on)
        self.more_box.setVisible(not on or self.more_button.isChecked())
        self._fit_list()

    def more_open(self) -> bool:
        """True while the compact row's "more" box is open (the plot gives it room)."""
        return self._compact and self.more_button.isChecked()

    def _fit_list(self) -> None:
        rows = self.overlay_list.fontMetrics().lineSpacing() * COMPACT_LIST_ROWS
        frame = 2 * self.overlay_list.frameWidth() + 4
        self.overlay_list.setMaximumHeight(
            min(LIST_MAX_HEIGHT, rows + frame) if self._compact else LIST_MAX_HEIGHT)

    def folded_height(self) -> int:
        """What the folded box takes from the plot when it opens (0 while it shows)."""
        if not self.more_box.isHidden():
            return 0
        return self.more_box.sizeHint().height() + max(self._layout.spacing(), 0)

    def _on_more_toggled(self, on: bool) -> None:
        self.more_button.setText(MORE_OPEN if on else MORE_CLOSED)
        if self._compact:
            self.more_box.setVisible(on)
        self.sig_more_toggled.emit(on)


__all__ = ["DEFAULT_POINTS", "DEFAULT_RANGE", "PlotControls", "wants_compact"]
