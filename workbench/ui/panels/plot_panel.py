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
A mouse moves in steps of a pixel and never lands on x = 0, so the crosshair also takes an
exact x (typed, or ``set_crosshair`` from a lesson) and the mouse snaps to 0 and to the
kinks the plot knows within a few pixels.

On a projector's short dock the controls fold into one row (``PlotControls``) so the plot,
its axes and legend and every slider stay on screen together; the panel decides that from
the height its plot gets, with no wiring. The parameter sliders (``ParamSlider``), the
controls and the Hessian pane (``HessianPane``) live in their own modules; this one holds
the layout, the overlays, the range and the requests.

The panel knows nothing of the main window: it takes the session, follows its
current call and its loaded functions, and asks the engine only for samples;
while the panel is hidden it asks for nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
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
from workbench.ui.panels.plot_controls import DEFAULT_RANGE, PlotControls, wants_compact

# Heights of the plot widget at scale 1 (times the presentation scale). Below
# PLOT_MIN_HEIGHT the full controls give way to the compact row; below
# COMPACT_PLOT_MIN_HEIGHT the dock scrolls (220 px of axes, ticks and curves at 1.5x).
PLOT_MIN_HEIGHT = 240
COMPACT_PLOT_MIN_HEIGHT = 150
MORE_OPEN_PLOT_MIN_HEIGHT = 100  # while "more" is open on a short panel: shorter, not gone
COMPACT_HYSTERESIS = 32  # pixels at scale 1 more than needed before the full controls return


