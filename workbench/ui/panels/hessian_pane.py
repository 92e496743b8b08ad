"""The Hessian pane: a point x in R^n, a button, and the heatmap of the Hessian there.

It asks the engine for ``Hessian`` of whatever function its owner names (the plot panel's
active one, with its slider values), so it needs no knowledge of the overlay list. Its
problems go out as ``sig_problem`` text for the owner's message line rather than a label of
its own: one place for every inline message of the panel.

For a function of one number (R -> R, which the engine reports with its curves) a Hessian
heatmap would be one meaningless cell: the pane says instead, in one line (the why in its
tooltip), that the Hessian is f″, which the plot already draws. The heatmap shows only once
it holds the Hessian of the function the pane is about, never as empty axes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QPushButton, QSizePolicy, QWidget

from workbench.api import messages as p
from workbench.api.curves import PointDerivatives, order_name
from workbench.api.messages import reply_text
from workbench.plots.heatmap import HessianHeatmap
from workbench.ui.control.requests import EngineRequests
from workbench.ui.panels.param_slider import fmt_number

DEFAULT_POINT = "1, -1, 0.5"
GRADIENT_SHOWN = 6  # gradient entries written out under the heatmap
Target = Callable[[], tuple[str, dict[str, float] | None]]
"""Names the function to differentiate and its parameter values ("" when there is none)."""


def parse_point(text: str) -> tuple[float, ...]:
    """``"1, -0.5, 2"`` or ``"[1 -0.5 2]"`` -> (1.0, -0.5, 2.0); ValueError with a reason."""
    parts = [s for s in re.split(r"[,\s]+", text.strip().strip("[]()")) if s]
    if not parts:
        raise ValueError("give the point as numbers, e.g. 1, -0.5, 2")
    try:
        values = tuple(float(s) for s in parts)
    except ValueError:
        bad = next(s for s in parts if not _is_float(s))
        raise ValueError(f"{bad!r} is not a number; give the point as 1, -0.5, 2") from None
    if not all(math.isfinite(v) for v in values):
        raise ValueError("the point must be finite numbers")
    return values


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class HessianPane(QWidget):
    """Gradient and Hessian of f: R^n -> R at a typed point, asked of the engine on request."""

    sig_hessian_shown = Signal(object)
    """A Hessian was drawn (the engine's ``curves.PointDerivatives``)."""
    sig_problem = Signal(str)
    """Something to tell the user about the Hessian ("" when the problem is gone)."""

    def __init__(self, requests: EngineRequests, target: Target,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("hessianPane")
        self.requests = requests
        self._target = target
        self.heatmap = HessianHeatmap()
        self.point_edit = QLineEdit(DEFAULT_POINT)
        self.point_edit.setObjectName("hessianPoint")
        self.point_edit.setToolTip("the point x in R^n, e.g. 1, -1, 0.5")
        self.point_edit.returnPressed.connect(self.request_hessian)
        self.hessian_button = QPushButton("Hessian")
        self.hessian_button.setObjectName("hessianButton")
        self.hessian_button.setToolTip("gradient and Hessian (jax.hessian) of the selected "
                                       "function f: R^n -> R at the point")
        self.hessian_button.clicked.connect(self.request_hessian)
        self.hessian_info = QLabel()
        self.hessian_info.setObjectName("hessianInfo")
        self.hessian_info.setWordWrap(True)
        self.explanation = QLabel()
        self.explanation.setObjectName("hessianExplanation")
        self.explanation.setWordWrap(True)
        self._point_label = QLabel("point")
        self._function = ""  # the function the pane is about
        self._one_number = False  # that function is R -> R
        self._shown_for = ""  # the function whose Hessian the heatmap holds

        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._point_label, 0, 0)
        layout.addWidget(self.point_edit, 0, 1)
        layout.addWidget(self.hessian_button, 0, 2)
        layout.addWidget(self.explanation, 1, 0, 1, 3)
        layout.addWidget(self.heatmap, 2, 0, 1, 3)
        layout.addWidget(self.hessian_info, 3, 0, 1, 3)
        layout.setRowStretch(4, 1)  # with the heatmap hidden, the rest stays at the top
        self._show_state()

    def set_function(self, name: str, vector_to_scalar: bool | None) -> None:
        """The function the pane is about and whether it maps R^n -> R (the engine's
        ``Curves.vector_to_scalar``; None: not known yet, e.g. its curves failed)."""
        if name != self._shown_for:
            self.hessian_info.setText("")
        self._function = name
        self._one_number = vector_to_scalar is False
        self._show_state()

    def explains_one_number(self) -> bool:
        """True while the pane explains that an R -> R function's Hessian is f″."""
        return self._one_number

    def _show_state(self) -> None:
        name = self._function
        has_matrix = bool(name) and name == self._shown_for and not self._one_number
        for w in (self._point_label, self.point_edit, self.hessian_button):
            w.setVisible(not self._one_number)
        self.heatmap.setVisible(has_matrix)
        self.hessian_info.setVisible(has_matrix)
        tip = ""
        if self._one_number:
            # One line under the plot; the whole story waits in the tooltip.
            text = f"{name} is R → R: its Hessian is the second derivative {order_name(name, 2)}"
            tip = (f"{name} takes one number and returns one (R → R): its Hessian is the "
                   f"1 × 1 matrix [{order_name(name, 2)}(x)], its second derivative, which "
                   "the plot draws (order 2 or more). The heatmap is for f: Rⁿ → R, "
                   "e.g. jnp.sum(...) of a vector.")
        elif has_matrix:
            text = ""
        else:
            text = ("The Hessian of f: Rⁿ → R at a point: type the point, e.g. 1, -1, 0.5, "
                    "and press Hessian.")
        # One line never wraps (a narrow dock cuts it, the tooltip keeps all); the prompt beside
        # the plot wraps in the pane's width.
        self.explanation.setWordWrap(not self._one_number)
        self.explanation.setSizePolicy(
            QSizePolicy.Policy.Ignored if self._one_number else QSizePolicy.Policy.Preferred,
            QSizePolicy.Policy.Preferred)
        self.explanation.setText(text)
        self.explanation.setToolTip(tip)
        self.explanation.setVisible(bool(text))

    def request_hessian(self) -> None:
        """Gradient and Hessian of the target function at the point typed in ``hessianPoint``;
        the reply arrives later (``sig_hessian_shown``), a newer request supersedes it."""
        name, params = self._target()
        if not name:
            self.sig_problem.emit("Hessian: add a function to the plot first")
            return
        try:
            point = parse_point(self.point_edit.text())
        except ValueError as exc:
            self.sig_problem.emit(f"Hessian point: {exc}")
            return
        self.sig_problem.emit("")
        request = p.Hessian(name=name, point=point, params=params or None)
        self.requests.hessian(request, self._on_hessian)

    def set_presentation_scale(self, factor: float) -> None:
        """Follow the window's presentation zoom (heatmap fonts and colour bar)."""
        self.heatmap.set_presentation_scale(factor)

    def set_scheme(self, scheme: str) -> None:
        """Follow the window's light or dark scheme."""
        self.heatmap.set_scheme(scheme)

    def _on_hessian(self, reply: p.Reply) -> None:
        result = p.result_value(reply, PointDerivatives)
        if result is not None:
            n = len(result.point)
            self._shown_for = result.function
            if not self._function:
                self._function = result.function
            self.heatmap.set_matrix(result.hessian)
            grad = ", ".join(fmt_number(float(g)) for g in result.gradient[:GRADIENT_SHOWN])
            more = ", ..." if n > GRADIENT_SHOWN else ""
            self.hessian_info.setText(f"{result.function}(x) = {fmt_number(result.value)}\n"
                                      f"∇f = [{grad}{more}]")
            self.sig_problem.emit("")
            self._show_state()
            self.sig_hessian_shown.emit(result)
        else:
            self.hessian_info.setText("")
            self.sig_problem.emit(f"Hessian: {reply_text(reply)}")


__all__ = ["HessianPane", "parse_point"]
