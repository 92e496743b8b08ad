"""The function plot panel: f and its derivatives, live parameter sliders, overlays, Hessian.

Every engine call is a request that never blocks. Per plotted function at most one
``SampleCurves`` is in flight (keyed ``curves:<name>``, so a newer one supersedes
it); while it runs, further slider steps only mark the function pending and the
newest values go out when the reply lands (the ``Coalescer``). A fast drag therefore
never queues a backlog in the engine, and the plot shows the latest parameters one
round trip after the mouse stops.

The crosshair readout follows the same rule: when the cursor moves, each plotted function
asks the engine for its values at exactly that x (``CurvesAt``, keyed ``point:<name>``,
at most one in flight, the newest x goes out next), so the readout shows the engine's
numbers, flagged where f is not differentiable, never values interpolated between samples.

The parameter sliders (``ParamSlider``) and the Hessian pane (``HessianPane``) live in
their own modules; this one holds the overlay list, the range and the requests.

The panel knows nothing of the main window: it takes the session, follows its
current call and its loaded functions, and asks the engine only for samples;
while the panel is hidden it asks for nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.api import messages as p
from workbench.api.curves import CurveParam, Curves, PointValues
from workbench.api.functions import FunctionInfo
from workbench.api.messages import reply_text
from workbench.plots.function_plot import FunctionPlot
from workbench.plots.heatmap import HessianHeatmap
from workbench.ui.control.coalescer import Coalescer
from workbench.ui.control.requests import EngineRequests
from workbench.ui.control.session import Session
from workbench.ui.panels.hessian_pane import HessianPane, parse_point
from workbench.ui.panels.panel import Panel
from workbench.ui.panels.param_slider import ParamSlider, default_slider_range, fmt_number

DEFAULT_RANGE = (-5.0, 5.0)
PLOT_MIN_HEIGHT = 240  # pixels at scale 1: axes, ticks and curves stay readable
DEFAULT_POINTS = 1000


@dataclass
class _Plotted:
    """A function on the plot: its chosen parameter values and what was last drawn."""

    name: str
    pinned: bool
    params: dict[str, float] = field(default_factory=dict)
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)
    curves: Curves | None = None  # the last samples shown
    error: str = ""


class FunctionPlotPanel(Panel):
    """f, f', ... of one or more editor functions with sliders for their numeric parameters."""

    sig_curves_shown = Signal(object)
    """Fresh samples were drawn (the engine's ``curves.Curves``)."""
    sig_message = Signal(str)
    """The inline message changed ("" when there is nothing to say)."""
    sig_hessian_shown = Signal(object)
    """A Hessian was drawn (the engine's ``curves.PointDerivatives``)."""
    sig_point_shown = Signal(object)
    """The engine's values at the crosshair reached the readout (``curves.PointValues``)."""

    def __init__(self, session: Session, requests: EngineRequests,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("functionPlotPanel")
        self.session = session
        self.requests = requests
        self._synced_loads = session.loads
        self._plotted: dict[str, _Plotted] = {}
        self._requests = Coalescer()  # SampleCurves per plotted function, keyed by its name
        self._points = Coalescer()  # CurvesAt at the crosshair, per plotted function
        self._drawn: dict[str, int] = {}  # per function, how many curves it has drawn
        self._followed: str | None = None
        self._known: dict[str, FunctionInfo] = {}  # per loaded function
        self._range = DEFAULT_RANGE
        self._notes: dict[str, str] = {}
        self._sliders: dict[str, ParamSlider] = {}
        self.compilations = 0  # replies whose samples had to compile (the engine's flag)
        self.replies = 0
        self._build()
        session.sig_functions_changed.connect(self._on_session_changed)
        session.sig_call_changed.connect(self._on_session_changed)
        self._on_session_changed()
        self.follow_source(session)

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        self.function_choice = QComboBox()
        self.function_choice.setObjectName("plotFunctionChoice")
        self.function_choice.setToolTip("a function of the editor to add to the plot")
        self.function_choice.setMinimumContentsLength(10)
        self.add_button = QPushButton("add")
        self.add_button.setObjectName("plotAddFunction")
        self.add_button.setToolTip("overlay this function on the plot")
        self.add_button.clicked.connect(lambda: self.add_function(
            self.function_choice.currentText(), pinned=True))
        self.overlay_list = QListWidget()
        self.overlay_list.setObjectName("plotOverlayList")
        self.overlay_list.setMaximumHeight(70)
        self.overlay_list.currentTextChanged.connect(self._on_active_changed)
        self.remove_button = QPushButton("remove")
        self.remove_button.setObjectName("plotRemoveFunction")
        self.remove_button.setToolTip("remove the selected function from the plot")
        self.remove_button.clicked.connect(self._on_remove_clicked)

        self.order_spin = QSpinBox()
        self.order_spin.setObjectName("plotOrder")
        self.order_spin.setToolTip("how many derivatives to draw: 0 is f alone, 2 is f, f′ and f″")
        self.order_spin.setRange(0, 4)
        self.order_spin.setValue(2)
        self.order_spin.setPrefix("order ")
        self.order_spin.valueChanged.connect(lambda _v: self.resample())
        self.lo_edit = QLineEdit(fmt_number(DEFAULT_RANGE[0]))
        self.lo_edit.setObjectName("plotRangeLo")
        self.lo_edit.setToolTip("left end of the x range (panning the plot changes it too)")
        self.hi_edit = QLineEdit(fmt_number(DEFAULT_RANGE[1]))
        self.hi_edit.setObjectName("plotRangeHi")
        self.hi_edit.setToolTip("right end of the x range (panning the plot changes it too)")
        for edit in (self.lo_edit, self.hi_edit):
            edit.setMaximumWidth(80)
            edit.editingFinished.connect(self._on_range_edited)
        self.points_spin = QSpinBox()
        self.points_spin.setObjectName("plotPoints")
        self.points_spin.setToolTip("how many points to sample on the range")
        self.points_spin.setRange(2, 100_000)
        self.points_spin.setValue(DEFAULT_POINTS)
        self.points_spin.setSuffix(" points")
        self.points_spin.setKeyboardTracking(False)
        self.points_spin.valueChanged.connect(lambda _v: self.resample())
        self.tangent_box = QCheckBox("tangent")
        self.tangent_box.setObjectName("plotTangent")
        self.tangent_box.setToolTip("draw the tangent of f at the cursor")
        self.error_box = QCheckBox("finite-difference error")
        self.error_box.setObjectName("plotFdError")
        self.error_box.setToolTip(
            "compare each derivative with a finite difference of the one before")

        self.params_box = QWidget()
        self.params_box.setObjectName("plotParams")
        self.params_layout = QVBoxLayout(self.params_box)
        self.params_layout.setContentsMargins(0, 0, 0, 0)

        self.message = QLabel()
        self.message.setObjectName("plotMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()

        self.plot = FunctionPlot()
        self.plot.setMinimumHeight(PLOT_MIN_HEIGHT)  # usable; a short dock scrolls instead
        self.tangent_box.toggled.connect(self.plot.set_tangent_visible)
        self.error_box.toggled.connect(self.plot.set_error_visible)
        self.plot.sig_range_changed.connect(self._on_view_range)
        self.plot.sig_cursor_moved.connect(self._on_cursor_moved)

        self.hessian = HessianPane(self.requests, self._hessian_target)
        self.hessian.sig_hessian_shown.connect(self.sig_hessian_shown)
        self.hessian.sig_problem.connect(self._on_hessian_problem)

        top = QHBoxLayout()
        top.addWidget(QLabel("function"))
        top.addWidget(self.function_choice)
        top.addWidget(self.add_button)
        top.addWidget(self.overlay_list, 1)
        top.addWidget(self.remove_button)
        row = QHBoxLayout()
        row.addWidget(self.order_spin)
        row.addWidget(QLabel("x from"))
        row.addWidget(self.lo_edit)
        row.addWidget(QLabel("to"))
        row.addWidget(self.hi_edit)
        row.addWidget(self.points_spin)
        row.addWidget(self.tangent_box)
        row.addWidget(self.error_box)
        row.addStretch(1)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.plot)
        splitter.addWidget(self.hessian)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([3000, 1000])  # scaled to the width: room for the pane's text

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addLayout(row)
        layout.addWidget(self.params_box)
        layout.addWidget(self.message)
        layout.addWidget(splitter, 1)

    # ------------------------------------------------------------------ public API

    def refresh(self) -> None:
        """Re-read the session: list its functions, follow its call, re-sample what is shown.

        Runs when the event loop next turns, or when the panel is next shown.
        """
        self.when_shown("sync", self._sync_with_session)

    def follow_current(self) -> None:
        """Plot the session's current function (it replaces the one followed before)."""
        call = self.session.call
        if call is not None and call.function:
            info = self.session.function_info(call.function)
            if info is not None:
                self._known.setdefault(call.function, info)
            self.set_current(call.function)

    def set_current(self, name: str) -> None:
        """The editor's function: it replaces the previous one unless that was added on purpose."""
        old = self._followed
        self._followed = name
        if old and old != name and old in self._plotted and not self._plotted[old].pinned:
            self.remove_function(old)
        if name in self._plotted:
            self._sample(name)
        else:
            self.add_function(name, pinned=False)

    def add_function(self, name: str, *, pinned: bool = True) -> None:
        """Overlay ``name`` on the plot (``pinned`` ones stay when the editor moves on)."""
        if not name:
            return
        if name in self._plotted:
            self._plotted[name].pinned = self._plotted[name].pinned or pinned
            return
        self._plotted[name] = _Plotted(name, pinned)
        item = QListWidgetItem(name)
        info = self._known.get(name)
        if info is not None:
            item.setToolTip(f"{name}{getattr(info, 'signature', '')}")
        self.overlay_list.addItem(item)
        if self.overlay_list.currentItem() is None:
            self.overlay_list.setCurrentItem(item)
        self._sample(name)

    def remove_function(self, name: str) -> None:
        """Take ``name`` off the plot; a reply still on its way is then ignored."""
        if self._plotted.pop(name, None) is None:
            return
        self._requests.forget(name)
        self._points.forget(name)
        self._drawn.pop(name, None)
        for item in self.overlay_list.findItems(name, Qt.MatchFlag.MatchExactly):
            self.overlay_list.takeItem(self.overlay_list.row(item))
        self.plot.remove_function(name)
        self._notes.pop(f"f:{name}", None)
        if self._followed == name:
            self._followed = None
        self._refresh_message()
        self._on_active_changed(self.active_function())

    def functions(self) -> list[str]:
        """The plotted functions, in the order they were added."""
        return list(self._plotted)

    def active_function(self) -> str:
        item = self.overlay_list.currentItem()
        return item.text() if item is not None else ""

    def set_active_function(self, name: str) -> None:
        """The function whose sliders, tangent, error curves and Hessian the panel shows."""
        for item in self.overlay_list.findItems(name, Qt.MatchFlag.MatchExactly):
            self.overlay_list.setCurrentItem(item)

    def order(self) -> int:
        return self.order_spin.value()

    def set_order(self, order: int) -> None:
        self.order_spin.setValue(order)

    def points(self) -> int:
        return self.points_spin.value()

    def x_range(self) -> tuple[float, float]:
        """The range the next samples are asked for."""
        return self._range

    def set_range(self, lo: float, hi: float) -> None:
        """Sample on [lo, hi]; a reversed or empty range goes to the engine, whose message
        shows inline, while the plot keeps its last good curves."""
        self._range = (float(lo), float(hi))
        self._show_range()
        if math.isfinite(lo) and math.isfinite(hi) and lo < hi:
            self.plot.setXRange(lo, hi, padding=0)
        self.resample()

    def slider(self, param: str) -> ParamSlider:
        """The slider of a parameter of the active function."""
        return self._sliders[param]

    def params(self, name: str | None = None) -> dict[str, float]:
        """The parameter values chosen for ``name`` (default: the active function)."""
        st = self._plotted.get(name or self.active_function())
        return dict(st.params) if st is not None else {}

    def show_requested(self, requests: list[p.SampleCurves]) -> None:
        """Plot what a lesson's directive asks for: the first request's function (with its
        parameters), the others pinned beside it, at the requests' order, range and points."""
        first = requests[0]
        wanted = [r.name for r in requests]
        for name in self.functions():
            if name not in wanted:
                self.remove_function(name)
        self.points_spin.setValue(first.points)
        self.set_order(first.order)
        if self.x_range() != (first.lo, first.hi):
            self.set_range(first.lo, first.hi)
        if first.name not in self.functions():
            self.set_current(first.name)
        for r in requests[1:]:
            self.add_function(r.name, pinned=True)
        self.set_active_function(first.name)
        for param, value in (first.params or {}).items():
            self.set_param(param, value, first.name)

    def set_param(self, param: str, value: float, name: str | None = None) -> None:
        """Set a parameter as a slider would (and re-plot)."""
        name = name or self.active_function()
        if name == self.active_function() and param in self._sliders:
            self._sliders[param].set_value(value)
        else:
            self._on_param(name, param, value)

    def last_curves(self, name: str | None = None) -> Curves | None:
        st = self._plotted.get(name or self.active_function())
        return st.curves if st is not None else None

    def message_text(self) -> str:
        return self.message.text()

    def busy(self) -> bool:
        """True while a curves request is in flight."""
        return self._requests.busy()

    def resample(self) -> None:
        for name in self._plotted:
            self._sample(name)

    def request_hessian(self) -> None:
        """Gradient and Hessian of the active function at the point typed in ``hessianPoint``."""
        self.hessian.request_hessian()

    # The Hessian pane's widgets, under the names the panel has always had.
    @property
    def heatmap(self) -> HessianHeatmap:
        """The Hessian heatmap (the pane's)."""
        return self.hessian.heatmap

    @property
    def point_edit(self) -> QLineEdit:
        """The Hessian point field, ``hessianPoint`` (the pane's)."""
        return self.hessian.point_edit

    @property
    def hessian_button(self) -> QPushButton:
        """The Hessian button (the pane's)."""
        return self.hessian.hessian_button

    @property
    def hessian_info(self) -> QLabel:
        """f(x) and the gradient under the heatmap (the pane's)."""
        return self.hessian.hessian_info

    def set_presentation_scale(self, factor: float) -> None:
        """Follow the window's presentation zoom (plot fonts, lines and markers)."""
        self.plot.setMinimumHeight(round(PLOT_MIN_HEIGHT * factor))
        self.plot.set_presentation_scale(factor)
        self.hessian.set_presentation_scale(factor)

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        self.plot.set_scheme(scheme)
        self.hessian.set_scheme(scheme)

    # ------------------------------------------------------------------ requests

    def _sample(self, name: str) -> None:
        """Ask for fresh curves of ``name``, or after the request in flight (see Coalescer)."""
        if name in self._plotted and self._requests.want(name):
            self._send_sample(name)

    def _send_sample(self, name: str) -> None:
        if not self.isVisible():  # hidden (a closed dock, a background tab): ask when shown
            self._requests.forget(name)
            self.when_shown(f"sample:{name}", lambda: self._sample(name))
            return
        st = self._plotted[name]
        lo, hi = self._range
        request = p.SampleCurves(name=name, order=self.order(), lo=lo, hi=hi,
                                 points=self.points(), params=dict(st.params) or None)
        self.requests.curves(request, partial(self._on_curves, name))

    def _on_curves(self, name: str, reply: p.Reply) -> None:
        st = self._plotted.get(name)
        if st is None:
            return  # removed while its samples were on the way
        if self._requests.done(name):
            self._send_sample(name)  # the newest values go out first; this reply still shows
        self.replies += 1
        curves = p.result_value(reply, Curves)
        if curves is not None:
            st.curves, st.error = curves, ""
            if curves.compiled:
                self.compilations += 1
            self.plot.set_curves(name, curves.x, dict(enumerate(curves.values)),
                                 dict(enumerate(curves.nonfinite)))
            self._drawn[name] = self._drawn.get(name, 0) + 1
            for cp in curves.params:
                st.params.setdefault(cp.name, cp.value)
            if name == self.active_function():
                self._sync_sliders(st, curves.params)
                self.hessian.set_function(name, curves.vector_to_scalar)
            self._note(f"f:{name}", _nonfinite_note(curves))
            self._want_point(name)  # the readout's values belonged to the old curves
            self.sig_curves_shown.emit(curves)
        elif isinstance(reply, p.Cancelled):
            self._note(f"f:{name}", "")
        else:
            st.error = reply_text(reply)
            self._note(f"f:{name}", f"{name}: {st.error}")
            if name == self.active_function():
                self.hessian.set_function(name, None)

    def _on_cursor_moved(self, _x: float) -> None:
        for name in self._plotted:
            self._want_point(name)

    def _want_point(self, name: str) -> None:
        """Ask for ``name``'s values at the crosshair, or after the request in flight."""
        if self.plot.cursor_x() is not None and name in self._plotted and self._points.want(name):
            self._send_point(name)

    def _send_point(self, name: str) -> None:
        st = self._plotted.get(name)
        x = self.plot.cursor_x()
        if st is None or st.curves is None or x is None or not self.isVisible():
            self._points.forget(name)  # nothing drawn to read yet; the next move asks again
            return
        # The values must belong to the curves on screen: their order, variable and params.
        curves = st.curves
        request = p.CurvesAt(name=name, x=x, order=curves.order, wrt=curves.wrt,
                             params=curves.param_values() or None)
        self.requests.curves_at(request, partial(self._on_point, name, self._drawn.get(name, 0)))

    def _on_point(self, name: str, drawn: int, reply: p.Reply) -> None:
        if self._points.done(name):
            self._send_point(name)  # the cursor moved on: its newest x goes out first
        if name not in self._plotted or drawn != self._drawn.get(name, 0):
            return  # new curves were drawn meanwhile; their own request follows
        values = p.result_value(reply, PointValues)
        if values is not None:
            self.plot.set_point_values(values)
            self.sig_point_shown.emit(values)
        # A failure here is the curves' failure too, and already shown next to them.

    def _on_session_changed(self, _value: object = None) -> None:
        self.when_settled("sync", self._sync_with_session, self.session)

    def _sync_with_session(self) -> None:
        """New functions (definitions may have changed: re-sample all) or a new call."""
        reloaded = self.session.loads != self._synced_loads
        self._synced_loads = self.session.loads
        if reloaded or not self._known:
            self._known = {f.name: f for f in self.session.functions}
            current = self.function_choice.currentText()
            self.function_choice.blockSignals(True)
            self.function_choice.clear()
            self.function_choice.addItems(list(self._known))
            if current in self._known:
                self.function_choice.setCurrentText(current)
            self.function_choice.blockSignals(False)
            for name in [n for n in self._plotted if n not in self._known]:
                self.remove_function(name)
        followed = self._followed
        self.follow_current()
        if reloaded:
            for name in self._plotted:
                if name != self._followed or followed == self._followed:
                    self._sample(name)

    def _hessian_target(self) -> tuple[str, dict[str, float]]:
        """What the Hessian pane differentiates: the active function with its slider values."""
        name = self.active_function()
        return name, self.params(name)

    def _on_hessian_problem(self, text: str) -> None:
        self._note("hessian", text)

    # ------------------------------------------------------------------ sliders

    def _sync_sliders(self, st: _Plotted, params: tuple[CurveParam, ...]) -> None:
        """Build the sliders when the parameter set changes; else keep them (and the drag)."""
        names = [cp.name for cp in params]
        if names == list(self._sliders) and all(
                self._sliders[n].value() == st.params.get(n) for n in names):
            return
        if names == list(self._sliders):
            for cp in params:
                s = self._sliders[cp.name]
                if not s.slider.isSliderDown() and s.value() != st.params[cp.name]:
                    s.blockSignals(True)
                    s.set_value(st.params[cp.name])
                    s.blockSignals(False)
            return
        self._clear_sliders()
        for cp in params:
            bounds = st.bounds.get(cp.name)
            s = ParamSlider(cp.name, st.params.get(cp.name, cp.value), cp.default, cp.integer,
                            bounds)
            st.bounds[cp.name] = s.bounds()
            s.sig_value_changed.connect(
                lambda param, value, n=st.name: self._on_param(n, param, value))
            s.sig_problem.connect(lambda text, param=cp.name: self._note(f"bounds:{param}", text))
            self.params_layout.addWidget(s)
            self._sliders[cp.name] = s

    def _clear_sliders(self) -> None:
        for s in self._sliders.values():
            s.setParent(None)
            s.deleteLater()
        self._sliders = {}

    def _on_param(self, name: str, param: str, value: float) -> None:
        st = self._plotted.get(name)
        if st is None:
            return
        st.params[param] = value
        if param in self._sliders and name == self.active_function():
            st.bounds[param] = self._sliders[param].bounds()
        self._sample(name)

    def _on_active_changed(self, name: str) -> None:
        self._clear_sliders()
        st = self._plotted.get(name)
        self.hessian.set_function(name, st.curves.vector_to_scalar
                                  if st is not None and st.curves is not None else None)
        if st is None:
            return
        if name in self.plot.functions():
            self.plot.set_active_function(name)
        if st.curves is not None:
            self._sync_sliders(st, st.curves.params)

    def _on_remove_clicked(self) -> None:
        name = self.active_function()
        if name:
            self.remove_function(name)

    # ------------------------------------------------------------------ range

    def _show_range(self) -> None:
        lo, hi = self._range
        for edit, v in ((self.lo_edit, lo), (self.hi_edit, hi)):
            edit.blockSignals(True)
            edit.setText(fmt_number(v))
            edit.blockSignals(False)

    def _on_range_edited(self) -> None:
        try:
            lo, hi = float(self.lo_edit.text()), float(self.hi_edit.text())
        except ValueError:
            self._note("range", "the range ends must be numbers, e.g. -5 and 5")
            return
        self._note("range", "")
        if (lo, hi) != self._range:
            self.set_range(lo, hi)

    def _on_view_range(self, lo: float, hi: float) -> None:
        """The user panned or zoomed: fresh samples on the new range, never stretched ones."""
        self._range = (lo, hi)
        self._show_range()
        self.resample()

    # ------------------------------------------------------------------ messages

    def _note(self, key: str, text: str) -> None:
        if text:
            self._notes[key] = text
        elif self._notes.pop(key, None) is None:
            return
        self._refresh_message()

    def _refresh_message(self) -> None:
        text = "\n".join(self._notes.values())
        if text != self.message.text():
            self.message.setText(text)
            self.message.setVisible(bool(text))
            self.sig_message.emit(text)


def _nonfinite_note(curves: Curves) -> str:
    parts = []
    for k, mask in enumerate(curves.nonfinite):
        count = int(mask.sum())
        if count:
            label = "f" if k == 0 else f"order {k}"
            parts.append(f"{label} at {count} of {len(mask)} points")
    if not parts:
        return ""
    return (f"{curves.function} is not finite ({'; '.join(parts)}): shown as gaps marked ×")


__all__ = ["FunctionPlotPanel", "ParamSlider", "default_slider_range", "parse_point"]
