from __future__ import annotations

import traceback

import pytest

from workbench.engine.errors import UsageError, UserCodeError
from workbench.engine.source import check_syntax, load_source

SOURCE = '''\
import functools


def selu(x, alpha=1.67, lmbda=1.05):
    """Scaled exponential linear unit."""
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


@jax.jit
def jitted(x):
    return x * 2


def broken(x):
    return x / undefined_name


helper = functools.partial(selu, alpha=2.0)
'''


def test_lists_editor_functions_in_order():
    loaded = load_source(SOURCE, "act.py")
    names = [f.name for f in loaded.functions]
    assert names == ["selu", "jitted", "broken"]
    selu = loaded.info("selu")
    assert selu.line == 4
    assert selu.signature == "selu(x, alpha=1.67, lmbda=1.05)"
    assert [p.numeric_default for p in selu.params] == [None, 1.67, 1.05]
    assert [p.name for p in selu.positional] == ["x"]
    assert selu.doc == "Scaled exponential linear unit."


def test_namespace_has_the_usual_imports():
    loaded = load_source("y = jnp.ones(2) + np.ones(2)\nz = lax.add(1.0, 2.0)\n")
    assert float(loaded.namespace["y"][0]) == 2.0
    assert float(loaded.namespace["z"]) == 3.0


def test_tracebacks_point_at_editor_lines():
    loaded = load_source(SOURCE, "act.py")
    with pytest.raises(NameError) as err:
        loaded.function("broken")(1.0)
    frames = [f for f in traceback.extract_tb(err.value.__traceback__) if f.filename == "act.py"]
    assert frames[-1].lineno == 15
    assert frames[-1].line == "return x / undefined_name"


def test_unknown_function_lists_known_ones():
    loaded = load_source(SOURCE, "act.py")
    with pytest.raises(UsageError, match=r"unknown function 'nope' in act.py \(functions: selu, "):
        loaded.function("nope")


def test_syntax_error_is_data():
    problem = check_syntax("def f(x):\n    return (x +\n", "s.py")
    assert problem is not None and problem.line == 2 and problem.message
    with pytest.raises(UserCodeError) as err:
        load_source("x = 1\ndef f(:\n    pass\n", "s.py")
    ex = err.value.explanation
    assert (ex.kind, ex.line, ex.file) == ("syntax", 2, "s.py")
    assert ex.column and ex.column > 0


def test_error_while_running_the_module_names_its_line():
    with pytest.raises(UserCodeError) as err:
        load_source("a = 1\nb = a / 0\n", "z.py")
    assert err.value.explanation.line == 2
    assert err.value.explanation.exception_type == "ZeroDivisionError"


def test_shared_namespace_keeps_user_names():
    ns: dict = {"from_console": 41}
    loaded = load_source("def f():\n    return from_console + 1\n", "e.py", namespace=ns)
    assert loaded.function("f")() == 42
    assert "jnp" in ns and ns["f"] is loaded.function("f")
