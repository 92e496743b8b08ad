"""Every request is answered, promptly, whatever the code raises or the message holds."""

from __future__ import annotations

import contextlib
import sys

import pytest

from tests.kernel_util import send_raw
from workbench.api import codec
from workbench.api import messages as p

GOOD = "def f(x):\n    return x * 2\n"
KERNEL_SOURCE = p.LoadSource(source=GOOD)  # for the ``engine`` fixture (tests/conftest.py)


@pytest.fixture
def same_kernel(engine):
    """The kernel must answer in place: same process before and after, no notice."""
    pid = engine.call(p.Ping()).value.pid
    seen = len(engine.notices)
    yield engine
    assert engine.call(p.Ping(), timeout=10).value.pid == pid
    assert engine.notices[seen:] == []


@pytest.mark.parametrize("raise_it,type_name", [
    ("raise GeneratorExit", "GeneratorExit"),
    ("raise BaseException('boom')", "BaseException"),
    ("class Escape(BaseException):\n    pass\nraise Escape()", "Escape"),
])
def test_base_exceptions_in_the_source_are_errors_of_the_code(same_kernel, raise_it, type_name):
    reply = same_kernel.call(p.LoadSource(source=GOOD + raise_it + "\n"), timeout=10)
    assert isinstance(reply, p.UserCodeFailure), reply
    assert reply.explanation.exception_type == type_name
    assert reply.explanation.line == GOOD.count("\n") + raise_it.count("\n") + 1


@pytest.mark.parametrize("call,status", [
    ("import sys\nsys.exit(3)", "exit status 3"),
    ("exit()", "exit status None"),
    ("raise SystemExit('bye')", "exit status 'bye'"),
])
def test_sys_exit_in_the_source_is_an_error_not_the_engines_end(same_kernel, call, status):
    reply = same_kernel.call(p.LoadSource(source=GOOD + call + "\n"), timeout=10)
    assert isinstance(reply, p.UserCodeFailure), reply
    assert reply.explanation.kind == "exit"
    assert status in reply.explanation.specifics
    assert reply.explanation.line == GOOD.count("\n") + call.count("\n") + 1


def test_sys_exit_inside_a_traced_function_is_an_error_of_that_function(same_kernel):
    source = "import sys\ndef g(x):\n    sys.exit(2)\n"
    assert isinstance(same_kernel.call(p.LoadSource(source=source)), p.Result)
    reply = same_kernel.call(p.Trace(name="g", args="f32[3]"), timeout=10)
    assert isinstance(reply, p.UserCodeFailure), reply
    assert reply.explanation.kind == "exit" and reply.explanation.line == 3


def test_infinitely_recursive_function_is_answered_promptly(same_kernel):
    source = "def g(x):\n    return jnp.sin(g(x))\n"
    assert isinstance(same_kernel.call(p.LoadSource(source=source)), p.Result)
    reply = same_kernel.call(p.Trace(name="g", args="f32[3]", transforms=("grad",)), timeout=10)
    assert isinstance(reply, p.UserCodeFailure), reply
    assert reply.explanation.exception_type == "RecursionError"


def test_unknown_protocol_version_is_answered_and_named(same_kernel):
    data, buffers = codec.encode(p.Ping(id="v99"))
    data["protocol"] = 99
    reply = send_raw(same_kernel.client, data, buffers, rid="v99")
    assert isinstance(reply, p.UsageFailure)
    assert "protocol version 99" in reply.message and "speaks protocol 2" in reply.message


@contextlib.contextmanager
def _deep_json():
    """Our own JSON encoder refuses 1000 levels at Python's default recursion limit."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def test_message_nested_500_levels_is_answered(same_kernel):
    deep: object = 1
    for _ in range(500):
        deep = {"$list": [deep]}
    data = {"protocol": p.PROTOCOL_VERSION,
            "body": {"$type": "Ping", "fields": {"id": "deep", "x": deep}}}
    with _deep_json():
        reply = send_raw(same_kernel.client, data, rid="deep")
    assert isinstance(reply, p.UsageFailure)
    assert "nested" in reply.message


@pytest.mark.parametrize("field,value,words", [
    ("transforms", 5, "Trace.transforms must be a tuple"),
    ("transforms", {"$tuple": ["warp"]}, "one of 'jit'"),
    ("args", {"$list": []}, "Trace.args must be str"),
    ("name", None, "Trace.name must be str"),
])
def test_a_field_of_the_wrong_type_is_a_usage_error_naming_it(same_kernel, field, value, words):
    data, buffers = codec.encode(p.Trace(id="typed", name="f", args="f32[3]"))
    data["body"]["fields"][field] = value
    reply = send_raw(same_kernel.client, data, buffers, rid="typed")
    assert isinstance(reply, p.UsageFailure), reply
    assert words in reply.message