@dataclass
class _Plotted:
    """A function on the plot: its chosen parameter values and what was last drawn."""

    name: str
    pinned: bool
    params: dict[str, float] = field(default_factory=dict)
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)
    curves: Curves | None = None  # the last samples shown
    error: str = ""
    # Where the engine said f is not differentiable, for these parameter values.
    kinks: set[float] = field(default_factory=set)
    kink_params: dict[str, float] = field(default_factory=dict)


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
        self._scale = 1.0
        self.compilations = 0  # replies whose samples had to compile (the engine's flag)
        self.replies = 0
        self._build()
        session.sig_functions_changed.connect(self._on_session_changed)
        session.sig_call_changed.connect(self._on_session_changed)
        self._on_session_changed()
        self.follow_source(session)

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        self.controls = PlotControls()
        c = self.controls
        # The controls' widgets under the names the panel has always had.
        self.function_choice, self.add_button = c.function_choice, c.add_button
        self.overlay_list, self.remove_button = c.overlay_list, c.remove_button
        self.order_spin, self.lo_edit, self.hi_edit = c.order_spin, c.lo_edit, c.hi_edit
        self.points_spin, self.tangent_box, self.error_box = (c.points_spin, c.tangent_box,
                                                              c.error_box)
        self.cursor_edit, self.more_button = c.cursor_edit, c.more_button
        c.sig_more_toggled.connect(lambda _on: self._fit_plot_minimum())
        self.add_button.clicked.connect(lambda: self.add_function(
            self.function_choice.currentText(), pinned=True))
        self.overlay_list.currentTextChanged.connect(self._on_active_changed)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.order_spin.valueChanged.connect(lambda _v: self.resample())
        for edit in (self.lo_edit, self.hi_edit):
            edit.editingFinished.connect(self._on_range_edited)
        self.cursor_edit.returnPressed.connect(self._on_cursor_typed)
        self.points_spin.valueChanged.connect(lambda _v: self.resample())

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
        self.plot.setMinimumHeight(COMPACT_PLOT_MIN_HEIGHT)  # shorter docks scroll
        self.plot.installEventFilter(self)  # its height decides compact or full controls
        self.tangent_box.toggled.connect(self.plot.set_tangent_visible)
        self.error_box.toggled.connect(self.plot.set_error_visible)
        self.plot.sig_range_changed.connect(self._on_view_range)
        self.plot.sig_cursor_moved.connect(self._on_cursor_moved)

        self.hessian = HessianPane(self.requests, self._hessian_target)
        self.hessian.sig_hessian_shown.connect(self.sig_hessian_shown)
        self.hessian.sig_problem.connect(self._on_hessian_problem)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.plot)
        self.splitter.setStretchFactor(0, 3)
        # The plot and, below it, the Hessian pane's one line for an R -> R function; beside
        # it (in the splitter) while the pane has a point to type or a matrix to show.
        self.plot_area = QWidget()
        self.plot_area.setObjectName("plotArea")
        self._area_layout = QVBoxLayout(self.plot_area)
        self._area_layout.setContentsMargins(0, 0, 0, 0)
        self._area_layout.addWidget(self.splitter, 1)
        self._place_hessian(beside=True)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.controls)
        layout.addWidget(self.params_box)
        layout.addWidget(self.message)
        layout.addWidget(self.plot_area, 1)

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

    def curves_busy(self) -> bool:
        """Curves are on their way from the engine, or wait to be asked for."""
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

    def set_crosshair(self, x: float) -> None:
        """Put the crosshair at exactly ``x`` (the "crosshair x =" field, a lesson's ``--at``):
        the readout then shows the engine's values there, flagged where f is not
        differentiable. Before any curve is drawn it waits and applies once they are."""
        x = float(x)
        if not math.isfinite(x):
            raise ValueError(f"the crosshair needs a finite x, got {x}")
        self._note("crosshair", "")
        self.plot.set_cursor(x)  # kept by the plot until curves arrive; they ask for values

    def crosshair(self) -> float | None:
        """The crosshair's x, or None while it is hidden."""
        return self.plot.cursor_x()

    def forget_crosshair(self) -> None:
        """Hide the crosshair and clear its readout and field (a new step or file starts
        without the last one's x)."""
        self.plot.set_cursor(None)
        self.cursor_edit.clear()
        self._note("crosshair", "")

    def forget_view_state(self) -> None:
        """Other code is opened: its plot starts without the old crosshair."""
        self.forget_crosshair()

    def is_compact(self) -> bool:
        """True while the panel is too short for all its controls: one row shows, the rest
        waits behind "more", so the plot and the sliders stay on screen."""
        return self.controls.is_compact()

    def set_presentation_scale(self, factor: float) -> None:
        """Follow the window's presentation zoom (plot fonts, lines and markers)."""
        self._scale = float(factor)
        self._fit_plot_minimum()
        self.plot.set_presentation_scale(factor)
        self.hessian.set_presentation_scale(factor)
        self._fit_controls()

    def stale_anchor(self) -> QWidget:
        """The banner lies over the plots, under the controls and sliders."""
        return self.plot_area

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
            if curves.param_values() != st.kink_params:
                self._forget_kinks(st)
            if name == self.active_function():
                self._sync_sliders(st, curves.params)
                self._hessian_about(name, curves.vector_to_scalar)
            self._note(f"f:{name}", _nonfinite_note(curves))
            self._want_point(name)  # the readout's values belonged to the old curves
            self.sig_curves_shown.emit(curves)
        elif isinstance(reply, p.Cancelled):
            self._note(f"f:{name}", "")
        else:
            st.error = reply_text(reply)
            self._note(f"f:{name}", f"{name}: {st.error}")
            if name == self.active_function():
                self._hessian_about(name, None)

    def _on_cursor_moved(self, x: float) -> None:
        if not self.cursor_edit.hasFocus():  # never under the user's typing
            self.cursor_edit.setText(fmt_number(x))
        for name in self._plotted:
            self._want_point(name)

    def _on_cursor_typed(self) -> None:
        text = self.cursor_edit.text().strip()
        if not text:
            self.forget_crosshair()
            return
        try:
            x = float(text)
        except ValueError:
            x = math.nan
        if not math.isfinite(x):
            self._note("crosshair", f"the crosshair x must be a number, e.g. 0 (got {text!r})")
            return
        self.set_crosshair(x)

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
            self._remember_kink(self._plotted[name], values)
            self.plot.set_point_values(values)
            self.sig_point_shown.emit(values)
        # A failure here is the curves' failure too, and already shown next to them.

    def _remember_kink(self, st: _Plotted, values: PointValues) -> None:
        """Where the engine said f is not differentiable the mouse snaps from now on, while the
        parameters stay (the curves these values belong to are on screen)."""
        params = st.curves.param_values() if st.curves is not None else {}
        if params != st.kink_params:
            st.kinks.clear()
            st.kink_params = params
        if not values.differentiable and values.x not in st.kinks:
            st.kinks.add(values.x)
            self.plot.set_known_kinks(st.name, st.kinks)

    def _forget_kinks(self, st: _Plotted) -> None:
        if st.kinks:
            st.kinks.clear()
            self.plot.set_known_kinks(st.name, ())

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
            for st in self._plotted.values():
                self._forget_kinks(st)  # the definitions may have changed
            for name in self._plotted:
                if name != self._followed or followed == self._followed:
                    self._sample(name)

    def _hessian_target(self) -> tuple[str, dict[str, float]]:
        """What the Hessian pane differentiates: the active function with its slider values."""
        name = self.active_function()
        return name, self.params(name)

    def _on_hessian_problem(self, text: str) -> None:
        self._note("hessian", text)

    def _hessian_about(self, name: str, vector_to_scalar: bool | None) -> None:
        self.hessian.set_function(name, vector_to_scalar)
        self._place_hessian(beside=not self.hessian.explains_one_number())

    def _place_hessian(self, *, beside: bool) -> None:
        """Beside the plot while the pane has a point to type or a matrix to show; under it,
        one line, while it only says that an R -> R function's Hessian is f″ (then the plot
        keeps the whole width)."""
        if beside == (self.hessian.parentWidget() is self.splitter):
            return
        policy = self.hessian.sizePolicy()  # below: one line, the plot takes the height
        policy.setVerticalPolicy(QSizePolicy.Policy.Preferred if beside
                                 else QSizePolicy.Policy.Maximum)
        self.hessian.setSizePolicy(policy)
        if beside:
            self.splitter.addWidget(self.hessian)
            self.splitter.setStretchFactor(1, 1)
            self.splitter.setSizes([3000, 1000])  # scaled to the width: room for the pane
        else:
            self._area_layout.addWidget(self.hessian)
        self.hessian.show()  # a moved widget shows only when the event loop turns

    # ------------------------------------------------------------------ compact layout

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt naming)
        if event.type() == QEvent.Type.Resize and watched is getattr(self, "plot", None):
            self._fit_controls()
        return super().eventFilter(watched, event)

    def _fit_controls(self) -> None:
        """The compact row while the plot would be shorter than it needs beside every
        control (a projector's short dock), every control when it is tall enough again."""
        if not self.plot.isVisible():
            return  # no height to judge by; showing the panel resizes the plot
        compact = wants_compact(self.controls.is_compact(), self.plot.height(),
                                self.controls.folded_height(),
                                round(PLOT_MIN_HEIGHT * self._scale),
                                round(COMPACT_HYSTERESIS * self._scale))
        if compact != self.controls.is_compact():
            self.controls.set_compact(compact)
            self._fit_plot_minimum()

    def _fit_plot_minimum(self) -> None:
        """Below its minimum the dock scrolls: lower while the user has "more" open on a short
        panel, so the controls they asked for push nothing off screen."""
        base = MORE_OPEN_PLOT_MIN_HEIGHT if self.controls.more_open() else COMPACT_PLOT_MIN_HEIGHT
        self.plot.setMinimumHeight(round(base * self._scale))

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
        self._hessian_about(name, st.curves.vector_to_scalar
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
