"""The service in-process, and the protocol's encoding (arrays as buffers, no pickle)."""

from __future__ import annotations

import pytest

from tests.codec_util import roundtrip
from workbench.api import messages as p
from workbench.api.printed import Printed
from workbench.engine.service import Service

SELU = (
    "def selu(x, alpha=1.67, lmbda=1.05):\n"
    "    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)\n"
)


@pytest.fixture
def service():
    s = Service()
    assert isinstance(s.handle(p.LoadSource(source=SELU)), p.Result)
    return s


def test_load_and_list_functions(service):
    reply = service.handle(p.ListFunctions(id="r1"))
    assert reply.id == "r1"
    assert [f.name for f in reply.value.functions] == ["selu"]


def test_trace_reply_survives_the_wire(service):
    reply = service.handle(p.Trace(name="selu", args="f32[8]", transforms=("jit",)))
    assert isinstance(reply, p.Result)
    assert roundtrip(reply) == reply
    assert "pjit" in reply.value.text or "jit" in reply.value.text


def test_devices_reply_survives_the_wire(service):
    reply = service.handle(p.Devices())
    assert roundtrip(reply) == reply


def test_errors_become_replies_never_exceptions(service):
    syntax = service.handle(p.LoadSource(source="def f(:\n"))
    assert isinstance(syntax, p.UserCodeFailure) and syntax.explanation.kind == "syntax"
    raised = service.handle(p.LoadSource(source="x = 1\n1 / 0\n"))
    assert isinstance(raised, p.UserCodeFailure) and raised.explanation.line == 2
    unknown = service.handle(p.Trace(name="nope", args="f32[3]"))
    assert isinstance(unknown, p.UsageFailure) and "selu" in unknown.message
    bad_spec = service.handle(p.Trace(name="selu", args="f32[3"))
    assert isinstance(bad_spec, p.UsageFailure)
    assert isinstance(service.handle(p.Request()), p.UsageFailure)  # no handler for it
    assert isinstance(service.handle("not a request"), p.UsageFailure)
    stopped = service.handle(p.LoadSource(source="raise KeyboardInterrupt\n"))
    assert isinstance(stopped, p.Cancelled)
    # The last good source is still the loaded one.
    assert [f.name for f in service.handle(p.ListFunctions()).value.functions] == ["selu"]


def test_nothing_loaded_is_a_usage_failure():
    assert isinstance(Service().handle(p.ListFunctions()), p.UsageFailure)


def test_shared_namespace_forgets_a_renamed_function():
    ns: dict = {}
    s = Service(ns)
    s.handle(p.LoadSource(source="def f(x):\n    return x\n"))
    ns["typed_in_console"] = 1
    reply = s.handle(p.LoadSource(source="def g(x):\n    return x\n"))
    assert [f.name for f in reply.value.functions] == ["g"]
    assert "f" not in ns and "g" in ns and ns["typed_in_console"] == 1


def test_memory_limit_settings(monkeypatch):
    from workbench.engine.kernel import accelerator_present, parse_memory_limit, total_memory

    assert parse_memory_limit("off") is None
    assert parse_memory_limit("8G") == 8 * 2**30
    assert parse_memory_limit("0.5") == int(0.5 * total_memory())
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    assert not accelerator_present()
    assert parse_memory_limit("auto") == max(int(total_memory() * 0.75), 4 * 2**30)


TUTORIAL = (
    "print('loading')\n"
    "@jax.jit\n"
    "def new_function(x):\n"
    "    print('Function is compiling. X has shape:', x.shape)\n"
    "    return x * 2\n"
    "def chatty(x):\n"
    "    for i in range(100_000):\n"
    "        print('a long line printed while tracing', i)\n"
    "    return x\n"
)


def test_what_the_code_prints_comes_back_with_the_load_and_the_trace():
    """Printed once under jit, while tracing: a second trace of the same shape reuses it."""
    service = Service()
    reply = service.handle(p.LoadSource(source=TUTORIAL,
                                        trace=p.Trace(name="new_function", args="f32[4]")))
    assert isinstance(reply, p.Result) and roundtrip(reply) == reply
    assert reply.value.printed == Printed("loading\n")
    traced = reply.value.trace
    assert isinstance(traced, p.Result)
    assert traced.value.printed.text == "Function is compiling. X has shape: (4,)\n"
    again = service.handle(p.Trace(name="new_function", args="f32[4]"))
    assert again.value.printed == Printed()
    wider = service.handle(p.Trace(name="new_function", args="f32[8]"))
    assert wider.value.printed.text == "Function is compiling. X has shape: (8,)\n"


def test_megabytes_printed_while_tracing_are_capped():
    from workbench.api.limits import MAX_OUTPUT_CHARS

    service = Service()
    service.handle(p.LoadSource(source=TUTORIAL))
    reply = service.handle(p.Trace(name="chatty", args="f32[2]"))
    printed = reply.value.printed
    assert len(printed.text) == MAX_OUTPUT_CHARS and printed.truncated
    assert printed.dropped == sum(len(f"a long line printed while tracing {i}\n")
                                  for i in range(100_000)) - MAX_OUTPUT_CHARS
    assert printed.shown().endswith(f"[output truncated: {printed.dropped:,} more characters "
                                    "not shown]\n")
    assert roundtrip(reply) == reply
