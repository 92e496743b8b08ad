"""The requests the plot and timing panels add: values at the crosshair, Hessian at a point,
a plain-dict timing budget."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.codec_util import roundtrip
from workbench.api import codec
from workbench.api import messages as p
from workbench.api.timing import TimingConfig
from workbench.api.timing_report import json_safe, report_json, table_rows
from workbench.engine.service import Service

SOURCE = """\
def sum_logistic(x, scale=1.0):
    return jnp.sum(1.0 / (1.0 + jnp.exp(-scale * x)))

def sigmoid(x):
    return 1 / (1 + jnp.exp(-x))

def add(x):
    return x + 1

def relu(x):
    return jnp.maximum(0.0, x)
"""


@pytest.fixture(scope="module")
def service():
    s = Service()
    assert isinstance(s.handle(p.LoadSource(source=SOURCE)), p.Result)
    return s


def test_values_at_the_crosshair_survive_the_wire(service):
    reply = roundtrip(service.handle(p.CurvesAt(name="relu", x=0.0, order=2)))
    assert isinstance(reply, p.Result)
    at = reply.value
    assert type(at).__name__ == "PointValues"
    assert (at.values[0], at.values[2]) == (0.0, 0.0) and at.defined == (True, False, False)
    assert at.differentiable is False and "left derivative 0, right 1" in at.note
    smooth = roundtrip(service.handle(p.CurvesAt(name="sum_logistic", x=0.0, order=1,
                                                 params={"scale": 2.0})))
    assert smooth.value.values == pytest.approx((0.5, 0.5)) and smooth.value.differentiable
    bad = service.handle(p.CurvesAt(name="relu", x=math.inf))
    assert isinstance(bad, p.UsageFailure) and "finite" in bad.message


def test_hessian_at_a_point_survives_the_wire(service):
    reply = roundtrip(service.handle(p.Hessian(name="sum_logistic", point=(1.0, -1.0, 0.5),
                                               params={"scale": 2.0})))
    assert isinstance(reply, p.Result)
    x = 2.0 * np.array([1.0, -1.0, 0.5])
    s = 1 / (1 + np.exp(-x))
    h = reply.value.hessian
    assert h.shape == (3, 3)
    np.testing.assert_allclose(np.diag(h), 4.0 * s * (1 - s) * (1 - 2 * s), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(h - np.diag(np.diag(h)), 0.0, atol=1e-7)
    np.testing.assert_allclose(reply.value.gradient, 2.0 * s * (1 - s), rtol=1e-5)


def test_hessian_bad_inputs_are_replies(service):
    vector = service.handle(p.Hessian(name="sigmoid", point=(1.0, 2.0)))
    assert isinstance(vector, p.UserCodeFailure)
    assert "R^n -> R" in vector.explanation.title
    empty = service.handle(p.Hessian(name="sum_logistic", point=()))
    assert isinstance(empty, p.UsageFailure) and "non-empty vector" in empty.message


def test_time_takes_a_budget_and_rows_match(service):
    config = TimingConfig(min_batch_s=0.001, repeats=2, max_measure_s=0.05, dispatch_samples=3)
    reply = roundtrip(service.handle(p.Time(name="add", args="f32[16]", config=config)))
    assert isinstance(reply, p.Result)
    report = reply.value
    assert all(r.stats.repeats <= 2 for r in report.results)
    rows = table_rows(report)
    assert [(r["device"], r["mode"]) for r in rows] == [(r.device, r.mode)
                                                        for r in report.results]
    eager = next(r for r in rows if r["mode"] == "eager")
    assert eager["speedup_vs_eager"] == 1.0 and math.isnan(eager["trace_s"])
    assert math.isnan(eager["speedup_vs_baseline"])  # no baseline given
    assert json.dumps(report_json(report), allow_nan=False)
    data, buffers = codec.encode(p.Time(name="add", args="f32[4]", config=config))
    data["body"]["fields"]["config"]["fields"]["nope"] = 1  # a budget this engine cannot read
    with pytest.raises(codec.ProtocolError, match="unknown fields"):
        codec.decode(data, buffers)


def test_json_safe_turns_nan_into_null():
    assert json_safe({"a": [1.0, math.nan], "b": (math.inf, "x")}) == {"a": [1.0, None],
                                                                        "b": [None, "x"]}
