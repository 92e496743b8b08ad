from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from workbench.engine.argspec import ArgSpecError, example_values
from workbench.engine.errors import UsageError
from workbench.engine.source import load_source
from workbench.engine.transforms import compose, prepare

SOURCE = """\
def cube(x):
    return x ** 3

def repeat(x, n):
    for _ in range(n):
        x = x * 2.0
    return x

def pair(p, scale):
    a, b = p
    return jnp.sum(a * b) * scale
"""


@pytest.fixture(scope="module")
def loaded():
    return load_source(SOURCE, "t.py")


def test_first_transform_is_applied_first(loaded):
    fn = prepare(loaded, "cube", "f32[4]", ["grad", "vmap"]).fn
    x = jnp.arange(4.0)
    np.testing.assert_allclose(fn(x), 3 * x**2)
    with pytest.raises(TypeError):  # vmap then grad: grad of a vector output
        prepare(loaded, "cube", "f32[4]", ["vmap", "grad"]).fn(x)


def test_hessian_and_compose():
    f = compose(lambda x: jnp.sum(x**3), ["hessian"])
    np.testing.assert_allclose(f(jnp.array([1.0, 2.0])), np.diag([6.0, 12.0]))


def test_literal_is_static(loaded):
    prepared = prepare(loaded, "repeat", "f32[3], 3", ["jit"])
    assert prepared.static_values == {1: 3}
    (x,) = example_values(prepared.dynamic_specs)
    jaxpr = jax.make_jaxpr(prepared.fn)(x)
    inner = jaxpr.eqns[0].params["jaxpr"]
    assert [e.primitive.name for e in inner.eqns] == ["mul"] * 3


def test_pytree_argument(loaded):
    prepared = prepare(loaded, "pair", "(f32[3], f32[3]), 2.0", ["grad"])
    a, b = example_values(prepared.dynamic_specs)[0]
    ga, gb = prepared.fn((a, b))
    np.testing.assert_allclose(ga, 2.0 * b, rtol=1e-6)


def test_wrong_arity_and_unknown_transform(loaded):
    with pytest.raises(ArgSpecError, match="cube takes 1 positional argument, the spec gives 2"):
        prepare(loaded, "cube", "f32[3], f32[3]", [])
    with pytest.raises(ArgSpecError, match="repeat takes 2 positional arguments, the spec gives 1"):
        prepare(loaded, "repeat", "f32[3]", [])
    with pytest.raises(UsageError, match="unknown transform 'pmap2'"):
        prepare(loaded, "cube", "f32[3]", ["pmap2"])
