"""Which editor line made an equation (the private traceback API is in ``jax_internals``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from workbench.api import messages as p
from workbench.engine.service import Service
from workbench.engine.source import load_source
from workbench.engine.source_info import defined_in, editor_location, running_at, stopped_at

SOURCE = """\
def inner(x):
    return jnp.sin(x)

def outer(x):
    y = inner(x)
    return y * 2.0

def uses_where(x):
    return jnp.where(x > 0, x, 0.0)
"""
FILENAME = "/some/folder/lesson.py"


@pytest.fixture(scope="module")
def loaded():
    return load_source(SOURCE, FILENAME)


def _eqns(fn, *args):
    return jax.make_jaxpr(fn)(*args).jaxpr.eqns


def test_innermost_editor_frame_wins(loaded):
    sin, mul = _eqns(loaded.function("outer"), jnp.ones(3))
    # The stack holds outer (line 5) and inner (line 2): inner is the innermost.
    assert editor_location(sin.source_info, FILENAME) == ("lesson.py", 2)
    assert editor_location(mul.source_info, FILENAME) == ("lesson.py", 6)


def test_library_equations_take_the_users_line(loaded):
    eqns = _eqns(loaded.function("uses_where"), jnp.ones(3))
    assert [e.primitive.name for e in eqns] == ["gt", "jit"]  # jnp.where is a jitted helper
    for eqn in eqns:
        assert editor_location(eqn.source_info, FILENAME) == ("lesson.py", 9)


def test_frames_of_other_files_are_not_editor_frames(loaded):
    (sin, _) = _eqns(loaded.function("outer"), jnp.ones(3))
    # Only frames compiled under the editor's exact file name count.
    assert editor_location(sin.source_info, "/some/folder/other.py") == (None, None)
    assert editor_location(sin.source_info, "lesson.py") == (None, None)  # full name only
    assert editor_location(sin.source_info.replace(), FILENAME) == ("lesson.py", 2)


def test_no_traceback_means_no_location(loaded):
    from jax._src import source_info_util

    assert editor_location(source_info_util.new_source_info(), FILENAME) == (None, None)
    assert editor_location(None, FILENAME) == (None, None)


def test_defined_in_tells_editor_jaxprs_from_library_ones(loaded):
    closed = jax.make_jaxpr(loaded.function("uses_where"))(jnp.ones(3))
    where_jaxpr = closed.jaxpr.eqns[1].params["jaxpr"].jaxpr
    assert not defined_in(where_jaxpr, FILENAME)
    assert defined_in(closed.jaxpr, FILENAME)
    assert not defined_in(closed.jaxpr, "/elsewhere/lesson.py")


# --------------------------------------------------------------------------- where Stop found it

STOPPABLE = """\
def spin(n):
    if n == 0:
        raise KeyboardInterrupt  # what a Stop raises in the code it interrupts
    return spin(n - 1)

def walk(h, x):
    yield h(x)
    yield abs(x)
"""


def test_a_stop_names_the_innermost_line_of_the_users_code():
    service = Service()
    reply = service.handle(p.LoadSource(source=STOPPABLE + "spin(3)\n", filename=FILENAME))
    assert isinstance(reply, p.Cancelled)
    assert (reply.line, reply.file) == (3, FILENAME)  # spin's, not the call's on line 9
    # A Stop that lands where no user code runs names no line.
    with pytest.raises(KeyboardInterrupt) as caught:
        raise KeyboardInterrupt
    assert stopped_at(caught.value, {FILENAME}) is None


def test_a_running_line_that_calls_a_jitted_function_is_inside_jax():
    # A compiled call runs from the user's line itself, with no frame of JAX's above it;
    # a suspended generator's frame stands for a thread stuck in such a call.
    walker = load_source(STOPPABLE, FILENAME).function("walk")(jax.jit(jnp.sin), 1.0)
    next(walker)
    assert running_at(walker.gi_frame, {FILENAME}) == (FILENAME, 7, True)
    next(walker)
    assert running_at(walker.gi_frame, {FILENAME}) == (FILENAME, 8, False)  # a builtin
    assert running_at(walker.gi_frame, {"other.py"}) == ("", 0, False)
    assert running_at(None, {FILENAME}) == ("", 0, False)
