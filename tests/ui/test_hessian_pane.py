"""HessianPane on its own, with a fake engine that records requests and answers on demand."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.api import messages as p
from workbench.api.curves import PointDerivatives
from workbench.ui.hessian_pane import HessianPane


class FakeEngine:
    """The one method of the EngineBridge the pane uses; replies are given by the test."""

    def __init__(self):
        self.sent = []

    def request(self, request, on_reply, key=None):
        self.sent.append((request, on_reply, key))
        return str(len(self.sent))


@pytest.fixture
def pane(qtbot):
    target = {"name": "sum_logistic", "params": {"a": 2.0}}
    engine = FakeEngine()
    pane = HessianPane(engine, lambda: (target["name"], target["params"]))
    pane.target = target
    problems = []
    pane.sig_problem.connect(problems.append)
    pane.problems = problems
    qtbot.addWidget(pane)
    return pane


def test_request_carries_point_and_params_and_draws_the_reply(qtbot, pane):
    pane.point_edit.setText("[1 -1, 0.5]")
    pane.hessian_button.click()
    (request, on_reply, key), = pane.engine.sent
    assert isinstance(request, p.Hessian) and request.name == "sum_logistic"
    assert request.point == (1.0, -1.0, 0.5) and request.params == {"a": 2.0}
    assert key == "plot:hessian"
    h = np.diag([1.0, 2.0, 3.0])
    result = PointDerivatives("sum_logistic", np.array([1.0, -1.0, 0.5]), 1.5,
                              np.arange(7.0)[:3], h)
    with qtbot.waitSignal(pane.sig_hessian_shown) as blocker:
        on_reply(p.Result(request.id, result))
    assert blocker.args[0] is result
    np.testing.assert_array_equal(pane.heatmap.matrix(), h)
    assert pane.hessian_info.text() == "sum_logistic(x) = 1.5\n∇f = [0, 1, 2]"
    assert pane.problems[-1] == ""


def test_problems_go_out_as_text(pane):
    pane.point_edit.setText("1, a")
    pane.request_hessian()
    assert "'a' is not a number" in pane.problems[-1] and pane.engine.sent == []
    pane.target["name"] = ""
    pane.request_hessian()
    assert "add a function" in pane.problems[-1] and pane.engine.sent == []
    pane.target["name"] = "sigmoid"
    pane.point_edit.setText("1")
    pane.point_edit.returnPressed.emit()
    (request, on_reply, _key), = pane.engine.sent
    assert request.point == (1.0,)
    pane.hessian_info.setText("stale")
    on_reply(p.UsageFailure(request.id, "sigmoid is not R^n -> R"))
    assert pane.problems[-1] == "Hessian: sigmoid is not R^n -> R"
    assert pane.hessian_info.text() == ""


def test_presentation_and_scheme_hooks(pane):
    pane.set_presentation_scale(1.5)
    pane.set_scheme("light")
    pane.set_scheme("dark")
