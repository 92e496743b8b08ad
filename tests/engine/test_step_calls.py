"""What a lesson step calls, read from its code and the namespace after it ran: the function
its trace shows and the arguments it passed (``engine/cells/calls.py``), on the real engine
service and real JAX."""

from __future__ import annotations

import pytest

from workbench.api import messages as p
from workbench.engine.cells.calls import spec_of
from workbench.engine.service import Context, Service

DEFINE = """\
import jax
import jax.numpy as jnp
import numpy as np

x = jnp.ones((10, 15, 3))  # every test's own: none relies on another having run

def f(x):
    return jnp.sum(x ** 2)

def pair(a, b):
    return a * b

def both(t, l):
    return t[0] + l[0]

def first(d):
    return d["a"]

fast = jax.jit(f)
"""


@pytest.fixture(scope="module")
def run():
    service = Service({})
    number = iter(range(1, 1000))

    def step(source: str):
        request = p.LoadSource(source=source, filename=f"nb.ipynb, step {next(number)}",
                               cell=True, keep_names=True)
        reply = service.handle(request, Context(request.id, lambda event: None))
        assert isinstance(reply, p.Result), reply
        return reply.value.call

    step(DEFINE)
    return step


@pytest.mark.parametrize(("code", "name", "args", "line"), [
    ("x = jnp.ones((10, 15, 3))\nprint(f(x))\n", "f", "f32[10,15,3]", 2),
    ("y = np.arange(6, dtype=np.int32)\nf(y)\nz = 1\n", "f", "i32[6]", 2),
    ("dfdx = jax.grad(f)\nv = dfdx(x)\n", "dfdx", "f32[10,15,3]", 2),
    ("fast(3.0)\n", "fast", "f32[]", 1),
    ("pair(x, 2)\n", "pair", "f32[10,15,3], i32[]", 1),
    ("both((x, x), [x, 2.0])\n", "both", "(f32[10,15,3], f32[10,15,3]), [f32[10,15,3], f32[]]",
     1),
    ("t = (x, x)\nboth(t, [x])\n", "both", "(f32[10,15,3], f32[10,15,3]), [f32[10,15,3]]", 2),
    ("f(x)\npair(x, x)\n", "pair", "f32[10,15,3], f32[10,15,3]", 2),
    ("f(x[0])\n", "f", "f32[15,3]", 1),
    ("f(x[:, 1:3, None])\n", "f", "f32[10,2,1,3]", 1),
    ("f(x[..., 0])\n", None, None, None),
    ("def g(q):\n    return f(q)\nf(x)\n", "f", "f32[10,15,3]", 3),
])
def test_the_last_call_of_a_lesson_function_with_its_arguments(run, code, name, args, line):
    call = run(code)
    if name is None:  # an index beyond integers and slices: nothing
        assert call is None
        return
    assert call is not None
    assert (call.name, call.args, call.line) == (name, args, line)
    assert call.function.name == name


@pytest.mark.parametrize("code", [
    "print('no call of ours')\n",
    "f(x=jnp.ones(3))\n",  # keywords: not a spec
    "f(jnp.ones(3))\n",  # an expression: it would run again
    "f(x[x > 0])\n",  # an index that is an expression
    "jnp.sum(x)\n",  # JAX's, not the lesson's
    "%timeit f(x)\n",  # a magic's text is not a call
    "names = {'a': x}\nfirst(names)\n",  # a dict argument: no spec says it
    "def h(q):\n    return f(q)\n",  # defined, not called
])
def test_nothing_is_suggested_where_the_call_cannot_be_read_safely(run, code):
    assert run(code) is None


def test_values_become_specs():
    import jax.numpy as jnp
    import numpy as np

    assert str(spec_of(True)) == "ArraySpec(dtype='bool', shape=())"
    assert spec_of(jnp.zeros((2, 3), jnp.bfloat16)).dtype == "bf16"
    assert spec_of(np.zeros(4, np.float64)).shape == (4,)
    assert spec_of("text") is None and spec_of(object()) is None
    assert spec_of(tuple(range(100))) is None  # long data, not a call to show
