"""One numeric parameter of a plotted function: editable bounds, a slider and a value box.

The slider moves in ``SLIDER_STEPS`` ticks (integers: one tick per integer), so a drag emits
a bounded number of values whatever the range; typing a value outside the range widens it.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QLineEdit, QSlider, QWidget

SLIDER_STEPS = 200
TYPICAL_VALUE = -99999.0  # the value box is as wide as this value's text


def default_slider_range(default: float, integer: bool = False) -> tuple[float, float]:
    """[0, 2d] for d > 0, [2d, 0] for d < 0, [-1, 1] for 0 (integers: at least 10 wide)."""
    if default > 0:
        lo, hi = 0.0, 2.0 * default
    elif default < 0:
        lo, hi = 2.0 * default, 0.0
    else:
        lo, hi = -1.0, 1.0
    if integer:
        lo, hi = math.floor(lo), math.ceil(hi)
        if hi - lo < 10:
            hi = lo + 10 if default >= 0 else hi
            lo = hi - 10 if default < 0 else lo
    return float(lo), float(hi)


def fmt_number(value: float) -> str:
    """Six significant digits: the one format of the plot panel's bounds, range ends and
    readouts, short enough for a narrow field and exact enough to type back."""
    return f"{value:.6g}"


class _ValueBox(QDoubleSpinBox):
    """A value box as wide as a typical value, not as the ±1e12 it accepts: on a projector's
    narrow dock that width goes to the slider. A longer value scrolls in the box."""

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return self._narrowed(super().sizeHint())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return self._narrowed(super().minimumSizeHint())

    def _narrowed(self, hint: QSize) -> QSize:
        metrics = self.fontMetrics()
        widest = max(metrics.horizontalAdvance(self.textFromValue(v))
                     for v in (self.minimum(), self.maximum()))
        typical = metrics.horizontalAdvance(self.textFromValue(TYPICAL_VALUE))
        return QSize(hint.width() - max(widest - typical, 0), hint.height())


class ParamSlider(QWidget):
    """One numeric parameter: an editable min, a slider, an editable max and a value box."""

    sig_value_changed = Signal(str, float)
    """The parameter (name) took a new value (slider drag, typed value)."""
    sig_problem = Signal(str)
    """A typed bound was refused (empty text means the problem is gone)."""

    def __init__(self, name: str, value: float, default: float, integer: bool = False,
                 bounds: tuple[float, float] | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(f"param_{name}")
        self.name = name
        self.integer = integer
        self.default = default
        self._lo, self._hi = bounds or default_slider_range(default, integer)
        self._value = float(value)
        self.label = QLabel(name)
        self.label.setToolTip(f"default {fmt_number(default)}")
        self.min_edit = QLineEdit()
        self.min_edit.setObjectName(f"param_{name}_min")
        self.max_edit = QLineEdit()
        self.max_edit.setObjectName(f"param_{name}_max")
        for edit in (self.min_edit, self.max_edit):
            edit.setMaximumWidth(70)
            edit.editingFinished.connect(self._on_bounds_edited)
        self.min_edit.setToolTip(f"the slider's lowest {name}")
        self.max_edit.setToolTip(f"the slider's highest {name}")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName(f"param_{name}_slider")
        self.slider.setToolTip(f"drag to change {name}; the plot follows")
        self.value_box = _ValueBox()
        self.value_box.setObjectName(f"param_{name}_value")
        self.value_box.setRange(-1e12, 1e12)
        self.value_box.setDecimals(0 if integer else 4)
        self.value_box.setKeyboardTracking(False)
        self.value_box.setToolTip(f"{name}: type any value (outside the slider's range widens it)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.min_edit)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.max_edit)
        layout.addWidget(self.value_box)
        self._apply_bounds()
        self.slider.valueChanged.connect(self._on_slider)
        self.value_box.valueChanged.connect(self._on_value_box)

    # -- state ----------------------------------------------------------------------------
    def value(self) -> float:
        """The value the function is sampled with (not the tick: typed values may lie between)."""
        return self._value

    def bounds(self) -> tuple[float, float]:
        """The slider's (min, max); the panel keeps them per function across slider rebuilds."""
        return self._lo, self._hi

    def step(self) -> float:
        """One tick of the slider and one arrow step of the value box."""
        return 1.0 if self.integer else (self._hi - self._lo) / SLIDER_STEPS

    def set_value(self, value: float) -> None:
        """Set as if typed in the value box (widens the range when outside)."""
        self.value_box.setValue(value)

    def set_bounds(self, lo: float, hi: float) -> None:
        """New slider range; ValueError with a reason when it is empty, reversed or infinite."""
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
            raise ValueError(f"{self.name}: the minimum must be below the maximum, "
                             f"got {fmt_number(lo)} and {fmt_number(hi)}")
        self._lo, self._hi = float(lo), float(hi)
        self._apply_bounds()

    def _ticks(self) -> int:
        return int(round(self._hi - self._lo)) if self.integer else SLIDER_STEPS

    def slider_value(self, tick: int) -> float:
        """The value a slider tick stands for (rounded for integer parameters)."""
        v = self._lo + tick * (self._hi - self._lo) / self._ticks()
        return float(round(v)) if self.integer else v

    def _tick_of(self, value: float) -> int:
        t = (value - self._lo) / (self._hi - self._lo) * self._ticks()
        return int(round(min(max(t, 0), self._ticks())))

    def _apply_bounds(self) -> None:
        self.min_edit.setText(fmt_number(self._lo))
        self.max_edit.setText(fmt_number(self._hi))
        self.slider.blockSignals(True)
        self.slider.setRange(0, self._ticks())
        self.slider.setValue(self._tick_of(self._value))
        self.slider.blockSignals(False)
        self.value_box.blockSignals(True)
        self.value_box.setSingleStep(self.step())
        self.value_box.setValue(self._value)
        self.value_box.blockSignals(False)

    # -- slots ----------------------------------------------------------------------------
    def _on_slider(self, tick: int) -> None:
        value = self.slider_value(tick)
        if value == self._value:
            return
        self._value = value
        self.value_box.blockSignals(True)
        self.value_box.setValue(value)
        self.value_box.blockSignals(False)
        self.sig_value_changed.emit(self.name, value)

    def _on_value_box(self, value: float) -> None:
        value = float(round(value)) if self.integer else float(value)
        if value == self._value:
            return
        self._value = value
        if value < self._lo or value > self._hi:
            self._lo, self._hi = min(self._lo, value), max(self._hi, value)
        self._apply_bounds()
        self.sig_value_changed.emit(self.name, value)

    def _on_bounds_edited(self) -> None:
        try:
            lo, hi = float(self.min_edit.text()), float(self.max_edit.text())
            self.set_bounds(lo, hi)
        except ValueError as exc:
            text = str(exc)
            if "could not convert" in text:
                text = f"{self.name}: the slider bounds must be numbers"
            self._apply_bounds()  # back to the last good bounds
            self.sig_problem.emit(text)
            return
        self.sig_problem.emit("")
        clamped = min(max(self._value, self._lo), self._hi)
        if clamped != self._value:
            self.set_value(clamped)


__all__ = ["SLIDER_STEPS", "ParamSlider", "default_slider_range", "fmt_number"]
