"""Derivative curves: analytic derivatives, the compile cache, masks, and bad input."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from workbench.engine import curves
from workbench.engine.compile_watch import watch_compiles
from workbench.engine.errors import UsageError, UserCodeError

SELU = '''
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
'''

SIGMOID = '''
def sigmoid(x):
    return 1 / (1 + jnp.exp(-x))
'''

RELU = '''
def relu(x):
    return jnp.maximum(0.0, x)
'''

MISC = '''
def add(x, y):
    return jnp.add(x, y) * jnp.exp(x) - 2.05 + y * 0.56

def power(x, n=2):
    return x ** n

def log(x):
    return jnp.log(x)

def vector(x):
    return jnp.stack([x, x, x])

def count(x):
    return jnp.int32(3) * (x > 0)

def boom(x):
    raise ValueError("no plot for you")

def sum_logistic(x):
    return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))

def three(x):
    return jnp.stack([x[0] * x[1], jnp.sin(x[0]), x[1] ** 2])
'''

F32 = dict(rtol=1e-5, atol=1e-6)  # float32: ~7 significant digits, a few ulps of slack


def _selu_analytic(x, alpha, lmbda):
    x = x.astype(np.float64)
    neg = x <= 0
    f = lmbda * np.where(neg, alpha * np.expm1(x), x)
    d1 = lmbda * np.where(neg, alpha * np.exp(x), 1.0)
    d2 = lmbda * np.where(neg, alpha * np.exp(x), 0.0)
    return f, d1, d2


def test_selu_matches_analytic_derivatives(load):
    c = curves.sample_curves(load(SELU), "selu", order=2, lo=-3, hi=3, points=500)
    f, d1, d2 = _selu_analytic(c.x, 1.67, 1.05)
    np.testing.assert_allclose(c.values[0], f, **F32)
    np.testing.assert_allclose(c.values[1], d1, **F32)
    np.testing.assert_allclose(c.values[2], d2, **F32)
    assert c.wrt == "x"
    assert [(p.name, p.value) for p in c.params] == [("alpha", 1.67), ("lmbda", 1.05)]
    assert not any(m.any() for m in c.nonfinite)


def test_sigmoid_up_to_fourth_order(load):
    c = curves.sample_curves(load(SIGMOID), "sigmoid", order=4, lo=-6, hi=6, points=301)
    s = 1 / (1 + np.exp(-c.x.astype(np.float64)))
    d1 = s * (1 - s)
    d2 = d1 * (1 - 2 * s)
    d3 = d1 * (1 - 6 * s + 6 * s**2)
    d4 = d1 * (1 - 2 * s) * (1 - 12 * s + 12 * s**2)
    for got, want in zip(c.values, (s, d1, d2, d3, d4), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6)
    assert c.order == 4


def test_relu_at_zero_gives_jax_value_not_an_error(load):
    c = curves.sample_curves(load(RELU), "relu", order=2, lo=-1, hi=1, points=3)
    assert c.x[1] == 0.0
    relu = lambda x: jnp.maximum(0.0, x)  # noqa: E731
    assert c.values[1][1] == float(jax.grad(relu)(0.0))
    np.testing.assert_array_equal(c.values[1][[0, 2]], [0.0, 1.0])
    assert not any(m.any() for m in c.nonfinite)


def test_parameter_and_range_changes_do_not_recompile(load):
    # The counter is JAX's own monitoring event for backend compiles: every XLA
    # compilation passes through it, so a silent recompile cannot hide.
    loaded = load(SELU)
    first = curves.sample_curves(loaded, "selu", order=2, points=257)
    assert first.compiled
    with watch_compiles() as log:
        for alpha, lo in ((1.0, -5.0), (2.0, -2.0), (3.5, -1.0)):
            c = curves.sample_curves(loaded, "selu", order=2, points=257, lo=lo, hi=4.0,
                                     params={"alpha": alpha, "lmbda": 0.5})
            assert not c.compiled
            f, d1, d2 = _selu_analytic(c.x, alpha, 0.5)
            np.testing.assert_allclose(c.values[1], d1, **F32)
    assert log.count() == 0
    assert c.param_values() == {"alpha": 3.5, "lmbda": 0.5}


def test_new_point_count_compiles_once_and_is_kept(load):
    loaded = load(SIGMOID)
    with watch_compiles() as log:
        curves.sample_curves(loaded, "sigmoid", order=1, points=123)
        curves.sample_curves(loaded, "sigmoid", order=1, points=123)
    assert log.count() == 1


def test_nonfinite_values_come_back_as_masks(load):
    c = curves.sample_curves(load(MISC), "log", order=1, lo=-1, hi=1, points=5)
    np.testing.assert_array_equal(c.nonfinite[0], [True, True, True, False, False])
    assert np.isneginf(c.values[0][2])
    np.testing.assert_allclose(c.values[1][3:], [2.0, 1.0], **F32)


def test_wrt_selects_the_argument_others_are_parameters(load):
    loaded = load(MISC)
    assert [p.name for p in curves.curve_params(loaded, "add")] == ["y"]
    c = curves.sample_curves(loaded, "add", order=1, wrt="y", params={"x": 0.5}, points=11)
    np.testing.assert_allclose(c.values[1], np.full(11, np.exp(0.5) + 0.56), **F32)
    np.testing.assert_allclose(c.values[0], (0.5 + c.x) * np.exp(0.5) - 2.05 + 0.56 * c.x,
                               rtol=1e-5, atol=1e-5)


def test_integer_parameter_is_traced_as_integer(load):
    loaded = load(MISC)
    c2 = curves.sample_curves(loaded, "power", order=1, lo=-2, hi=2, points=5)
    c3 = curves.sample_curves(loaded, "power", order=1, lo=-2, hi=2, points=5, params={"n": 3})
    np.testing.assert_allclose(c2.values[1], 2 * c2.x, **F32)
    np.testing.assert_allclose(c3.values[0], c3.x**3, **F32)  # negative x stays finite
    assert not c3.compiled
    with pytest.raises(UsageError, match="integer"):
        curves.sample_curves(loaded, "power", params={"n": 2.5})


def test_central_difference_check(load):
    c = curves.sample_curves(load(SIGMOID), "sigmoid", order=3, points=200)
    checks = curves.check_derivatives(load(SIGMOID), c)
    assert [k.order for k in checks] == [1, 2, 3]
    for k in checks:
        assert k.compared == 200
        assert 0 < k.max_rel_error < 1e-3


def test_gradient_and_hessian_at_a_point(load):
    x = np.array([0.5, -1.0, 2.0], np.float32)
    r = curves.gradient_hessian(load(MISC), "sum_logistic", x)
    s = 1 / (1 + np.exp(-x.astype(np.float64)))
    np.testing.assert_allclose(r.value, s.sum(), **F32)
    np.testing.assert_allclose(r.gradient, s * (1 - s), **F32)
    np.testing.assert_allclose(r.hessian, np.diag(s * (1 - s) * (1 - 2 * s)), **F32)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(order=5), "order must be 0 to 4"),
        (dict(order=-1), "order must be 0 to 4"),
        (dict(points=1), "points must be"),
        (dict(lo=1.0, hi=1.0), "empty or reversed"),
        (dict(lo=2.0, hi=-2.0), "empty or reversed"),
        (dict(params={"beta": 1.0}), "unknown parameter 'beta'.*alpha, lmbda"),
        (dict(params={"x": 1.0}), "plotted variable"),
        (dict(wrt="z"), "no argument 'z'"),
    ],
)
def test_bad_usage(load, kwargs, match):
    with pytest.raises(UsageError, match=match):
        curves.sample_curves(load(SELU), "selu", **kwargs)


def test_vector_output_says_shape_and_need(load):
    with pytest.raises(UserCodeError) as info:
        curves.sample_curves(load(MISC), "vector")
    ex = info.value.explanation
    assert "f32[3]" in ex.title and "R -> R" in ex.title
    assert ex.kind == "wrong-output-shape" and ex.line is not None


def test_integer_output_has_no_derivative(load):
    with pytest.raises(UserCodeError, match=r"i32\[\].*real float"):
        curves.sample_curves(load(MISC), "count", order=1)
    # ...but order 0 is a plain plot, and fine.
    c = curves.sample_curves(load(MISC), "count", order=0, lo=-1, hi=1, points=3)
    np.testing.assert_array_equal(c.values[0], [0.0, 0.0, 3.0])


def test_raising_function_is_explained_at_its_line(load):
    with pytest.raises(UserCodeError) as info:
        curves.sample_curves(load(MISC, "misc.py"), "boom")
    ex = info.value.explanation
    assert ex.file == "misc.py" and ex.line == 18
    assert "no plot for you" in ex.message


def test_hessian_of_vector_function_is_refused(load):
    with pytest.raises(UserCodeError, match="R\\^n -> R"):
        curves.gradient_hessian(load(MISC), "three", [1.0, 2.0])


KINKS = '''
def step(x):
    return jnp.where(x > 0, 1.0, 0.0)

def x_abs_x(x):
    return x * jnp.abs(x)

def steep(x):
    return 1 / (1 + jnp.exp(-1e4 * x))

def sqrt(x):
    return jnp.sqrt(x)
'''


def test_values_at_a_point_are_computed_there_not_interpolated(load):
    loaded = load(RELU)
    # 100 samples on [-5, 5] straddle the kink: interpolating relu′ at -0.01 gives 0.4.
    c = curves.sample_curves(loaded, "relu", order=2, points=100)
    assert np.interp(-0.01, c.x, c.values[1]) == pytest.approx(0.4, abs=0.01)
    at = curves.curves_at(loaded, "relu", -0.01, order=2)
    assert at.values == (0.0, 0.0, 0.0) and at.order == 2
    assert at.differentiable and all(at.defined) and at.note == ""
    assert at.x == float(np.float32(-0.01)) and at.wrt == "x"
    # A sample point gives exactly the sample.
    i = 37
    at = curves.curves_at(loaded, "relu", float(c.x[i]), order=2)
    assert at.values == tuple(float(v[i]) for v in c.values)


def test_relu_at_zero_is_flagged_with_both_one_sided_derivatives(load):
    at = curves.curves_at(load(RELU), "relu", 0.0, order=2)
    assert not at.differentiable
    assert at.defined == (True, False, False)
    assert at.values[0] == 0.0
    assert at.values[1] == float(jax.grad(lambda x: jnp.maximum(0.0, x))(0.0))  # JAX's choice
    assert at.note.startswith("relu is not differentiable at x = 0: left derivative 0, right 1")
    # Order 0 shows f only, and still says whether f is differentiable.
    assert not curves.curves_at(load(RELU), "relu", 0.0, order=0).differentiable
    # Near the kink but not at it: differentiable.
    for x in (1e-7, -1e-7, 0.5):
        assert curves.curves_at(load(RELU), "relu", x).differentiable, x


def test_selu_derivative_at_one_is_lambda(load):
    at = curves.curves_at(load(SELU), "selu", 1.0, order=2, params={"lmbda": 0.7})
    assert at.values[1] == pytest.approx(0.7, rel=1e-6)
    assert at.values[2] == 0.0 and at.differentiable and at.note == ""
    kink = curves.curves_at(load(SELU), "selu", 0.0, order=1)  # alpha * lmbda != lmbda
    assert not kink.differentiable
    assert "left derivative 1.7535, right 1.05" in kink.note


def test_jumps_kinks_and_steep_slopes_are_told_apart(load):
    loaded = load(KINKS)
    step = curves.curves_at(loaded, "step", 0.0, order=1)
    assert not step.differentiable and "not continuous" in step.note
    assert "left limit 0, right 1" in step.note
    x_abs_x = curves.curves_at(loaded, "x_abs_x", 0.0, order=2)  # once, not twice
    assert x_abs_x.differentiable and x_abs_x.defined == (True, True, False)
    assert "x_abs_x′ is not differentiable at x = 0: left x_abs_x″ -2, right 2" in x_abs_x.note
    steep = curves.curves_at(loaded, "steep", 0.0, order=2)  # smooth, however steep
    assert steep.differentiable and all(steep.defined)
    assert steep.values[1] == pytest.approx(2500.0, rel=1e-4)
    sqrt = curves.curves_at(loaded, "sqrt", 0.0, order=1)
    assert not sqrt.differentiable and "sqrt′ is not finite" in sqrt.note
    assert curves.curves_at(loaded, "sqrt", 4.0, order=1).values == (2.0, 0.25)


def test_moving_the_point_does_not_recompile(load):
    loaded = load(SELU)
    curves.curves_at(loaded, "selu", 0.3, order=2)
    with watch_compiles() as log:
        for x in (-2.0, -0.01, 0.0, 1.0, 123.5):
            curves.curves_at(loaded, "selu", x, order=2, params={"alpha": 2.0})
    assert log.count() == 0


@pytest.mark.parametrize("kwargs, match", [
    (dict(x=float("nan")), "finite"),
    (dict(x=0.0, order=5), "order must be 0 to 4"),
    (dict(x=0.0, params={"beta": 1.0}), "unknown parameter 'beta'"),
])
def test_bad_point_requests(load, kwargs, match):
    with pytest.raises(UsageError, match=match):
        curves.curves_at(load(SELU), "selu", **kwargs)


def test_curves_say_whether_f_maps_vectors_to_one_number(load):
    # The Hessian pane reads this: for R -> R its Hessian is just f″.
    assert not curves.sample_curves(load(RELU), "relu", points=5).vector_to_scalar
    assert not curves.sample_curves(load(SELU), "selu", points=5).vector_to_scalar
    assert curves.sample_curves(load(MISC), "sum_logistic", points=5).vector_to_scalar
